package market

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// Imported weeks are counted as the refresh counts (offered and rented
// GPU-seconds per week, place and band, and the provider's share), once;
// weeks against the rules are refused, naming the field, and nothing is
// written.
func TestImportUsageCountsPastWeeksOnceAndRefusesWhatBreaksTheRules(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		p := b.provider(t, providerSpec{city: "Lisbon", country: "Portugal"})
		thisWeek := models.WeekStart(b.clock.Now())
		week := func(start time.Time, span time.Duration, gpus, rented int) PastWeek {
			return PastWeek{Start: start, Span: span, Offers: []*models.ModelSupply{{ProviderID: p.id, ModelKey: h100, Price: 2_000_000,
				GPUs: gpus, Rented: rented, Tier: string(models.TierCommunity), City: "lisbon", Country: "PT", Continent: "EU"}}}
		}
		lastWeek := thisWeek.AddDate(0, 0, -7)

		refused := []struct {
			desc  string
			weeks []PastWeek
			field string
			code  fault.ProblemCode
		}{
			{"the current week", []PastWeek{week(thisWeek, time.Hour, 4, 2)}, "weeks[0].start", fault.InFuture},
			{"more than a week", []PastWeek{week(lastWeek, 8*24*time.Hour, 4, 2)}, "weeks[0].span", fault.OutOfRange},
			{"more rented than offered", []PastWeek{week(lastWeek, time.Hour, 4, 5)}, "weeks[0].offers[0].rented", fault.OutOfRange},
		}
		for _, tc := range refused {
			_, err := b.svc.ImportUsage(b.ctx, tc.weeks)
			v, ok := fault.AsValidation(err)
			require.True(t, ok, "%s: %v", tc.desc, err)
			require.Len(t, v.Problems, 1, tc.desc)
			require.Equal(t, []any{tc.field, tc.code}, []any{v.Problems[0].Field, v.Problems[0].Code}, tc.desc)
		}
		n, err := db.NewSelect().Model((*models.MarketUsage)(nil)).Count(b.ctx)
		require.NoError(t, err)
		require.Zero(t, n, "nothing refused was written")

		weeks := []PastWeek{week(lastWeek.AddDate(0, 0, -7), 7*24*time.Hour, 4, 1), week(lastWeek, 7*24*time.Hour, 4, 3)}
		wrote, err := b.svc.ImportUsage(b.ctx, weeks)
		require.NoError(t, err)
		require.True(t, wrote)
		var usage []*models.ProviderUsage
		require.NoError(t, db.NewSelect().Model(&usage).Where("provider_id = ?", p.id).OrderExpr("week_start").Scan(b.ctx))
		require.Len(t, usage, 2)
		weekSeconds := int64(7 * 24 * time.Hour / time.Second)
		require.Equal(t, []int64{4 * weekSeconds, weekSeconds}, []int64{usage[0].AvailableSeconds, usage[0].RentedSeconds})
		require.Equal(t, []int64{4 * weekSeconds, 3 * weekSeconds}, []int64{usage[1].AvailableSeconds, usage[1].RentedSeconds})
		require.True(t, usage[1].WeekStart.Equal(lastWeek))

		wrote, err = b.svc.ImportUsage(b.ctx, weeks)
		require.NoError(t, err)
		require.False(t, wrote, "a market with a past is not given another")
		var total int64
		require.NoError(t, db.NewSelect().Model((*models.ProviderUsage)(nil)).ColumnExpr("SUM(available_seconds)").Scan(b.ctx, &total))
		require.Equal(t, 8*weekSeconds, total)
	})
}
