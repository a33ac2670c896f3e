package validate

import (
	"fmt"
	"net/mail"
	"strings"

	"github.com/gpunex/gpunex/internal/fault"
)

// MaxEmailBytes bounds an email address: 254 octets, the most an SMTP
// path carries (RFC 5321), so anything accepted can be mailed.
const MaxEmailBytes = 254

// Email reports on v the first problem with email, naming p, and returns
// whether it passed: required, at most MaxEmailBytes, one bare address
// (no display name, no list) whose domain has a dot, and, as every text
// that is shown, no control character and no bidirectional override
// (net/mail takes any non-ASCII character, U+0085 and U+202E included).
// Callers normalise first (trim, lower-case).
func Email(v *fault.Validation, p Path, email string) bool {
	switch {
	case email == "":
		v.Add(p.String(), fault.Required, p.label()+" is required")
	case len(email) > MaxEmailBytes:
		v.Add(p.String(), fault.TooLong, fmt.Sprintf("%s must be at most %d characters", p.label(), MaxEmailBytes))
	default:
		a, err := mail.ParseAddress(email)
		if err == nil && SingleLine.allows(email) && a.Address == email && a.Name == "" && strings.Contains(email[strings.LastIndex(email, "@")+1:], ".") {
			return true
		}
		v.Add(p.String(), fault.InvalidValue, p.label()+" is not a valid address")
	}
	return false
}
