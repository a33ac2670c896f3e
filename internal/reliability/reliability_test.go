package reliability

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// w is the decay weight of an age: e^(−age·ln2/7 days).
func w(age time.Duration) float64 { return math.Exp(-age.Hours() / (7 * 24) * math.Ln2) }

// seconds is the decayed weight at now of the seconds between from and
// to: τ·(w(now−to) − w(now−from)), τ = 7 days / ln 2.
func seconds(from, to, now time.Time) float64 {
	tau := 7 * 24 * 3600 / math.Ln2
	return tau * (w(now.Sub(to)) - w(now.Sub(from)))
}

func TestANewProviderStartsAtThePrior(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		p, _ := b.provider(t, nil)
		s := b.summary(t, p)
		require.InDelta(t, PriorUptime, s.Components.Uptime, 1e-12)
		require.InDelta(t, PriorCompletion, s.Components.Completion, 1e-12)
		require.InDelta(t, PriorConsistency, s.Components.Consistency, 1e-12)
		require.Equal(t, 94, s.Score, "100 × (0.5·0.95 + 0.3·0.9 + 0.2·0.95) = 93.5, rounded")
		require.Empty(t, s.Events)
		require.Len(t, s.Projection, ProjectionDays)
	})
}

// Issue 29 point 6: a provider with no machine, or whose machines the
// platform has not yet watched for any time in their schedule, run a job
// or benchmarked, has nothing scored: the score is the prior alone and
// Scored says so, so no page shows it as the provider's. An hour online
// in the schedule is something to score.
func TestNothingIsScoredUntilTheFirstMachineHasBeenWatched(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		empty := b.newProvider(t, nil)
		s := b.summary(t, empty)
		require.False(t, s.Scored, "no machine")
		require.Empty(t, s.Machines)

		p, m := b.provider(t, nil)
		s = b.summary(t, p)
		require.False(t, s.Scored, "a machine registered this instant")
		require.False(t, s.Machines[0].Scored)

		b.clock.Set(t0.Add(time.Hour))
		s = b.summary(t, p)
		require.True(t, s.Scored, "an hour online in its 24/7 schedule")
		require.True(t, s.Machines[0].Scored)
		mine, err := b.svc.Machine(b.ctx, p, m)
		require.NoError(t, err)
		require.True(t, mine.Scored)
		require.False(t, b.summary(t, empty).Scored, "the provider without machines still has nothing")
	})
}

// A two-hour unplanned outage after two days online (24/7): uptime is
// exactly the decayed online time over the decayed scheduled time with
// the prior, the outage is the event that cost it, and the score recovers
// as the projection said while the machine stays online.
func TestAnOutageInsideTheScheduleLowersUptimeAndTheScoreRecovers(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		p, m := b.provider(t, nil)
		b.at(t, m, protocol.MachineOffline, t0.Add(48*time.Hour))
		b.at(t, m, protocol.MachineOnline, t0.Add(50*time.Hour))
		now := t0.Add(50 * time.Hour)
		b.clock.Set(now)
		s := b.summary(t, p)

		online, offline := seconds(t0, t0.Add(48*time.Hour), now), seconds(t0.Add(48*time.Hour), now, now)
		want := (online + PriorUptime*PriorUptimeSeconds) / (online + offline + PriorUptimeSeconds)
		require.InDelta(t, want, s.Components.Uptime, 1e-9)
		noOutage := (online + offline + PriorUptime*PriorUptimeSeconds) / (online + offline + PriorUptimeSeconds)
		require.Less(t, s.Components.Uptime, noOutage, "lower than fifty hours online would be")
		require.Len(t, s.Events, 1)
		e := s.Events[0]
		require.Equal(t, []any{models.EventOutage, 7200.0, t0.Add(48 * time.Hour)}, []any{e.Kind, e.Magnitude, e.At.UTC()})
		require.Positive(t, e.Cost)
		require.Equal(t, s.Score, b.summary(t, p).Score, "reading changes nothing")

		// A week online later: the outage weighs half, the score has
		// risen to what the projection said (to a point).
		projected := s.Projection[6].Score
		b.clock.Set(s.Projection[6].Day)
		later := b.summary(t, p)
		require.Greater(t, later.Score, s.Score-1)
		require.Greater(t, later.Components.Uptime, s.Components.Uptime, "recovers")
		require.InDelta(t, projected, later.Score, 1)
		require.Less(t, later.Events[0].Cost, e.Cost, "the outage fades")
	})
}

