package platform_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/api"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/fleet"
	"github.com/gpunex/gpunex/internal/platform/platformtest"
)

// Issue 25, point 5: the Overview follows one subscription. Besides the
// current state and each transition, machineStatusChanged carries a
// telemetry sample of every online machine, at most one per machine per
// TelemetryEvery, each the whole machine; it is resolved and encoded once
// for every dashboard of the provider. These tests run on a manual clock,
// so the throttle is crossed by advancing it, never by waiting.

// telemetryOptions lifts the socket caps (many dashboards from one
// address), keeps the sweeper away (hour-long heartbeat interval) and
// runs the server on clk with the default telemetry interval.
func telemetryOptions(clk clock.Clock) platformtest.Options {
	return platformtest.Options{
		API:   api.Config{WSMaxPerUser: -1, WSMaxPerAddress: -1},
		Fleet: fleet.Config{Interval: time.Hour},
		Clock: clk,
	}
}

// eachOnAManualClock runs fn on every stack, each server on a manual clock
// of its own.
func eachOnAManualClock(t *testing.T, fn func(t *testing.T, s *platformtest.Server, clk *clock.Manual)) {
	t.Helper()
	for _, st := range platformtest.Stacks {
		t.Run(st.Name, func(t *testing.T) {
			t.Parallel()
			clk := clock.NewManual(time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC))
			fn(t, platformtest.Start(t, st, telemetryOptions(clk)), clk)
		})
	}
}

// utilizationOf is the first GPU's utilisation in a machineStatusChanged
// event.
func utilizationOf(t *testing.T, ev statusEvent) float64 {
	t.Helper()
	gpus := ev.Data.MachineStatusChanged.Machine.Gpus
	require.NotEmpty(t, gpus)
	require.NotNil(t, gpus[0].Telemetry, "the GPU has telemetry")
	require.NotNil(t, gpus[0].Telemetry.UtilizationPct)
	return *gpus[0].Telemetry.UtilizationPct
}

