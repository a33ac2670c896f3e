package pricing

import (
	"slices"
	"time"
	_ "time/tzdata" // IANA zones even on hosts without /usr/share/zoneinfo

	"github.com/gpunex/gpunex/internal/availability"
	"github.com/gpunex/gpunex/models"
)

// minutesPerDay and minutesPerWeek measure the weekly clock windows are
// read on (package availability's).
const (
	minutesPerDay  = availability.MinutesPerDay
	minutesPerWeek = availability.MinutesPerWeek
)

// interval is a half-open span of instants [from, to).
type interval struct{ from, to time.Time }

// The window rules are package availability's, which the application form
// shares: these names keep the schedule's code short.

// span is a window on the weekly clock (availability.Span): minutes since
// Monday 00:00, end after start, end possibly past the week's end (a
// Sunday window that crosses midnight).
type span struct{ start, end int }

// spanOf places w on the weekly clock; a window whose end is not after its
// start runs into the next day. ok is false for a malformed window.
func spanOf(w models.AvailabilityWindow) (span, bool) {
	sp, ok := availability.SpanOf(w)
	return span{sp.Start, sp.End}, ok
}

// wallTime is the instant at which the zone's clock first shows the given
// date and minute of the day, or a later time: a time the clock skips (the
// hour lost when summer time starts) is the instant the clock jumps past
// it, and a time the clock shows twice (the hour repeated when summer
// time ends) is its first showing. time.Date does the calendar arithmetic,
// so a day is whatever length the zone gives it, never 24h added.
func wallTime(y int, m time.Month, d, minute int, loc *time.Location) time.Time {
	t := time.Date(y, m, d, 0, minute, 0, 0, loc)
	want := time.Date(y, m, d, 0, minute, 0, 0, time.UTC) // the wall clock as if it were UTC
	shown := func(u time.Time) time.Time {
		l := u.In(loc)
		return time.Date(l.Year(), l.Month(), l.Day(), l.Hour(), l.Minute(), l.Second(), l.Nanosecond(), time.UTC)
	}
	switch s := shown(t); {
	case s.After(want):
		// In a gap, taken with the offset before it: the clock jumped
		// over the time at the start of t's zone period.
		if start, _ := t.ZoneBounds(); !start.IsZero() {
			t = start
		}
	case s.Before(want):
		// In a gap, taken with the offset after it.
		if _, end := t.ZoneBounds(); !end.IsZero() {
			t = end
		}
	default:
		// Shown twice? Prefer the showing in the zone period before.
		if start, _ := t.ZoneBounds(); !start.IsZero() {
			_, before := start.Add(-time.Nanosecond).In(loc).Zone()
			_, now := t.In(loc).Zone()
			if earlier := t.Add(time.Duration(now-before) * time.Second); earlier.Before(start) && shown(earlier).Equal(want) {
				t = earlier
			}
		}
	}
	return t
}

// occurrences are the weekly windows of a as instants, for the local days
// from one week before t to two weeks after, merged where they touch or
// overlap, in order. A window emptied by a clock change is left out.
func occurrences(a models.Availability, loc *time.Location, t time.Time) []interval {
	lt := t.In(loc)
	y, m, d := lt.Date()
	var out []interval
	for day := -8; day <= 15; day++ {
		date := time.Date(y, m, d+day, 12, 0, 0, 0, loc) // noon exists every day
		wd := (int(date.Weekday()) + 6) % 7              // Monday = 0
		for _, w := range a.Windows {
			if w == nil {
				continue
			}
			sp, ok := spanOf(*w)
			if !ok || sp.start/minutesPerDay != wd {
				continue
			}
			dy, dm, dd := date.Date()
			from := wallTime(dy, dm, dd, sp.start%minutesPerDay, loc)
			to := wallTime(dy, dm, dd, sp.end-wd*minutesPerDay, loc)
			if to.After(from) {
				out = append(out, interval{from, to})
			}
		}
	}
	slices.SortFunc(out, func(a, b interval) int { return a.from.Compare(b.from) })
	merged := out[:0]
	for _, iv := range out {
		if n := len(merged); n > 0 && !iv.from.After(merged[n-1].to) {
			if iv.to.After(merged[n-1].to) {
				merged[n-1].to = iv.to
			}
			continue
		}
		merged = append(merged, iv)
	}
	return merged
}

// location is a's zone; UTC when it names none (24/7) or an unknown one
// (never stored: validation refuses it).
func location(a models.Availability) *time.Location {
	if a.TimeZone == nil {
		return time.UTC
	}
	loc, err := time.LoadLocation(*a.TimeZone)
	if err != nil {
		return time.UTC
	}
	return loc
}

// openInterval is the schedule's interval containing t, or else the next
// one: ok false when there is none (no window at all). A nil to means open
// with no end (24/7, or windows covering the whole week).
func openInterval(a models.Availability, t time.Time) (from time.Time, to *time.Time, ok bool) {
	if a.Kind != models.AvailabilityWeekly || coversWeek(a) {
		return time.Time{}, nil, true
	}
	for _, iv := range occurrences(a, location(a), t) {
		if !iv.to.After(t) {
			continue
		}
		end := iv.to
		return iv.from, &end, true
	}
	return time.Time{}, nil, false
}

// coversWeek reports whether a's windows leave no minute of the weekly
// clock uncovered: such a schedule is open with no end, like 24/7.
func coversWeek(a models.Availability) bool {
	var covered [minutesPerWeek]bool
	n := 0
	for _, w := range a.Windows {
		if w == nil {
			continue
		}
		sp, ok := spanOf(*w)
		if !ok {
			continue
		}
		for m := sp.start; m < sp.end; m++ {
			if i := m % minutesPerWeek; !covered[i] {
				covered[i] = true
				n++
			}
		}
	}
	return n == minutesPerWeek
}

// OpenAt reports whether a's weekly schedule offers GPUs at t (maintenance
// is not part of it: see Service.Schedule).
func OpenAt(a models.Availability, t time.Time) bool {
	from, _, ok := openInterval(a, t)
	return ok && !from.After(t)
}

// NextChange is the first instant after t at which OpenAt(a, ·) changes,
// or nil when it never does (24/7, or windows covering the whole week).
func NextChange(a models.Availability, t time.Time) *time.Time {
	from, to, ok := openInterval(a, t)
	switch {
	case !ok:
		return nil
	case from.After(t):
		return &from
	default:
		return to
	}
}

// OpenDuring is how long a's schedule is open between from and to (zero
// when to is not after from): the time reliability counts as scheduled.
func OpenDuring(a models.Availability, from, to time.Time) time.Duration {
	var total time.Duration
	OpenSpans(a, from, to, func(f, t time.Time) { total += t.Sub(f) })
	return total
}

// OpenSpans calls fn with each stretch of time between from and to in
// which a's schedule is open, in order. It walks the schedule's open
// intervals with openInterval, so it follows the zone across
// daylight-saving changes as OpenAt does.
func OpenSpans(a models.Availability, from, to time.Time, fn func(from, to time.Time)) {
	for t := from; t.Before(to); {
		start, end, ok := openInterval(a, t)
		if !ok {
			return
		}
		if start.After(t) {
			t = start
			if !t.Before(to) {
				return
			}
		}
		stop := to
		if end != nil && end.Before(to) {
			stop = *end
		}
		fn(t, stop)
		if end == nil {
			return
		}
		t = stop
	}
}
