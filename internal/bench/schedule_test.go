package bench

import (
	mrand "math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/fault/faulttest"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// reasons lists the reasons of machine id's runs, oldest first.
func (b *bundle) reasons(t *testing.T, machineID int64) []protocol.BenchReason {
	t.Helper()
	out := []protocol.BenchReason{}
	for _, r := range b.runs(t, machineID) {
		out = append(out, r.Reason)
	}
	return out
}

// Acceptance point 4: the first run comes right after the first
// registration; a re-registration with the same hardware asks for none;
// a driver or GPU change asks for a HARDWARE_CHANGE run.
func TestScheduleRunsOnFirstRegistrationAndOnHardwareChange(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		a, c := gpu("GPU-A", 0, h100), gpu("GPU-C", 1, h100)
		machineID := b.register(t, b.agent, "machine-1", a)
		require.Equal(t, []protocol.BenchReason{protocol.BenchOnRegistration}, b.reasons(t, machineID))
		require.Equal(t, protocol.BenchOnRegistration, b.runOf(t, b.agent, "machine-1").Reason, "delivered with the next heartbeat")

		steps := []struct {
			desc string
			gpus []protocol.GpuInventory
			want protocol.BenchReason // "" for no run
		}{
			{desc: "the same hardware again asks for nothing", gpus: []protocol.GpuInventory{a}},
			{desc: "a new driver version is a hardware change", gpus: func() []protocol.GpuInventory {
				g := a
				g.DriverVersion = ptr("560.28")
				return []protocol.GpuInventory{g}
			}(), want: protocol.BenchHardwareChange},
			{desc: "the same again asks for nothing", gpus: func() []protocol.GpuInventory {
				g := a
				g.DriverVersion = ptr("560.28")
				return []protocol.GpuInventory{g}
			}()},
			{desc: "an added GPU is a hardware change", gpus: func() []protocol.GpuInventory {
				g, h := a, c
				g.DriverVersion, h.DriverVersion = ptr("560.28"), ptr("560.28")
				return []protocol.GpuInventory{g, h}
			}(), want: protocol.BenchHardwareChange},
			{desc: "a swapped GPU is a hardware change", gpus: func() []protocol.GpuInventory {
				g, h := a, gpu("GPU-D", 1, "NVIDIA L4")
				g.DriverVersion, h.DriverVersion = ptr("560.28"), ptr("560.28")
				return []protocol.GpuInventory{g, h}
			}(), want: protocol.BenchHardwareChange},
		}
		want := []protocol.BenchReason{protocol.BenchOnRegistration}
		for _, s := range steps {
			b.clock.Advance(time.Minute)
			_, err := b.fleet.Register(b.ctx, b.agent, protocol.RegisterMachineInput{MachineID: "machine-1", Hostname: "host", AgentVersion: "1.0.0", Gpus: s.gpus})
			require.NoError(t, err, s.desc)
			if s.want != "" {
				want = append(want, s.want)
				require.Equal(t, s.want, b.runOf(t, b.agent, "machine-1").Reason, s.desc)
			} else {
				require.Empty(t, b.beat(t, b.agent, "machine-1"), s.desc)
			}
			require.Equal(t, want, b.reasons(t, machineID), s.desc)
		}
	})
}

// Acceptance point 4: each machine's periodic run is at its own offset
// within Config.Jitter, so a fleet registered together does not run at
// once.
func TestTwoMachinesGetDifferentOffsetsWithinTheJitter(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		cfg := b.svc.Config()
		offsets := map[time.Duration]bool{}
		for _, uid := range []string{"machine-1", "machine-2", "machine-3"} {
			id := b.register(t, b.agent, uid, gpu("GPU-"+uid, 0, h100))
			offset := b.schedule(t, id).NextRunAt.Sub(start) - cfg.Every
			require.GreaterOrEqual(t, offset, time.Duration(0), uid)
			require.Less(t, offset, cfg.Jitter, uid)
			require.Equal(t, b.svc.offset(id).Truncate(time.Microsecond), offset, "the machine's own offset, as stored")
			offsets[offset] = true
		}
		require.Len(t, offsets, 3, "every machine at its own offset")
	})
}

