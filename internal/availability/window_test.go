package availability

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/validate"
	"github.com/gpunex/gpunex/models"
)

func w(day models.Weekday, start, end string) models.AvailabilityWindow {
	return models.AvailabilityWindow{Day: day, Start: start, End: end}
}

func TestSpanOfOvernightWindowRunsIntoTheNextDay(t *testing.T) {
	t.Parallel()
	cases := []struct {
		desc   string
		window models.AvailabilityWindow
		want   Span
	}{
		{"office hours", w(models.Monday, "09:00", "18:00"), Span{9 * 60, 18 * 60}},
		{"an overnight window ends the next morning", w(models.Monday, "20:00", "08:00"), Span{20 * 60, MinutesPerDay + 8*60}},
		{"an end of 24:00 is midnight of the same day", w(models.Tuesday, "18:00", "24:00"), Span{MinutesPerDay + 18*60, 2 * MinutesPerDay}},
		{"an end of 00:00 is the same midnight as 24:00", w(models.Tuesday, "18:00", "00:00"), Span{MinutesPerDay + 18*60, 2 * MinutesPerDay}},
		{"Sunday night runs past the week's end", w(models.Sunday, "22:00", "02:00"), Span{6*MinutesPerDay + 22*60, MinutesPerWeek + 2*60}},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			sp, ok := SpanOf(tc.window)
			require.True(t, ok)
			require.Equal(t, tc.want, sp)
		})
	}
}

func TestCheckWindowsAcceptsOvernightAndRefusesOverlapsAcrossMidnight(t *testing.T) {
	t.Parallel()
	cases := []struct {
		desc    string
		windows []models.AvailabilityWindow
		field   string
		code    fault.ProblemCode
	}{
		{desc: "an overnight window 20:00–08:00 is accepted", windows: []models.AvailabilityWindow{w(models.Monday, "20:00", "08:00")}},
		{desc: "every night of the week, back to back with the mornings", windows: []models.AvailabilityWindow{
			w(models.Monday, "20:00", "08:00"), w(models.Tuesday, "08:00", "09:00"), w(models.Sunday, "20:00", "08:00"),
		}},
		{desc: "Monday 20:00–08:00 overlaps Tuesday 07:00–09:00",
			windows: []models.AvailabilityWindow{w(models.Monday, "20:00", "08:00"), w(models.Tuesday, "07:00", "09:00")},
			field:   "windows.1", code: fault.Overlap},
		{desc: "Sunday 22:00–02:00 overlaps Monday 01:00–03:00 (Sunday→Monday)",
			windows: []models.AvailabilityWindow{w(models.Monday, "01:00", "03:00"), w(models.Sunday, "22:00", "02:00")},
			field:   "windows.1", code: fault.Overlap},
		{desc: "a window that ends when it starts is empty",
			windows: []models.AvailabilityWindow{w(models.Friday, "10:00", "10:00")}, field: "windows.0.end", code: fault.EmptyWindow},
		{desc: "a start of 24:00 is not a time of day",
			windows: []models.AvailabilityWindow{w(models.Friday, "24:00", "10:00")}, field: "windows.0.start", code: fault.InvalidValue},
		{desc: "an unknown day", windows: []models.AvailabilityWindow{w("SOMEDAY", "09:00", "10:00")}, field: "windows.0.day", code: fault.InvalidValue},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			var v fault.Validation
			CheckWindows(&v, validate.At("windows"), tc.windows)
			if tc.code == "" {
				require.NoError(t, v.Err())
				return
			}
			require.Len(t, v.Problems, 1, "%+v", v.Problems)
			require.Equal(t, tc.field, v.Problems[0].Field)
			require.Equal(t, tc.code, v.Problems[0].Code)
		})
	}
}

func TestCheckNamesEachProblemOfAnAvailabilityUnderItsField(t *testing.T) {
	t.Parallel()
	zone := func(s string) *string { return &s }
	monday := []models.AvailabilityWindow{w(models.Monday, "09:00", "18:00")}
	cases := []struct {
		desc     string
		kind     models.AvailabilityKind
		timeZone *string
		windows  []models.AvailabilityWindow
		problems map[string]fault.ProblemCode
		valid    []int
		max      int // MaxWindows of the caller; 50 when 0
	}{
		{desc: "24/7 needs nothing else", kind: models.AvailabilityAlways},
		{desc: "24/7 takes no windows", kind: models.AvailabilityAlways, windows: monday,
			problems: map[string]fault.ProblemCode{"a.windows": fault.InvalidValue}},
		{desc: "weekly windows in a zone", kind: models.AvailabilityWeekly, timeZone: zone("Europe/Lisbon"), windows: monday, valid: []int{0}},
		{desc: "weekly needs a zone and a window", kind: models.AvailabilityWeekly,
			problems: map[string]fault.ProblemCode{"a.timeZone": fault.Required, "a.windows": fault.Required}},
		{desc: "the host's Local zone is not an IANA zone", kind: models.AvailabilityWeekly, timeZone: zone("Local"), windows: monday,
			problems: map[string]fault.ProblemCode{"a.timeZone": fault.UnknownTimeZone}, valid: []int{0}},
		{desc: "an unknown zone", kind: models.AvailabilityWeekly, timeZone: zone("Mars/Olympus"), windows: monday,
			problems: map[string]fault.ProblemCode{"a.timeZone": fault.UnknownTimeZone}, valid: []int{0}},
		{desc: "more windows than allowed are not checked one by one", kind: models.AvailabilityWeekly, timeZone: zone("UTC"), max: 1,
			windows:  []models.AvailabilityWindow{w(models.Monday, "09:00", "10:00"), w(models.Monday, "10:00", "10:00")},
			problems: map[string]fault.ProblemCode{"a.windows": fault.TooMany}},
		{desc: "an unknown kind", kind: "SOMETIMES", problems: map[string]fault.ProblemCode{"a.kind": fault.InvalidValue}},
		{desc: "an empty window is left out", kind: models.AvailabilityWeekly, timeZone: zone("UTC"),
			windows:  []models.AvailabilityWindow{w(models.Friday, "10:00", "10:00"), w(models.Friday, "20:00", "08:00")},
			problems: map[string]fault.ProblemCode{"a.windows.0.end": fault.EmptyWindow}, valid: []int{1}},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			var v fault.Validation
			limit := tc.max
			if limit == 0 {
				limit = 50
			}
			valid := Check(&v, validate.At("a"), tc.kind, tc.timeZone, tc.windows, limit)
			got := map[string]fault.ProblemCode{}
			for _, p := range v.Problems {
				got[p.Field] = p.Code
			}
			if tc.problems == nil {
				tc.problems = map[string]fault.ProblemCode{}
			}
			require.Equal(t, tc.problems, got)
			require.Equal(t, tc.valid, valid)
		})
	}
}

func TestZoneTrimsAndDropsAnEmptyZone(t *testing.T) {
	t.Parallel()
	blank, padded := "  ", " Europe/Lisbon "
	require.Nil(t, Zone(nil))
	require.Nil(t, Zone(&blank))
	require.Equal(t, "Europe/Lisbon", *Zone(&padded))
}
