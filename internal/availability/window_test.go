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
		cross  bool
	}{
		{"office hours", w(models.Monday, "09:00", "18:00"), Span{9 * 60, 18 * 60}, false},
		{"an overnight window ends the next morning", w(models.Monday, "20:00", "08:00"), Span{20 * 60, MinutesPerDay + 8*60}, true},
		{"an end of 24:00 is midnight of the same day", w(models.Tuesday, "18:00", "24:00"), Span{MinutesPerDay + 18*60, 2 * MinutesPerDay}, false},
		{"Sunday night runs past the week's end", w(models.Sunday, "22:00", "02:00"), Span{6*MinutesPerDay + 22*60, MinutesPerWeek + 2*60}, true},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			sp, ok := SpanOf(tc.window)
			require.True(t, ok)
			require.Equal(t, tc.want, sp)
			require.Equal(t, tc.cross, sp.CrossesMidnight())
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
