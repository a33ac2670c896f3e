// Package availability holds the rules of an availability (24/7, or
// weekly windows in a time zone) that the application form (onboarding) and
// the provider's schedule (pricing) share, so that both accept the same
// schedules: a window is a day and two clock times "HH:MM"; an end before
// the start runs into the next day (FRIDAY 20:00–08:00 ends Saturday 08:00,
// SUNDAY 22:00–02:00 ends Monday 02:00); an end of 00:00 is midnight, the
// same as 24:00, and covers nothing of the next day; a window that ends when
// it starts is empty (EMPTY_WINDOW); two windows may not share a minute of
// the week, across midnight and across Sunday→Monday included. The SPA's
// schedule editor (frontend/src/ui/schedule.ts) follows the same rules.
package availability

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // IANA zones even on hosts without /usr/share/zoneinfo

	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/validate"
	"github.com/gpunex/gpunex/models"
)

// MinutesPerDay and MinutesPerWeek measure the weekly clock windows are
// read on.
const (
	MinutesPerDay  = 24 * 60
	MinutesPerWeek = 7 * MinutesPerDay
)

// ClockMinutes reads "HH:MM" (00:00–23:59, and 24:00 when end is true)
// into minutes since midnight.
func ClockMinutes(s string, end bool) (int, bool) {
	h, m, ok := strings.Cut(s, ":")
	if !ok || !twoDigits(h) || !twoDigits(m) {
		return 0, false
	}
	hh, _ := strconv.Atoi(h)
	mm, _ := strconv.Atoi(m)
	switch {
	case mm > 59:
		return 0, false
	case hh == 24 && mm == 0 && end:
		return MinutesPerDay, true
	case hh > 23:
		return 0, false
	}
	return hh*60 + mm, true
}

// twoDigits reports whether s is exactly two ASCII digits (no sign, which
// strconv.Atoi would take: "+9" is not an hour).
func twoDigits(s string) bool {
	return len(s) == 2 && s[0] >= '0' && s[0] <= '9' && s[1] >= '0' && s[1] <= '9'
}

// Weekday is d's offset from Monday (0–6), or -1 for an unknown day.
func Weekday(d models.Weekday) int { return slices.Index(models.Weekdays, d) }

// Span is a window on the weekly clock: minutes since Monday 00:00, End
// after Start, End possibly past the week's end (a Sunday window that
// crosses midnight). A window covers part of the next day only when End is
// past the next midnight: an end of 00:00 or 24:00 stops at it.
type Span struct{ Start, End int }

// SpanOf places w on the weekly clock; a window whose end is not after its
// start runs into the next day (to midnight for an end of 00:00; an end
// equal to the start, which CheckWindows refuses, would be a whole day).
// ok is false for a malformed window.
func SpanOf(w models.AvailabilityWindow) (Span, bool) {
	d := Weekday(w.Day)
	s, ok1 := ClockMinutes(w.Start, false)
	e, ok2 := ClockMinutes(w.End, true)
	if d < 0 || !ok1 || !ok2 {
		return Span{}, false
	}
	if e <= s {
		e += MinutesPerDay
	}
	return Span{d*MinutesPerDay + s, d*MinutesPerDay + e}, true
}

// Overlaps reports whether a and b share a minute on the weekly clock, a
// window crossing Sunday midnight included.
func (a Span) Overlaps(b Span) bool {
	for _, shift := range []int{-MinutesPerWeek, 0, MinutesPerWeek} {
		if a.Start < b.End+shift && b.Start+shift < a.End {
			return true
		}
	}
	return false
}

// CheckWindows validates weekly windows, naming each problem under field
// (field.i.day, .start, .end, or field.i for an overlap), and returns the
// windows that are well formed and not empty, in order, with their
// indices. Overlapping windows are reported and still returned.
func CheckWindows(v *fault.Validation, field validate.Path, ws []models.AvailabilityWindow) (valid []int) {
	var spans []Span
	for i, w := range ws {
		wf := field.Index(i)
		if Weekday(w.Day) < 0 {
			v.Add(wf.Field("day").String(), fault.InvalidValue, "choose a day of the week")
			continue
		}
		s, ok1 := ClockMinutes(w.Start, false)
		e, ok2 := ClockMinutes(w.End, true)
		if !ok1 {
			v.Add(wf.Field("start").String(), fault.InvalidValue, "use HH:MM between 00:00 and 23:59")
		}
		if !ok2 {
			v.Add(wf.Field("end").String(), fault.InvalidValue, "use HH:MM between 00:00 and 24:00")
		}
		if !ok1 || !ok2 {
			continue
		}
		if e == s {
			v.Add(wf.Field("end").String(), fault.EmptyWindow, "the window must not end when it starts (an end before the start runs into the next day)")
			continue
		}
		sp, _ := SpanOf(w)
		for j, o := range spans {
			if sp.Overlaps(o) {
				v.Add(wf.String(), fault.Overlap, fmt.Sprintf("overlaps window %d", valid[j]))
				break
			}
		}
		spans, valid = append(spans, sp), append(valid, i)
	}
	return valid
}

// Zone is a time zone as entered, trimmed; nil when none was given.
func Zone(tz *string) *string {
	if tz == nil {
		return nil
	}
	if s := strings.TrimSpace(*tz); s != "" {
		return &s
	}
	return nil
}

// Check validates an availability, naming each problem under field
// (field.kind, field.timeZone, field.windows and CheckWindows' paths):
// kind is ALWAYS (no windows) or WEEKLY (a time zone and 1 to maxWindows
// windows); timeZone, trimmed (Zone), is an IANA zone when given. It
// returns the indices of the weekly windows that are well formed and not
// empty (none for ALWAYS, or past maxWindows, when no window is checked).
func Check(v *fault.Validation, field validate.Path, kind models.AvailabilityKind, timeZone *string, windows []models.AvailabilityWindow, maxWindows int) (valid []int) {
	tzField, wsField := field.Field("timeZone"), field.Field("windows")
	if timeZone != nil && !knownZone(*timeZone) {
		v.Add(tzField.String(), fault.UnknownTimeZone, "use an IANA time zone such as Europe/Lisbon")
	}
	switch kind {
	case models.AvailabilityAlways:
		if len(windows) > 0 {
			v.Add(wsField.String(), fault.InvalidValue, "24/7 availability takes no windows")
		}
	case models.AvailabilityWeekly:
		if timeZone == nil {
			v.Add(tzField.String(), fault.Required, "weekly windows need a time zone")
		}
		if len(windows) == 0 {
			v.Add(wsField.String(), fault.Required, "add at least one weekly window")
		}
		if len(windows) > maxWindows {
			v.Add(wsField.String(), fault.TooMany, fmt.Sprintf("at most %d windows", maxWindows))
			return nil
		}
		return CheckWindows(v, wsField, windows)
	default:
		v.Add(field.Field("kind").String(), fault.InvalidValue, "availability must be ALWAYS or WEEKLY")
	}
	return nil
}

// knownZone reports whether tz names an IANA zone ("Local", the host's
// zone, is not one).
func knownZone(tz string) bool {
	if tz == "Local" || len(tz) > 64 {
		return false
	}
	_, err := time.LoadLocation(tz)
	return err == nil
}
