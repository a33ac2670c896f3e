package validate

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gpunex/gpunex/internal/fault"
)

// Chars says which characters a Text allows besides printable ones.
//
// Every rule refuses NUL and bytes that are not UTF-8: PostgreSQL cannot
// store either in a text column, so such a value would fail in the SQL as
// an internal error instead of being the client's mistake. Text that is
// shown (SingleLine, MultiLine) also refuses the other control characters
// and the bidirectional embeddings, overrides and isolates (U+202A to
// U+202E, U+2066 to U+2069), which reorder the text around them when it is
// displayed: a name such as "Eve\u202Egnp.exe" reads as "Eveexe.png"
// ("Trojan Source", CVE-2021-42574). The right-to-left and left-to-right
// marks (U+200E, U+200F, U+061C) and the zero-width joiners stay allowed:
// they change no order beyond one character, and Arabic, Hebrew, Persian
// and Indic names and emoji sequences need them.
type Chars int

const (
	// SingleLine refuses every control character ('\n', '\r' and '\t'
	// included), the Unicode line and paragraph separators and the
	// bidirectional overrides: names, labels, locations.
	SingleLine Chars = iota
	// MultiLine allows '\n' and '\t' and refuses every other control
	// character ('\r' included), the Unicode separators and the
	// bidirectional overrides: notes and messages.
	MultiLine
	// Secret allows any character but NUL (and bytes that are not UTF-8):
	// a password is compared, never shown, so a tab or an override in it
	// misleads no one, but a login's email is checked by this rule too
	// and goes to the database, which cannot hold a NUL.
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

// allows reports whether every character of s is allowed. ASCII is
// checked a byte at a time; the rest (rare in the fleet's hot path) rune
// by rune.
func (c Chars) allows(s string) bool {
	if c == Secret {
		return strings.IndexByte(s, 0) < 0 && utf8.ValidString(s)
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
	for i, r := range s {
		switch {
		case r == '\n' || r == '\t':
			if c == SingleLine {
				return false
			}
		case unicode.IsControl(r), r == '\u2028', r == '\u2029', bidiControl(r):
			return false
		case r == utf8.RuneError:
			// U+FFFD itself is a character; a byte that is not UTF-8
			// decodes to it with a size of 1.
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return false
			}
		}
	}
	return true
}

// bidiControl reports whether r is a bidirectional embedding, override or
// isolate: U+202A to U+202E (LRE, RLE, PDF, LRO, RLO) and U+2066 to
// U+2069 (LRI, RLI, FSI, PDI).
func bidiControl(r rune) bool {
	return '\u202A' <= r && r <= '\u202E' || '\u2066' <= r && r <= '\u2069'
}

func (c Chars) refusal() string {
	switch c {
	case MultiLine:
		return " must not contain control characters other than line breaks (\\n) and tabs, nor bidirectional overrides"
	case Secret:
		return " must not contain a NUL character"
	}
	return " must be one line without control characters or bidirectional overrides"
}
