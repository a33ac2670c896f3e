package pricing

import (
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/catalog"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/geo"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

const h100 = "H100_SXM_80GB"

// market seeds the aggregates the market's refresh keeps (the market
// package's tests show the refresh writing them): competitors' offers in
// model_supply, usage by place and band, and the model's median.
type market struct {
	b *bundle
	t *testing.T
}

// competitor is a new approved provider offering gpus (rented of them) of
// model at price in city, country.
func (m market) competitor(model string, price int64, gpus, rented int, city, country string) int64 {
	m.t.Helper()
	id := m.b.newProvider(m.t, "c"+time.Now().Format("150405.000000000"), models.Availability{Kind: models.AvailabilityAlways, Windows: []*models.AvailabilityWindow{}})
	m.offer(id, model, price, gpus, rented, city, country)
	return id
}

func (m market) offer(provider int64, model string, price int64, gpus, rented int, city, country string) {
	m.t.Helper()
	p := geo.PlaceOf(&city, nil, &country)
	_, err := m.b.db.NewInsert().Model(&models.ModelSupply{ProviderID: provider, ModelKey: model, Price: models.USDC(price), GPUs: gpus, Rented: rented,
		Tier: string(models.TierCommunity), City: p.City, Country: p.Country, Continent: p.Continent, RefreshedAt: m.b.clock.Now()}).Exec(m.b.ctx)
	require.NoError(m.t, err)
}

// usage adds hours offered and rented of model in city, country, at band,
// this week.
func (m market) usage(model string, band int, offeredHours, rentedHours int64, city, country string) {
	m.t.Helper()
	p := geo.PlaceOf(&city, nil, &country)
	_, err := m.b.db.NewInsert().Model(&models.MarketUsage{ModelKey: model, WeekStart: models.WeekStart(m.b.clock.Now()), Country: p.Country,
		City: p.City, Continent: p.Continent, Band: band, AvailableSeconds: offeredHours * 3600, RentedSeconds: rentedHours * 3600}).Exec(m.b.ctx)
	require.NoError(m.t, err)
}

func (m market) median(model string, price int64) {
	m.t.Helper()
	_, err := m.b.db.NewInsert().Model(&models.ModelMarketPrice{ModelKey: model, Median: models.USDC(price), ComputedAt: m.b.clock.Now()}).
		On("CONFLICT (model_key) DO UPDATE").Set("median_micros = EXCLUDED.median_micros").Exec(m.b.ctx)
	require.NoError(m.t, err)
}

// locate puts provider p in city, country (its application's first GPU
// entry).
func (b *bundle) locate(t *testing.T, provider int64, city, country string) {
	t.Helper()
	_, err := b.db.NewUpdate().Model((*models.ApplicationGpu)(nil)).Set("location_city = ?, location_country = ?", city, country).
		Where("position = 0 AND application_id = (SELECT application_id FROM providers WHERE id = ?)", provider).Exec(b.ctx)
	require.NoError(t, err)
}

// lisbonMarket is five competitors' GPUs in Lisbon from three providers
// (2.00, 2.20, 2.40, 2.60, 3.00 USDC), the model's median 2.40, and
// utilisation util (of 1,000 GPU-hours) at the median's band.
func lisbonMarket(t *testing.T, b *bundle, rentedOfThousand int64) market {
	m := market{b: b, t: t}
	m.competitor(h100, 2_000_000, 2, 2, "Lisbon", "Portugal")
	c := m.competitor(h100, 2_400_000, 1, 1, "Lisbon", "PT")
	_ = c
	m.competitor(h100, 3_000_000, 2, 1, "lisbon", "PRT")
	m.median(h100, 2_400_000)
	m.usage(h100, 0, 1000, rentedOfThousand, "Lisbon", "Portugal")
	b.locate(t, b.provider, "Lisbon", "Portugal")
	return m
}

func reasonOf(r *Recommendation, code ReasonCode) *Reason {
	for i := range r.Reasons {
		if r.Reasons[i].Code == code {
			return &r.Reasons[i]
		}
	}
	return nil
}

func recommend(t *testing.T, b *bundle, region *string) *Recommendation {
	t.Helper()
	rec, err := b.svc.Recommend(b.ctx, b.provider, h100, region)
	require.NoError(t, err)
	return rec
}

func TestAdviceScarceSupplyRecommendsAboveTheMedian(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		lisbonMarket(t, b, 920)
		var rec *Recommendation
		require.LessOrEqual(t, b.queries.Count(func() { rec = recommend(t, b, nil) }), 3, "at most three statements")

		require.Equal(t, geo.Region{Level: geo.City, Place: geo.Place{City: "lisbon", Country: "PT", Continent: "EU"}}, rec.Region, "the provider's own city")
		require.Equal(t, BasisMarket, rec.Basis)
		require.Equal(t, &Percentiles{Region: rec.Region, P10: 2_000_000, P50: 2_400_000, P90: 3_000_000, GPUs: 5, Providers: 3}, rec.Market)
		require.InDelta(t, 0.92, rec.Demand.Utilization, 1e-9)
		require.Equal(t, rec.Region, rec.Demand.Region)
		require.Greater(t, rec.Recommended.Price, rec.Market.P50, "scarce supply: above the median")
		require.LessOrEqual(t, rec.Recommended.Price, rec.High)

		scarce := reasonOf(rec, ReasonSupplyScarce)
		require.NotNil(t, scarce, "says supply is scarce: %+v", rec.Reasons)
		require.Equal(t, 5, *scarce.GPUs)
		require.InDelta(t, 0.92, *scarce.Utilization, 1e-9)
		require.Equal(t, geo.City, scarce.Region.Level)
		require.NotNil(t, reasonOf(rec, ReasonRevenuePeak))
		require.Nil(t, reasonOf(rec, ReasonNoGPUsOfModel), "the provider's application offers H100s")

		again := recommend(t, b, nil)
		require.Equal(t, rec, again, "deterministic for the same data")
	})
}