// Acceptance point 4: Tick expires runs past RunTimeout, and dispatches a
// SCHEDULED run when next_run_at passes for an ONLINE machine, not for an
// OFFLINE one until it is back.
func TestTickDispatchesDueRunsOfOnlineMachinesAndExpiresSilentOnes(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		cfg := b.svc.Config()
		online := b.register(t, b.agent, "machine-1", gpu("GPU-A", 0, h100))
		offline := b.register(t, b.agent, "machine-2", gpu("GPU-B", 0, h100))
		b.runOf(t, b.agent, "machine-1") // online from now on; machine-2 never beats

		b.clock.Advance(cfg.RunTimeout - time.Second)
		b.svc.Tick(b.ctx)
		require.Equal(t, models.BenchmarkRunPending, b.runs(t, online)[0].State, "within the timeout")
		b.clock.Advance(time.Second)
		b.svc.Tick(b.ctx)
		require.Equal(t, models.BenchmarkRunExpired, b.runs(t, online)[0].State, "unreported past RunTimeout")
		require.Equal(t, models.BenchmarkRunExpired, b.runs(t, offline)[0].State)
		require.Len(t, b.runs(t, online), 1, "nothing is due yet")

		// Past both machines' periodic times.
		b.clock.Set(start.Add(cfg.Every + cfg.Jitter))
		require.Empty(t, b.beat(t, b.agent, "machine-1"))
		b.svc.Tick(b.ctx)
		require.Equal(t, []protocol.BenchReason{protocol.BenchOnRegistration, protocol.BenchScheduled}, b.reasons(t, online))
		require.Equal(t, []protocol.BenchReason{protocol.BenchOnRegistration}, b.reasons(t, offline), "an offline machine waits")
		require.Equal(t, protocol.BenchScheduled, b.runOf(t, b.agent, "machine-1").Reason)
		require.Equal(t, b.clock.Now().Add(cfg.Every), b.schedule(t, online).NextRunAt.UTC())
		b.svc.Tick(b.ctx)
		require.Len(t, b.runs(t, online), 2, "a tick dispatches a due run once")

		// machine-2 comes back: the expired run's command was withdrawn.
		require.Empty(t, b.beat(t, b.agent, "machine-2"), "an expired run is not carried out late")
		b.svc.Tick(b.ctx)
		require.Equal(t, []protocol.BenchReason{protocol.BenchOnRegistration, protocol.BenchScheduled}, b.reasons(t, offline))
		require.Equal(t, protocol.BenchScheduled, b.runOf(t, b.agent, "machine-2").Reason)
	})
}

// Acceptance point 4: a GPU postponed for a customer's job changes no
// listing, and brings the machine's next run forward to RetryAfter, with
// reason RETRY.
func TestAPostponedGPUChangesNoListingAndIsRetriedAfterRetryAfter(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		cfg := b.svc.Config()
		machineID := b.register(t, b.agent, "machine-1", gpu("GPU-A", 0, h100), gpu("GPU-B", 1, h100), gpu("GPU-C", 2, h100))
		run := b.runOf(t, b.agent, "machine-1").RunID
		postponed := func(uuid string) protocol.GpuBenchResult {
			return protocol.GpuBenchResult{UUID: uuid, Outcome: protocol.BenchPostponed, Error: ptr("running job job_42")}
		}
		require.NoError(t, b.svc.Submit(b.ctx, b.agent, b.result(run, "machine-1", healthy("GPU-A"), throttled("GPU-B"), postponed("GPU-C"))))
		require.Equal(t, models.GpuListingPending, b.listing(t, "GPU-C"), "a postponed GPU is not listed")
		sch := b.schedule(t, machineID)
		require.True(t, sch.Retry)
		require.Equal(t, b.clock.Now().Add(cfg.RetryAfter), sch.NextRunAt.UTC(), "brought forward to RetryAfter")
		notices := len(b.notifications(t, b.email))

		b.clock.Advance(time.Hour + time.Minute)
		req, err := b.svc.Request(b.ctx, b.agent.ProviderID, machineID)
		require.NoError(t, err)
		require.Equal(t, req.Run.RunID, b.runOf(t, b.agent, "machine-1").RunID)
		b.clock.Advance(time.Minute)
		require.NoError(t, b.svc.Submit(b.ctx, b.agent, b.result(req.Run.RunID, "machine-1", postponed("GPU-A"), postponed("GPU-B"), healthy("GPU-C"))))
		require.Equal(t, models.GpuListingListed, b.listing(t, "GPU-A"), "a postponed GPU keeps its listing")
		require.Equal(t, models.GpuListingDelisted, b.listing(t, "GPU-B"), "a postponed GPU stays delisted")
		require.Equal(t, models.GpuListingListed, b.listing(t, "GPU-C"))
		require.Len(t, b.notifications(t, b.email), notices, "no notice for a postponed GPU (nor a first listing)")
		h := b.history(t, "GPU-A")
		require.Len(t, h, 2, "the postponement is in the history")
		require.Equal(t, protocol.BenchPostponed, h[1].Outcome)
		require.Nil(t, h[1].Score)
		retryAt := b.clock.Now().Add(cfg.RetryAfter)
		require.Equal(t, retryAt, b.schedule(t, machineID).NextRunAt.UTC())

		b.clock.Set(retryAt.Add(-time.Second))
		require.Empty(t, b.beat(t, b.agent, "machine-1"))
		b.svc.Tick(b.ctx)
		require.Len(t, b.runs(t, machineID), 2, "not before RetryAfter")
		b.clock.Set(retryAt)
		b.svc.Tick(b.ctx)
		runs := b.runs(t, machineID)
		require.Len(t, runs, 3)
		require.Equal(t, protocol.BenchRetry, runs[2].Reason)
		require.Equal(t, protocol.BenchRetry, b.runOf(t, b.agent, "machine-1").Reason)
		sch = b.schedule(t, machineID)
		require.False(t, sch.Retry)
		require.Equal(t, retryAt.Add(cfg.Every), sch.NextRunAt.UTC(), "then back to the periodic schedule")
	})
}

