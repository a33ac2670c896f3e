package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/client"
	"github.com/gpunex/gpunex/agent/gpu"
	"github.com/gpunex/gpunex/agent/protocol"
)

func TestNew_RequiresItsOptions(t *testing.T) {
	t.Parallel()
	_, err := client.New(client.Options{})
	require.ErrorContains(t, err, "Server, Token, MachineID, Detector, DataDir")

	b := setup(t)
	b.opts.Server = "ftp://example.com"
	_, err = client.New(b.opts)
	require.ErrorContains(t, err, "http(s)")
}

func TestHeartbeat_ErrorsAreTyped(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		desc      string
		reply     *reply
		code      string
		retryable bool
		unauth    bool
		message   string
	}{
		{"503 without a body", &reply{Status: http.StatusServiceUnavailable, Body: "down"}, "", true, false, "Service Unavailable"},
		{"502 from a proxy", &reply{Status: http.StatusBadGateway, Body: "<html>bad gateway</html>", Header: map[string]string{"Content-Type": "text/html"}}, "", true, false, "Bad Gateway"},
		{"RATE_LIMITED", gqlError(http.StatusOK, "RATE_LIMITED", "too many heartbeats"), "RATE_LIMITED", true, false, "too many heartbeats"},
		{"429 without a code", &reply{Status: http.StatusTooManyRequests, Body: "slow down"}, "RATE_LIMITED", true, false, ""},
		{"INTERNAL", gqlError(http.StatusOK, "INTERNAL", "internal error"), "INTERNAL", true, false, "internal error"},
		{"UNAUTHENTICATED over 401", gqlError(http.StatusUnauthorized, "UNAUTHENTICATED", "the agent token was revoked"), "UNAUTHENTICATED", false, true, "create a new agent token"},
		{"401 without a body", &reply{Status: http.StatusUnauthorized, Body: "no"}, "UNAUTHENTICATED", false, true, "create a new agent token"},
		{"FORBIDDEN", gqlError(http.StatusOK, "FORBIDDEN", "machine belongs to another provider"), "FORBIDDEN", false, false, "another provider"},
		{"a 500 that says UNAUTHENTICATED is still final", gqlError(http.StatusInternalServerError, "UNAUTHENTICATED", "revoked"), "UNAUTHENTICATED", false, true, "revoked"},
		{"validation error", gqlError(http.StatusUnprocessableEntity, "GRAPHQL_VALIDATION_FAILED", "Cannot query field"), "GRAPHQL_VALIDATION_FAILED", false, false, "Cannot query field"},
		{"200 that is not GraphQL", &reply{Status: http.StatusOK, Body: "<html>captive portal</html>", Header: map[string]string{"Content-Type": "text/html"}}, "", true, false, "not GraphQL"},
		{"a redirect", &reply{Status: http.StatusMovedPermanently, Body: "", Header: map[string]string{"Location": "https://gpunex.example.com/graphql"}}, "", false, false, "set --server"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			b.server.setHook(func(request) *reply { return tc.reply })
			c, err := client.New(b.opts)
			require.NoError(t, err)
			defer c.Close()
			_, err = c.Heartbeat(context.Background(), protocol.HeartbeatInput{MachineID: "machine-under-test", At: &t0, Gpus: []protocol.GpuTelemetry{}})
			var e *client.Error
			require.ErrorAs(t, err, &e)
			require.Equal(t, "heartbeat", e.Op)
			require.Equal(t, tc.code, e.Code)
			require.Equal(t, tc.retryable, e.Retryable())
			require.Equal(t, tc.unauth, errors.Is(err, client.ErrUnauthenticated))
			require.Contains(t, err.Error(), tc.message)
		})
	}
}

// The server says what happened to a revoked token, the agent says how to
// fix it: the log names the dashboard's page once, by the name the SPA
// gives it.
func TestHeartbeat_ARevokedTokenIsExplainedOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.server.setHook(func(request) *reply {
		return gqlError(http.StatusUnauthorized, "UNAUTHENTICATED", "the agent token was revoked")
	})
	c, err := client.New(b.opts)
	require.NoError(t, err)
	defer c.Close()
	_, err = c.Heartbeat(context.Background(), protocol.HeartbeatInput{MachineID: "machine-under-test", At: &t0, Gpus: []protocol.GpuTelemetry{}})
	require.ErrorIs(t, err, client.ErrUnauthenticated)
	require.Equal(t, 1, strings.Count(err.Error(), "Agent tokens page"), err.Error())
	require.Equal(t, 1, strings.Count(err.Error(), "create"), err.Error())
	require.Contains(t, err.Error(), "the agent token was revoked")
}

