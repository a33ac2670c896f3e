package market

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// The refresh keeps a snapshot of what each provider offers and adds the
// time between refreshes to the usage aggregates: offered and rented
// GPU-seconds per week, place and price band, and each provider's share.
func TestRefreshKeepsSupplyAndAddsUsage(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		lisbon := b.provider(t, providerSpec{city: "Lisbon", country: "Portugal"})
		berlin := b.provider(t, providerSpec{city: "Berlin", country: "DE"})
		lm := b.machine(t, lisbon, h100, 4, 90, 2_000_000)
		b.machine(t, berlin, h100, 2, 90, 3_000_000)
		customer := b.user(t, "customer")
		for _, l := range b.list(t, Filter{}, SortPrice) {
			if l.MachineID == lm.id {
				b.start(t, customer, l, 3)
			}
		}

		require.NoError(t, b.svc.Refresh(b.ctx))
		var supply []*models.ModelSupply
		require.NoError(t, db.NewSelect().Model(&supply).OrderExpr("provider_id").Scan(b.ctx))
		require.Len(t, supply, 2)
		require.Equal(t, []any{4, 3, "lisbon", "PT", "EU"}, []any{supply[0].GPUs, supply[0].Rented, supply[0].City, supply[0].Country, supply[0].Continent})
		require.Equal(t, []any{2, 0, "berlin", "DE", "EU"}, []any{supply[1].GPUs, supply[1].Rented, supply[1].City, supply[1].Country, supply[1].Continent})

		// The first refresh only takes the snapshot: nobody saw the time
		// before it.
		n, err := db.NewSelect().Model((*models.MarketUsage)(nil)).Count(b.ctx)
		require.NoError(t, err)
		require.Zero(t, n)

		// A minute later, a minute of each is credited. The median of
		// {2, 3} USDC is 2 (the lower middle): Lisbon sits in band 0,
		// Berlin at 1.5× in band 4 (1.1^3.5 ≈ 1.40 ≤ 1.5 < 1.1^4.5 ≈ 1.54).
		b.clock.Advance(time.Minute)
		require.NoError(t, b.svc.Refresh(b.ctx))
		// After a long gap (no leader for an hour), at most MaxUsageGap.
		b.clock.Advance(time.Hour)
		require.NoError(t, b.svc.Refresh(b.ctx))

		var usage []*models.MarketUsage
		require.NoError(t, db.NewSelect().Model(&usage).OrderExpr("city").Scan(b.ctx))
		require.Len(t, usage, 2)
		credited := int64((time.Minute + MaxUsageGap) / time.Second)
		require.Equal(t, []any{"berlin", 4, 2 * credited, int64(0)}, []any{usage[0].City, usage[0].Band, usage[0].AvailableSeconds, usage[0].RentedSeconds})
		require.Equal(t, []any{"lisbon", 0, 4 * credited, 3 * credited}, []any{usage[1].City, usage[1].Band, usage[1].AvailableSeconds, usage[1].RentedSeconds})
		require.True(t, usage[0].WeekStart.Equal(models.WeekStart(b.clock.Now())), "the week starting Monday 00:00 UTC")

		var own []*models.ProviderUsage
		require.NoError(t, db.NewSelect().Model(&own).Where("provider_id = ?", lisbon.id).Scan(b.ctx))
		require.Len(t, own, 1)
		require.Equal(t, []int64{4 * credited, 3 * credited}, []int64{own[0].AvailableSeconds, own[0].RentedSeconds})

		// An offline machine offers nothing: it leaves the snapshot.
		_, err = db.NewUpdate().Model((*models.Machine)(nil)).Set("status = ?", protocol.MachineOffline).Where("id = ?", lm.id).Exec(b.ctx)
		require.NoError(t, err)
		b.clock.Advance(time.Minute)
		require.NoError(t, b.svc.Refresh(b.ctx))
		supply = nil
		require.NoError(t, db.NewSelect().Model(&supply).Scan(b.ctx))
		require.Len(t, supply, 1)
		require.Equal(t, berlin.id, supply[0].ProviderID)
	})
}

func TestUsageBandsAndWeeks(t *testing.T) {
	t.Parallel()
	m := models.USDC(2_000_000)
	for _, c := range []struct {
		price models.USDC
		band  int
	}{{2_000_000, 0}, {2_090_000, 0}, {2_100_000, 1}, {1_900_000, -1}, {1_910_000, 0}, {3_000_000, 4}, {1, models.MinBand}, {100_000_000, models.MaxBand}} {
		require.Equal(t, c.band, models.UsageBand(c.price, m), "band of %d against %d", c.price, m)
	}
	lo, hi := models.BandBoundsBP(0)
	require.Equal(t, []int64{9535, 10488}, []int64{lo, hi})
	lo, hi = models.BandBoundsBP(models.MinBand)
	require.Equal(t, int64(0), lo)
	require.Positive(t, hi)
	_, hi = models.BandBoundsBP(models.MaxBand)
	require.Zero(t, hi, "the top band has no upper bound")

	sunday := time.Date(2026, 12, 6, 23, 59, 0, 0, time.UTC)
	require.Equal(t, time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC), models.WeekStart(sunday))
	require.Equal(t, time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC), models.WeekStart(sunday.Add(time.Minute)))
}
