package pricing

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gpunex/gpunex/internal/catalog"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/geo"
	"github.com/gpunex/gpunex/models"
)

// The advice's thresholds (see doc.go, "Price advice").
const (
	// MinComparableGPUs and MinComparableProviders are what a region needs
	// for its prices to be the market: fewer, and the next wider region is
	// used (one competitor alone does not make a market).
	MinComparableGPUs      = 3
	MinComparableProviders = 2
	// DemandWeeks is how many weeks of usage the demand reads: the current
	// week and the ones before it.
	DemandWeeks = 4
	// MinDemandHours is how many GPU-hours a region must have offered in
	// the window for its utilisation to be used; fewer, and the next wider
	// region is used.
	MinDemandHours = 168.0
	// ScarceUtilization and GlutUtilization are where the advice calls
	// supply scarce or plentiful.
	ScarceUtilization = 0.80
	GlutUtilization   = 0.40
	// BandFloorPct and BandCeilPct widen a tight market's band to at least
	// this far around its median (in percent of it).
	BandFloorPct, BandCeilPct = 90, 110
	// EnterpriseHeadroomPct is how far above the band's top an Enterprise
	// provider's advice may go: Enterprise listings rank higher (see the
	// market's ranking), so they can sit above the market's top decile.
	EnterpriseHeadroomPct = 15
	// CurvePoints is how many prices the curve has.
	CurvePoints = 25
	// ReferenceModel and ReferenceRate start a market when no model has
	// a price at all: the reference model's rate, scaled by performance.
	ReferenceModel = "H100_SXM_80GB"
	ReferenceRate  = 2 * models.MicrosPerUSDC
)

// Basis says what a recommendation stands on.
type Basis string

// The bases.
const (
	// BasisMarket: comparable listings' prices and their utilisation.
	BasisMarket Basis = "MARKET"
	// BasisReference: no comparable listing anywhere; a starting price
	// from the model's reference performance and other models' prices.
	BasisReference Basis = "REFERENCE_PERFORMANCE"
)

// ReasonCode is a stable code the SPA translates, with a Reason's values.
type ReasonCode string

// The reasons.
const (
	// ReasonMarketRegion: prices from Region, GPUs GPUs of Providers providers.
	ReasonMarketRegion ReasonCode = "MARKET_REGION"
	// ReasonMarketWidened: Region (the one asked, or a narrower one) had
	// only GPUs comparable GPUs of Providers providers.
	ReasonMarketWidened ReasonCode = "MARKET_WIDENED"
	// ReasonNoMarket: no comparable listing anywhere; Models other models'
	// prices scaled by reference performance give the start (0: the
	// platform's reference rate).
	ReasonNoMarket ReasonCode = "NO_MARKET"
	// ReasonDemandRegion: utilisation from Region: Hours GPU-hours offered
	// over Weeks weeks, Utilization rented.
	ReasonDemandRegion ReasonCode = "DEMAND_REGION"
	// ReasonDemandThin: fewer than Hours GPU-hours offered even worldwide:
	// the curve leans on the prior.
	ReasonDemandThin ReasonCode = "DEMAND_THIN"
	// ReasonSupplyScarce: supply scarce in Region: GPUs comparable GPUs,
	// Utilization utilised.
	ReasonSupplyScarce ReasonCode = "SUPPLY_SCARCE"
	// ReasonSupplyGlut: supply plentiful in Region: GPUs comparable GPUs,
	// only Utilization utilised.
	ReasonSupplyGlut ReasonCode = "SUPPLY_GLUT"
	// ReasonPriceSensitivity: Percent points of utilisation lost for a
	// rate 10 % above the median.
	ReasonPriceSensitivity ReasonCode = "PRICE_SENSITIVITY"
	// ReasonRevenuePeak: revenue peaks at Price, where Utilization of the
	// hours are rented.
	ReasonRevenuePeak ReasonCode = "REVENUE_PEAK"
	// ReasonHeldAtHigh / ReasonHeldAtLow: the peak lies outside the band;
	// the advice is held at Limit.
	ReasonHeldAtHigh ReasonCode = "HELD_AT_HIGH"
	ReasonHeldAtLow  ReasonCode = "HELD_AT_LOW"
	// ReasonEnterpriseHeadroom: Enterprise may go Percent % above the band.
	ReasonEnterpriseHeadroom ReasonCode = "ENTERPRISE_HEADROOM"
	// ReasonNoGPUsOfModel: the provider has no GPUs of the model (advice
	// before buying).
	ReasonNoGPUsOfModel ReasonCode = "NO_GPUS_OF_MODEL"
)

