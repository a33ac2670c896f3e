package client_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/client"
	"github.com/gpunex/gpunex/agent/protocol"
)

// unavailable is the server's answer while a dependency of the platform
// (its database, Redis) is out of reach: UNAVAILABLE with a retry hint.
func unavailable(status int, header map[string]string) *reply {
	return &reply{Status: status, Header: header, Body: map[string]any{"errors": []any{map[string]any{
		"message":    "a service the platform depends on is briefly unavailable; retry shortly",
		"extensions": map[string]any{"code": "UNAVAILABLE", "retryAfterSeconds": 5},
	}}}}
}

// An UNAVAILABLE answer is retryable and asks for its wait: the
// Retry-After header when there is one, extensions.retryAfterSeconds
// otherwise.
func TestHeartbeat_UnavailableIsRetryableAfterTheServersWait(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		desc  string
		reply *reply
		after time.Duration
	}{
		{desc: "over 200, retryAfterSeconds", reply: unavailable(http.StatusOK, nil), after: 5 * time.Second},
		{desc: "over 503, the Retry-After header wins", reply: unavailable(http.StatusServiceUnavailable, map[string]string{"Retry-After": "7"}), after: 7 * time.Second},
		{desc: "over 503 without Retry-After, retryAfterSeconds", reply: unavailable(http.StatusServiceUnavailable, nil), after: 5 * time.Second},
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
			require.Equal(t, client.CodeUnavailable, e.Code)
			require.Equal(t, "UNAVAILABLE", e.Code)
			require.True(t, e.Retryable())
			require.Equal(t, tc.after, e.RetryAfter)
			require.Contains(t, err.Error(), "briefly unavailable")
		})
	}
}

// The run loop keeps an UNAVAILABLE heartbeat and sends it again, as it
// was, after the wait the server asked for (longer than the first
// backoff); it is not dropped.
func TestRun_UnavailableHeartbeatWaitsRetryAfterSecondsAndIsReplayed(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.server.setHook(func(r request) *reply {
		if r.Operation == "Heartbeat" && r.N == 2 {
			return unavailable(http.StatusOK, nil)
		}
		return nil
	})
	r := b.start(t)
	waitFor(t, "4 delivered heartbeats", func() bool { return len(b.server.heartbeats(http.StatusOK)) >= 5 })
	require.NoError(t, r.stop(t))
	hbs := b.server.heartbeats(0)
	require.Equal(t, hbs[1].at(t), hbs[2].at(t), "the heartbeat answered UNAVAILABLE is sent again as it was")
	require.Equal(t, 5*time.Second, hbs[2].ClockAt.Sub(hbs[1].ClockAt), "after retryAfterSeconds, not the shorter backoff")
	delivered := append([]request{hbs[0]}, hbs[2:]...)
	got := ats(t, live(t, delivered))
	require.Equal(t, every(t0, 10*time.Second, len(got)), got, "none is lost")
	require.NotContains(t, b.logs.String(), "it is dropped")
}
