package client_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/client"
	"github.com/gpunex/gpunex/agent/protocol"
)

// benchResult is a small but complete result, every section filled.
func benchResult() protocol.BenchmarkResultInput {
	v := 61.7
	gen := 5
	return protocol.BenchmarkResultInput{
		RunID: "run-1", MachineID: "machine-under-test",
		StartedAt: t0, FinishedAt: t0.Add(time.Minute), Simulated: true,
		Gpus: []protocol.GpuBenchResult{
			{UUID: "GPU-a", Outcome: protocol.BenchCompleted,
				Measurements: []protocol.BenchMeasurement{{Metric: protocol.MetricFP32, Supported: true, Median: &v, Min: &v, Max: &v, Repetitions: 10}},
				Evidence:     &protocol.GpuBenchEvidence{Samples: 3, ThrottleReasons: []string{"sw_power_cap"}, ThrottledShare: 0.5, PcieGeneration: &gen}},
			{UUID: "GPU-b", Outcome: protocol.BenchPostponed, Error: ptrTo("GPU_BUSY: job j-1"), Measurements: []protocol.BenchMeasurement{}},
		},
		Network: &protocol.BenchSection{Outcome: protocol.BenchFailed, Error: ptrTo("HTTP 429"), Measurements: []protocol.BenchMeasurement{}},
		Storage: &protocol.BenchSection{Outcome: protocol.BenchCompleted, Measurements: []protocol.BenchMeasurement{{Metric: protocol.MetricStorageWrite, Supported: true, Median: &v, Repetitions: 1}}},
	}
}

func ptrTo[T any](v T) *T { return &v }

func submitted(accepted bool, userErrors ...map[string]any) *reply {
	if userErrors == nil {
		userErrors = []map[string]any{}
	}
	return &reply{Body: map[string]any{"data": map[string]any{"submitBenchmarkResult": map[string]any{
		"accepted": accepted, "userErrors": userErrors,
	}}}}
}

func TestSubmitBenchmarkSendsTheOperationWithTheResultAsInput(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.server.setHook(func(r request) *reply { return submitted(true) })
	c, err := client.New(b.opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })

	in := benchResult()
	a, err := c.SubmitBenchmark(context.Background(), in)
	require.NoError(t, err)
	require.True(t, a.Accepted)

	reqs := b.server.all()
	require.Len(t, reqs, 1, "the fake server validated it against the schema")
	require.Equal(t, protocol.SubmitBenchmarkResultOperation, reqs[0].Operation)
	require.Equal(t, protocol.SubmitBenchmarkResultMutation, reqs[0].Query)
	require.Equal(t, "Bearer "+b.token, reqs[0].Header.Get("Authorization"))
	var got protocol.BenchmarkResultInput
	require.NoError(t, json.Unmarshal(reqs[0].Input, &got))
	require.Equal(t, in, got)
}

func TestSubmitBenchmarkRetriesTransientFailuresButNotRefusals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc     string
		answers  []*reply
		requests int
		accepted bool
		err      string
	}{
		{"a 503 then accepted", []*reply{gqlError(http.StatusServiceUnavailable, "", "down"), submitted(true)}, 2, true, ""},
		{"rate-limited then accepted", []*reply{gqlError(http.StatusTooManyRequests, "RATE_LIMITED", "slow down"), submitted(true)}, 2, true, ""},
		{"userErrors are not retried", []*reply{submitted(false, map[string]any{"field": "input.gpus", "message": "bad", "code": "INVALID"})}, 1, false,
			"input.gpus: bad (INVALID)"},
		{"a refused token is not retried", []*reply{gqlError(http.StatusUnauthorized, "UNAUTHENTICATED", "no")}, 1, false, "UNAUTHENTICATED"},
		{"a duplicate after a lost answer counts as stored", []*reply{gqlError(http.StatusBadGateway, "", "lost"),
			submitted(false, map[string]any{"field": "input.runId", "message": "already stored", "code": "DUPLICATE"})}, 2, true, ""},
		{"gives up after a few tries", []*reply{gqlError(500, "INTERNAL", "x"), gqlError(500, "INTERNAL", "x"), gqlError(500, "INTERNAL", "x"),
			gqlError(500, "INTERNAL", "x"), submitted(true)}, 4, false, "INTERNAL"},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			b.server.setHook(func(r request) *reply { return tc.answers[r.N-1] })
			c, err := client.New(b.opts)
			require.NoError(t, err)
			t.Cleanup(func() { _ = c.Close() })

			a, err := c.SubmitBenchmark(context.Background(), benchResult())
			require.Len(t, b.server.all(), tc.requests)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.accepted, a.Accepted)
			require.Len(t, b.recordedSleeps(), tc.requests-1, "a backoff before each retry")
		})
	}
}

