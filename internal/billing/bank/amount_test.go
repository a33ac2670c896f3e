package bank

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/models"
)

func TestConvert_RoundsDownToTheCentAndSaysWhatIsSettled(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		desc    string
		amount  models.USDC
		rate    Rate
		cents   Cents
		settled models.USDC
	}{
		{"whole cents at par", 12_340_000, RateOne, 1234, 12_340_000},
		{"sub-cent rest stays in the balance", 1_234_567, RateOne, 123, 1_230_000},
		{"0.005 USDC is 0.00: half a cent is not paid", 5_000, RateOne, 0, 0},
		{"0.009999 USDC is 0.00", 9_999, RateOne, 0, 0},
		{"0.015 USDC is 0.01, not 0.02", 15_000, RateOne, 1, 10_000},
		{"1.005 USDC is 1.00", 1_005_000, RateOne, 100, 1_000_000},
		{"100 USDC at 0.9215 EUR", 100_000_000, 921_500, 9215, 100_000_000},
		{"1 USDC at 0.9215 EUR is 0.92; 0.998373 USDC settles it", 1_000_000, 921_500, 92, 998_373},
		{"a cent's worth less one micro-USDC at 0.9215", 10_851, 921_500, 0, 0},
		{"the largest transfer at par", 999_999_999_990_000, RateOne, MaxCents, 999_999_999_990_000},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			cents, settled, err := Convert(tc.amount, tc.rate)
			require.NoError(t, err)
			require.Equal(t, tc.cents, cents)
			require.Equal(t, tc.settled, settled)
		})
	}
}

func TestConvert_RefusesWhatCannotBeAnAmount(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		desc   string
		amount models.USDC
		rate   Rate
		code   Code
	}{
		{"negative amount", -1, RateOne, CodeAmountTooSmall},
		{"zero rate", 1_000_000, 0, CodeBadRate},
		{"negative rate", 1_000_000, -1, CodeBadRate},
		{"rate over 10000", 1_000_000, MaxRate + 1, CodeBadRate},
		{"over 999,999,999.99", 1_000_000_000_000_000, RateOne, CodeAmountTooLarge},
		{"the largest int64 at the largest rate", math.MaxInt64, MaxRate, CodeAmountTooLarge},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			_, _, err := Convert(tc.amount, tc.rate)
			require.Equal(t, tc.code, CodeOf(err))
		})
	}
}

// Against big-integer arithmetic on random amounts and rates: cents is
// floor(amount × rate / 10^10); settled is the least amount converting to
// the same cents, never more than amount.
func TestConvert_MatchesExactArithmetic(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	div := big.NewInt(centsDivisor)
	for range 20_000 {
		amount := models.USDC(rng.Int64N(int64(MaxCents) * 10_000 / 2))
		rate := Rate(1 + rng.Int64N(int64(2*RateOne)))
		cents, settled, err := Convert(amount, rate)
		want := new(big.Int).Mul(big.NewInt(int64(amount)), big.NewInt(int64(rate)))
		want.Quo(want, div)
		if !want.IsInt64() || want.Int64() > int64(MaxCents) {
			require.Equal(t, CodeAmountTooLarge, CodeOf(err))
			continue
		}
		require.NoError(t, err)
		require.Equal(t, want.Int64(), int64(cents), "amount %s rate %s", amount, rate)
		require.LessOrEqual(t, settled, amount)
		again, _, err := Convert(settled, rate)
		require.NoError(t, err)
		require.Equal(t, cents, again)
		if settled > 0 {
			less, _, err := Convert(settled-1, rate)
			require.NoError(t, err)
			require.Less(t, less, cents)
		}
	}
}

func TestParseRate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want Rate
	}{
		{"1", RateOne}, {"0.9215", 921_500}, {"1.000001", 1_000_001}, {" 0.5 ", 500_000}, {"10000", MaxRate},
	} {
		got, err := ParseRate(tc.in)
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.want, got, tc.in)
	}
	require.Equal(t, "0.921500", Rate(921_500).String())
	for _, in := range []string{"", "abc", "0", "0.0000001", "-1", "+1", "1e3", "10000.000001", ".5", "1,5"} {
		_, err := ParseRate(in)
		require.Equal(t, CodeBadRate, CodeOf(err), in)
	}
}

func TestCents_StringHasExactlyTwoDecimals(t *testing.T) {
	t.Parallel()
	for c, want := range map[Cents]string{0: "0.00", 1: "0.01", 10: "0.10", 123: "1.23", 100_000: "1000.00", MaxCents: "999999999.99", -5: "-0.05"} {
		require.Equal(t, want, c.String())
	}
}
