package models

import (
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/gpunex/gpunex/internal/fault"
)

// Language is the language a person reads GPUnex in: the SPA's locale and
// the language of every email sent to them. It is stored lower-case (the
// SPA's and BCP 47's spelling, "en") and is the upper-case GraphQL enum
// value ("EN") on the API.
type Language string

// The languages GPUnex speaks, the SPA's LANGUAGES in the same order.
const (
	LanguageEnglish    Language = "en"
	LanguageSpanish    Language = "es"
	LanguagePortuguese Language = "pt"
	LanguageHindi      Language = "hi"
	LanguageArabic     Language = "ar"
)

// DefaultLanguage is a user's language until they choose one, and the
// language of a request that names none.
const DefaultLanguage = LanguageEnglish

// AllLanguages lists every language in the SPA's switcher order.
var AllLanguages = []Language{LanguageEnglish, LanguageSpanish, LanguagePortuguese, LanguageHindi, LanguageArabic}

// IsValid reports whether l is one of AllLanguages.
func (l Language) IsValid() bool { return slices.Contains(AllLanguages, l) }

// Or is l when it is valid, else fallback.
func (l Language) Or(fallback Language) Language {
	if l.IsValid() {
		return l
	}
	return fallback
}

// RightToLeft reports whether l is written right to left (Arabic).
func (l Language) RightToLeft() bool { return l == LanguageArabic }

// String returns the language's code, e.g. "en".
func (l Language) String() string { return string(l) }

// UnmarshalGQL reads a Language from its GraphQL enum value ("AR").
func (l *Language) UnmarshalGQL(v any) error {
	s, ok := v.(string)
	if !ok {
		return fault.E(fault.Invalid, "Language must be a string")
	}
	lang := Language(strings.ToLower(s))
	if s != strings.ToUpper(s) || !lang.IsValid() {
		return fault.E(fault.Invalid, "%q is not a valid Language", s)
	}
	*l = lang
	return nil
}

// MarshalGQL writes l as its GraphQL enum value ("AR").
func (l Language) MarshalGQL(w io.Writer) {
	_, _ = io.WriteString(w, strconv.Quote(strings.ToUpper(string(l.Or(DefaultLanguage)))))
}