func TestHeartbeat_UserErrorsAreARejectedError(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.server.setHook(func(request) *reply {
		return &reply{Body: map[string]any{"data": map[string]any{"heartbeat": map[string]any{
			"accepted": false, "status": nil, "intervalSeconds": 10, "commands": []any{},
			"userErrors": []any{
				map[string]any{"field": "input.gpus.0.utilizationPct", "message": "must be between 0 and 100", "code": "INVALID"},
				map[string]any{"field": "input.gpus", "message": "at most 64 GPUs", "code": "TOO_MANY"},
			},
		}}}}
	})
	c, err := client.New(b.opts)
	require.NoError(t, err)
	defer c.Close()
	_, err = c.Heartbeat(context.Background(), protocol.HeartbeatInput{MachineID: "machine-under-test", At: &t0, Gpus: []protocol.GpuTelemetry{}})
	var rej *client.RejectedError
	require.ErrorAs(t, err, &rej)
	require.Equal(t, []protocol.UserError{
		{Field: "input.gpus.0.utilizationPct", Message: "must be between 0 and 100", Code: "INVALID"},
		{Field: "input.gpus", Message: "at most 64 GPUs", Code: "TOO_MANY"},
	}, rej.UserErrors)
	require.ErrorContains(t, err, "input.gpus.0.utilizationPct: must be between 0 and 100 (INVALID)")
}

func TestHeartbeat_ReturnsTheAnswer(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.server.setHook(func(request) *reply {
		return heartbeatOK(15, command("7", protocol.CommandRunBenchmark, `{"gpuUuids":["GPU-1"]}`))
	})
	c, err := client.New(b.opts)
	require.NoError(t, err)
	defer c.Close()
	res, err := c.Heartbeat(context.Background(), protocol.HeartbeatInput{MachineID: "machine-under-test", At: &t0, Gpus: []protocol.GpuTelemetry{}})
	require.NoError(t, err)
	require.True(t, res.Accepted)
	require.Equal(t, "ONLINE", res.Status)
	require.Equal(t, 15*time.Second, res.Interval)
	require.Len(t, res.Commands, 1)
	require.Equal(t, protocol.CommandRunBenchmark, res.Commands[0].Kind)
	require.JSONEq(t, `{"gpuUuids":["GPU-1"]}`, string(res.Commands[0].Payload))
	var sent struct {
		At string `json:"at"`
	}
	require.NoError(t, json.Unmarshal(b.server.heartbeats(0)[0].Input, &sent))
	require.Equal(t, t0.Format(time.RFC3339), sent.At, "at is RFC 3339")
}

func TestRegister_RejectedInputStopsRun(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.server.setHook(func(request) *reply {
		return &reply{Body: map[string]any{"data": map[string]any{"registerMachine": map[string]any{
			"machine": nil, "heartbeatIntervalSeconds": 10,
			"userErrors": []any{map[string]any{"field": "input.hostname", "message": "is required", "code": "REQUIRED"}},
		}}}}
	})
	r := b.start(t)
	err := r.wait(t)
	var rej *client.RejectedError
	require.ErrorAs(t, err, &rej)
	require.ErrorContains(t, err, "input.hostname: is required")
	require.Len(t, b.server.all(), 1, "a refused registration is not retried")
}

func TestRegister_ForbiddenStopsRun(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.server.setHook(func(request) *reply {
		return gqlError(http.StatusOK, "FORBIDDEN", "machine id is registered by another provider")
	})
	err := b.start(t).wait(t)
	require.ErrorContains(t, err, "machine-id file")
	require.ErrorContains(t, err, "another provider")
}

func TestRegister_RetriesWhileNoGPUCanBeRead(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.opts.Detector = gpu.Unavailable{Err: errors.New("nvml: driver not loaded")}
	r := b.start(t)
	waitFor(t, "3 retries", func() bool { return len(b.recordedSleeps()) >= 3 })
	require.NoError(t, r.stop(t))
	require.Empty(t, b.server.all(), "nothing is registered without an inventory")
	require.Contains(t, b.logs.String(), "driver not loaded")
}

// Issue 26: the registration carries what Options.Host reads of the host,
// in the schema's HostFactsInput (the fake server validates the variables
// against the schema); without Host, the field is left out, as an agent
// before issue 26 sends it.
func TestRegister_SendsTheHostFacts(t *testing.T) {
	t.Parallel()
	model, cores, ram, disk, free := "AMD EPYC 9654 96-Core Processor", 192, 1536.0*(1<<30), 7.68e12, 6.1e12
	for _, tc := range []struct {
		desc string
		host func() *protocol.HostFacts
		want *protocol.HostFacts
	}{
		{"the host read", func() *protocol.HostFacts {
			return &protocol.HostFacts{CPUModel: &model, CPUCores: &cores, RAMBytes: &ram, DiskBytes: &disk, DiskFreeBytes: &free}
		}, &protocol.HostFacts{CPUModel: &model, CPUCores: &cores, RAMBytes: &ram, DiskBytes: &disk, DiskFreeBytes: &free}},
		{"no reader", nil, nil},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			b.opts.Host = tc.host
			c, err := client.New(b.opts)
			require.NoError(t, err)
			defer c.Close()
			_, err = c.Register(context.Background())
			require.NoError(t, err)
			reqs := b.server.all()
			require.Len(t, reqs, 1)
			require.Equal(t, http.StatusOK, reqs[0].Status, "the schema takes the variables")
			var sent struct {
				Host json.RawMessage `json:"host"`
			}
			require.NoError(t, json.Unmarshal(reqs[0].Input, &sent))
			if tc.want == nil {
				require.Nil(t, sent.Host, "no host field at all")
				return
			}
			var got protocol.HostFacts
			require.NoError(t, json.Unmarshal(sent.Host, &got))
			require.Equal(t, *tc.want, got)
		})
	}
}
