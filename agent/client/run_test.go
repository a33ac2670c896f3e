package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/gpunex/gpunex/agent/client"
	"github.com/gpunex/gpunex/agent/gpu"
	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/await"
)

func TestRun_RegistersThenHeartbeatsAtTheServerInterval(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.server.interval = 7
	r := b.start(t)
	waitFor(t, "5 heartbeats", func() bool { return len(b.server.heartbeats(http.StatusOK)) >= 5 })
	require.NoError(t, r.stop(t))

	all := b.server.all()
	require.Equal(t, "RegisterMachine", all[0].Operation, "registration comes first")
	var reg protocol.RegisterMachineInput
	require.NoError(t, json.Unmarshal(all[0].Input, &reg))
	require.Equal(t, "machine-under-test", reg.MachineID)
	require.Equal(t, "rig-01", reg.Hostname)
	require.Equal(t, "9.9.9-test", reg.AgentVersion)
	inventory, err := b.detector.Inventory(context.Background())
	require.NoError(t, err)
	require.Len(t, reg.Gpus, len(inventory))
	for i, d := range inventory {
		g := reg.Gpus[i]
		require.Equal(t, d.UUID, g.UUID)
		require.Equal(t, d.Index, g.Index)
		require.Equal(t, d.Name, g.Name)
		require.Equal(t, float64(*d.VRAMBytes), *g.VRAMBytes)
		require.Equal(t, d.PCIBusID, *g.PCIBusID)
		require.Equal(t, d.DriverVersion, *g.DriverVersion)
		require.Equal(t, d.CUDADriverVersion, *g.CUDADriverVersion)
		require.Equal(t, *d.PowerLimitW, *g.PowerLimitW)
		require.True(t, g.Simulated, "simulated GPUs say so")
	}

	hbs := live(t, b.server.heartbeats(http.StatusOK))
	got := ats(t, hbs)
	require.Equal(t, every(t0, 7*time.Second, len(got)), got, "the first heartbeat right after registering, then every 7 s")
	for _, h := range hbs {
		in := h.heartbeat(t)
		require.Equal(t, "machine-under-test", in.MachineID)
		require.Len(t, in.Gpus, 2)
		for i, g := range in.Gpus {
			require.Equal(t, inventory[i].UUID, g.UUID)
			require.NotNil(t, g.UtilizationPct)
			require.NotNil(t, g.MemoryUsedBytes)
			require.NotNil(t, g.TemperatureC)
			require.NotNil(t, g.PowerDrawW)
			require.NotNil(t, g.SMClockMHz)
			require.NotEmpty(t, g.RecentUtilizationPct)
		}
	}
}

func TestRun_QueryTextNeverChanges(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var down sync.Mutex
	failing := false
	b.server.setHook(func(r request) *reply {
		down.Lock()
		defer down.Unlock()
		if r.Operation == "Heartbeat" && r.N == 3 {
			failing = true
		}
		if failing && r.Operation == "Heartbeat" && r.N == 6 {
			failing = false
		}
		if failing {
			return &reply{Status: http.StatusServiceUnavailable, Body: "down"}
		}
		return nil
	})
	r := b.start(t)
	waitFor(t, "heartbeats after an outage", func() bool { return len(b.server.heartbeats(http.StatusOK)) >= 10 })
	require.NoError(t, r.stop(t))

	for _, req := range b.server.all() {
		switch req.Operation {
		case "RegisterMachine":
			require.Equal(t, protocol.RegisterMachineMutation, req.Query)
		case "Heartbeat":
			require.Equal(t, protocol.HeartbeatMutation, req.Query, "live, replayed and last heartbeats share one text")
		default:
			t.Fatalf("unexpected operation %q", req.Operation)
		}
	}
	require.True(t, b.server.heartbeats(0)[len(b.server.heartbeats(0))-1].goingOffline(t))
}

