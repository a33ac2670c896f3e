package market

// The ranking's weights (see doc.go). They sum to 1, so a rank is in
// [0, 1].
const (
	WeightPrice       = 0.35
	WeightPerformance = 0.25
	WeightReliability = 0.20
	WeightUptime      = 0.05
	WeightEnterprise  = 0.10
	WeightCommitment  = 0.05
	// UnscoredReliability is the reliability a provider without a score
	// yet ranks with: the score's prior (internal/reliability), so a new
	// provider is neither first nor last for it.
	UnscoredReliability = 94
	// PriceCap is how many times under the model's median price a rate
	// must be to score the whole price weight; a rate at the median
	// scores half of it.
	PriceCap = 2.0
	// CommitmentCapMonths is the commitment that scores the whole
	// commitment weight.
	CommitmentCapMonths = 12
)

// RankInput is what a listing's rank is computed from.
type RankInput struct {
	// PriceMicros is the provider's rate; MedianMicros the model's median
	// rate over every provider (the rate itself when none is computed
	// yet).
	PriceMicros, MedianMicros int64
	// Performance is the lowest score among the listing's GPUs (0–100).
	Performance int
	// Uptime is the machine's share online over the last 30 days (0–1);
	// 0 until first computed.
	Uptime float64
	// Reliability is the provider's reliability score (0–100); nil ranks
	// as UnscoredReliability.
	Reliability      *int
	Enterprise       bool
	CommitmentMonths int
}

// Rank is the RANK sort's score of a listing, higher first:
//
//	0.35·min(median/price, 2)/2 + 0.25·performance/100 + 0.20·reliability/100
//	+ 0.05·uptime + 0.10·enterprise + 0.05·min(commitment, 12)/12
//
// The marketplace computes the same formula in SQL (rankSQL) so it can
// page with keyset cursors; tests hold the two equal.
func Rank(in RankInput) float64 {
	price := 0.0
	if in.PriceMicros > 0 {
		price = float64(in.MedianMicros) / float64(in.PriceMicros) / PriceCap
		if price > 1 {
			price = 1
		}
	}
	enterprise := 0.0
	if in.Enterprise {
		enterprise = 1
	}
	commitment := min(in.CommitmentMonths, CommitmentCapMonths)
	reliability := UnscoredReliability
	if in.Reliability != nil {
		reliability = *in.Reliability
	}
	return WeightPrice*price + WeightPerformance*float64(in.Performance)/100 + WeightReliability*float64(reliability)/100 +
		WeightUptime*in.Uptime + WeightEnterprise*enterprise + WeightCommitment*float64(commitment)/CommitmentCapMonths
}

// rankSQL is Rank over the columns of a listing group g (see
// marketplace.go), cast to a double on both databases so a cursor's value
// compares exactly.
const rankSQL = `CAST(
	0.35 * (CASE WHEN g.median_micros >= 2 * g.price_micros THEN 1.0 ELSE g.median_micros * 1.0 / g.price_micros / 2 END)
	+ 0.25 * COALESCE(g.perf, 0) / 100.0
	+ 0.20 * COALESCE(g.reliability, 94) / 100.0
	+ 0.05 * COALESCE(g.uptime, 0)
	+ 0.10 * (CASE WHEN g.tier = 'ENTERPRISE' THEN 1 ELSE 0 END)
	+ 0.05 * (CASE WHEN g.commitment_months >= 12 THEN 12 ELSE g.commitment_months END) / 12.0
	AS DOUBLE PRECISION)`

// perDollarSQL is the PERFORMANCE_PER_DOLLAR sort's key: the listing's
// measured TFLOPS (the lowest headline figure among its GPUs,
// gpu_bench_status.tflops) per USDC of the hourly rate per GPU, the figure
// a listing shows as tflopsPerDollar. A listing whose GPUs measured no
// TFLOPS metric sorts last.
const perDollarSQL = `CAST(COALESCE(g.tflops, 0) * 1000000.0 / g.price_micros AS DOUBLE PRECISION)`