func TestTheSameOutageOutsideTheScheduleOrAnnouncedAsMaintenanceChangesNothing(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		control, cm := b.provider(t, weekdays("09:00", "17:00"))
		night, nm := b.provider(t, weekdays("09:00", "17:00"))
		maint, mm := b.provider(t, weekdays("09:00", "17:00"))
		// Tuesday 01:00–03:00 is outside the schedule.
		b.at(t, nm, protocol.MachineOffline, t0.Add(25*time.Hour))
		b.at(t, nm, protocol.MachineOnline, t0.Add(27*time.Hour))
		// Tuesday 10:00–12:00 is inside, but declared ahead as maintenance.
		_, err := db.NewInsert().Model(&models.MaintenanceWindow{ProviderID: maint, MachineID: &mm, StartsAt: t0.Add(33 * time.Hour),
			EndsAt: t0.Add(37 * time.Hour), CreatedAt: t0}).Exec(b.ctx)
		require.NoError(t, err)
		b.at(t, mm, protocol.MachineOffline, t0.Add(34*time.Hour))
		b.at(t, mm, protocol.MachineOnline, t0.Add(36*time.Hour))
		_ = cm
		b.clock.Set(t0.Add(72 * time.Hour))
		want := b.summary(t, control)
		got := b.summary(t, night)
		require.InDelta(t, want.Components.Uptime, got.Components.Uptime, 1e-9, "time outside the schedule counts for nothing")
		require.Equal(t, want.Score, got.Score)
		require.Empty(t, got.Events)
		// Maintenance hours leave the scheduled time: the two hours count
		// neither way (a hair closer to the prior than two more good
		// hours would be), and nothing is an event.
		got = b.summary(t, maint)
		require.InDelta(t, want.Components.Uptime, got.Components.Uptime, 0.002)
		require.Equal(t, want.Score, got.Score)
		require.Empty(t, got.Events)
		// The same two hours inside the schedule, undeclared, do count.
		inside, im := b.provider(t, weekdays("09:00", "17:00"))
		b.at(t, im, protocol.MachineOffline, t0.Add(34*time.Hour))
		b.at(t, im, protocol.MachineOnline, t0.Add(36*time.Hour))
		got = b.summary(t, inside)
		require.Less(t, got.Components.Uptime, want.Components.Uptime)
		require.Len(t, got.Events, 1)
	})
}

func TestOnlyProviderSideJobEndsLowerCompletion(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		p, m := b.provider(t, nil)
		end := func(id int64, state models.RentalState, cause *protocol.JobCause) {
			r := completedJob(b.clock.Now())
			r.ID, r.ProviderID, r.MachineID, r.State, r.Cause = id, p, m, state, cause
			b.svc.OnRentalEnded(b.ctx, r)
		}
		prior := b.summary(t, p).Components.Completion
		end(1, models.RentalStopped, nil)
		end(2, models.RentalFailed, ptr(protocol.CauseCustomer))
		end(3, models.RentalFailed, ptr(protocol.CausePlatform))
		require.Equal(t, prior, b.summary(t, p).Components.Completion, "customer stops and others' faults change nothing")
		end(4, models.RentalInterrupted, ptr(protocol.CauseProvider))
		s := b.summary(t, p)
		require.InDelta(t, PriorCompletion*PriorCompletionJobs/(PriorCompletionJobs+1), s.Components.Completion, 1e-9)
		require.Len(t, s.Events, 1)
		require.Equal(t, []any{models.EventJobInterrupted, "4"}, []any{s.Events[0].Kind, s.Events[0].Detail})
		end(5, models.RentalCompleted, nil)
		require.InDelta(t, (1+PriorCompletion*PriorCompletionJobs)/(2+PriorCompletionJobs), b.summary(t, p).Components.Completion, 1e-9)
	})
}