// Reason is one line of a recommendation's explanation: a code and the
// values its sentence names (the others nil).
type Reason struct {
	Code        ReasonCode
	Region      *geo.Region
	GPUs        *int
	Providers   *int
	Utilization *float64
	Hours       *float64
	Weeks       *int
	Percent     *int
	Models      *int
	Price       *models.USDC
	Limit       *models.USDC
}

// Percentiles are comparable listings' prices in a region, weighted by
// GPU.
type Percentiles struct {
	Region        geo.Region
	P10, P50, P90 models.USDC
	GPUs          int
	Providers     int
}

// DemandBand is a price band's usage over the window.
type DemandBand struct {
	// Min and Max bound the band's rates (nil: open-ended).
	Min, Max       *models.USDC
	OfferedHours   float64
	RentedHours    float64
	Utilization    float64
	UtilizationPPM int64
}

// Demand is the utilisation of comparable GPUs over recent weeks.
type Demand struct {
	Region       geo.Region
	Weeks        int
	OfferedHours float64
	RentedHours  float64
	// Utilization is rented over offered (0 when nothing was offered).
	Utilization float64
	Bands       []DemandBand
	// Fitted says whether the curve's slope came from the bands (else the
	// prior slope).
	Fitted bool
}

// Outcome is what one price is expected to bring a GPU.
type Outcome struct {
	Price models.USDC
	// UtilizationPPM is the expected share of hours rented, in parts per
	// million.
	UtilizationPPM  int64
	MonthlyEarnings models.USDC
}

// Recommendation is the price advice for one model in one region.
type Recommendation struct {
	ModelKey string
	// Region is the region asked about (the provider's location when not
	// given).
	Region    geo.Region
	OwnsModel bool
	Basis     Basis
	// Market is nil when no comparable listing exists anywhere.
	Market      *Percentiles
	Demand      Demand
	Low, High   models.USDC
	Recommended Outcome
	// Current is nil when the provider has not priced the model.
	Current       *Outcome
	Curve         []Outcome
	FeeBps        int
	HoursPerMonth int
	Reasons       []Reason
}

// ownContext is the asking provider's side: statement one.
type ownContext struct {
	Tier    string       `bun:"tier"`
	City    *string      `bun:"city"`
	Region  *string      `bun:"region"`
	Country *string      `bun:"country"`
	Price   *models.USDC `bun:"price"`
	Median  *models.USDC `bun:"median"`
	Owns    int          `bun:"owns"`
}

const ownContextSQL = `SELECT p.tier AS tier, ag.location_city AS city, ag.location_region AS region, ag.location_country AS country,
	(SELECT gp.price_micros FROM gpu_prices gp WHERE gp.provider_id = p.id AND gp.model_key = ?) AS price,
	(SELECT mmp.median_micros FROM model_market_prices mmp WHERE mmp.model_key = ?) AS median,
	CASE WHEN EXISTS (SELECT 1 FROM machine_gpus mg JOIN machines m ON m.id = mg.machine_id
			WHERE m.provider_id = p.id AND mg.model_key = ? AND mg.removed_at IS NULL)
		OR EXISTS (SELECT 1 FROM application_gpus x WHERE x.application_id = p.application_id AND x.model_key = ?)
		THEN 1 ELSE 0 END AS owns
FROM providers p
LEFT JOIN application_gpus ag ON ag.application_id = p.application_id
	AND ag.position = (SELECT MIN(y.position) FROM application_gpus y WHERE y.application_id = p.application_id)
WHERE p.id = ?`