func TestRun_SendsTheTokenAsBearer(t *testing.T) {
	t.Parallel()
	b := setup(t)
	r := b.start(t)
	waitFor(t, "2 heartbeats", func() bool { return len(b.server.heartbeats(http.StatusOK)) >= 2 })
	require.NoError(t, r.stop(t))
	for _, req := range b.server.all() {
		require.Equal(t, "Bearer "+b.token, req.Header.Get("Authorization"))
		require.Equal(t, "application/json", req.Header.Get("Content-Type"))
		require.Equal(t, "gpunex-agent/9.9.9-test", req.Header.Get("User-Agent"))
	}
}

func TestRun_IntervalChangesWithTheHeartbeatAnswer(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.server.setHook(func(r request) *reply {
		if r.Operation == "Heartbeat" && r.N >= 3 {
			return heartbeatOK(30)
		}
		return nil
	})
	r := b.start(t)
	waitFor(t, "5 heartbeats", func() bool { return len(b.server.heartbeats(http.StatusOK)) >= 5 })
	require.NoError(t, r.stop(t))
	got := gaps(ats(t, live(t, b.server.heartbeats(http.StatusOK))))
	require.Equal(t, []time.Duration{10 * time.Second, 10 * time.Second, 30 * time.Second, 30 * time.Second}, got[:4])
}

func TestRun_SetIntervalCommandChangesTheInterval(t *testing.T) {
	t.Parallel()
	b := setup(t)
	handled := make(chan client.Command, 10)
	b.opts.Handler = func(_ context.Context, cmd client.Command) error { handled <- cmd; return nil }
	b.server.setHook(func(r request) *reply {
		switch {
		case r.Operation == "Heartbeat" && r.N == 2:
			return heartbeatOK(0, command("c-1", protocol.CommandSetInterval, `{"seconds":20}`))
		case r.Operation == "Heartbeat":
			return heartbeatOK(0) // 0: the answer does not change the interval
		}
		return nil
	})
	r := b.start(t)
	waitFor(t, "4 heartbeats", func() bool { return len(b.server.heartbeats(http.StatusOK)) >= 4 })
	require.NoError(t, r.stop(t))
	got := gaps(ats(t, live(t, b.server.heartbeats(http.StatusOK))))
	require.Equal(t, []time.Duration{10 * time.Second, 20 * time.Second, 20 * time.Second}, got[:3])
	require.Empty(t, handled, "SET_INTERVAL is the client's own business")
}

func TestRun_DispatchesCommandsToTheHandlerInOrder(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var mu sync.Mutex
	var got []client.Command
	b.opts.Handler = func(_ context.Context, cmd client.Command) error {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, cmd)
		if cmd.Kind == protocol.CommandStopJob {
			return errors.New("no such job") // logged; the loop goes on
		}
		return nil
	}
	start := command("c-1", protocol.CommandStartJob, `{"jobId":"job-1","image":"pytorch/pytorch","command":["python","train.py"],"gpuUuids":["GPU-1"],"timeoutSeconds":3600}`)
	b.server.setHook(func(r request) *reply {
		switch {
		case r.Operation == "Heartbeat" && r.N == 1:
			return heartbeatOK(10, start,
				command("c-2", protocol.CommandStopJob, `{"jobId":"job-0"}`),
				command("c-3", protocol.CommandSetInterval, `{"seconds":10}`),
				command("c-4", protocol.CommandRunBenchmark, `{}`))
		case r.Operation == "Heartbeat" && r.N == 2:
			return heartbeatOK(10, start) // sent again: not run again
		}
		return nil
	})
	r := b.start(t)
	waitFor(t, "3 commands handled and more heartbeats", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(got) >= 3 && len(b.server.heartbeats(http.StatusOK)) >= 4
	})
	require.NoError(t, r.stop(t))
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, got, 3)
	require.Equal(t, []string{"c-1", "c-2", "c-4"}, []string{got[0].ID, got[1].ID, got[2].ID})
	require.Equal(t, []protocol.CommandKind{protocol.CommandStartJob, protocol.CommandStopJob, protocol.CommandRunBenchmark},
		[]protocol.CommandKind{got[0].Kind, got[1].Kind, got[2].Kind})
	require.JSONEq(t, start["payload"].(string), string(got[0].Payload))
	require.JSONEq(t, `{"jobId":"job-0"}`, string(got[1].Payload))
}

