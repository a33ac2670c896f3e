package mail

import (
	"strconv"
	"strings"
	"time"

	"github.com/gpunex/gpunex/models"
)

// DateTime formats t for e's reader: the day, the month's name and the
// year in the order and words of the language (format.dateTime and
// format.months in the templates), a 24-hour time, and always UTC, as an
// email cannot know the reader's time zone; digits are the language's own
// (Arabic-Indic in Arabic, as the SPA's Intl formatting shows them).
func (e *Email) DateTime(t time.Time) string {
	t = t.UTC()
	return e.T("^format.dateTime", Vars{
		"day":   e.Digits(strconv.Itoa(t.Day())),
		"month": e.T("^format.months."+strconv.Itoa(int(t.Month())), nil),
		"year":  e.Digits(strconv.Itoa(t.Year())),
		"time":  e.Digits(t.Format("15:04")),
	})
}

// Number formats x for e's reader with at most decimals decimals (trailing
// zeros dropped), the language's decimal separator and digits, and its
// thousands separator from as many digits as the language starts grouping
// at (minimumGrouping: four in most, "4,500"; five in Spanish, "4500" but
// "12.345", as CLDR and the SPA's Intl.NumberFormat write them), grouped
// as the language groups (Hindi in lakhs: 12,34,567).
func (e *Email) Number(x float64, decimals int) string {
	s := strconv.FormatFloat(x, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return e.decimal(s)
}

// USDC formats an amount for e's reader as the SPA does: at least two
// decimals, up to the six USDC has, with the language's separators and
// digits, and the unit where the language puts it (format.usdc). It works
// on the exact decimal text, never on a float.
func (e *Email) USDC(u models.USDC) string {
	whole, frac, _ := strings.Cut(u.String(), ".") // six decimals
	frac = strings.TrimRight(frac, "0")
	for len(frac) < 2 {
		frac += "0"
	}
	return e.T("^format.usdc", Vars{"amount": e.decimal(whole + "." + frac)})
}

// decimal writes the ASCII decimal s ("-1234.5") with e's language's
// separators and digits.
func (e *Email) decimal(s string) string {
	sign := ""
	if rest, ok := strings.CutPrefix(s, "-"); ok {
		sign, s = "-", rest
	}
	whole, frac, _ := strings.Cut(s, ".")
	if len(whole) >= 3+minimumGrouping(e.lang) {
		whole = groupDigits(whole, e.T("^format.group", nil), e.lang == models.LanguageHindi)
	}
	out := sign + whole
	if frac != "" {
		out += e.T("^format.decimal", nil) + frac
	}
	return e.Digits(out)
}

// minimumGrouping is how many digits lang wants before its first
// thousands separator (CLDR's minimumGroupingDigits): two in Spanish,
// which leaves a four-digit number whole, one in the others.
func minimumGrouping(lang models.Language) int {
	if lang == models.LanguageSpanish {
		return 2
	}
	return 1
}

// groupDigits puts sep between the thousands of the ASCII digits whole,
// and, in the Indian system Hindi uses, between each two digits above
// them (12,34,567).
func groupDigits(whole, sep string, indian bool) string {
	var groups []string
	for i := len(whole); i > 0; {
		size := 3
		if indian && len(groups) > 0 {
			size = 2
		}
		start := max(0, i-size)
		groups = append([]string{whole[start:i]}, groups...)
		i = start
	}
	return strings.Join(groups, sep)
}

// Digits writes the ASCII digits of s in the language's digits
// (format.digits: the ten digits 0 to 9).
func (e *Email) Digits(s string) string {
	digits := []rune(e.T("^format.digits", nil))
	if len(digits) != 10 || string(digits) == "0123456789" {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return digits[r-'0']
		}
		return r
	}, s)
}
