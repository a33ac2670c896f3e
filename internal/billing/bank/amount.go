package bank

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"

	"github.com/gpunex/gpunex/models"
)

// Currency is the currency of a batch: the currency of the platform's
// bank account the transfers are debited from.
type Currency string

// The currencies a batch may be in; both have two decimals.
const (
	EUR Currency = "EUR"
	USD Currency = "USD"
)

// Cents is an amount in hundredths of the batch currency: Cents(1234) is
// 12.34 EUR.
type Cents int64

// MaxCents is the largest amount of one transfer, 999,999,999.99: the
// limit of the SEPA credit transfer scheme, kept for every batch.
const MaxCents Cents = 99_999_999_999

// String formats the amount with exactly two decimals ("12.34"), as the
// file carries it.
func (c Cents) String() string {
	sign := ""
	v := int64(c)
	if v < 0 {
		sign, v = "-", -v
	}
	return fmt.Sprintf("%s%d.%02d", sign, v/100, v%100)
}

// Rate is the price of one USDC in the batch currency, in millionths:
// Rate(921_500) is 0.9215 EUR per USDC. The payout job takes it from the
// conversion it made (or will make) to fund the batch.
type Rate int64

// RateOne pays a USDC as one unit of the batch currency (a USD batch
// that treats USDC at par).
const RateOne Rate = 1_000_000

// MaxRate is 10,000 units of the batch currency per USDC, far above any
// real rate: a larger one is a unit mistake (a rate given in micro-units
// twice, say).
const MaxRate Rate = 10_000 * 1_000_000

// ParseRate reads a decimal rate such as "0.9215" (up to six decimals).
func ParseRate(s string) (Rate, error) {
	whole, frac, _ := strings.Cut(strings.TrimSpace(s), ".")
	bad := errorf(CodeBadRate, "%q is not a rate: a decimal number with up to six decimals, such as 0.9215", s)
	if whole == "" || len(frac) > 6 {
		return 0, bad
	}
	w, err := strconv.ParseUint(whole, 10, 32)
	if err != nil {
		return 0, bad
	}
	f := uint64(0)
	if frac != "" {
		if f, err = strconv.ParseUint(frac+strings.Repeat("0", 6-len(frac)), 10, 32); err != nil {
			return 0, bad
		}
	}
	r := Rate(w*1_000_000 + f)
	if r <= 0 || r > MaxRate {
		return 0, errorf(CodeBadRate, "a rate is above 0 and at most 10000, not %s", s)
	}
	return r, nil
}

// String formats the rate with six decimals ("0.921500").
func (r Rate) String() string { return fmt.Sprintf("%d.%06d", r/1_000_000, r%1_000_000) }

// centsDivisor turns micro-USDC times a rate in millionths into cents:
// 10^6 (micro) × 10^6 (rate) / 10^2 (cents).
const centsDivisor = 10_000_000_000

// Convert turns a payout of amount micro-USDC into the batch currency at
// rate, rounding DOWN to the cent: a payout never sends more than is
// owed. settled is the part of amount those cents are worth (the least
// micro-USDC that converts to exactly cents); the payout job debits the
// provider's balance by settled, and the rest, worth less than a cent,
// stays in the balance for the next payout. At RateOne, 1.234567 USDC is
// 1.23 with 1.230000 settled and 0.004567 left; 0.005 USDC is 0.00 with
// nothing settled (Pain001 refuses it: AMOUNT_TOO_SMALL).
//
// It is integer arithmetic throughout (a 128-bit product), so every
// amount and rate in range converts exactly. A negative amount or a rate
// out of (0, MaxRate] is an error (BAD_RATE, AMOUNT_TOO_SMALL), and so is
// a result over MaxCents (AMOUNT_TOO_LARGE).
func Convert(amount models.USDC, rate Rate) (cents Cents, settled models.USDC, err error) {
	if rate <= 0 || rate > MaxRate {
		return 0, 0, errorf(CodeBadRate, "a rate is above 0 and at most 10000, not %s", rate)
	}
	if amount < 0 {
		return 0, 0, errorf(CodeAmountTooSmall, "a payout of %s USDC is negative", amount)
	}
	hi, lo := bits.Mul64(uint64(amount), uint64(rate))
	// hi < centsDivisor always holds: amount < 2^63 and rate ≤ MaxRate.
	q, _ := bits.Div64(hi, lo, centsDivisor)
	if q > uint64(MaxCents) {
		return 0, 0, errorf(CodeAmountTooLarge, "a payout of %s USDC at %s is over the 999,999,999.99 a transfer may carry", amount, rate)
	}
	// settled = ceil(q × 10^10 / rate), at most amount since q × 10^10 ≤ amount × rate.
	hi, lo = bits.Mul64(q, centsDivisor)
	s, rem := bits.Div64(hi, lo, uint64(rate))
	if rem > 0 {
		s++
	}
	return Cents(q), models.USDC(s), nil
}