// usageSQL sums the window's usage of a model by place and band, and the
// provider's own share by band (own = 1): statement three.
const usageSQL = `SELECT 0 AS own, country, city, continent, band, SUM(available_seconds) AS offered, SUM(rented_seconds) AS rented
FROM market_usage WHERE model_key = ? AND week_start >= ? GROUP BY country, city, continent, band
UNION ALL
SELECT 1 AS own, '' AS country, '' AS city, '' AS continent, band, SUM(available_seconds) AS offered, SUM(rented_seconds) AS rented
FROM provider_usage WHERE provider_id = ? AND model_key = ? AND week_start >= ? GROUP BY band`

type usageRow struct {
	Own       int    `bun:"own"`
	Country   string `bun:"country"`
	City      string `bun:"city"`
	Continent string `bun:"continent"`
	Band      int    `bun:"band"`
	Offered   int64  `bun:"offered"`
	Rented    int64  `bun:"rented"`
}

// Recommend is the price advice for providerID's GPUs of model in region
// (the provider's location when empty). It reads three statements, each
// over aggregates the market's refresh keeps (model_supply, market_usage,
// provider_usage, model_market_prices) and never rentals themselves: the
// provider's side, the model's supply, and the window's usage (or, with
// no market at all, every model's median). A model the provider has no
// GPUs of is answered too (advice before buying) and says so. Bad input
// is a *fault.Validation naming model or region.
func (s *Service) Recommend(ctx context.Context, providerID int64, model string, region *string) (*Recommendation, error) {
	var v fault.Validation
	key := strings.TrimSpace(model)
	ref := catalog.ByKey(key)
	if ref == nil {
		v.Add("model", fault.UnknownModel, "choose a GPU model of the catalogue")
	}
	var asked *geo.Region
	if region != nil && strings.TrimSpace(*region) != "" {
		r, ok := geo.ParseRegion(*region)
		if !ok {
			v.Add("region", fault.InvalidValue, "give a city with its country (Lisbon, PT), a country (PT or Portugal), a continent (Europe) or world")
		} else {
			asked = &r
		}
	}
	if err := v.Err(); err != nil {
		return nil, err
	}

	var own ownContext
	if err := s.deps.DB.NewRaw(ownContextSQL, key, key, key, key, providerID).Scan(ctx, &own); err != nil {
		return nil, fmt.Errorf("pricing: unable to read the provider for advice: %w", err)
	}
	ownPlace := geo.PlaceOf(own.City, own.Region, own.Country)
	if asked == nil {
		r := geo.RegionOf(ownPlace)
		asked = &r
	}
	rec := &Recommendation{ModelKey: key, Region: *asked, OwnsModel: own.Owns == 1, FeeBps: s.deps.FeeBps, HoursPerMonth: HoursPerMonth}
	if !rec.OwnsModel {
		rec.Reasons = append(rec.Reasons, Reason{Code: ReasonNoGPUsOfModel})
	}

	var supply []*models.ModelSupply
	if err := s.deps.DB.NewSelect().Model(&supply).Column("provider_id", "price_micros", "gpus", "rented", "city", "country", "continent").
		Where("model_key = ? AND provider_id <> ?", key, providerID).Scan(ctx); err != nil {
		return nil, fmt.Errorf("pricing: unable to read the supply for advice: %w", err)
	}

	var reference models.USDC
	var c curve
	if len(supply) == 0 {
		start, basisModels, err := s.startingPrice(ctx, ref)
		if err != nil {
			return nil, err
		}
		rec.Basis = BasisReference
		rec.Reasons = append(rec.Reasons, Reason{Code: ReasonNoMarket, Models: &basisModels, Price: &start})
		reference = start
		rec.Low, rec.High = start*BandFloorPct/100, start*BandCeilPct/100
		c = fitCurve(nil)
		rec.Demand = Demand{Region: geo.Region{Level: geo.World}, Weeks: DemandWeeks, Bands: []DemandBand{}}
		rec.Reasons = append(rec.Reasons, Reason{Code: ReasonDemandThin, Hours: ptrTo(MinDemandHours)})
	} else {
		rec.Basis = BasisMarket
		market, widened := percentilesOf(supply, *asked)
		rec.Market = market
		rec.Reasons = append(rec.Reasons, widened...)
		rec.Reasons = append(rec.Reasons, Reason{Code: ReasonMarketRegion, Region: &market.Region, GPUs: &market.GPUs, Providers: &market.Providers})
		reference = market.P50
		if own.Median != nil && *own.Median > 0 {
			reference = *own.Median
		}
		rec.Low = min(market.P10, market.P50*BandFloorPct/100)
		rec.High = max(market.P90, market.P50*BandCeilPct/100)
		if own.Tier == string(models.TierEnterprise) {
			rec.High = rec.High * (100 + EnterpriseHeadroomPct) / 100
			rec.Reasons = append(rec.Reasons, Reason{Code: ReasonEnterpriseHeadroom, Percent: ptrTo(EnterpriseHeadroomPct)})
		}
		since := models.WeekStart(s.deps.Clock.Now()).AddDate(0, 0, -7*(DemandWeeks-1))
		var rows []*usageRow
		if err := s.deps.DB.NewRaw(usageSQL, key, since, providerID, key, since).Scan(ctx, &rows); err != nil {
			return nil, fmt.Errorf("pricing: unable to read the usage for advice: %w", err)
		}
		var bands []band
		rec.Demand, bands = demandOf(rows, *asked, ownPlace, reference)
		c = fitCurve(bands)
		rec.Demand.Fitted = c.fitted
		rec.Reasons = append(rec.Reasons, demandReasons(rec.Demand, supply)...)
	}

	// The price with the most expected revenue in the band, to the cent.
	best := Outcome{Price: -1}
	for _, p := range priceGrid(rec.Low, rec.High) {
		o := s.outcome(c, p, reference)
		if best.Price < 0 || revenue(o) > revenue(best) {
			best = o
		}
	}
	rec.Recommended = best
	switch peak := c.peakRatio(); {
	case rec.Basis == BasisReference:
	case peak > ratioOf(rec.High, reference):
		rec.Reasons = append(rec.Reasons, Reason{Code: ReasonHeldAtHigh, Limit: &rec.High})
	case peak < ratioOf(rec.Low, reference):
		rec.Reasons = append(rec.Reasons, Reason{Code: ReasonHeldAtLow, Limit: &rec.Low})
	}
	if rec.Basis == BasisMarket {
		sens := int(math.Round(float64(s.outcome(c, reference, reference).UtilizationPPM-s.outcome(c, reference*11/10, reference).UtilizationPPM) / 10_000))
		rec.Reasons = append(rec.Reasons,
			Reason{Code: ReasonPriceSensitivity, Percent: &sens},
			Reason{Code: ReasonRevenuePeak, Price: &best.Price, Utilization: ptrTo(float64(best.UtilizationPPM) / 1e6)})
	}
	if own.Price != nil {
		cur := s.outcome(c, *own.Price, reference)
		rec.Current = &cur
	}
	lo, hi := rec.Low, rec.High
	if own.Price != nil {
		lo, hi = min(lo, *own.Price), max(hi, *own.Price)
	}
	lo, hi = lo*3/4, hi*5/4
	for i := range CurvePoints {
		p := lo + (hi-lo)*models.USDC(i)/(CurvePoints-1)
		rec.Curve = append(rec.Curve, s.outcome(c, roundCent(p), reference))
	}
	return rec, nil
}

