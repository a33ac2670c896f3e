package pricing

import (
	"math"
	"math/big"

	"github.com/gpunex/gpunex/models"
)

// The demand model's constants (see doc.go, "Price advice").
const (
	// PriorUtilization is the utilisation assumed at the market's median
	// before any demand is seen: the price where revenue peaks under the
	// prior slope, so with no data the advice is the median.
	PriorUtilization = 0.75
	// PriorHours is how many GPU-hours of that prior every estimate
	// carries: a thin band leans on it, a busy one hardly notices it.
	PriorHours = 24.0
	// PriorSlope is how steeply utilisation falls with price before the
	// data says otherwise (log-odds per unit of log price).
	PriorSlope = 4.0
	// SlopeHours is the weight, in GPU-hours, of the prior slope against
	// a slope fitted from the bands.
	SlopeHours = 168.0
	// MinSlope and MaxSlope bound the slope: demand falls with price, and
	// never so steeply that one cent decides everything.
	MinSlope, MaxSlope = 1.5, 12.0
	// MinBandHours is how many GPU-hours a band needs to take part in
	// fitting the slope.
	MinBandHours = 24.0
)

// band is one price band's offered and rented GPU-hours.
type band struct {
	band            int
	offered, rented float64
}

// curve is expected utilisation against price as a fraction of a
// reference price: u(r) = σ(a − s·ln r).
type curve struct {
	a, s float64
	// pooled is the window's utilisation with the prior mixed in.
	pooled float64
	// fitted says whether the slope came from at least two bands.
	fitted bool
}

func logit(p float64) float64 { return math.Log(p / (1 - p)) }

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// bandLogRatio is the log of band k's centre ratio, 1.1^k.
func bandLogRatio(k int) float64 { return float64(k) * math.Log(1.1) }

// fitCurve fits the demand curve to the bands, deterministically:
//
//  1. pooled utilisation U = (rented + PriorHours·PriorUtilization) /
//     (offered + PriorHours) over all bands;
//  2. each band with at least MinBandHours offered gives a point: the log
//     of its centre ratio and the log-odds of its utilisation, smoothed
//     towards U with PriorHours of weight; with two or more such bands,
//     a weighted (by offered hours) least-squares line gives a slope,
//     mixed with PriorSlope at SlopeHours of weight and held to
//     [MinSlope, MaxSlope]; otherwise the slope is PriorSlope;
//  3. the intercept puts the curve through U at the offered-hours-
//     weighted mean log ratio of the data (at the median when none).
func fitCurve(bands []band) curve {
	var offered, rented float64
	for _, b := range bands {
		offered += b.offered
		rented += b.rented
	}
	u := (rented + PriorHours*PriorUtilization) / (offered + PriorHours)
	c := curve{pooled: u, s: PriorSlope}
	var w, wx, wy float64
	var used []band
	for _, b := range bands {
		if b.offered < MinBandHours {
			continue
		}
		used = append(used, b)
		y := logit(clamp01((b.rented + PriorHours*u) / (b.offered + PriorHours)))
		w += b.offered
		wx += b.offered * bandLogRatio(b.band)
		wy += b.offered * y
	}
	xMean := 0.0
	if offered > 0 {
		for _, b := range bands {
			xMean += b.offered * bandLogRatio(b.band)
		}
		xMean /= offered
	}
	if len(used) >= 2 {
		mx, my := wx/w, wy/w
		var sxy, sxx float64
		for _, b := range used {
			x := bandLogRatio(b.band) - mx
			y := logit(clamp01((b.rented+PriorHours*u)/(b.offered+PriorHours))) - my
			sxy += b.offered * x * y
			sxx += b.offered * x * x
		}
		if sxx > 0 {
			fit := -sxy / sxx
			c.s = (w*fit + SlopeHours*PriorSlope) / (w + SlopeHours)
			c.fitted = true
		}
	}
	c.s = math.Min(MaxSlope, math.Max(MinSlope, c.s))
	c.a = logit(clamp01(u)) + c.s*xMean
	return c
}

func clamp01(p float64) float64 { return math.Min(0.99, math.Max(0.01, p)) }

// utilizationPPM is the curve's expected utilisation, in parts per
// million, of a rate against a reference rate (both micro-USDC). The
// ratio is taken in integers first, so no float holds money.
func (c curve) utilizationPPM(price, reference models.USDC) int64 {
	if price <= 0 || reference <= 0 {
		return 0
	}
	r := ratioOf(price, reference)
	if r <= 0 {
		return 1_000_000
	}
	return int64(math.Round(1e6 * sigmoid(c.a-c.s*math.Log(r))))
}

// ratioOf is price over reference, a plain number: the division is done in
// integers (to a millionth) before it becomes a float, so no float holds
// money.
func ratioOf(price, reference models.USDC) float64 {
	if reference <= 0 {
		return 0
	}
	ppm := new(big.Int).Quo(new(big.Int).Mul(big.NewInt(int64(price)), big.NewInt(1_000_000)), big.NewInt(int64(reference)))
	return float64(ppm.Int64()) / 1e6
}

// peakRatio is the ratio to the reference where expected revenue, rate
// × utilisation, is highest: d ln(r·u)/d ln r = 1 − s(1 − u) = 0, so u =
// 1 − 1/s there.
func (c curve) peakRatio() float64 { return math.Exp((c.a - math.Log(c.s-1)) / c.s) }

// HoursPerMonth is the hours of an average month (8,760 / 12).
const HoursPerMonth = 730

// MonthlyEarnings is what a GPU at price (per hour) earns its provider in
// a month at utilisation utilPPM (parts per million of the month's hours
// rented), after the platform's fee in basis points: price × utilisation
// × HoursPerMonth × (1 − fee), in integers, rounded down to the
// micro-USDC once at the end.
func MonthlyEarnings(price models.USDC, utilPPM int64, feeBps int) models.USDC {
	n := big.NewInt(int64(price))
	n.Mul(n, big.NewInt(HoursPerMonth))
	n.Mul(n, big.NewInt(utilPPM))
	n.Mul(n, big.NewInt(int64(10_000-feeBps)))
	n.Quo(n, big.NewInt(1_000_000*10_000))
	return models.USDC(n.Int64())
}
