package pricing

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

func usdc(t *testing.T, s string) models.USDC {
	t.Helper()
	u, err := models.ParseUSDC(s)
	require.NoError(t, err)
	return u
}

func TestPriceChangesAreKeptAsHistoryNewestFirst(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		set := func(model, price string) *models.GpuPrice {
			t.Helper()
			p, err := b.svc.SetPrice(b.ctx, b.provider, PriceInput{Model: model, PricePerHour: usdc(t, price)})
			require.NoError(t, err)
			return p
		}
		set("L4_24GB", "0.5")
		b.clock.Advance(time.Minute)
		p := set("L4_24GB", "0.65")
		require.Equal(t, usdc(t, "0.65"), p.PricePerHour)
		require.Len(t, p.History, 2)
		b.clock.Advance(time.Minute)
		p = set("L4_24GB", "0.65")
		require.Len(t, p.History, 2, "the same rate again is no change")
		set("H100_SXM_80GB", "2.150000") // from the application: no machine runs one yet

		var prices []*models.GpuPrice
		require.Equal(t, 2, b.queries.Count(func() {
			var err error
			prices, err = b.svc.Prices(b.ctx, b.provider)
			require.NoError(t, err)
		}), "the prices and all their histories in two queries")
		require.Len(t, prices, 2)
		require.Equal(t, "H100_SXM_80GB", prices[0].ModelKey)
		require.Equal(t, "2.150000", prices[0].PricePerHour.String())
		require.Len(t, prices[0].History, 1)
		l4 := prices[1]
		require.Equal(t, "L4_24GB", l4.ModelKey)
		require.Equal(t, []models.USDC{usdc(t, "0.65"), usdc(t, "0.5")}, []models.USDC{l4.History[0].PricePerHour, l4.History[1].PricePerHour})
		require.True(t, l4.History[0].At.After(l4.History[1].At))
		require.Equal(t, start.Add(time.Minute), l4.UpdatedAt.UTC())

		got, ok, err := b.svc.PriceOf(b.ctx, b.provider, "L4_24GB")
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, usdc(t, "0.65"), got)
		_, ok, err = b.svc.PriceOf(b.ctx, b.provider, "A100_SXM_80GB")
		require.NoError(t, err)
		require.False(t, ok, "a model not priced yet has no price")
	})
}

func TestSetPriceRefusesBadPricesAndModelsChangingNothing(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		other := b.newProvider(t, "other", weekdays("UTC", "00:00", "24:00"))
		b.register(t, other, "machine-other", "NVIDIA L40S")
		_, err := b.svc.SetPrice(b.ctx, b.provider, PriceInput{Model: "L4_24GB", PricePerHour: usdc(t, "0.5")})
		require.NoError(t, err)
		before, err := b.svc.Prices(b.ctx, b.provider)
		require.NoError(t, err)

		cases := []struct {
			desc  string
			model string
			price models.USDC
			want  map[string]string
		}{
			{"zero", "L4_24GB", 0, map[string]string{"input.pricePerHour": "OUT_OF_RANGE"}},
			{"negative", "L4_24GB", -1, map[string]string{"input.pricePerHour": "OUT_OF_RANGE"}},
			{"over the cap", "L4_24GB", DefaultMaxPricePerHour + 1, map[string]string{"input.pricePerHour": "OUT_OF_RANGE"}},
			{"unknown model", "TPU_V5", usdc(t, "1"), map[string]string{"input.model": "UNKNOWN_MODEL"}},
			{"a model another provider has, not this one", "L40S_48GB", usdc(t, "1"), map[string]string{"input.model": "INVALID"}},
			{"both wrong", "L40S_48GB", 0, map[string]string{"input.model": "INVALID", "input.pricePerHour": "OUT_OF_RANGE"}},
		}
		for _, tc := range cases {
			_, err := b.svc.SetPrice(b.ctx, b.provider, PriceInput{Model: tc.model, PricePerHour: tc.price})
			requireProblems(t, err, tc.want)
		}
		p, err := b.svc.SetPrice(b.ctx, b.provider, PriceInput{Model: "L4_24GB", PricePerHour: DefaultMaxPricePerHour})
		require.NoError(t, err, "the cap itself is allowed")
		require.Equal(t, "100.000000", p.PricePerHour.String())

		after, err := b.svc.Prices(b.ctx, b.provider)
		require.NoError(t, err)
		require.Len(t, after, len(before))
		require.Len(t, after[0].History, 2, "only the accepted change was recorded")
		n, err := b.db.NewSelect().Model((*models.GpuPriceChange)(nil)).Count(b.ctx)
		require.NoError(t, err)
		require.EqualValues(t, 2, n)
	})
}

// Issue 24, point 5: a provider set 0.000001 USDC/h and rented its own
// GPU for 30 days for 0.00072 USDC. A model's price has a floor: 10 % of
// its market median, and 0.01 USDC while it has none.
func TestAPriceUnderTheModelsFloorIsRefused(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		floor, err := b.svc.Floor(b.ctx, "L4_24GB")
		require.NoError(t, err)
		require.Equal(t, models.USDC(DefaultMinPricePerHour), floor, "no market yet: the minimum")
		_, err = b.svc.SetPrice(b.ctx, b.provider, PriceInput{Model: "L4_24GB", PricePerHour: 1})
		requireProblems(t, err, map[string]string{"input.pricePerHour": "OUT_OF_RANGE"})
		_, err = b.svc.SetPrice(b.ctx, b.provider, PriceInput{Model: "L4_24GB", PricePerHour: usdc(t, "0.01")})
		require.NoError(t, err, "the floor itself is allowed")

		_, err = db.NewInsert().Model(&models.ModelMarketPrice{ModelKey: "L4_24GB", Median: usdc(t, "0.8"), ComputedAt: b.clock.Now()}).Exec(b.ctx)
		require.NoError(t, err)
		floor, err = b.svc.Floor(b.ctx, "L4_24GB")
		require.NoError(t, err)
		require.Equal(t, usdc(t, "0.08"), floor, "10 % of the median")
		_, err = b.svc.SetPrice(b.ctx, b.provider, PriceInput{Model: "L4_24GB", PricePerHour: usdc(t, "0.079999")})
		requireProblems(t, err, map[string]string{"input.pricePerHour": "OUT_OF_RANGE"})
		p, err := b.svc.Prices(b.ctx, b.provider)
		require.NoError(t, err)
		require.Equal(t, "0.010000", p[0].PricePerHour.String(), "a refused price changes nothing")
		_, err = b.svc.SetPrice(b.ctx, b.provider, PriceInput{Model: "L4_24GB", PricePerHour: usdc(t, "0.08")})
		require.NoError(t, err)
	})
}
