package billing

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// The Payouts tab's chart: what was paid each week, by when it was paid
// (a payout made one week and paid the next counts in the next), weeks
// without a payment as zero, this week last; a payout not yet paid counts
// nowhere.
func TestPayoutWeeksSumWhatWasPaidEachWeek(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b, provider, _ := payoutWorld(t, db, Config{}, 25_000_000) // Monday 2026-12-07 06:00 UTC
		pay := func() {
			t.Helper()
			ps, err := b.svc.Payouts(b.ctx, provider, 1)
			require.NoError(t, err)
			_, err = b.svc.MarkPaid(b.ctx, ps[0].ID, "bank ref "+b.clock.Now().Format(time.RFC3339))
			require.NoError(t, err)
		}
		require.NoError(t, b.svc.RunPayouts(b.ctx))
		pay() // 25 USDC in the week of 7 December

		b.earn(t, provider, 30_000_000)
		b.clock.Set(time.Date(2026, 12, 14, 6, 0, 0, 0, time.UTC))
		require.NoError(t, b.svc.RunPayouts(b.ctx))
		b.clock.Set(time.Date(2026, 12, 20, 23, 59, 59, 0, time.UTC)) // the Sunday before midnight
		pay()                                                         // 30 USDC in the week of 14 December

		b.earn(t, provider, 40_000_000)
		b.clock.Set(time.Date(2026, 12, 28, 6, 0, 0, 0, time.UTC))
		require.NoError(t, b.svc.RunPayouts(b.ctx)) // made, not paid

		type week struct {
			Start string
			Paid  models.USDC
			Count int
		}
		read := func(n int) []week {
			t.Helper()
			ws, err := b.svc.PayoutWeeks(b.ctx, provider, n)
			require.NoError(t, err)
			out := make([]week, len(ws))
			for i, w := range ws {
				out[i] = week{w.Start.UTC().Format("2006-01-02 15:04"), w.Paid, w.Count}
			}
			return out
		}
		require.Equal(t, []week{
			{"2026-11-30 00:00", 0, 0},
			{"2026-12-07 00:00", 25_000_000, 1},
			{"2026-12-14 00:00", 30_000_000, 1},
			{"2026-12-21 00:00", 0, 0},
			{"2026-12-28 00:00", 0, 0},
		}, read(5))
		require.Equal(t, []week{{"2026-12-21 00:00", 0, 0}, {"2026-12-28 00:00", 0, 0}}, read(2), "older payments are outside two weeks")

		for _, n := range []int{0, -1, MaxPayoutWeeks + 1} {
			_, err := b.svc.PayoutWeeks(b.ctx, provider, n)
			require.Equal(t, map[string]string{"weeks": "OUT_OF_RANGE"}, problems(t, err), "weeks %d", n)
		}
	})
}

// Weeks follow the provider's time zone, as its payout periods do: a
// payment late on Sunday in UTC is Monday in Tokyo, the next week there.
func TestPayoutWeeksFollowTheProvidersTimeZone(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b, provider, _ := payoutWorld(t, db, Config{}, 25_000_000)
		_, err := db.NewInsert().Model(&models.ProviderSchedule{
			ProviderID:   provider,
			Availability: models.Availability{Kind: models.AvailabilityAlways, TimeZone: ptr("Asia/Tokyo"), Windows: []*models.AvailabilityWindow{}},
			UpdatedAt:    b.clock.Now(),
		}).Exec(b.ctx)
		require.NoError(t, err)
		require.NoError(t, b.svc.RunPayouts(b.ctx))
		ps, err := b.svc.Payouts(b.ctx, provider, 1)
		require.NoError(t, err)
		b.clock.Set(time.Date(2026, 12, 13, 16, 0, 0, 0, time.UTC)) // Sunday 16:00 UTC, Monday 01:00 in Tokyo
		_, err = b.svc.MarkPaid(b.ctx, ps[0].ID, "bank ref")
		require.NoError(t, err)

		ws, err := b.svc.PayoutWeeks(b.ctx, provider, 2)
		require.NoError(t, err)
		tokyo, err := time.LoadLocation("Asia/Tokyo")
		require.NoError(t, err)
		require.Len(t, ws, 2)
		require.Equal(t, time.Date(2026, 12, 14, 0, 0, 0, 0, tokyo), ws[1].Start.In(tokyo), "this week is Tokyo's")
		require.Equal(t, []models.USDC{0, 25_000_000}, []models.USDC{ws[0].Paid, ws[1].Paid}, "paid on Tokyo's Monday: this week")
	})
}
