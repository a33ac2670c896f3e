package pricing

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/availability"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/validate"
	"github.com/gpunex/gpunex/models"
)

// weekly is a WEEKLY availability in zone with windows given as
// day, start, end triples.
func weekly(zone string, windows ...string) models.Availability {
	a := models.Availability{Kind: models.AvailabilityWeekly, TimeZone: &zone}
	for i := 0; i+2 < len(windows); i += 3 {
		a.Windows = append(a.Windows, &models.AvailabilityWindow{Day: models.Weekday(windows[i]), Start: windows[i+1], End: windows[i+2]})
	}
	return a
}

func utc(y int, m time.Month, d, h, mi int) time.Time {
	return time.Date(y, m, d, h, mi, 0, 0, time.UTC)
}

// The schedule's instants, checked in UTC: the open interval around (or
// after) at, and OpenAt on both sides of each bound.
func TestScheduleIntervalsAcrossDSTAndMidnight(t *testing.T) {
	t.Parallel()
	cases := []struct {
		desc     string
		a        models.Availability
		at       time.Time
		from, to time.Time
	}{
		{
			desc: "Lisbon spring forward (2026-03-29 01:00 UTC): a Sunday 09:00–17:00 window is 08:00–16:00 UTC that day",
			a:    weekly("Europe/Lisbon", "SUNDAY", "09:00", "17:00"),
			at:   utc(2026, 3, 28, 12, 0), from: utc(2026, 3, 29, 8, 0), to: utc(2026, 3, 29, 16, 0),
		},
		{
			desc: "Lisbon the Sunday before spring forward: 09:00–17:00 UTC (WET is UTC)",
			a:    weekly("Europe/Lisbon", "SUNDAY", "09:00", "17:00"),
			at:   utc(2026, 3, 21, 12, 0), from: utc(2026, 3, 22, 9, 0), to: utc(2026, 3, 22, 17, 0),
		},
		{
			desc: "Lisbon fall back (2026-10-25 01:00 UTC): a Sunday 09:00–17:00 window is 09:00–17:00 UTC that day",
			a:    weekly("Europe/Lisbon", "SUNDAY", "09:00", "17:00"),
			at:   utc(2026, 10, 24, 12, 0), from: utc(2026, 10, 25, 9, 0), to: utc(2026, 10, 25, 17, 0),
		},
		{
			desc: "Lisbon the Sunday before fall back: 08:00–16:00 UTC (WEST is UTC+1)",
			a:    weekly("Europe/Lisbon", "SUNDAY", "09:00", "17:00"),
			at:   utc(2026, 10, 17, 12, 0), from: utc(2026, 10, 18, 8, 0), to: utc(2026, 10, 18, 16, 0),
		},
		{
			desc: "a night crossing spring forward is an hour shorter: Saturday 22:00 WET to Sunday 06:00 WEST, 7h",
			a:    weekly("Europe/Lisbon", "SATURDAY", "22:00", "06:00"),
			at:   utc(2026, 3, 28, 12, 0), from: utc(2026, 3, 28, 22, 0), to: utc(2026, 3, 29, 5, 0),
		},
		{
			desc: "a night crossing fall back is an hour longer: Saturday 22:00 WEST to Sunday 06:00 WET, 9h",
			a:    weekly("Europe/Lisbon", "SATURDAY", "22:00", "06:00"),
			at:   utc(2026, 10, 24, 12, 0), from: utc(2026, 10, 24, 21, 0), to: utc(2026, 10, 25, 6, 0),
		},
		{
			desc: "a start in Lisbon's gap (01:30 does not exist on 2026-03-29) opens when the clock jumps past it, 02:00 WEST",
			a:    weekly("Europe/Lisbon", "SUNDAY", "01:30", "03:00"),
			at:   utc(2026, 3, 28, 12, 0), from: utc(2026, 3, 29, 1, 0), to: utc(2026, 3, 29, 2, 0),
		},
		{
			desc: "02:30 on spring-forward day in Berlin (gap 02:00–03:00 local) opens at the jump, 03:00 CEST",
			a:    weekly("Europe/Berlin", "SUNDAY", "02:30", "04:00"),
			at:   utc(2026, 3, 28, 12, 0), from: utc(2026, 3, 29, 1, 0), to: utc(2026, 3, 29, 2, 0),
		},
		{
			desc: "02:30 on spring-forward day in Lisbon exists (02:30 WEST, 01:30 UTC)",
			a:    weekly("Europe/Lisbon", "SUNDAY", "02:30", "04:00"),
			at:   utc(2026, 3, 28, 12, 0), from: utc(2026, 3, 29, 1, 30), to: utc(2026, 3, 29, 3, 0),
		},
		{
			desc: "a window wholly inside the gap is empty that Sunday and next opens a week later",
			a:    weekly("Europe/Lisbon", "SUNDAY", "01:10", "01:50"),
			at:   utc(2026, 3, 28, 12, 0), from: utc(2026, 4, 5, 0, 10), to: utc(2026, 4, 5, 0, 50),
		},
		{
			desc: "a time shown twice at fall back (01:30 on 2026-10-25) opens at its first showing, 01:30 WEST",
			a:    weekly("Europe/Lisbon", "SUNDAY", "01:30", "03:00"),
			at:   utc(2026, 10, 24, 12, 0), from: utc(2026, 10, 25, 0, 30), to: utc(2026, 10, 25, 3, 0),
		},
		{
			desc: "Asia/Kolkata has no DST: Monday 09:00–18:00 is 03:30–12:30 UTC in March",
			a:    weekly("Asia/Kolkata", "MONDAY", "09:00", "18:00"),
			at:   utc(2026, 3, 29, 12, 0), from: utc(2026, 3, 30, 3, 30), to: utc(2026, 3, 30, 12, 30),
		},
		{
			desc: "Asia/Kolkata: and the same in UTC in late October",
			a:    weekly("Asia/Kolkata", "MONDAY", "09:00", "18:00"),
			at:   utc(2026, 10, 25, 12, 0), from: utc(2026, 10, 26, 3, 30), to: utc(2026, 10, 26, 12, 30),
		},
		{
			desc: "Friday 20:00–08:00 crosses midnight into Saturday",
			a:    weekly("Europe/Lisbon", "FRIDAY", "20:00", "08:00"),
			at:   utc(2026, 12, 4, 12, 0), from: utc(2026, 12, 4, 20, 0), to: utc(2026, 12, 5, 8, 0),
		},
		{
			desc: "Sunday 22:00–02:00 crosses into the next week's Monday",
			a:    weekly("UTC", "SUNDAY", "22:00", "02:00"),
			at:   utc(2026, 12, 7, 1, 0), from: utc(2026, 12, 6, 22, 0), to: utc(2026, 12, 7, 2, 0),
		},
		{
			desc: "windows that touch are one interval: Monday 20:00–24:00 and Tuesday 00:00–08:00",
			a:    weekly("UTC", "MONDAY", "20:00", "24:00", "TUESDAY", "00:00", "08:00"),
			at:   utc(2026, 12, 7, 21, 0), from: utc(2026, 12, 7, 20, 0), to: utc(2026, 12, 8, 8, 0),
		},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			from, to, ok := openInterval(tc.a, tc.at)
			require.True(t, ok)
			require.Equal(t, tc.from, from.UTC())
			require.NotNil(t, to)
			require.Equal(t, tc.to, to.UTC())

			require.False(t, OpenAt(tc.a, tc.from.Add(-time.Minute)), "closed just before")
			require.True(t, OpenAt(tc.a, tc.from), "open from its start")
			require.True(t, OpenAt(tc.a, tc.to.Add(-time.Minute)), "open until its end")
			require.False(t, OpenAt(tc.a, tc.to), "closed at its end")
			if tc.at.Before(tc.from) {
				require.Equal(t, tc.from, NextChange(tc.a, tc.at).UTC(), "closed now: the next change opens")
			} else {
				require.Equal(t, tc.to, NextChange(tc.a, tc.at).UTC(), "open now: the next change closes")
			}
			require.Equal(t, tc.to, NextChange(tc.a, tc.from).UTC())
		})
	}
}