func TestRun_ServerDownBacksOffBuffersAndReplaysInOrder(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var mu sync.Mutex
	down := false
	setDown := func(v bool) { mu.Lock(); down = v; mu.Unlock() }
	b.server.setHook(func(r request) *reply {
		mu.Lock()
		defer mu.Unlock()
		if down {
			return &reply{Status: http.StatusServiceUnavailable, Body: "upstream unavailable"}
		}
		return nil
	})
	r := b.start(t)
	waitFor(t, "2 heartbeats", func() bool { return len(b.server.heartbeats(http.StatusOK)) >= 2 })
	setDown(true)
	waitFor(t, "7 failed tries and 5 buffered heartbeats", func() bool {
		return len(b.server.heartbeats(http.StatusServiceUnavailable)) >= 7 && r.client.Buffered() >= 5
	})

	// The buffer is on disk, one JSON heartbeat per line, without the token.
	data, err := os.ReadFile(filepath.Join(b.dataDir, client.BufferFile))
	require.NoError(t, err)
	require.GreaterOrEqual(t, strings.Count(string(data), "\n"), 5)
	require.NotContains(t, string(data), b.token)
	info, err := os.Stat(filepath.Join(b.dataDir, client.BufferFile))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), info.Mode().Perm())

	buffered := r.client.Buffered()
	delivered := len(b.server.heartbeats(http.StatusOK))
	setDown(false)
	waitFor(t, "the buffer replayed and 2 more heartbeats", func() bool {
		return r.client.Buffered() == 0 && len(b.server.heartbeats(http.StatusOK)) >= delivered+buffered+2
	})
	require.NoError(t, r.stop(t))

	// Every heartbeat arrived exactly once, in order, with the `at` it was
	// sampled at: one every 10 s from the first, no gap, no repeat.
	got := ats(t, live(t, b.server.heartbeats(http.StatusOK)))
	require.Equal(t, every(t0, 10*time.Second, len(got)), got)

	// Tries while down were spaced by full-jitter backoff (rand 0.5 of
	// 1, 2, 4, 8, 16 s).
	var tries []time.Time
	for _, req := range b.server.heartbeats(http.StatusServiceUnavailable) {
		tries = append(tries, req.ClockAt)
	}
	require.Equal(t, []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second},
		gaps(tries)[:5])

	data, err = os.ReadFile(filepath.Join(b.dataDir, client.BufferFile))
	require.NoError(t, err)
	require.Empty(t, data, "the buffer file is emptied once replayed")
	require.Contains(t, b.logs.String(), "the server answers again")
}