// Acceptance point 4: a postponement never pushes a due run later.
func TestAPostponementKeepsAnEarlierNextRun(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		machineID := b.register(t, b.agent, "machine-1", gpu("GPU-A", 0, h100))
		run := b.runOf(t, b.agent, "machine-1").RunID
		soon := b.clock.Now().Add(10 * time.Minute)
		_, err := db.NewUpdate().Model((*models.MachineBenchSchedule)(nil)).Set("next_run_at = ?", soon).Where("machine_id = ?", machineID).Exec(b.ctx)
		require.NoError(t, err)
		require.NoError(t, b.svc.Submit(b.ctx, b.agent, b.result(run, "machine-1",
			protocol.GpuBenchResult{UUID: "GPU-A", Outcome: protocol.BenchPostponed, Error: ptr("running job job_42")})))
		require.Equal(t, soon, b.schedule(t, machineID).NextRunAt.UTC())
	})
}

// Acceptance point 4: requestBenchmark answers the pending run without a
// second command, refuses TOO_SOON within Cooldown with AllowedAt, asks
// for a REQUESTED run after it, and knows no other provider's machine.
func TestRequestHonoursTheCooldownAndAPendingRun(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		cfg := b.svc.Config()
		other, _ := b.provider(t, "q")
		machineID := b.register(t, b.agent, "machine-1", gpu("GPU-A", 0, h100))
		otherMachine := b.register(t, other, "machine-q", gpu("GPU-Q", 0, h100))
		registration := b.runOf(t, b.agent, "machine-1").RunID
		commands := func() int { return b.count(t, "agent_commands", "machine_id = ?", machineID) }

		res, err := b.svc.Request(b.ctx, b.agent.ProviderID, machineID)
		require.NoError(t, err)
		require.Equal(t, registration, res.Run.RunID, "the pending run is the answer")
		require.Equal(t, 1, commands(), "no second command")
		require.Empty(t, b.beat(t, b.agent, "machine-1"))
		firstAsked := b.clock.Now()

		b.clock.Advance(cfg.Cooldown - time.Second)
		require.NoError(t, b.svc.Submit(b.ctx, b.agent, b.result(registration, "machine-1", healthy("GPU-A"))))
		res, err = b.svc.Request(b.ctx, b.agent.ProviderID, machineID)
		faulttest.RequireProblem(t, err, "input.machineId", fault.TooSoon)
		require.NotNil(t, res)
		require.Equal(t, firstAsked.Add(cfg.Cooldown), res.AllowedAt)
		require.Equal(t, 1, commands())

		b.clock.Advance(time.Second)
		res, err = b.svc.Request(b.ctx, b.agent.ProviderID, machineID)
		require.NoError(t, err)
		require.Equal(t, protocol.BenchRequested, res.Run.Reason)
		require.Equal(t, models.BenchmarkRunPending, res.Run.State)
		require.Equal(t, b.clock.Now().Add(cfg.Cooldown), res.AllowedAt)
		require.Equal(t, 2, commands())
		require.Equal(t, res.Run.RunID, b.runOf(t, b.agent, "machine-1").RunID)

		for _, tc := range []struct {
			desc      string
			machineID int64
		}{{"another provider's machine", otherMachine}, {"an unknown machine", otherMachine + 100}} {
			_, err = b.svc.Request(b.ctx, b.agent.ProviderID, tc.machineID)
			require.Equal(t, fault.NotFound, fault.CodeOf(err), tc.desc)
		}
		require.Len(t, b.runs(t, otherMachine), 1)
	})
}

