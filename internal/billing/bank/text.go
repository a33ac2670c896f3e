package bank

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// The SEPA Latin character set the EPC's implementation guidelines allow
// in every text of a credit transfer: a-z A-Z 0-9 / - ? : ( ) . , ' +
// and the space.
func sepaChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
		strings.ContainsRune("/-?:().,'+ ", r)
}

// latinLetters are the Latin letters Unicode does not decompose into a
// base letter and marks.
var latinLetters = map[rune]string{
	'ß': "ss", 'ẞ': "SS", 'Æ': "AE", 'æ': "ae", 'Ø': "O", 'ø': "o", 'Œ': "OE", 'œ': "oe",
	'Ł': "L", 'ł': "l", 'Đ': "D", 'đ': "d", 'Ð': "D", 'ð': "d", 'Þ': "TH", 'þ': "th",
	'ı': "i", 'Ħ': "H", 'ħ': "h", 'Ŀ': "L", 'ŀ': "l", 'ĸ': "k", 'ſ': "s", 'Ŧ': "T", 'ŧ': "t",
}

// punctuation maps common characters outside the set to the nearest one
// inside it.
var punctuation = map[rune]string{
	'&': "+", '"': "'", '‘': "'", '’': "'", '‚': "'", '‛': "'", '“': "'", '”': "'", '„': "'",
	'`': "'", '´': "'", '_': "-", '‐': "-", '‑': "-", '‒': "-", '–': "-", '—': "-",
	';': ",", '[': "(", ']': ")", '{': "(", '}': ")",
}

// sepaText transliterates s into the SEPA Latin character set: letters
// with diacritics lose them (é → e, Ş → S, ễ → e), the Latin letters
// that do not decompose are spelt out (ß → ss, Æ → AE, Ø → O, Ł → L),
// & becomes +, quotation marks an apostrophe, _ and dashes a hyphen, ; a
// comma, brackets parentheses, and any run of white space one space,
// trimmed at both ends. ok is false, and bad the first such character,
// when s holds a character with no transliteration: another script
// (Arabic, Devanagari, Cyrillic, Greek, CJK), an emoji, a control
// character or a symbol such as @, #, $, %, *, <, =, >, |, ~ or €.
func sepaText(s string) (out string, bad rune, ok bool) {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range norm.NFD.String(s) {
		var add string
		switch {
		case sepaChar(r) && r != ' ':
			add = string(r)
		case unicode.IsSpace(r):
			space = true
			continue
		case unicode.Is(unicode.Mn, r) || r == '\u200d' || r == '\u200c' || r == '\u200e' || r == '\u200f':
			// Combining marks (what NFD split off é), joiners and
			// direction marks carry no letter of their own.
			continue
		default:
			if t, found := latinLetters[r]; found {
				add = t
			} else if t, found := punctuation[r]; found {
				add = t
			} else {
				return "", r, false
			}
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteString(add)
	}
	return b.String(), 0, true
}

// referenceOK reports whether s may be a reference of the EPC guidelines
// (a message, payment information or end-to-end id): characters of the
// SEPA set, no leading or trailing "/", no "//" inside.
func referenceOK(s string) bool {
	for _, r := range s {
		if !sepaChar(r) {
			return false
		}
	}
	return !strings.HasPrefix(s, "/") && !strings.HasSuffix(s, "/") && !strings.Contains(s, "//")
}
