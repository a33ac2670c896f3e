package validate

import (
	"fmt"
	"unicode"
	"unicode/utf8"

	"github.com/gpunex/gpunex/internal/fault"
)

// Chars says which characters a Text allows besides printable ones.
type Chars int

const (
	// SingleLine refuses every control character ('\n', '\r' and '\t'
	// included) and the Unicode line and paragraph separators: names,
	// labels, locations.
	SingleLine Chars = iota
	// MultiLine allows '\n' and '\t' and refuses every other control
	// character ('\r' included) and the Unicode separators: notes and
	// messages.
	MultiLine
	// Secret allows any character: a password is compared, never shown.
	Secret
)

// Text is the rule for a text field. The zero value accepts any
// single-line text, the empty string included.
type Text struct {
	// Required refuses the empty string (REQUIRED). Callers trim first
	// where surrounding spaces mean nothing.
	Required bool
	// MinRunes and MaxRunes bound the length in characters (TOO_SHORT,
	// TOO_LONG); zero is no bound.
	MinRunes, MaxRunes int
	// MaxBytes bounds the length in bytes (TOO_LONG), for the rare field
	// where bytes are what costs; zero is no bound.
	MaxBytes int
	// Chars is the character rule (INVALID).
	Chars Chars
}

// Check reports on v the first problem of s under t, naming p, and
// returns whether s passed. An empty s that is not Required passes.
func (t Text) Check(v *fault.Validation, p Path, s string) bool {
	switch {
	case s == "":
		if t.Required {
			v.Add(p.String(), fault.Required, p.label()+" is required")
			return false
		}
		return true
	case t.MinRunes > 0 && utf8.RuneCountInString(s) < t.MinRunes:
		v.Add(p.String(), fault.TooShort, fmt.Sprintf("%s must be at least %d characters", p.label(), t.MinRunes))
	// A string has at least as many bytes as runes: most are counted only
	// when they might be too long.
	case t.MaxRunes > 0 && len(s) > t.MaxRunes && utf8.RuneCountInString(s) > t.MaxRunes:
		v.Add(p.String(), fault.TooLong, fmt.Sprintf("%s must be at most %d characters", p.label(), t.MaxRunes))
	case t.MaxBytes > 0 && len(s) > t.MaxBytes:
		v.Add(p.String(), fault.TooLong, fmt.Sprintf("%s must be at most %d bytes", p.label(), t.MaxBytes))
	case !t.Chars.allows(s):
		v.Add(p.String(), fault.InvalidValue, p.label()+t.Chars.refusal())
	default:
		return true
	}
	return false
}

// allows reports whether every character of s is allowed.
func (c Chars) allows(s string) bool {
	if c == Secret {
		return true
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		if b >= utf8.RuneSelf {
			return c.allowsRunes(s[i:])
		}
		if b < 0x20 || b == 0x7f {
			if c == SingleLine || (b != '\n' && b != '\t') {
				return false
			}
		}
	}
	return true
}

// allowsRunes is allows past the first byte that is not ASCII.
func (c Chars) allowsRunes(s string) bool {
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
			if c == SingleLine {
				return false
			}
		case unicode.IsControl(r), r == '\u2028', r == '\u2029':
			return false
		}
	}
	return true
}

func (c Chars) refusal() string {
	if c == MultiLine {
		return " must not contain control characters other than line breaks (\\n) and tabs"
	}
	return " must be one line without control characters"
}