func TestAdviceGlutRecommendsBelowTheMedian(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		lisbonMarket(t, b, 200)
		rec := recommend(t, b, nil)
		require.Less(t, rec.Recommended.Price, rec.Market.P50, "a glut: below the median")
		require.GreaterOrEqual(t, rec.Recommended.Price, rec.Low)
		glut := reasonOf(rec, ReasonSupplyGlut)
		require.NotNil(t, glut, "%+v", rec.Reasons)
		require.InDelta(t, 0.2, *glut.Utilization, 1e-9)
		require.NotNil(t, reasonOf(rec, ReasonHeldAtLow), "the peak lies below the market's band")
	})
}

// Cheap bands rented, dear ones idle: the fitted curve falls with price,
// and the advice follows the data rather than the prior.
func TestAdviceFollowsTheBandsUtilisation(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		m := lisbonMarket(t, b, 600)
		m.usage(h100, -2, 1000, 990, "Lisbon", "PT")
		m.usage(h100, 2, 1000, 50, "Lisbon", "PT")
		rec := recommend(t, b, nil)
		require.True(t, rec.Demand.Fitted)
		require.Len(t, rec.Demand.Bands, 3)
		require.Greater(t, rec.Demand.Bands[0].Utilization, rec.Demand.Bands[2].Utilization)
		for i := 1; i < len(rec.Curve); i++ {
			require.LessOrEqual(t, rec.Curve[i].UtilizationPPM, rec.Curve[i-1].UtilizationPPM, "utilisation falls as the price rises")
			require.Greater(t, rec.Curve[i].Price, rec.Curve[i-1].Price)
		}
		sens := reasonOf(rec, ReasonPriceSensitivity)
		require.NotNil(t, sens)
		require.Positive(t, *sens.Percent)
		// The band edges are prices around the median.
		require.Equal(t, models.USDC(2_400_000*9535/10_000), *rec.Demand.Bands[1].Min)
	})
}

func TestAdviceWidensAThinMarketAndSaysSo(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		m := market{b: b, t: t}
		m.competitor(h100, 2_000_000, 4, 2, "Lisbon", "PT")   // one provider: no market
		m.competitor(h100, 2_500_000, 2, 1, "Porto", "PT")    // Portugal: two providers
		m.competitor(h100, 9_000_000, 8, 0, "Tokyo", "Japan") // elsewhere
		m.median(h100, 2_500_000)
		b.locate(t, b.provider, "Lisbon", "Portugal")
		rec := recommend(t, b, nil)
		require.Equal(t, geo.Country, rec.Market.Region.Level)
		require.Equal(t, "PT", rec.Market.Region.Country)
		require.Equal(t, []models.USDC{2_000_000, 2_000_000, 2_500_000}, []models.USDC{rec.Market.P10, rec.Market.P50, rec.Market.P90})
		w := reasonOf(rec, ReasonMarketWidened)
		require.NotNil(t, w, "says the city was too thin")
		require.Equal(t, geo.City, w.Region.Level)
		require.Equal(t, []int{4, 1}, []int{*w.GPUs, *w.Providers})
		// No usage anywhere: the curve is the prior's.
		require.NotNil(t, reasonOf(rec, ReasonDemandThin))
		require.False(t, rec.Demand.Fitted)

		// Asked about the world, the world's prices.
		world := "world"
		rec = recommend(t, b, &world)
		require.Equal(t, geo.World, rec.Market.Region.Level)
		require.Equal(t, 14, rec.Market.GPUs)
		require.Nil(t, reasonOf(rec, ReasonMarketWidened))
	})
}