func TestRun_BufferSurvivesARestart(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.server.setHook(func(r request) *reply {
		if r.Operation == "Heartbeat" && r.N > 1 {
			return &reply{Status: http.StatusBadGateway, Body: "bad gateway"}
		}
		return nil
	})
	first := b.start(t)
	waitFor(t, "3 buffered heartbeats", func() bool { return first.client.Buffered() >= 3 })
	require.NoError(t, first.stop(t), "a stop while the server is down is still a clean stop")
	require.NoError(t, first.client.Close())

	// What the first agent could not deliver, going-offline heartbeat last.
	data, err := os.ReadFile(filepath.Join(b.dataDir, client.BufferFile))
	require.NoError(t, err)
	var want []time.Time
	var lastOffline bool
	for line := range strings.SplitSeq(strings.TrimSpace(string(data)), "\n") {
		r := request{Input: json.RawMessage(line)}
		want = append(want, r.at(t))
		lastOffline = r.goingOffline(t)
	}
	require.GreaterOrEqual(t, len(want), 4)
	require.True(t, lastOffline, "the going-offline heartbeat that could not be sent is buffered too")

	// A new agent on the same data directory; the server is back.
	b.server.setHook(nil)
	before := len(b.server.all())
	b.clock.Advance(time.Minute)
	reopened, err := client.New(b.opts)
	require.NoError(t, err)
	require.Equal(t, len(want), reopened.Buffered(), "a new client finds the buffer")
	require.NoError(t, reopened.Close())
	second := b.start(t)
	waitFor(t, "the replay and 2 new heartbeats", func() bool {
		return second.client.Buffered() == 0 && len(b.server.heartbeats(http.StatusOK)) >= 1+len(want)+2
	})
	require.NoError(t, second.stop(t))

	after := b.server.all()[before:]
	require.Equal(t, "RegisterMachine", after[0].Operation)
	replayed := after[1 : 1+len(want)]
	require.Equal(t, want, ats(t, replayed), "replayed in order with their original at")
	require.True(t, replayed[len(replayed)-1].goingOffline(t))
	fresh := after[1+len(want)]
	require.False(t, fresh.goingOffline(t))
	require.True(t, fresh.at(t).After(want[len(want)-1]))
}

func TestRun_RevokedTokenStopsWithTheFix(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		desc string
		when func(request) bool
	}{
		{"at registration", func(r request) bool { return r.Operation == "RegisterMachine" }},
		{"on the third heartbeat", func(r request) bool { return r.Operation == "Heartbeat" && r.N == 3 }},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			b.server.setHook(func(r request) *reply {
				if tc.when(r) {
					return gqlError(http.StatusUnauthorized, "UNAUTHENTICATED", "the agent token was revoked")
				}
				return nil
			})
			r := b.start(t)
			err := r.wait(t)
			require.ErrorIs(t, err, client.ErrUnauthenticated)
			require.Contains(t, err.Error(), "create a new agent token")
			require.Contains(t, err.Error(), "GPUNEX_TOKEN")
			require.NotContains(t, err.Error(), b.token)

			all := b.server.all()
			last := all[len(all)-1]
			require.Equal(t, http.StatusUnauthorized, last.Status, "nothing is sent after the refusal, not even going offline")
			require.Equal(t, 1, countStatus(all, http.StatusUnauthorized), "a refused token is not retried")
		})
	}
}

func countStatus(rs []request, status int) int {
	n := 0
	for _, r := range rs {
		if r.Status == status {
			n++
		}
	}
	return n
}

func TestRun_SendsGoingOfflineOnCancel(t *testing.T) {
	t.Parallel()
	b := setup(t)
	r := b.start(t)
	waitFor(t, "2 heartbeats", func() bool { return len(b.server.heartbeats(http.StatusOK)) >= 2 })
	require.NoError(t, r.stop(t))
	hbs := b.server.heartbeats(0)
	last := hbs[len(hbs)-1]
	require.True(t, last.goingOffline(t))
	require.Equal(t, http.StatusOK, last.Status)
	require.Len(t, last.heartbeat(t).Gpus, 2, "the last heartbeat carries telemetry too")
	for _, h := range hbs[:len(hbs)-1] {
		require.False(t, h.goingOffline(t))
	}
	require.Zero(t, r.client.Buffered())
}

func TestRun_GoingOfflineIsBoundedByTheOfflineTimeout(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.opts.OfflineTimeout = 150 * time.Millisecond
	b.server.setHook(func(r request) *reply {
		if r.Operation == "Heartbeat" && r.goingOffline(t) {
			return &reply{Block: true} // a server that never answers
		}
		return nil
	})
	r := b.start(t)
	waitFor(t, "a heartbeat", func() bool { return len(b.server.heartbeats(http.StatusOK)) >= 1 })
	// The server never answers: stop returning at all shows the offline
	// timeout, not the server, ended the wait.
	stopped := make(chan error, 1)
	go func() { stopped <- r.stop(t) }()
	require.NoError(t, await.Receive(t, stopped, "stop waited for a server that never answers"))
	require.Equal(t, 1, r.client.Buffered(), "the undelivered going-offline heartbeat waits for the next start")
}