func TestScheduleThatNeverChanges(t *testing.T) {
	t.Parallel()
	at := utc(2026, 3, 29, 1, 0)
	always := models.Availability{Kind: models.AvailabilityAlways}
	require.True(t, OpenAt(always, at))
	require.Nil(t, NextChange(always, at))

	var days []string
	for _, d := range models.Weekdays {
		days = append(days, string(d), "00:00", "24:00")
	}
	allWeek := weekly("Europe/Lisbon", days...)
	require.True(t, OpenAt(allWeek, at), "every day 00:00–24:00 is open, even across the clock change")
	require.Nil(t, NextChange(allWeek, at), "and never closes")

	nights := weekly("Europe/Lisbon", "MONDAY", "12:00", "12:00")
	require.False(t, OpenAt(nights, at), "an empty window (refused when set) never opens")
}

// Validation of a schedule as entered, the problems naming their fields.
func TestScheduleInputRefusesOverlapsEmptyWindowsAndUnknownZones(t *testing.T) {
	t.Parallel()
	zone := func(s string) *string { return &s }
	w := func(day, start, end string) models.AvailabilityWindow {
		return models.AvailabilityWindow{Day: models.Weekday(day), Start: start, End: end}
	}
	type problem struct {
		field string
		code  fault.ProblemCode
	}
	cases := []struct {
		desc string
		in   availability.Input
		want []problem
	}{
		{"24/7", availability.Input{Kind: models.AvailabilityAlways}, nil},
		{"the common home schedule crosses midnight", availability.Input{Kind: models.AvailabilityWeekly, TimeZone: zone("Europe/Lisbon"),
			Windows: []models.AvailabilityWindow{w("FRIDAY", "20:00", "08:00"), w("SATURDAY", "08:00", "20:00")}}, nil},
		{"a window ending at 00:00 runs to midnight", availability.Input{Kind: models.AvailabilityWeekly, TimeZone: zone("UTC"),
			Windows: []models.AvailabilityWindow{w("MONDAY", "20:00", "00:00"), w("TUESDAY", "00:00", "08:00")}}, nil},
		{"overlap on the same day", availability.Input{Kind: models.AvailabilityWeekly, TimeZone: zone("UTC"),
			Windows: []models.AvailabilityWindow{w("MONDAY", "08:00", "12:00"), w("MONDAY", "11:00", "13:00")}},
			[]problem{{"input.availability.windows.1", fault.Overlap}}},
		{"overlap through a midnight crossing", availability.Input{Kind: models.AvailabilityWeekly, TimeZone: zone("UTC"),
			Windows: []models.AvailabilityWindow{w("FRIDAY", "20:00", "08:00"), w("SATURDAY", "07:00", "09:00")}},
			[]problem{{"input.availability.windows.1", fault.Overlap}}},
		{"overlap through Sunday midnight into Monday", availability.Input{Kind: models.AvailabilityWeekly, TimeZone: zone("UTC"),
			Windows: []models.AvailabilityWindow{w("MONDAY", "01:00", "03:00"), w("SUNDAY", "22:00", "02:00")}},
			[]problem{{"input.availability.windows.1", fault.Overlap}}},
		{"an empty window", availability.Input{Kind: models.AvailabilityWeekly, TimeZone: zone("UTC"),
			Windows: []models.AvailabilityWindow{w("MONDAY", "08:00", "08:00")}},
			[]problem{{"input.availability.windows.0.end", fault.EmptyWindow}}},
		{"an unknown zone", availability.Input{Kind: models.AvailabilityWeekly, TimeZone: zone("Mars/Olympus"),
			Windows: []models.AvailabilityWindow{w("MONDAY", "08:00", "09:00")}},
			[]problem{{"input.availability.timeZone", fault.UnknownTimeZone}}},
		{"no zone", availability.Input{Kind: models.AvailabilityWeekly,
			Windows: []models.AvailabilityWindow{w("MONDAY", "08:00", "09:00")}},
			[]problem{{"input.availability.timeZone", fault.Required}}},
		{"a malformed clock", availability.Input{Kind: models.AvailabilityWeekly, TimeZone: zone("UTC"),
			Windows: []models.AvailabilityWindow{w("MONDAY", "8:00", "24:01")}},
			[]problem{{"input.availability.windows.0.start", fault.InvalidValue}, {"input.availability.windows.0.end", fault.InvalidValue}}},
		{"no windows", availability.Input{Kind: models.AvailabilityWeekly, TimeZone: zone("UTC")},
			[]problem{{"input.availability.windows", fault.Required}}},
		{"24/7 with windows", availability.Input{Kind: models.AvailabilityAlways,
			Windows: []models.AvailabilityWindow{w("MONDAY", "08:00", "09:00")}},
			[]problem{{"input.availability.windows", fault.InvalidValue}}},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			var v fault.Validation
			availabilityOf(&v, validate.At("input").Field("availability"), tc.in)
			var got []problem
			for _, p := range v.Problems {
				got = append(got, problem{p.Field, p.Code})
			}
			require.Equal(t, tc.want, got)
		})
	}
}

