package bench

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// benchmarkAgain asks for a run of machine uid after the cooldown and
// submits results for it; it returns the run id.
func (b *bundle) benchmarkAgain(t *testing.T, agent *auth.Agent, machineID int64, uid string, gpus ...protocol.GpuBenchResult) string {
	t.Helper()
	b.clock.Advance(b.svc.Config().Cooldown + time.Minute)
	res, err := b.svc.Request(b.ctx, agent.ProviderID, machineID)
	require.NoError(t, err)
	require.Equal(t, models.BenchmarkRunPending, res.Run.State, "no run left pending")
	b.clock.Advance(time.Minute)
	require.NoError(t, b.svc.Submit(b.ctx, agent, b.result(res.Run.RunID, uid, gpus...)))
	return res.Run.RunID
}

// Acceptance point 5: Machines shows every machine with PENDING GPUs
// before any run, then the listing, the latest result and the history
// (newest first, at most HistoryLength), the latest and pending runs.
func TestMachinesShowsPendingGPUsThenTheListingAndHistory(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		cfg := b.svc.Config()
		m1 := b.register(t, b.agent, "machine-1", gpu("GPU-A", 0, h100), gpu("GPU-B", 1, h100))
		m2 := b.register(t, b.agent, "machine-2", gpu("GPU-C", 0, h100))
		other, _ := b.provider(t, "q")
		b.register(t, other, "machine-q", gpu("GPU-Q", 0, h100))

		ms, err := b.svc.Machines(b.ctx, b.agent.ProviderID)
		require.NoError(t, err)
		require.Len(t, ms, 2, "only the provider's machines")
		require.Equal(t, []int64{m1, m2}, []int64{ms[0].MachineID, ms[1].MachineID}, "oldest first")
		require.Equal(t, "host-machine-1", ms[0].Hostname)
		require.Equal(t, []string{"GPU-A", "GPU-B"}, []string{ms[0].Gpus[0].GpuUUID, ms[0].Gpus[1].GpuUUID})
		for _, m := range ms {
			require.Nil(t, m.LatestRun)
			require.NotNil(t, m.PendingRun)
			require.Equal(t, protocol.BenchOnRegistration, m.PendingRun.Reason)
			require.NotNil(t, m.NextScheduledAt)
			require.Equal(t, b.clock.Now(), m.RequestAllowedAt)
			for _, g := range m.Gpus {
				require.Equal(t, models.GpuListingPending, g.Listing)
				require.Nil(t, g.Latest)
				require.Empty(t, g.History)
				require.NotNil(t, g.Shortfalls)
				require.NotNil(t, g.Guidance)
			}
		}

		first := b.runOf(t, b.agent, "machine-1").RunID
		b.clock.Advance(time.Minute)
		require.NoError(t, b.svc.Submit(b.ctx, b.agent, b.result(first, "machine-1", healthy("GPU-A"), throttled("GPU-B"))))
		runIDs := []string{first}
		for i := range HistoryLength + 1 {
			runIDs = append(runIDs, b.benchmarkAgain(t, b.agent, m1, "machine-1", measured("GPU-A", 0.9+float64(i%5)/100, 0.95), throttled("GPU-B")))
		}
		last := runIDs[len(runIDs)-1]

		ms, err = b.svc.Machines(b.ctx, b.agent.ProviderID)
		require.NoError(t, err)
		v := ms[0]
		require.NotNil(t, v.LatestRun)
		require.Equal(t, last, v.LatestRun.RunID)
		require.Nil(t, v.PendingRun)
		require.Equal(t, b.clock.Now().Add(cfg.Cooldown-time.Minute), v.RequestAllowedAt)
		a, bb := v.Gpus[0], v.Gpus[1]
		require.Equal(t, models.GpuListingListed, a.Listing)
		require.Equal(t, models.GpuListingDelisted, bb.Listing)
		require.Equal(t, []models.BenchmarkGuidanceCode{models.GuidanceThermalThrottling}, codes(bb.Guidance))
		require.Equal(t, []protocol.BenchMetric{protocol.MetricFP32, protocol.MetricTensorFP16}, metrics(bb.Shortfalls))
		for _, g := range []*GpuStatus{a, bb} {
			require.Len(t, g.History, HistoryLength, "at most HistoryLength results")
			require.NotNil(t, g.Latest)
			require.Equal(t, g.History[0], g.Latest, "the latest is the newest of the history")
			require.Equal(t, last, g.Latest.RunID)
			require.Equal(t, g.GpuUUID, g.Latest.GpuUUID)
			for i, r := range g.History {
				require.Equal(t, runIDs[len(runIDs)-1-i], r.RunID, "newest first, each naming its run")
			}
		}
		require.Equal(t, *a.Latest.Score, *a.Score)

		// machine-2 is untouched, its registration run expired.
		b.clock.Advance(cfg.RunTimeout)
		b.svc.Tick(b.ctx)
		ms, err = b.svc.Machines(b.ctx, b.agent.ProviderID)
		require.NoError(t, err)
		require.Nil(t, ms[1].PendingRun)
		require.Nil(t, ms[1].LatestRun)
		require.Equal(t, models.GpuListingPending, ms[1].Gpus[0].Listing)
	})
}