func TestRun_RegistrationRetriesWithBackoff(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.server.setHook(func(r request) *reply {
		if r.Operation == "RegisterMachine" && r.N <= 3 {
			return &reply{Status: http.StatusServiceUnavailable, Body: "starting"}
		}
		return nil
	})
	r := b.start(t)
	waitFor(t, "a heartbeat", func() bool { return len(b.server.heartbeats(http.StatusOK)) >= 1 })
	require.NoError(t, r.stop(t))
	require.Equal(t, []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second}, b.recordedSleeps()[:3])
	require.Equal(t, t0.Add(3500*time.Millisecond), b.server.heartbeats(http.StatusOK)[0].at(t))
}

func TestRun_RateLimitedHeartbeatWaitsRetryAfterAndIsReplayed(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.server.setHook(func(r request) *reply {
		if r.Operation == "Heartbeat" && r.N == 2 {
			rep := gqlError(http.StatusOK, "RATE_LIMITED", "too many heartbeats")
			rep.Header = map[string]string{"Retry-After": "7"}
			return rep
		}
		return nil
	})
	r := b.start(t)
	waitFor(t, "4 heartbeats", func() bool { return len(b.server.heartbeats(http.StatusOK)) >= 5 })
	require.NoError(t, r.stop(t))
	hbs := b.server.heartbeats(0)
	require.Equal(t, hbs[1].at(t), hbs[2].at(t), "the rate-limited heartbeat is sent again as it was")
	require.Equal(t, 7*time.Second, hbs[2].ClockAt.Sub(hbs[1].ClockAt), "after Retry-After, not the shorter backoff")
	delivered := append([]request{hbs[0]}, hbs[2:]...)
	got := ats(t, live(t, delivered))
	require.Equal(t, every(t0, 10*time.Second, len(got)), got)
}

func TestRun_RefusedHeartbeatIsDroppedNotRetried(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.server.setHook(func(r request) *reply {
		if r.Operation == "Heartbeat" && r.N == 2 {
			return &reply{Body: map[string]any{"data": map[string]any{"heartbeat": map[string]any{
				"accepted": false, "status": nil, "intervalSeconds": 10, "commands": []any{},
				"userErrors": []any{map[string]any{"field": "input.gpus.0.temperatureC", "message": "must be below 150", "code": "INVALID"}},
			}}}}
		}
		return nil
	})
	r := b.start(t)
	waitFor(t, "4 heartbeats", func() bool { return len(b.server.heartbeats(0)) >= 4 })
	require.NoError(t, r.stop(t))
	got := ats(t, live(t, b.server.heartbeats(0)))
	require.Equal(t, every(t0, 10*time.Second, len(got)), got, "the refused one is not sent again")
	require.Zero(t, r.client.Buffered())
	require.Contains(t, b.logs.String(), "input.gpus.0.temperatureC")
}

func TestRun_UnknownMachineRegistersAgain(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.server.setHook(func(r request) *reply {
		if r.Operation == "Heartbeat" && r.N == 2 {
			return gqlError(http.StatusOK, "NOT_FOUND", "no such machine")
		}
		return nil
	})
	r := b.start(t)
	waitFor(t, "4 heartbeats", func() bool { return len(b.server.heartbeats(http.StatusOK)) >= 4 })
	require.NoError(t, r.stop(t))
	ops := []string{}
	for _, req := range b.server.all()[:5] {
		ops = append(ops, req.Operation)
	}
	require.Equal(t, []string{"RegisterMachine", "Heartbeat", "Heartbeat", "RegisterMachine", "Heartbeat"}, ops)
	hbs := b.server.heartbeats(0)
	require.Equal(t, hbs[1].at(t), hbs[2].at(t), "the heartbeat is sent again after registering")
}