func TestOpenDuringCountsTheScheduledTime(t *testing.T) {
	t.Parallel()
	zone := "Europe/Lisbon"
	a := models.Availability{Kind: models.AvailabilityWeekly, TimeZone: &zone, Windows: []*models.AvailabilityWindow{
		{Day: models.Monday, Start: "20:00", End: "08:00"}, {Day: models.Tuesday, Start: "09:00", End: "10:00"}}}
	at := func(d, h, m int) time.Time { return time.Date(2026, 12, d, h, m, 0, 0, time.UTC) } // WET = UTC in December
	require.Equal(t, 13*time.Hour, OpenDuring(a, at(7, 0, 0), at(9, 0, 0)), "Monday 20:00–Tuesday 08:00 and Tuesday 09:00–10:00")
	require.Equal(t, 150*time.Minute, OpenDuring(a, at(8, 6, 30), at(8, 12, 0)), "the end of the night (1.5 h) and the hour")
	require.Equal(t, time.Duration(0), OpenDuring(a, at(8, 10, 0), at(8, 19, 0)))
	require.Equal(t, 48*time.Hour, OpenDuring(models.Availability{Kind: models.AvailabilityAlways}, at(1, 0, 0), at(3, 0, 0)), "24/7")
	require.Equal(t, time.Duration(0), OpenDuring(a, at(9, 0, 0), at(8, 0, 0)))
	// Across the autumn change (2026-10-25, Lisbon): the night is an hour longer.
	oct := func(d, h int) time.Time { return time.Date(2026, 10, d, h, 0, 0, 0, time.UTC) }
	sun := models.Availability{Kind: models.AvailabilityWeekly, TimeZone: &zone, Windows: []*models.AvailabilityWindow{{Day: models.Saturday, Start: "20:00", End: "08:00"}}}
	require.Equal(t, 13*time.Hour, OpenDuring(sun, oct(23, 0), oct(27, 0)))
}
