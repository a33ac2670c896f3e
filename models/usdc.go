package models

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gpunex/gpunex/internal/fault"
)

// USDC is an exact amount of USDC in micro-USDC (USDC has six decimals):
// USDC(2_150_000) is 2.15 USDC. Money is never a float anywhere in GPUnex.
type USDC int64

// MicrosPerUSDC is the number of micro-USDC in one USDC.
const MicrosPerUSDC = 1_000_000

// ErrInvalidUSDC is returned for text that is not a decimal USDC amount.
var ErrInvalidUSDC = errors.New("invalid USDC amount")

// ParseUSDC reads a decimal string such as "2.15", "-0.000001" or "12" into
// micro-USDC. More than six decimals, exponents and overflow are refused.
func ParseUSDC(s string) (USDC, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, ErrInvalidUSDC
	}
	neg := false
	if s[0] == '-' || s[0] == '+' {
		neg = s[0] == '-'
		s = s[1:]
	}
	whole, frac, hasDot := strings.Cut(s, ".")
	if whole == "" && (!hasDot || frac == "") {
		return 0, ErrInvalidUSDC
	}
	if len(frac) > 6 || (hasDot && frac == "") {
		return 0, ErrInvalidUSDC
	}
	for _, c := range whole + frac {
		if c < '0' || c > '9' {
			return 0, ErrInvalidUSDC
		}
	}
	var w int64
	if whole != "" {
		var err error
		w, err = strconv.ParseInt(whole, 10, 64)
		if err != nil || w > (1<<63-1)/MicrosPerUSDC-1 {
			return 0, ErrInvalidUSDC
		}
	}
	f := int64(0)
	if frac != "" {
		f, _ = strconv.ParseInt(frac+strings.Repeat("0", 6-len(frac)), 10, 64)
	}
	v := w*MicrosPerUSDC + f
	if neg {
		v = -v
	}
	return USDC(v), nil
}

// String formats the amount with exactly six decimals, e.g. "2.150000".
func (u USDC) String() string {
	v := int64(u)
	sign := ""
	if v < 0 {
		sign = "-"
	}
	// Work on the absolute value in uint64 so the minimum int64 is safe.
	a := uint64(v)
	if v < 0 {
		a = uint64(-(v + 1)) + 1
	}
	return fmt.Sprintf("%s%d.%06d", sign, a/MicrosPerUSDC, a%MicrosPerUSDC)
}

// MarshalGQL writes the amount as a decimal string scalar.
func (u USDC) MarshalGQL(w io.Writer) {
	_, _ = io.WriteString(w, strconv.Quote(u.String()))
}

// UnmarshalGQL reads the amount from a decimal string; numbers are refused
// because a JSON number may already have been rounded by a float. On the
// wire the form is strict: digits, an optional point and up to six
// decimals, nothing around them and no sign (every amount a client sends
// is positive; the service says so for zero).
func (u *USDC) UnmarshalGQL(v any) error {
	s, ok := v.(string)
	if !ok {
		return fault.E(fault.Invalid, "USDC must be a decimal string such as \"2.150000\"")
	}
	if s != strings.TrimSpace(s) || strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") {
		return fault.E(fault.Invalid, "%q is not a valid USDC amount: digits and up to six decimals, without a sign or spaces", s)
	}
	p, err := ParseUSDC(s)
	if err != nil {
		return fault.E(fault.Invalid, "%q is not a valid USDC amount (up to six decimals)", s)
	}
	*u = p
	return nil
}