func TestTelemetryArrivesOverTheOneSubscriptionThrottled(t *testing.T) {
	t.Parallel()
	const dashboards = 20
	eachOnAManualClock(t, func(t *testing.T, s *platformtest.Server, clk *clock.Manual) {
		p, machine, _ := fanoutProvider(t, s, "telemetry")
		agent := s.NewAPIClient(t, p.AgentToken)
		uid := "telemetry-machine-0001"
		beat := func(util float64) {
			t.Helper()
			var hb struct{ Heartbeat struct{ Accepted bool } }
			agent.MustDo(&hb, heartbeat, map[string]any{"i": beatInput(uid, util, 1)})
			require.True(t, hb.Heartbeat.Accepted)
		}
		socks := make([]*platformtest.WS, dashboards)
		for i := range socks {
			socks[i] = openSocket(t, s, p.User.Token)
			socks[i].Subscribe("1", statusSubscription, nil)
			ev := fanoutStatus(t, fanoutNext(t, socks[i], "1"))
			require.Equal(t, "INITIAL", ev.Data.MachineStatusChanged.Kind, "dashboard %d: the current state first", i)
			require.True(t, ev.Data.MachineStatusChanged.Initial)
		}
		// readAll reads the next event on every dashboard, requires the
		// same bytes on each, and decodes it.
		readAll := func() statusEvent {
			t.Helper()
			first := fanoutNext(t, socks[0], "1")
			for i, ws := range socks[1:] {
				require.Equal(t, string(first), string(fanoutNext(t, ws, "1")), "dashboard %d got other bytes", i+1)
			}
			return fanoutStatus(t, first)
		}

		// The first heartbeat is the transition, with its telemetry.
		beat(10)
		ev := readAll()
		require.Equal(t, "STATUS", ev.Data.MachineStatusChanged.Kind)
		require.False(t, ev.Data.MachineStatusChanged.Initial)
		require.Equal(t, "ONLINE", ev.Data.MachineStatusChanged.Machine.Status)
		require.InDelta(t, 10, utilizationOf(t, ev), 0.001)

		// A beat within the telemetry interval publishes nothing; the
		// first one past it is the next event every dashboard gets, the
		// whole machine with that beat's telemetry, resolved and encoded
		// once for all of them.
		s.DrainMail(t) // the mail worker's reads are not the event's
		statements := s.RecordStatements()
		writes, pubs, before := s.Platform.DB.Writes(), s.Bus.Publishes(), s.OperationCount(t, "subscription")
		var sample statusEvent
		stmts := statements.Record(func() {
			beat(20)
			clk.Advance(fleet.DefaultTelemetryEvery - time.Millisecond)
			beat(30)
			clk.Advance(time.Millisecond)
			beat(40)
			sample = readAll()
		})
		require.Equal(t, "TELEMETRY", sample.Data.MachineStatusChanged.Kind)
		require.False(t, sample.Data.MachineStatusChanged.Initial)
		require.Equal(t, machine, sample.Data.MachineStatusChanged.Machine.ID)
		require.Equal(t, "ONLINE", sample.Data.MachineStatusChanged.Machine.Status)
		require.InDelta(t, 40, utilizationOf(t, sample), 0.001, "the beats within the interval were not published")
		require.Equal(t, []float64{1, 2, 40}, sample.Data.MachineStatusChanged.Machine.Gpus[0].Telemetry.RecentUtilizationPct)
		at, err := time.Parse(time.RFC3339Nano, *sample.Data.MachineStatusChanged.Machine.LastHeartbeatAt)
		require.NoError(t, err)
		require.True(t, at.Equal(clk.Now()), "the sample's beat is the last heartbeat: %s", at)
		require.EqualValues(t, 1, s.Bus.Publishes()-pubs, "one publish for three heartbeats")
		require.Zero(t, s.Platform.DB.Writes()-writes, "no SQL write")
		require.Equal(t, before+1, s.OperationCount(t, "subscription"), "the sample was encoded once for %d dashboards", dashboards)
		require.LessOrEqual(t, len(stmts), 2, "SQL statements for three heartbeats and one sample to %d dashboards: %q", dashboards, stmts)

		// A planned stop is the next event, as a transition.
		in := beatInput(uid, 0, 1)
		in["goingOffline"] = true
		agent.MustDo(nil, heartbeat, map[string]any{"i": in})
		ev = readAll()
		require.Equal(t, "STATUS", ev.Data.MachineStatusChanged.Kind)
		require.Equal(t, "OFFLINE", ev.Data.MachineStatusChanged.Machine.Status)
	})
}

// A sample published by the replica that took the heartbeat reaches a
// dashboard on another replica through Redis.
func TestATelemetrySampleCrossesReplicas(t *testing.T) {
	t.Parallel()
	stack := platformtest.Stacks[1]
	clk := clock.NewManual(time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC))
	a := platformtest.Start(t, stack, telemetryOptions(clk))
	opts := telemetryOptions(clk)
	opts.DatabaseURL, opts.RedisURL, opts.RedisPrefix = a.DatabaseURL, a.RedisURL, a.RedisPrefix
	b := platformtest.Start(t, stack, opts)
	p := a.NewProvider(t, "samples")
	uid := "sample-machine-01"
	agentB := b.NewAPIClient(t, p.AgentToken)
	agentB.MustDo(nil, registerMachine, map[string]any{"i": inventory(uid, "NVIDIA H100 80GB HBM3")})

	ws := openSocket(t, a, p.User.Token)
	ws.Subscribe("1", statusSubscription, nil)
	require.Equal(t, "INITIAL", nextStatus(t, ws).Data.MachineStatusChanged.Kind)

	agentB.MustDo(nil, heartbeat, map[string]any{"i": beatInput(uid, 11, 1)})
	require.Equal(t, "STATUS", nextStatus(t, ws).Data.MachineStatusChanged.Kind)
	clk.Advance(fleet.DefaultTelemetryEvery)
	agentB.MustDo(nil, heartbeat, map[string]any{"i": beatInput(uid, 66, 1)})
	ev := nextStatus(t, ws)
	require.Equal(t, "TELEMETRY", ev.Data.MachineStatusChanged.Kind)
	require.InDelta(t, 66, utilizationOf(t, ev), 0.001, "A shows the sample B published")
}