// completedJob is a rental that ran an hour on one GPU at 2 USDC/h and
// completed at at: worth counting.
func completedJob(at time.Time) *models.Rental {
	began := at.Add(-time.Hour)
	return &models.Rental{State: models.RentalCompleted, GpuCount: 1, PricePerHour: 2 * models.MicrosPerUSDC, StartedAt: &began, EndedAt: &at}
}

// Issue 24, point 5: a provider renting its own GPUs at 0.000001 USDC/h
// for 30 days (0.00072 USDC) bought a completed job. A completion counts
// only when the rental was worth MinJobValue; a provider-side failure
// counts against whatever it was worth.
func TestACompletedRentalBelowTheMinimumValueDoesNotCount(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		p, m := b.provider(t, nil)
		at := b.clock.Now()
		month := at.Add(-30 * 24 * time.Hour)
		prior := b.summary(t, p).Components.Completion
		wash := &models.Rental{ID: 1, ProviderID: p, MachineID: m, State: models.RentalCompleted, GpuCount: 1, PricePerHour: 1,
			StartedAt: &month, EndedAt: &at}
		b.svc.OnRentalEnded(b.ctx, wash)
		never := &models.Rental{ID: 2, ProviderID: p, MachineID: m, State: models.RentalCompleted, GpuCount: 8, PricePerHour: 9 * models.MicrosPerUSDC, EndedAt: &at}
		b.svc.OnRentalEnded(b.ctx, never)
		require.Equal(t, prior, b.summary(t, p).Components.Completion, "a wash rental and one that never ran buy nothing")

		// Exactly the minimum counts: 0.05 USDC is 90 s at 2 USDC/h.
		began := at.Add(-90 * time.Second)
		b.svc.OnRentalEnded(b.ctx, &models.Rental{ID: 3, ProviderID: p, MachineID: m, State: models.RentalCompleted, GpuCount: 1,
			PricePerHour: 2 * models.MicrosPerUSDC, StartedAt: &began, EndedAt: &at})
		require.InDelta(t, (1+PriorCompletion*PriorCompletionJobs)/(1+PriorCompletionJobs), b.summary(t, p).Components.Completion, 1e-9)

		// A cheap provider-side failure still counts against.
		cause := protocol.CauseProvider
		b.svc.OnRentalEnded(b.ctx, &models.Rental{ID: 4, ProviderID: p, MachineID: m, State: models.RentalFailed, Cause: &cause,
			GpuCount: 1, PricePerHour: 1, StartedAt: &began, EndedAt: &at})
		require.InDelta(t, (1+PriorCompletion*PriorCompletionJobs)/(2+PriorCompletionJobs), b.summary(t, p).Components.Completion, 1e-9)
	})
}

func TestAThrottledGPULowersConsistency(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		p, m := b.provider(t, nil)
		at := t0.Add(time.Hour)
		b.svc.OnBenchmarked(b.ctx, []*models.GpuBenchmark{
			{GpuID: 1, MachineID: m, At: at, Consistency: ptr(1.02), Guidance: []models.BenchmarkGuidance{}},
			{GpuID: 2, MachineID: m, At: at, Consistency: ptr(1.0), Guidance: []models.BenchmarkGuidance{{Code: models.GuidanceThermalThrottling}}},
			{GpuID: 3, MachineID: m, At: at, Consistency: nil, Guidance: []models.BenchmarkGuidance{}}, // first run: no baseline
		})
		s := b.summary(t, p)
		want := (1 + 0.8 + PriorConsistency*PriorConsistencyWeight) / (2 + PriorConsistencyWeight)
		require.InDelta(t, want, s.Components.Consistency, 1e-9, "held to 1, less the throttle penalty; the first run counts nothing")
		require.Len(t, s.Events, 1)
		require.Equal(t, models.EventBenchmarkDegraded, s.Events[0].Kind)
		require.Contains(t, s.Events[0].Detail, "THERMAL_THROTTLING")
		require.Contains(t, s.Advice, AdviceFixThrottling)
	})
}

