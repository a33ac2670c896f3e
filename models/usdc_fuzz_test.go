package models_test

import (
	"encoding/json"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/models"
)

// exactAmount is the form ParseUSDC documents: an optional sign, then
// digits with at most six decimals (a leading dot allowed), no exponent.
var exactAmount = regexp.MustCompile(`^[+-]?(?:[0-9]+(?:\.[0-9]{1,6})?|\.[0-9]{1,6})$`)

// formatted is the form String writes: exactly six decimals.
var formatted = regexp.MustCompile(`^-?[0-9]+\.[0-9]{6}$`)

// largestParsed is the largest amount ParseUSDC takes, in micro-USDC: its
// overflow guard refuses a whole part above math.MaxInt64/1e6-1.
var largestParsed = big.NewInt((math.MaxInt64/models.MicrosPerUSDC-1)*models.MicrosPerUSDC + models.MicrosPerUSDC - 1)

// micros is the exact value of a string of exactAmount's form, in
// micro-USDC, with big integers (no float, no overflow).
func micros(s string) *big.Int {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimLeft(s, "+-")
	whole, frac, _ := strings.Cut(s, ".")
	v, _ := new(big.Int).SetString("0"+whole+frac+strings.Repeat("0", 6-len(frac)), 10)
	if neg {
		v.Neg(v)
	}
	return v
}

// FuzzUSDC: ParseUSDC takes exactly the exact decimal amounts of at most
// six decimals (surrounding space trimmed), reads them to the exact
// micro-USDC a big-integer reading gives, and refuses one of that form
// only beyond its documented overflow guard; String writes six decimals
// and parses back to the same amount; the GraphQL scalar reads only
// strings, as ParseUSDC does, and only those without a sign or spaces
// around them.
func FuzzUSDC(f *testing.F) {
	for _, s := range []string{
		"2.15", "0.000001", "-1.5", "12", ".5", "+.5", "-0", "0.0000001", "1e6", "", ".", "1.", "-", "+",
		" 3.25\t", "\u00a03.25", "1_000", "0x10", "１２", "NaN", "Inf", "1.5e-3", "--1", "+-1",
		"9223372036853.999999", "9223372036854", "-9223372036854.775808", "99999999999999999999",
		"00000000000000000000000000001.1", "1.000000", "1.0000000",
	} {
		f.Add(s, int64(0))
	}
	for _, x := range []int64{1, -1, 2_150_000, math.MaxInt64, math.MinInt64, 9_223_372_036_853_999_999, -9_223_372_036_853_999_999} {
		f.Add("0", x)
	}
	f.Fuzz(func(t *testing.T, s string, x int64) {
		// Text in.
		got, err := models.ParseUSDC(s)
		trimmed := strings.TrimSpace(s)
		if !exactAmount.MatchString(trimmed) {
			require.Error(t, err, "accepted %q, which is not an exact amount of six decimals", s)
		} else {
			want := micros(trimmed)
			if new(big.Int).Abs(want).Cmp(largestParsed) > 0 {
				require.Error(t, err, "accepted %q beyond the overflow guard", s)
			} else {
				require.NoError(t, err, "refused the exact amount %q", s)
				require.Zero(t, want.Cmp(big.NewInt(int64(got))), "%q read as %d micro-USDC, not %s", s, got, want)
			}
		}
		var scalar models.USDC
		strict := s == strings.TrimSpace(s) && !strings.HasPrefix(s, "-") && !strings.HasPrefix(s, "+")
		if uerr := scalar.UnmarshalGQL(s); err == nil && strict {
			require.NoError(t, uerr)
			require.Equal(t, got, scalar, "the scalar reads %q as ParseUSDC does", s)
			back, err := models.ParseUSDC(got.String())
			require.NoError(t, err, "the canonical form of an accepted amount parses")
			require.Equal(t, got, back)
		} else {
			require.Error(t, uerr, "the scalar took %q, which ParseUSDC refuses or which has a sign or spaces", s)
		}

		// An amount out.
		u := models.USDC(x)
		out := u.String()
		require.Regexp(t, formatted, out)
		require.Zero(t, micros(out).Cmp(big.NewInt(x)), "%d written as %q", x, out)
		var b strings.Builder
		u.MarshalGQL(&b)
		require.Equal(t, strconv.Quote(out), b.String())
		if new(big.Int).Abs(big.NewInt(x)).Cmp(largestParsed) <= 0 {
			back, err := models.ParseUSDC(out)
			require.NoError(t, err, "%q does not parse back", out)
			require.Equal(t, u, back)
			if x >= 0 {
				require.NoError(t, scalar.UnmarshalGQL(out))
				require.Equal(t, u, scalar)
			} else {
				require.Error(t, scalar.UnmarshalGQL(out), "a negative amount is refused on the wire")
			}
		}
		// A number is refused whatever its value: a float may have rounded it.
		for _, n := range []any{x, float64(x), json.Number(strconv.FormatInt(x, 10))} {
			require.Error(t, scalar.UnmarshalGQL(n), "the scalar took the number %v", n)
		}
	})
}