// Acceptance point 5: Machines runs a fixed number of SQL statements
// whatever the number of machines, GPUs and results.
func TestMachinesStatementsDoNotGrowWithTheFleet(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		small, _ := b.provider(t, "small")
		large, _ := b.provider(t, "large")
		var pending [][2]int64
		fleetOf := func(agent *auth.Agent, prefix string, machines, gpus int) {
			for m := range machines {
				uid := fmt.Sprintf("%s-machine-%d", prefix, m)
				var inv []protocol.GpuInventory
				var res []protocol.GpuBenchResult
				for g := range gpus {
					uuid := fmt.Sprintf("GPU-%s-%d-%d", prefix, m, g)
					inv = append(inv, gpu(uuid, g, h100))
					res = append(res, healthy(uuid))
				}
				id := b.register(t, agent, uid, inv...)
				run := b.runOf(t, agent, uid).RunID
				require.NoError(t, b.svc.Submit(b.ctx, agent, b.result(run, uid, res...)))
				b.benchmarkAgain(t, agent, id, uid, res...)
				b.benchmarkAgain(t, agent, id, uid, res...)
				pending = append(pending, [2]int64{agent.ProviderID, id})
			}
		}
		fleetOf(small, "s", 1, 1)
		fleetOf(large, "l", 5, 4)
		b.clock.Advance(b.svc.Config().Cooldown)
		for _, p := range pending { // and one run pending on each
			_, err := b.svc.Request(b.ctx, p[0], p[1])
			require.NoError(t, err)
		}

		statements := func(agent *auth.Agent, machines int) int {
			var ms []*MachineBenchmarks
			n := b.queries.Count(func() {
				var err error
				ms, err = b.svc.Machines(b.ctx, agent.ProviderID)
				require.NoError(t, err)
			})
			require.Len(t, ms, machines)
			for _, m := range ms {
				require.NotNil(t, m.PendingRun)
				for _, g := range m.Gpus {
					require.Len(t, g.History, 3)
				}
			}
			return n
		}
		one, five := statements(small, 1), statements(large, 5)
		require.Equal(t, one, five, "statements for 1 machine with 1 GPU and for 5 with 4 each")
		require.LessOrEqual(t, five, 7)
	})
}

// Acceptance point 5: Subscribe sends the current state first, then an
// event after a Submit and after a Request; when its context ends every
// goroutine it started is gone. The backends run one after the other, so
// no other test's goroutines come and go meanwhile.
func TestSubscribeSendsTheCurrentStateThenChangesAndCleansUp(t *testing.T) {
	for _, backend := range storetest.Backends {
		t.Run(backend, func(t *testing.T) {
			db := storetest.Open(t, backend)
			b := setupStack(t, db)
			machineID := b.register(t, b.agent, "machine-1", gpu("GPU-A", 0, h100))
			b.register(t, b.agent, "machine-2", gpu("GPU-B", 0, h100))
			run := b.runOf(t, b.agent, "machine-1").RunID

			// Warm the pools (database, bus) so their goroutines count as
			// already there.
			warm, stop := context.WithCancel(b.ctx)
			ch, err := b.svc.Subscribe(warm, b.agent.ProviderID)
			require.NoError(t, err)
			next(t, ch)
			stop()
			for range ch {
			}
			before := goleak.IgnoreCurrent()

			ctx, cancel := context.WithCancel(b.ctx)
			defer cancel()
			ch, err = b.svc.Subscribe(ctx, b.agent.ProviderID)
			require.NoError(t, err)
			for _, want := range []string{"host-machine-1", "host-machine-2"} {
				ev := next(t, ch)
				require.True(t, ev.Initial, "the current state first")
				require.Equal(t, want, ev.Machine.Hostname)
				require.Equal(t, models.GpuListingPending, ev.Machine.Gpus[0].Listing)
			}

			b.clock.Advance(time.Minute)
			require.NoError(t, b.svc.Submit(b.ctx, b.agent, b.result(run, "machine-1", throttled("GPU-A"))))
			ev := next(t, ch)
			require.False(t, ev.Initial)
			require.Equal(t, machineID, ev.Machine.MachineID)
			require.Equal(t, models.GpuListingDelisted, ev.Machine.Gpus[0].Listing)
			require.Equal(t, run, ev.Machine.LatestRun.RunID)
			require.Nil(t, ev.Machine.PendingRun)

			res, err := b.svc.Request(b.ctx, b.agent.ProviderID, machineID)
			require.NoError(t, err)
			ev = next(t, ch)
			require.False(t, ev.Initial)
			require.Equal(t, machineID, ev.Machine.MachineID)
			require.NotNil(t, ev.Machine.PendingRun)
			require.Equal(t, res.Run.RunID, ev.Machine.PendingRun.RunID)
			require.Equal(t, res.AllowedAt, ev.Machine.RequestAllowedAt)

			cancel()
			goleak.VerifyNone(t, before)
			for range ch {
			}
		})
	}
}
