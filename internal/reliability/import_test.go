package reliability

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// An imported past leaves one snapshot a day, each what Refresh would have
// stored at that day's end had it run through the past live: down on the
// day of the outage and the interrupted job, up again after; importing
// again adds nothing.
func TestImportPastSnapshotsEachDayAsRefreshWouldHave(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		cause := protocol.CauseProvider
		steps := func() []PastStep {
			var out []PastStep
			for d := range 20 {
				at := t0.Add(time.Duration(d) * oneDay)
				if d == 10 {
					out = append(out, PastStep{At: at.Add(12 * time.Hour), Status: protocol.MachineOffline},
						PastStep{At: at.Add(13 * time.Hour), Ended: &models.Rental{State: models.RentalInterrupted, Cause: &cause}},
						PastStep{At: at.Add(18 * time.Hour), Status: protocol.MachineOnline})
				}
				out = append(out, PastStep{At: at.Add(20 * time.Hour), Ended: completedJob(at.Add(20 * time.Hour))})
			}
			return out
		}
		now := t0.Add(20*oneDay + 9*time.Hour)
		// The same past, lived: each step at its time, Refresh at the
		// end of each day.
		live, lm := b.provider(t, nil)
		next := t0.Add(oneDay)
		for _, st := range steps() {
			for ; next.Before(st.At); next = next.Add(oneDay) {
				b.clock.Set(next.Add(-time.Nanosecond))
				require.NoError(t, b.svc.Refresh(b.ctx))
			}
			require.NoError(t, b.svc.replay(b.ctx, lm, live, st))
		}
		for ; !next.After(now); next = next.Add(oneDay) {
			b.clock.Set(next.Add(-time.Nanosecond))
			require.NoError(t, b.svc.Refresh(b.ctx))
		}

		past, pm := b.provider(t, nil)
		b.clock.Set(now)
		ok, err := b.svc.ImportPast(b.ctx, past, map[int64][]PastStep{pm: steps()})
		require.NoError(t, err)
		require.True(t, ok)

		trend := func(p int64) []Point { return b.summary(t, p).Trend }
		got := trend(past)
		require.Len(t, got, 20, "each day from the first step's to yesterday")
		for i, pt := range got {
			require.Equal(t, t0.Add(time.Duration(i)*oneDay), pt.Day.UTC())
		}
		require.Equal(t, trend(live), got, "the scores Refresh stored living through it")
		require.Less(t, got[10].Score, got[9].Score, "the outage and the interrupted job pull the day down")
		require.Greater(t, got[19].Score, got[10].Score, "and it recovers")
		require.Equal(t, b.summary(t, live).Score, b.summary(t, past).Score, "the past lived or replayed scores the same now")

		ok, err = b.svc.ImportPast(b.ctx, past, map[int64][]PastStep{pm: steps()})
		require.NoError(t, err)
		require.False(t, ok, "the machine has its history already")
		n, err := db.NewSelect().Model((*models.ReliabilitySnapshot)(nil)).Where("provider_id = ?", past).Count(b.ctx)
		require.NoError(t, err)
		require.EqualValues(t, 40, n, "the provider's and its machine's, once a day")

		// A past without an outage leaves no uptime history: its
		// snapshots are what says it was replayed.
		quiet, qm := b.provider(t, nil)
		online := map[int64][]PastStep{qm: {{At: t0.Add(time.Hour), Status: protocol.MachineOnline}}}
		ok, err = b.svc.ImportPast(b.ctx, quiet, online)
		require.NoError(t, err)
		require.True(t, ok)
		require.Len(t, trend(quiet), 20)
		ok, err = b.svc.ImportPast(b.ctx, quiet, online)
		require.NoError(t, err)
		require.False(t, ok, "replayed already")
	})
}

// Pasts against the rules are refused, naming the machine, and nothing
// is replayed: a machine of another provider, a step after now, steps
// out of order.
func TestImportPastRefusesPastsAgainstTheRules(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		provider, machine := b.provider(t, nil)
		_, other := b.provider(t, nil)
		now := t0.Add(10 * oneDay)
		b.clock.Set(now)
		online := func(at time.Time) PastStep { return PastStep{At: at, Status: protocol.MachineOnline} }
		offline := func(at time.Time) PastStep { return PastStep{At: at, Status: protocol.MachineOffline} }
		tests := []struct {
			desc  string
			pasts map[int64][]PastStep
			field string
		}{
			{"a machine of another provider", map[int64][]PastStep{other: {online(t0)}}, fmt.Sprintf("pasts[%d]", other)},
			{"a step after now", map[int64][]PastStep{machine: {online(t0), offline(now.Add(time.Minute))}}, fmt.Sprintf("pasts[%d][1].at", machine)},
			{"steps out of order", map[int64][]PastStep{machine: {online(t0.Add(oneDay)), offline(t0)}}, fmt.Sprintf("pasts[%d][1].at", machine)},
		}
		for _, tc := range tests {
			_, err := b.svc.ImportPast(b.ctx, provider, tc.pasts)
			v, ok := fault.AsValidation(err)
			require.True(t, ok, "%s: %v", tc.desc, err)
			require.Len(t, v.Problems, 1, tc.desc)
			require.Equal(t, tc.field, v.Problems[0].Field, tc.desc)
		}
		n, err := db.NewSelect().Model((*models.ReliabilitySnapshot)(nil)).Count(b.ctx)
		require.NoError(t, err)
		require.Zero(t, n, "nothing was replayed")
	})
}
