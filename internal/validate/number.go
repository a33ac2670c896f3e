package validate

import (
	"fmt"
	"math"

	"github.com/gpunex/gpunex/internal/fault"
)

// Number is what Range bounds.
type Number interface {
	~int | ~int32 | ~int64 | ~uint32 | ~float32 | ~float64
}

// Range is the rule for a number: between Min and Max, both included, or
// above Min when AboveMin is set. NaN and ±Inf are out of every range.
type Range[T Number] struct {
	Min, Max T
	// AboveMin refuses Min itself (a speed must be above 0).
	AboveMin bool
}

// Check reports OUT_OF_RANGE on v, naming p, when x is outside r, and
// returns whether x passed.
func (r Range[T]) Check(v *fault.Validation, p Path, x T) bool {
	f := float64(x)
	if !math.IsNaN(f) && !math.IsInf(f, 0) && x <= r.Max && x >= r.Min && (!r.AboveMin || x != r.Min) {
		return true
	}
	if r.AboveMin {
		v.Add(p.String(), fault.OutOfRange, fmt.Sprintf("%s must be above %v and at most %v", p.label(), r.Min, r.Max))
	} else {
		v.Add(p.String(), fault.OutOfRange, fmt.Sprintf("%s must be between %v and %v", p.label(), r.Min, r.Max))
	}
	return false
}

// CheckOptional is Check for a value that may be absent (nil passes).
func (r Range[T]) CheckOptional(v *fault.Validation, p Path, x *T) bool {
	return x == nil || r.Check(v, p, *x)
}

// Items is the rule for the length of a list.
type Items struct {
	// Required refuses an empty list (REQUIRED).
	Required bool
	// Max bounds the number of entries (TOO_MANY); zero is no bound.
	Max int
}

// Check reports on v, naming p, when a list of n entries breaks r, and
// returns whether it passed.
func (r Items) Check(v *fault.Validation, p Path, n int) bool {
	switch {
	case n == 0 && r.Required:
		v.Add(p.String(), fault.Required, fmt.Sprintf("%s needs at least one entry", p.label()))
	case r.Max > 0 && n > r.Max:
		v.Add(p.String(), fault.TooMany, fmt.Sprintf("%s takes at most %d entries", p.label(), r.Max))
	default:
		return true
	}
	return false
}
