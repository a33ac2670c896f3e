package bank

import (
	"slices"
	"strings"
	"unicode"
)

// IBAN is a checked International Bank Account Number (ISO 13616) in the
// electronic format: upper case, no spaces ("DE89370400440532013000").
// Only ParseIBAN makes a non-zero IBAN, so holding one means it passed the
// country, length, character and checksum checks.
type IBAN struct {
	s string
}

// country is what the package knows of an IBAN country.
type country struct {
	length int  // the IBAN's length in the SWIFT IBAN registry
	sepa   bool // in the geographical scope of the EPC's SEPA schemes
	eea    bool // in the European Economic Area (EU, Iceland, Liechtenstein, Norway)
}

// ibanCountries is the IBAN length of every supported country, from the SWIFT
// IBAN registry. The SEPA scheme's countries first (EPC list of countries
// in SEPA, 2025), then the others GPUnex pays out to by bank transfer.
// Territories that use another country's IBAN (the French overseas
// departments and collectivities: FR; Åland: FI; Guernsey, Jersey and the
// Isle of Man: GB) are covered by that country's entry.
var ibanCountries = map[string]country{
	// The European Union.
	"AT": {20, true, true}, "BE": {16, true, true}, "BG": {22, true, true}, "CY": {28, true, true},
	"CZ": {24, true, true}, "DE": {22, true, true}, "DK": {18, true, true}, "EE": {20, true, true},
	"ES": {24, true, true}, "FI": {18, true, true}, "FR": {27, true, true}, "GR": {27, true, true},
	"HR": {21, true, true}, "HU": {28, true, true}, "IE": {22, true, true}, "IT": {27, true, true},
	"LT": {20, true, true}, "LU": {20, true, true}, "LV": {21, true, true}, "MT": {31, true, true},
	"NL": {18, true, true}, "PL": {28, true, true}, "PT": {25, true, true}, "RO": {24, true, true},
	"SE": {24, true, true}, "SI": {19, true, true}, "SK": {24, true, true},
	// The rest of the EEA.
	"IS": {26, true, true}, "LI": {21, true, true}, "NO": {15, true, true},
	// SEPA outside the EEA.
	"AD": {24, true, false}, "CH": {21, true, false}, "GB": {22, true, false}, "GI": {23, true, false},
	"MC": {27, true, false}, "SM": {27, true, false}, "VA": {22, true, false},
	"AL": {28, true, false}, "MD": {24, true, false}, "ME": {22, true, false}, "MK": {19, true, false},
	"RS": {22, true, false},
	// Outside SEPA: international transfers (a BIC is required).
	"AE": {23, false, false}, "BH": {22, false, false}, "BR": {29, false, false}, "EG": {29, false, false},
	"GE": {22, false, false}, "IL": {23, false, false}, "JO": {30, false, false}, "KW": {30, false, false},
	"KZ": {20, false, false}, "PK": {24, false, false}, "QA": {29, false, false}, "SA": {24, false, false},
	"TR": {26, false, false}, "UA": {29, false, false},
}