func (s *Service) outcome(c curve, price, reference models.USDC) Outcome {
	u := c.utilizationPPM(price, reference)
	return Outcome{Price: price, UtilizationPPM: u, MonthlyEarnings: MonthlyEarnings(price, u, s.deps.FeeBps)}
}

func revenue(o Outcome) int64 { return int64(o.MonthlyEarnings) }

const cent = models.USDC(10_000)

func roundCent(p models.USDC) models.USDC { return max(cent, (p+cent/2)/cent*cent) }

// priceGrid is the band's prices to the cent, at most about 400 of them
// (coarser steps in a wide band), ends included.
func priceGrid(lo, hi models.USDC) []models.USDC {
	lo, hi = roundCent(lo), roundCent(hi)
	step := max(cent, roundCent((hi-lo)/400))
	var out []models.USDC
	for p := lo; p < hi; p += step {
		out = append(out, p)
	}
	return append(out, hi)
}

// percentilesOf finds the narrowest region from asked up with enough
// comparable GPUs and providers (the world when none has), and its
// GPU-weighted percentiles; the regions passed over come back as
// MARKET_WIDENED reasons.
func percentilesOf(supply []*models.ModelSupply, asked geo.Region) (*Percentiles, []Reason) {
	var widened []Reason
	for r := asked; ; r = r.Wider() {
		var in []*models.ModelSupply
		providers := map[int64]bool{}
		gpus := 0
		for _, s := range supply {
			if r.Contains(geo.Place{City: s.City, Country: s.Country, Continent: s.Continent}) && s.GPUs > 0 {
				in = append(in, s)
				providers[s.ProviderID] = true
				gpus += s.GPUs
			}
		}
		enough := gpus >= MinComparableGPUs && len(providers) >= MinComparableProviders
		if !enough && r.Level != geo.World {
			region, n, np := r, gpus, len(providers)
			widened = append(widened, Reason{Code: ReasonMarketWidened, Region: &region, GPUs: &n, Providers: &np})
			continue
		}
		slices.SortFunc(in, func(a, b *models.ModelSupply) int {
			if a.Price != b.Price {
				return int(a.Price - b.Price)
			}
			return int(a.ProviderID - b.ProviderID)
		})
		at := func(pct int) models.USDC {
			target := max(1, (gpus*pct+99)/100)
			cum := 0
			for _, s := range in {
				cum += s.GPUs
				if cum >= target {
					return s.Price
				}
			}
			return in[len(in)-1].Price
		}
		return &Percentiles{Region: r, P10: at(10), P50: at(50), P90: at(90), GPUs: gpus, Providers: len(providers)}, widened
	}
}

