package bank

import (
	"strings"
	"unicode"

	"github.com/biter777/countries"
)

// BIC is a checked Business Identifier Code (ISO 9362, the SWIFT code) of
// 8 or 11 characters, upper case. Only ParseBIC makes a non-zero BIC.
type BIC struct {
	s string
}

// ParseBIC checks s, in this order: spaces are removed ("DEUT DE FF 500"
// is how BICs are often printed); only ASCII letters, either case, and
// digits (BAD_CHARACTERS); 8 or 11 characters (BAD_LENGTH); a bank code of
// four letters, country letters, and a location and optional branch of
// letters and digits (BAD_CHARACTERS); a country that ISO 3166-1 assigns,
// or XK (Kosovo), which SWIFT uses (UNKNOWN_COUNTRY). Letters are
// upper-cased. ISO 9362:2014 allows digits in the bank code, but no BIC in
// use has them, so a digit there is taken for a typing mistake.
func ParseBIC(s string) (BIC, error) {
	s = strings.ReplaceAll(s, " ", "")
	for _, r := range s {
		if r > unicode.MaxASCII || !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return BIC{}, errorf(CodeBadCharacters, "a BIC has only letters A to Z and digits, not %q", r)
		}
	}
	v := strings.ToUpper(s)
	if len(v) != 8 && len(v) != 11 {
		return BIC{}, errorf(CodeBadLength, "a BIC has 8 or 11 characters, not %d", len(v))
	}
	for i := range len(v) {
		c := v[i]
		switch {
		case i < 6 && !isUpper(c):
			what := "bank code"
			if i >= 4 {
				what = "country code"
			}
			return BIC{}, errorf(CodeBadCharacters, "a BIC's %s is letters, not %q", what, c)
		case i >= 6 && !isUpper(c) && !isDigit(c):
			return BIC{}, errorf(CodeBadCharacters, "a BIC's location and branch are letters and digits, not %q", c)
		}
	}
	cc := v[4:6]
	if c := countries.ByName(cc); !c.IsValid() || c.Alpha2() != cc {
		return BIC{}, errorf(CodeUnknownCountry, "%s in a BIC is not an ISO 3166-1 country", cc)
	}
	return BIC{s: v}, nil
}

// String returns the BIC as given, 8 or 11 characters.
func (b BIC) String() string { return b.s }

// IsZero reports whether b is the zero BIC (none given).
func (b BIC) IsZero() bool { return b.s == "" }

// BankCode returns the four letters of the institution ("DEUT").
func (b BIC) BankCode() string { return b.part(0, 4) }

// Country returns the ISO 3166-1 alpha-2 country code ("DE").
func (b BIC) Country() string { return b.part(4, 6) }

// Location returns the two-character location code ("FF").
func (b BIC) Location() string { return b.part(6, 8) }

// Branch returns the branch code, "XXX" (the head office) for an 8-character BIC.
func (b BIC) Branch() string {
	if len(b.s) == 8 {
		return "XXX"
	}
	return b.part(8, 11)
}

func (b BIC) part(from, to int) string {
	if b.s == "" {
		return ""
	}
	return b.s[from:to]
}

// MarshalText writes the BIC.
func (b BIC) MarshalText() ([]byte, error) { return []byte(b.s), nil }

// UnmarshalText parses text with ParseBIC.
func (b *BIC) UnmarshalText(text []byte) error {
	v, err := ParseBIC(string(text))
	if err != nil {
		return err
	}
	*b = v
	return nil
}

// ibanTerritories are the BIC countries whose accounts have another
// country's IBAN: the Crown Dependencies bank with GB IBANs, the French
// overseas departments and collectivities with FR IBANs, Åland with FI.
var ibanTerritories = map[string]string{
	"GG": "GB", "JE": "GB", "IM": "GB",
	"GF": "FR", "GP": "FR", "MQ": "FR", "RE": "FR", "YT": "FR", "PM": "FR", "BL": "FR", "MF": "FR",
	"NC": "FR", "PF": "FR", "WF": "FR", "TF": "FR",
	"AX": "FI",
}

// SameCountry reports whether the BIC's bank is in the IBAN's country,
// counting a territory that uses another country's IBANs as that country
// (a Jersey BIC with a GB IBAN matches). A mismatch is a hint of a
// mistyped BIC, not an error: Pain001 does not refuse it, because a bank
// may hold accounts through a branch abroad. Zero values never match.
func SameCountry(iban IBAN, bic BIC) bool {
	if iban.IsZero() || bic.IsZero() {
		return false
	}
	c := bic.Country()
	if home, ok := ibanTerritories[c]; ok {
		c = home
	}
	return c == iban.Country()
}