func TestPlatformRequestsCarryTheTokenAndMachineIDToThePath(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var got *http.Request
	b.opts.HTTPClient = &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		got = r
		return &http.Response{StatusCode: 200, Body: io.NopCloser(http.NoBody), Header: http.Header{}}, nil
	})}
	c, err := client.New(b.opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })

	req, err := c.NewPlatformRequest(context.Background(), http.MethodGet, protocol.BenchDownloadPath+"?bytes=10", nil)
	require.NoError(t, err)
	resp, err := c.DoPlatform(req)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, b.server.srv.URL+"/agent/bench/download?bytes=10", got.URL.String())
	require.Equal(t, "Bearer "+b.token, got.Header.Get("Authorization"))
	require.Equal(t, "machine-under-test", got.Header.Get(protocol.BenchMachineHeader))

	_, err = c.NewPlatformRequest(context.Background(), http.MethodGet, "agent/bench/ping", nil)
	require.ErrorContains(t, err, "must start with /")
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// A run's progress is one mutation per part, valid against the schema,
// sent once: a refusal comes back as a *RejectedError, a failure is not
// retried (the result that follows carries everything).
func TestReportBenchmarkProgressSendsOncePerPart(t *testing.T) {
	t.Parallel()
	b := setup(t)
	answers := []*reply{
		{Body: map[string]any{"data": map[string]any{"reportBenchmarkProgress": map[string]any{"accepted": true, "userErrors": []map[string]any{}}}}},
		{Body: map[string]any{"data": map[string]any{"reportBenchmarkProgress": map[string]any{"accepted": false,
			"userErrors": []map[string]any{{"field": "input.runId", "message": "this run is over", "code": "INVALID_STATE"}}}}}},
		gqlError(http.StatusServiceUnavailable, "", "down"),
	}
	b.server.setHook(func(r request) *reply {
		a := answers[0]
		answers = answers[1:]
		return a
	})
	c, err := client.New(b.opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })

	in := protocol.BenchmarkProgressInput{RunID: "run-1", MachineID: "machine-under-test", Part: protocol.BenchPartGPU, GpuUUID: "GPU-a", Outcome: protocol.BenchCompleted}
	require.NoError(t, c.ReportBenchmarkProgress(context.Background(), in))
	var rejected *client.RejectedError
	require.ErrorAs(t, c.ReportBenchmarkProgress(context.Background(), in), &rejected)
	require.Equal(t, "INVALID_STATE", rejected.UserErrors[0].Code)
	require.Error(t, c.ReportBenchmarkProgress(context.Background(), in), "a 503 is not retried")

	reqs := b.server.all()
	require.Len(t, reqs, 3, "three reports, three requests: none retried; each valid against the schema")
	require.Equal(t, protocol.ReportBenchmarkProgressOperation, reqs[0].Operation)
	var got protocol.BenchmarkProgressInput
	require.NoError(t, json.Unmarshal(reqs[0].Input, &got))
	require.Equal(t, in, got)
}