func TestRun_RecentUtilizationIsTheLast30Samples(t *testing.T) {
	t.Parallel()
	b := setup(t)
	uuids := []string{}
	inv, err := b.detector.Inventory(context.Background())
	require.NoError(t, err)
	for _, d := range inv {
		uuids = append(uuids, d.UUID)
	}
	// Load on the first GPU for a while, so the series moves.
	require.NoError(t, b.detector.SetBusy(uuids[0], true))
	r := b.start(t)
	waitFor(t, "40 heartbeats", func() bool { return len(b.server.heartbeats(http.StatusOK)) >= 40 })
	require.NoError(t, r.stop(t))

	hbs := live(t, b.server.heartbeats(http.StatusOK))
	for gi := range uuids {
		var series []float64
		for i, h := range hbs {
			g := h.heartbeat(t).Gpus[gi]
			require.Equal(t, uuids[gi], g.UUID)
			series = append(series, *g.UtilizationPct)
			want := series[max(0, len(series)-client.RecentSamples):]
			require.Equal(t, want, g.RecentUtilizationPct, "heartbeat %d, GPU %d", i, gi)
		}
		require.Len(t, hbs[len(hbs)-1].heartbeat(t).Gpus[gi].RecentUtilizationPct, client.RecentSamples)
	}
}

func TestRun_TokenNeverAppearsInLogsOrErrors(t *testing.T) {
	t.Parallel()
	b := setup(t)
	// A server that echoes the token in every kind of message.
	b.server.setHook(func(r request) *reply {
		switch {
		case r.Operation == "RegisterMachine" && r.N == 1:
			return gqlError(http.StatusInternalServerError, "INTERNAL", "boom with "+b.token)
		case r.Operation == "Heartbeat" && r.N == 2:
			return &reply{Status: http.StatusServiceUnavailable, Body: "down " + b.token}
		case r.Operation == "Heartbeat" && r.N == 3:
			return gqlError(http.StatusTooManyRequests, "RATE_LIMITED", "slow down "+b.token)
		case r.Operation == "Heartbeat" && r.N == 4:
			return &reply{Body: map[string]any{"data": map[string]any{"heartbeat": map[string]any{
				"accepted": false, "status": nil, "intervalSeconds": 10, "commands": []any{},
				"userErrors": []any{map[string]any{"field": "input", "message": "bad " + b.token, "code": "INVALID"}},
			}}}}
		case r.Operation == "Heartbeat" && r.N == 6:
			return gqlError(http.StatusUnauthorized, "UNAUTHENTICATED", "token "+b.token+" was revoked")
		}
		return nil
	})
	r := b.start(t)
	err := r.wait(t)
	require.ErrorIs(t, err, client.ErrUnauthenticated)
	require.NotContains(t, err.Error(), b.token)
	require.Contains(t, err.Error(), "[redacted]")

	logs := b.logs.String()
	require.Contains(t, logs, "machine registered")
	require.Contains(t, logs, "heartbeat not delivered")
	require.Contains(t, logs, "[redacted]", "the server's messages are logged, without the token")
	require.NotContains(t, logs, b.token)
	data, err := os.ReadFile(filepath.Join(b.dataDir, client.BufferFile))
	require.NoError(t, err)
	require.NotContains(t, string(data), b.token)
}

// shrinkingDetector is the simulator with its last GPU gone after a few
// telemetry reads, as when a board falls off the bus.
type shrinkingDetector struct {
	*gpu.Simulator
	mu    sync.Mutex
	reads int
	after int
}

func (d *shrinkingDetector) gone() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.reads > d.after
}

func (d *shrinkingDetector) Inventory(ctx context.Context) ([]gpu.Device, error) {
	devs, err := d.Simulator.Inventory(ctx)
	if d.gone() {
		devs = devs[:len(devs)-1]
	}
	return devs, err
}