// A transition costs at most three SQL statements (in one transaction,
// whose BEGIN and COMMIT are not counted): the load, the row, the event.
func TestATransitionCostsAtMostThreeStatements(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		_, m := b.provider(t, weekdays("09:00", "17:00"))
		statements := func(fn func()) []string {
			var out []string
			for _, q := range b.queries.Record(fn) {
				if q != "BEGIN" && q != "COMMIT" {
					out = append(out, q)
				}
			}
			return out
		}
		require.Len(t, statements(func() { b.at(t, m, protocol.MachineOffline, t0.Add(34*time.Hour)) }), 2, "load, save")
		got := statements(func() { b.at(t, m, protocol.MachineOnline, t0.Add(36*time.Hour)) })
		require.Len(t, got, 3, "load, save, the outage: %v", got)
	})
}

// The leader's refresh keeps providers' scores for the marketplace, the
// trend's snapshots, and flags a machine under the floor to its provider
// and the admins, once a day.
func TestRefreshStoresScoresSnapshotsAndFlagsTheFloor(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		good, _ := b.provider(t, nil)
		bad, bm := b.provider(t, nil)
		b.at(t, bm, protocol.MachineOffline, t0.Add(2*time.Hour))
		b.clock.Set(t0.Add(74 * time.Hour))
		require.NoError(t, b.svc.Refresh(b.ctx))
		require.NoError(t, b.svc.Refresh(b.ctx))
		scores, err := b.svc.Scores(b.ctx, []int64{good, bad})
		require.NoError(t, err)
		require.Greater(t, scores[good], scores[bad])
		require.Less(t, scores[bad], b.svc.Config().Floor, "three days offline out of three and two hours")
		s := b.summary(t, bad)
		require.Len(t, s.Trend, 1)
		require.Equal(t, scores[bad], s.Trend[0].Score)
		require.True(t, s.BelowFloor)
		var owner int64
		require.NoError(t, db.NewSelect().Model((*models.Provider)(nil)).Column("user_id").Where("id = ?", bad).Scan(b.ctx, &owner))
		n, err := db.NewSelect().Model((*models.Notification)(nil)).Where("user_id = ? AND kind = ?", owner, KindBelowFloor).Count(b.ctx)
		require.NoError(t, err)
		require.EqualValues(t, 1, n, "flagged once")
		fleet, err := b.svc.Fleet(b.ctx, 10)
		require.NoError(t, err)
		require.Equal(t, bad, fleet[0].ProviderID, "lowest first")
		// The admins' list shows each score's parts, as the summary has
		// them, and the provider's application.
		for _, row := range fleet {
			sum := b.summary(t, row.ProviderID)
			require.NotNil(t, row.Components(), "provider %d's parts", row.ProviderID)
			require.InDelta(t, sum.Components.Uptime, row.Components().Uptime, 1e-9)
			require.InDelta(t, sum.Components.Completion, row.Components().Completion, 1e-9)
			require.InDelta(t, sum.Components.Consistency, row.Components().Consistency, 1e-9)
			require.Equal(t, row.Score, row.Components().Score(), "the parts make the score")
			var app int64
			require.NoError(t, db.NewSelect().Model((*models.Provider)(nil)).Column("application_id").Where("id = ?", row.ProviderID).Scan(b.ctx, &app))
			require.Equal(t, app, row.ApplicationID)
		}
		require.Less(t, fleet[0].Components().Uptime, fleet[1].Components().Uptime, "the offline provider's uptime is what pulls it down")
	})
}