// SupportedCountries returns the ISO 3166-1 alpha-2 codes ParseIBAN
// accepts, sorted: every country in the SEPA scheme (the EU, Iceland,
// Liechtenstein, Norway, Andorra, Switzerland, the United Kingdom,
// Gibraltar, Monaco, San Marino, Vatican City, Albania, Moldova,
// Montenegro, North Macedonia and Serbia) and AE, BH, BR, EG, GE, IL, JO,
// KW, KZ, PK, QA, SA, TR and UA.
func SupportedCountries() []string {
	codes := make([]string, 0, len(ibanCountries))
	for c := range ibanCountries {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	return codes
}

// IsSEPA reports whether the country (ISO 3166-1 alpha-2) is in the SEPA
// scheme and supported.
func IsSEPA(countryCode string) bool { return ibanCountries[countryCode].sepa }

// ParseIBAN checks s and returns it in the electronic format. It accepts
// the print format and lower case ("de89 3704 0044 0532 0130 00"): white
// space (no-break spaces pasted from a PDF included) is removed and
// letters upper-cased. The checks, in order, each with its
// Code: only ASCII letters and digits, two letters then two digits first
// (BAD_CHARACTERS); a supported country (UNSUPPORTED_COUNTRY); the
// country's length (BAD_LENGTH); the ISO 7064 mod-97-10 check
// (BAD_CHECKSUM). The national part (BBAN) is not checked beyond its
// length and characters: its own check digits differ by country.
func ParseIBAN(s string) (IBAN, error) {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
		case r >= 'a' && r <= 'z':
			b.WriteRune(r - 'a' + 'A')
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			return IBAN{}, errorf(CodeBadCharacters, "an IBAN has only letters and digits, not %q", r)
		}
	}
	v := b.String()
	if v == "" {
		return IBAN{}, errorf(CodeBadLength, "the IBAN is empty")
	}
	if len(v) < 4 || !isUpper(v[0]) || !isUpper(v[1]) || !isDigit(v[2]) || !isDigit(v[3]) {
		return IBAN{}, errorf(CodeBadCharacters, "an IBAN starts with a country code and two check digits, as in DE89…")
	}
	c, ok := ibanCountries[v[:2]]
	if !ok {
		return IBAN{}, errorf(CodeUnsupportedCountry, "IBANs of country %s are not supported", v[:2])
	}
	if len(v) != c.length {
		return IBAN{}, errorf(CodeBadLength, "a %s IBAN has %d characters, not %d", v[:2], c.length, len(v))
	}
	if mod97(v) != 1 {
		return IBAN{}, errorf(CodeBadChecksum, "the IBAN's check digits do not match: a character is mistyped or two are swapped")
	}
	return IBAN{s: v}, nil
}

// mod97 is the ISO 7064 mod-97-10 remainder of the IBAN with its first
// four characters moved to the end and letters read as 10 to 35, computed
// digit by digit so no big number is needed.
func mod97(v string) int {
	rem := 0
	for _, ch := range v[4:] + v[:4] {
		if ch >= 'A' {
			rem = (rem*100 + int(ch-'A') + 10) % 97
		} else {
			rem = (rem*10 + int(ch-'0')) % 97
		}
	}
	return rem
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// String returns the electronic format, as files and databases hold it.
func (i IBAN) String() string { return i.s }

// Print returns the print format people read: groups of four separated by
// spaces ("DE89 3704 0044 0532 0130 00").
func (i IBAN) Print() string {
	var b strings.Builder
	for n := 0; n < len(i.s); n += 4 {
		if n > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(i.s[n:min(n+4, len(i.s))])
	}
	return b.String()
}

// IsZero reports whether i is the zero IBAN (none given).
func (i IBAN) IsZero() bool { return i.s == "" }

// Country returns the ISO 3166-1 alpha-2 country code ("DE").
func (i IBAN) Country() string {
	if i.s == "" {
		return ""
	}
	return i.s[:2]
}

// BBAN returns the national account number, after the check digits.
func (i IBAN) BBAN() string {
	if i.s == "" {
		return ""
	}
	return i.s[4:]
}

// SEPA reports whether the account is in the SEPA scheme's countries.
func (i IBAN) SEPA() bool { return IsSEPA(i.Country()) }

// eea reports whether the account is in the European Economic Area.
func (i IBAN) eea() bool { return ibanCountries[i.Country()].eea }

// MarshalText writes the electronic format.
func (i IBAN) MarshalText() ([]byte, error) { return []byte(i.s), nil }

// UnmarshalText parses text with ParseIBAN, so configuration and JSON
// carry a checked IBAN.
func (i *IBAN) UnmarshalText(text []byte) error {
	v, err := ParseIBAN(string(text))
	if err != nil {
		return err
	}
	*i = v
	return nil
}