// Acceptance point 4: requests racing each other ask for one run; the
// others are TOO_SOON.
func TestConcurrentRequestsAskForOneRun(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		machineID := b.register(t, b.agent, "machine-1", gpu("GPU-A", 0, h100))
		run := b.runOf(t, b.agent, "machine-1").RunID
		require.NoError(t, b.svc.Submit(b.ctx, b.agent, b.result(run, "machine-1", healthy("GPU-A"))))
		const requests = 4
		errs := make(chan error, requests)
		for range requests {
			go func() {
				_, err := b.svc.Request(b.ctx, b.agent.ProviderID, machineID)
				errs <- err
			}()
		}
		accepted := 0
		for range requests {
			if err := <-errs; err == nil {
				accepted++
			} else {
				faulttest.RequireProblem(t, err, "input.machineId", fault.TooSoon)
			}
		}
		require.Equal(t, 1, accepted)
		require.Equal(t, []protocol.BenchReason{protocol.BenchOnRegistration, protocol.BenchRequested}, b.reasons(t, machineID))
	})
}

// Issue 24, item 3: besides its periodic run, each machine is asked for an
// unannounced run at a random time in every period (Every long, counted
// from the epoch): uniform within the period, drawn from the service's
// injected source (here seeded), asked as SCHEDULED like the periodic one.
// A machine offline at its time skips it; the next is drawn in the next
// period either way.
func TestUnannouncedRunsComeOnceAtARandomTimeInEachPeriod(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		every := b.svc.Config().Every
		machineID := b.register(t, b.agent, "machine-1", gpu("GPU-A", 0, h100))
		b.runOf(t, b.agent, "machine-1")
		// The periodic run, far away, stays out of the way.
		_, err := db.NewUpdate().Model((*models.MachineBenchSchedule)(nil)).Set("next_run_at = ?", start.AddDate(1, 0, 0)).
			Where("machine_id = ?", machineID).Exec(b.ctx)
		require.NoError(t, err)

		period := func(at time.Time) time.Time { return at.Truncate(every) }
		first := b.schedule(t, machineID).SurpriseAt
		require.NotNil(t, first)
		want := mrand.New(mrand.NewPCG(1, 2)).Int64N(int64(every / time.Microsecond))
		require.Equal(t, period(start).Add(every).Add(time.Duration(want)*time.Microsecond), first.UTC(),
			"the first in the period after registration, at the seeded source's draw")

		offsets := map[time.Duration]bool{}
		at := first.UTC()
		for i := range 4 {
			b.clock.Set(at.Add(-time.Second))
			b.svc.Tick(b.ctx)
			require.Empty(t, b.beat(t, b.agent, "machine-1"), "not before its time (period %d)", i)
			b.clock.Set(at)
			b.svc.Tick(b.ctx)
			run := b.runOf(t, b.agent, "machine-1")
			require.Equal(t, protocol.BenchScheduled, run.Reason, "asked as a periodic run is")
			require.NotEmpty(t, run.Nonce)
			b.svc.Tick(b.ctx)
			require.Empty(t, b.beat(t, b.agent, "machine-1"), "once per period")

			next := b.schedule(t, machineID).SurpriseAt.UTC()
			require.Equal(t, period(at).Add(every), period(next), "the next one in the next period")
			offsets[next.Sub(period(next))] = true
			b.clock.Set(at.Add(b.svc.Config().RunTimeout))
			b.svc.Tick(b.ctx) // the run expires unanswered
			at = next
		}
		require.Len(t, offsets, 4, "a new random time in each period")
		require.Len(t, b.runs(t, machineID), 5)

		// Offline at its time: skipped, and the next one drawn.
		_, err = db.NewUpdate().Model((*models.Machine)(nil)).Set("status = ?", protocol.MachineOffline).Where("id = ?", machineID).Exec(b.ctx)
		require.NoError(t, err)
		b.clock.Set(at)
		b.svc.Tick(b.ctx)
		require.Len(t, b.runs(t, machineID), 5, "no run for an offline machine")
		require.Equal(t, period(at).Add(every), period(b.schedule(t, machineID).SurpriseAt.UTC()))

		// A schedule older than unannounced runs gets one, in the next period.
		_, err = db.NewUpdate().Model((*models.MachineBenchSchedule)(nil)).Set("surprise_at = NULL").Where("machine_id = ?", machineID).Exec(b.ctx)
		require.NoError(t, err)
		b.svc.Tick(b.ctx)
		require.Equal(t, period(at).Add(every), period(b.schedule(t, machineID).SurpriseAt.UTC()))
		require.Len(t, b.runs(t, machineID), 5)
	})
}
