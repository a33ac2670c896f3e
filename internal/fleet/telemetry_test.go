package fleet

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// utilization is a heartbeat of machine-0001 whose GPU-1 runs at pct.
func utilization(pct float64) protocol.HeartbeatInput {
	return protocol.HeartbeatInput{MachineID: machineUID, Gpus: []protocol.GpuTelemetry{{UUID: "GPU-1", UtilizationPct: &pct}}}
}

// sampled decodes the utilisation of GPU-1 in each telemetry sample among
// evs, failing on a transition.
func sampled(t *testing.T, evs []machineEvent) []float64 {
	t.Helper()
	var pcts []float64
	for _, ev := range evs {
		require.NotNil(t, ev.Beat, "a sample, not a transition: %+v", ev)
		var b beat
		require.NoError(t, json.Unmarshal(ev.Beat, &b))
		require.Len(t, b.Gpus, 1)
		pcts = append(pcts, *b.Gpus[0].UtilizationPct)
	}
	return pcts
}

func TestConfigValidateBoundsTheTelemetryInterval(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		desc  string
		every time.Duration
		ok    bool
	}{
		{"the default", DefaultTelemetryEvery, true},
		{"one second, the least", time.Second, true},
		{"an hour, the most", time.Hour, true},
		{"unset: an operator states it", 0, false},
		{"faster than a dashboard needs", 500 * time.Millisecond, false},
		{"longer than an hour", time.Hour + time.Second, false},
	} {
		err := Config{Interval: 10 * time.Second, TelemetryEvery: tc.every}.Validate()
		if tc.ok {
			require.NoError(t, err, tc.desc)
		} else {
			require.ErrorContains(t, err, "the telemetry interval must be between 1s and 1h", tc.desc)
		}
	}
	require.Equal(t, DefaultTelemetryEvery, New(Deps{}, Config{}).Config().TelemetryEvery, "zero takes the default")
}

// Issue 25 point 5: heartbeats every second publish one telemetry sample
// per TelemetryEvery on the manual clock, none in between; the beat that
// brings the machine online publishes none (its transition shows it), and
// no sample costs an SQL statement.
func TestTelemetryIsPublishedAtMostOncePerMachinePerTelemetryEvery(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setupStack(t, db)
		svc := b.replica(Config{Interval: time.Second, TelemetryEvery: 5 * time.Second})
		announced := b.announcements(t)

		_, err := svc.Heartbeat(b.ctx, b.agent, utilization(0))
		require.NoError(t, err)
		require.Equal(t, []machineEvent{{MachineID: b.machineID, Status: protocol.MachineOnline}}, announced(),
			"the first beat is a transition, which shows its telemetry")

		var got []float64
		statements := b.queries.Count(func() {
			for second := 1; second <= 12; second++ {
				b.clock.Advance(time.Second)
				_, err := svc.Heartbeat(b.ctx, b.agent, utilization(float64(second)))
				require.NoError(t, err)
				got = append(got, sampled(t, announced())...)
			}
		})
		require.Equal(t, []float64{5, 10}, got, "the beats 5 s and 10 s after the last shown one")
		require.Zero(t, statements, "sampling runs no SQL")
	})
}

// A telemetry sample reaches a hundred dashboards of the provider as the
// whole machine with the sample's telemetry, resolved once: at most two
// SQL statements (the machine and its GPUs) whatever the number of
// dashboards. A sample that a transition offline overtook is dropped.
func TestATelemetrySampleIsResolvedOnceForAHundredDashboards(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setupStack(t, db)
		_, err := b.svc.Heartbeat(b.ctx, b.agent, utilization(10))
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(b.ctx)
		defer cancel()
		const dashboards = 100
		streams := make([]<-chan *StatusEvent, dashboards)
		for i := range streams {
			ch, err := b.svc.Subscribe(ctx, b.agent.ProviderID)
			require.NoError(t, err)
			ev := <-ch
			require.Equal(t, models.MachineEventInitial, ev.Kind)
			require.True(t, ev.Initial())
			streams[i] = ch
		}
		next := func(i int) *StatusEvent {
			t.Helper()
			select {
			case ev, ok := <-streams[i]:
				require.True(t, ok, "dashboard %d's stream ended", i)
				return ev
			case <-await.Timeout(t):
				t.Fatalf("dashboard %d got nothing", i)
				return nil
			}
		}

		b.clock.Advance(DefaultTelemetryEvery)
		at := b.clock.Now()
		statements := b.queries.Count(func() {
			_, err := b.svc.Heartbeat(b.ctx, b.agent, utilization(77))
			require.NoError(t, err)
			for i := range streams {
				ev := next(i)
				require.Equal(t, models.MachineEventTelemetry, ev.Kind)
				require.False(t, ev.Initial())
				require.Equal(t, protocol.MachineOnline, ev.Machine.Status)
				require.True(t, ev.Machine.LastHeartbeatAt.Equal(at), "the sample's beat is the last heartbeat")
				require.Len(t, ev.Machine.Gpus, 1)
				require.InDelta(t, 77, *ev.Machine.Gpus[0].Telemetry.UtilizationPct, 0.001)
				require.True(t, ev.Machine.Gpus[0].Telemetry.At.Equal(at))
			}
		})
		require.LessOrEqual(t, statements, 2, "SQL statements for one sample to %d dashboards", dashboards)

		// A sample announced before the machine went offline, resolved
		// after it: dropped, so what follows it comes next.
		yes := true
		_, err = b.svc.Heartbeat(b.ctx, b.agent, protocol.HeartbeatInput{MachineID: machineUID, GoingOffline: &yes})
		require.NoError(t, err)
		for i := range streams {
			ev := next(i)
			require.Equal(t, models.MachineEventStatus, ev.Kind)
			require.Equal(t, protocol.MachineOffline, ev.Machine.Status)
		}
		stale, err := json.Marshal(beat{At: at, Gpus: utilization(99).Gpus})
		require.NoError(t, err)
		for _, ev := range []machineEvent{
			{MachineID: b.machineID, Beat: stale},
			{MachineID: b.machineID, Status: protocol.MachineOffline}, // as another replica announces one
		} {
			payload, err := json.Marshal(ev)
			require.NoError(t, err)
			require.NoError(t, b.bus.Publish(b.ctx, Channel(b.agent.ProviderID), payload))
		}
		for i := range streams {
			ev := next(i)
			require.Equal(t, models.MachineEventStatus, ev.Kind, "the stale sample was dropped")
			require.Equal(t, protocol.MachineOffline, ev.Machine.Status)
		}
	})
}