func (d *shrinkingDetector) Telemetry(ctx context.Context) ([]gpu.Sample, error) {
	d.mu.Lock()
	d.reads++
	d.mu.Unlock()
	samples, err := d.Simulator.Telemetry(ctx)
	if d.gone() {
		samples = samples[:len(samples)-1]
	}
	return samples, err
}

func TestRun_InventoryChangeRegistersAgain(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.opts.Detector = &shrinkingDetector{Simulator: b.detector, after: 2}
	r := b.start(t)
	waitFor(t, "4 heartbeats", func() bool { return len(b.server.heartbeats(http.StatusOK)) >= 4 })
	require.NoError(t, r.stop(t))

	var ops []string
	var registered []int
	for _, req := range b.server.all()[:5] {
		ops = append(ops, req.Operation)
		if req.Operation == "RegisterMachine" {
			var in struct {
				GPUs []json.RawMessage `json:"gpus"`
			}
			require.NoError(t, json.Unmarshal(req.Input, &in))
			registered = append(registered, len(in.GPUs))
		}
	}
	require.Equal(t, []string{"RegisterMachine", "Heartbeat", "Heartbeat", "RegisterMachine", "Heartbeat"}, ops)
	require.Equal(t, []int{2, 1}, registered, "the server learns that a GPU is gone")
	require.Len(t, b.server.heartbeats(http.StatusOK)[2].heartbeat(t).Gpus, 1)
}

// Not parallel: goleak compares the goroutines of the whole process.
func TestRun_LeavesNoGoroutinesBehind(t *testing.T) {
	b := setup(t) // its server is closed by Cleanup, after this test's defers
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	transport := &http.Transport{}
	b.opts.HTTPClient = &http.Client{Transport: transport}
	b.opts.Handler = func(context.Context, client.Command) error { return nil }
	b.server.setHook(func(r request) *reply {
		if r.Operation == "Heartbeat" && r.N == 1 {
			return heartbeatOK(10, command("c-1", protocol.CommandRunBenchmark, `{}`))
		}
		return nil
	})
	c, err := client.New(b.opts)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	waitFor(t, "3 heartbeats", func() bool { return len(b.server.heartbeats(http.StatusOK)) >= 3 })
	cancel()
	require.NoError(t, <-done)
	require.NoError(t, c.Close())
	transport.CloseIdleConnections()
}

// stoppingDetector is the simulator, except that its third reading waits
// for the agent to be stopped and then fails as a reading cut short does.
type stoppingDetector struct {
	gpu.Detector
	mu      sync.Mutex
	calls   int
	reading chan struct{}
}

func (d *stoppingDetector) Telemetry(ctx context.Context) ([]gpu.Sample, error) {
	d.mu.Lock()
	d.calls++
	n := d.calls
	d.mu.Unlock()
	if n == 3 {
		close(d.reading)
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return d.Detector.Telemetry(ctx)
}

// A heartbeat whose reading the agent's own stop cut short is not sent:
// the server would read it as every GPU gone. The going-offline heartbeat
// still carries the GPUs (CI once saw a GPU-less beat at a stop).
func TestRun_AReadingCutShortByTheStopIsNotSentAsAHeartbeat(t *testing.T) {
	t.Parallel()
	b := setup(t)
	d := &stoppingDetector{Detector: b.detector, reading: make(chan struct{})}
	b.opts.Detector = d
	r := b.start(t)
	<-d.reading
	require.NoError(t, r.stop(t))

	hbs := b.server.heartbeats(http.StatusOK)
	require.NotEmpty(t, hbs)
	require.True(t, hbs[len(hbs)-1].goingOffline(t), "the last heartbeat says the machine is going offline")
	for i, h := range hbs {
		require.Len(t, h.heartbeat(t).Gpus, 2, "heartbeat %d of %d carries both GPUs", i+1, len(hbs))
	}
}