func TestAdviceWithNoMarketStartsFromReferencePerformance(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		m := market{b: b, t: t}
		// Only the asking provider offers H100s; A100s and L4s have markets.
		m.offer(b.provider, h100, 2_000_000, 8, 8, "Lisbon", "PT")
		m.median(h100, 2_000_000)
		m.median("A100_SXM_80GB", 1_500_000)
		m.median("L4_24GB", 400_000)
		var rec *Recommendation
		require.LessOrEqual(t, b.queries.Count(func() { rec = recommend(t, b, nil) }), 3)
		require.Equal(t, BasisReference, rec.Basis)
		require.Nil(t, rec.Market, "its own listing is not its competition")
		scale := func(price int64, from string) int64 {
			f := performance(catalog.ByKey(h100)) / performance(catalog.ByKey(from))
			return price * int64(f*1e6+0.5) / 1_000_000
		}
		a, l := scale(1_500_000, "A100_SXM_80GB"), scale(400_000, "L4_24GB")
		want := models.USDC((min(a, l) + 5_000) / 10_000 * 10_000)
		require.Equal(t, want, rec.Recommended.Price, "the lower middle of the scaled medians, to the cent")
		nm := reasonOf(rec, ReasonNoMarket)
		require.NotNil(t, nm)
		require.Equal(t, 2, *nm.Models)

		// Nothing priced at all: the platform's reference rate.
		_, err := db.NewDelete().Model((*models.ModelMarketPrice)(nil)).Where("1 = 1").Exec(b.ctx)
		require.NoError(t, err)
		rec = recommend(t, b, nil)
		require.Equal(t, models.USDC(ReferenceRate), rec.Recommended.Price, "the reference model at the reference rate")
		require.Zero(t, *reasonOf(rec, ReasonNoMarket).Models)
	})
}

func TestAdviceLeavesTheProvidersOwnGPUsOut(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		m := lisbonMarket(t, b, 920)
		before := recommend(t, b, nil)

		// The provider's own 20 idle GPUs at 9 USDC: in the supply and in
		// the usage (market and own share alike), as the refresh writes them.
		m.offer(b.provider, h100, 9_000_000, 20, 0, "Lisbon", "PT")
		m.usage(h100, 8, 2000, 0, "Lisbon", "PT")
		_, err := db.NewInsert().Model(&models.ProviderUsage{ProviderID: b.provider, ModelKey: h100, WeekStart: models.WeekStart(b.clock.Now()),
			Band: 8, AvailableSeconds: 2000 * 3600}).Exec(b.ctx)
		require.NoError(t, err)
		after := recommend(t, b, nil)
		require.Equal(t, before.Market, after.Market)
		require.Equal(t, before.Recommended, after.Recommended)
		require.Equal(t, before.Demand.Utilization, after.Demand.Utilization)
	})
}

// The expected monthly earnings are price × utilisation × 730 h × (1 −
// fee), to the micro-USDC (rounded down), at every point shown.
func TestAdviceEarningsArePriceTimesUtilisationTimesHoursAfterTheFee(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		lisbonMarket(t, b, 700)
		_, err := b.svc.SetPrice(b.ctx, b.provider, PriceInput{Model: h100, PricePerHour: 2_345_678})
		require.NoError(t, err)
		rec := recommend(t, b, nil)
		require.NotNil(t, rec.Current)
		require.Equal(t, models.USDC(2_345_678), rec.Current.Price)
		points := append([]Outcome{rec.Recommended, *rec.Current}, rec.Curve...)
		require.Len(t, rec.Curve, CurvePoints)
		for _, o := range points {
			want := new(big.Rat).SetInt64(int64(o.Price))
			want.Mul(want, big.NewRat(o.UtilizationPPM, 1_000_000))
			want.Mul(want, big.NewRat(HoursPerMonth, 1))
			want.Mul(want, big.NewRat(int64(10_000-feeBps), 10_000))
			floor := new(big.Int).Quo(want.Num(), want.Denom())
			require.Equal(t, floor.Int64(), int64(o.MonthlyEarnings), "at %s", o.Price)
		}
		require.Equal(t, feeBps, rec.FeeBps)
		require.GreaterOrEqual(t, rec.Recommended.MonthlyEarnings, rec.Current.MonthlyEarnings, "the advice earns at least what the current price does")
	})
}

func TestAdviceRefusesBadInputAndAdvisesBeforeBuying(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		lisbonMarket(t, b, 500)
		bad := "Atlantis"
		_, err := b.svc.Recommend(b.ctx, b.provider, "H9000", &bad)
		requireProblems(t, err, map[string]string{"model": string(fault.UnknownModel), "region": string(fault.InvalidValue)})
		for _, r := range []string{"Lisbon", "Lisbon, Atlantis", ", PT", "EU-ish"} {
			_, err = b.svc.Recommend(b.ctx, b.provider, h100, &r)
			requireProblems(t, err, map[string]string{"region": string(fault.InvalidValue)})
		}
		for _, r := range []string{"PT", "portugal", "Europe", "WORLD", "Lisbon, PT", " porto , Portugal "} {
			_, err = b.svc.Recommend(b.ctx, b.provider, h100, &r)
			require.NoError(t, err, r)
		}

		// No GPUs of the model: advice before buying, and it says so.
		rec, err := b.svc.Recommend(b.ctx, b.provider, "RTX_4090_24GB", nil)
		require.NoError(t, err)
		require.False(t, rec.OwnsModel)
		require.NotNil(t, reasonOf(rec, ReasonNoGPUsOfModel))
		require.Nil(t, rec.Current)
	})
}
