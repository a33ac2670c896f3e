package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/client"
	"github.com/gpunex/gpunex/agent/protocol"
)

func reported(accepted, stop bool, userErrors ...map[string]any) *reply {
	if userErrors == nil {
		userErrors = []map[string]any{}
	}
	return &reply{Body: map[string]any{"data": map[string]any{"reportJobStatus": map[string]any{
		"accepted": accepted, "stop": stop, "userErrors": userErrors,
	}}}}
}

func failedReport() protocol.ReportJobStatusInput {
	cause := protocol.CauseCustomer
	return protocol.ReportJobStatusInput{
		MachineID: "machine-under-test", JobID: "rental-1", State: protocol.JobFailed, At: t0,
		Cause: &cause, Message: ptrTo("the job exited with code 3"), ExitCode: ptrTo(3), LogTail: ptrTo("epoch 1\nboom\n"),
	}
}

func TestReportJobStatusSendsTheOperationWithTheReportAsInput(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.server.setHook(func(r request) *reply { return reported(true, true) })
	c, err := client.New(b.opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })

	in := failedReport()
	a, err := c.ReportJobStatus(context.Background(), in)
	require.NoError(t, err)
	require.True(t, a.Accepted)
	require.True(t, a.Stop, "the server's stop reaches the caller")

	reqs := b.server.all()
	require.Len(t, reqs, 1, "the fake server validated it against the schema")
	require.Equal(t, protocol.ReportJobStatusOperation, reqs[0].Operation)
	require.Equal(t, protocol.ReportJobStatusMutation, reqs[0].Query)
	require.Equal(t, "Bearer "+b.token, reqs[0].Header.Get("Authorization"))
	var got protocol.ReportJobStatusInput
	require.NoError(t, json.Unmarshal(reqs[0].Input, &got))
	require.Equal(t, in, got)
}

func TestReportJobStatusRetriesTransientFailuresButNotRefusals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc     string
		answers  []*reply
		requests int
		err      string
	}{
		{"a 503 then accepted", []*reply{gqlError(http.StatusServiceUnavailable, "", "down"), reported(true, false)}, 2, ""},
		{"rate-limited then accepted", []*reply{gqlError(http.StatusTooManyRequests, "RATE_LIMITED", "slow down"), reported(true, false)}, 2, ""},
		{"userErrors are not retried", []*reply{reported(false, false, map[string]any{"field": "input.jobId", "message": "no such job", "code": "NOT_FOUND"})}, 1,
			"input.jobId: no such job (NOT_FOUND)"},
		{"a refused token is not retried", []*reply{gqlError(http.StatusUnauthorized, "UNAUTHENTICATED", "no")}, 1, "UNAUTHENTICATED"},
		{"gives up after a few tries", []*reply{gqlError(500, "INTERNAL", "x"), gqlError(500, "INTERNAL", "x"), gqlError(500, "INTERNAL", "x"),
			reported(true, false)}, 3, "INTERNAL"},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			b.server.setHook(func(r request) *reply { return tc.answers[r.N-1] })
			c, err := client.New(b.opts)
			require.NoError(t, err)
			t.Cleanup(func() { _ = c.Close() })

			a, err := c.ReportJobStatus(context.Background(), failedReport())
			require.Len(t, b.server.all(), tc.requests)
			require.Len(t, b.recordedSleeps(), tc.requests-1, "a backoff before each retry")
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				var rej *client.RejectedError
				if errors.As(err, &rej) {
					require.NotNil(t, a, "a refusal comes with the answer")
				}
				return
			}
			require.NoError(t, err)
			require.True(t, a.Accepted)
		})
	}
}
