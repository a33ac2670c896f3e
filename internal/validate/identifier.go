package validate

import (
	"fmt"
	"time"

	"github.com/gpunex/gpunex/internal/fault"
)

// Identifier is the rule for an identifier a client chooses (a machine
// id): Min to Max characters of A-Z, a-z, 0-9, '-' and '_'. Being ASCII
// letters, digits and two marks only, it holds no control character, NUL
// or bidirectional override by construction.
type Identifier struct {
	Min, Max int
}

// Check reports INVALID on v, naming p, when s is not such an
// identifier (the empty string included), and returns whether it passed.
func (r Identifier) Check(v *fault.Validation, p Path, s string) bool {
	ok := len(s) >= r.Min && len(s) <= r.Max
	for i := 0; ok && i < len(s); i++ {
		c := s[i]
		ok = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_'
	}
	if !ok {
		v.Add(p.String(), fault.InvalidValue, fmt.Sprintf("%s must be %d–%d characters of A-Z, a-z, 0-9, - and _", p.label(), r.Min, r.Max))
	}
	return ok
}

// NotAfter reports IN_FUTURE on v, naming p, when t is later than
// latest (the server's clock plus the skew it tolerates), and returns
// whether it passed.
func NotAfter(v *fault.Validation, p Path, t, latest time.Time) bool {
	if !t.After(latest) {
		return true
	}
	v.Add(p.String(), fault.InFuture, p.label()+" is in the future; check the sender's clock")
	return false
}