// demandOf sums the usage of the narrowest region from asked up that
// offered at least MinDemandHours in the window, leaving out the
// provider's own share where its place lies inside the region, by band.
func demandOf(rows []*usageRow, asked geo.Region, ownPlace geo.Place, reference models.USDC) (Demand, []band) {
	ownBand := map[int][2]int64{}
	for _, r := range rows {
		if r.Own == 1 {
			ownBand[r.Band] = [2]int64{r.Offered, r.Rented}
		}
	}
	for r := asked; ; r = r.Wider() {
		byBand := map[int][2]int64{}
		for _, u := range rows {
			if u.Own == 0 && r.Contains(geo.Place{City: u.City, Country: u.Country, Continent: u.Continent}) {
				t := byBand[u.Band]
				byBand[u.Band] = [2]int64{t[0] + u.Offered, t[1] + u.Rented}
			}
		}
		if r.Contains(ownPlace) {
			for b, o := range ownBand {
				t := byBand[b]
				byBand[b] = [2]int64{max(0, t[0]-o[0]), max(0, t[1]-o[1])}
			}
		}
		var offered int64
		for _, t := range byBand {
			offered += t[0]
		}
		if float64(offered)/3600 < MinDemandHours && r.Level != geo.World {
			continue
		}
		d := Demand{Region: r, Weeks: DemandWeeks, Bands: []DemandBand{}}
		keys := make([]int, 0, len(byBand))
		for k := range byBand {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		var bands []band
		for _, k := range keys {
			t := byBand[k]
			if t[0] == 0 {
				continue
			}
			db := DemandBand{OfferedHours: float64(t[0]) / 3600, RentedHours: float64(t[1]) / 3600,
				UtilizationPPM: t[1] * 1_000_000 / t[0]}
			db.Utilization = float64(db.UtilizationPPM) / 1e6
			lo, hi := models.BandBoundsBP(k)
			if lo > 0 {
				v := models.USDC(int64(reference) * lo / 10_000)
				db.Min = &v
			}
			if hi > 0 {
				v := models.USDC(int64(reference) * hi / 10_000)
				db.Max = &v
			}
			d.Bands = append(d.Bands, db)
			d.OfferedHours += db.OfferedHours
			d.RentedHours += db.RentedHours
			bands = append(bands, band{band: k, offered: db.OfferedHours, rented: db.RentedHours})
		}
		if d.OfferedHours > 0 {
			d.Utilization = d.RentedHours / d.OfferedHours
		}
		return d, bands
	}
}

// demandReasons explains the demand: where it came from (or that it is
// thin), and whether supply there is scarce or plentiful.
func demandReasons(d Demand, supply []*models.ModelSupply) []Reason {
	if d.OfferedHours < MinDemandHours {
		return []Reason{{Code: ReasonDemandThin, Hours: ptrTo(MinDemandHours)}}
	}
	region := d.Region
	util := d.Utilization
	out := []Reason{{Code: ReasonDemandRegion, Region: &region, Hours: ptrTo(math.Round(d.OfferedHours)), Weeks: ptrTo(d.Weeks), Utilization: &util}}
	gpus := 0
	for _, s := range supply {
		if region.Contains(geo.Place{City: s.City, Country: s.Country, Continent: s.Continent}) {
			gpus += s.GPUs
		}
	}
	switch {
	case util >= ScarceUtilization:
		out = append(out, Reason{Code: ReasonSupplyScarce, Region: &region, GPUs: &gpus, Utilization: &util})
	case util <= GlutUtilization:
		out = append(out, Reason{Code: ReasonSupplyGlut, Region: &region, GPUs: &gpus, Utilization: &util})
	}
	return out
}

// performance is a model's reference performance for pricing: the
// geometric mean of its FP16 tensor throughput (TFLOPS) and memory
// bandwidth (GB/s), what most rented work is bound by.
func performance(m *catalog.GpuModel) float64 {
	return math.Sqrt(m.Fp16TensorTflops * m.MemoryBandwidthGBs)
}

// startingPrice is the price of a model with no comparable listing
// anywhere: every other model's median rate scaled by the two models'
// reference performance, the median of those (the lower middle); with no
// other model priced, ReferenceRate scaled from ReferenceModel. It is the
// third statement, read only on this path. models is how many models it
// stands on (0: the reference rate).
func (s *Service) startingPrice(ctx context.Context, m *catalog.GpuModel) (models.USDC, int, error) {
	var medians []*models.ModelMarketPrice
	if err := s.deps.DB.NewSelect().Model(&medians).Where("model_key <> ?", m.Key).OrderExpr("model_key").Scan(ctx); err != nil {
		return 0, 0, fmt.Errorf("pricing: unable to read median prices: %w", err)
	}
	scale := func(price models.USDC, from *catalog.GpuModel) models.USDC {
		factorPPM := int64(math.Round(1e6 * performance(m) / performance(from)))
		return models.USDC(int64(price) * factorPPM / 1_000_000)
	}
	var estimates []models.USDC
	for _, md := range medians {
		if other := catalog.ByKey(md.ModelKey); other != nil && md.Median > 0 && performance(other) > 0 {
			estimates = append(estimates, scale(md.Median, other))
		}
	}
	if len(estimates) == 0 {
		return roundCent(scale(ReferenceRate, catalog.ByKey(ReferenceModel))), 0, nil
	}
	slices.Sort(estimates)
	return roundCent(estimates[(len(estimates)-1)/2]), len(estimates), nil
}

func ptrTo[T any](v T) *T { return &v }
