package onboarding

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/availability"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/validate"
	"github.com/gpunex/gpunex/models"
)

// The clock forms the schema documents for a window: start "HH:MM,
// 00:00–23:59", end "HH:MM, 00:00–24:00" (an end not after the start runs
// into the next day).
var (
	startClock = regexp.MustCompile(`^(?:[01][0-9]|2[0-3]):[0-5][0-9]$`)
	endClock   = regexp.MustCompile(`^(?:(?:[01][0-9]|2[0-3]):[0-5][0-9]|24:00)$`)
)

func minutes(clock string) int {
	h, _ := strconv.Atoi(clock[:2])
	m, _ := strconv.Atoi(clock[3:])
	return h*60 + m
}

// scheduleIsValid is the schedule rule read from the schema and the form,
// worked out independently of normalize: ALWAYS takes no windows; WEEKLY
// takes an IANA zone and 1 to availability.MaxWindows windows in the documented clock
// forms, none ending when it starts (an end before the start is on the
// next day), none sharing a minute of the week with another.
func scheduleIsValid(a availability.Input) bool {
	tz := ""
	if a.TimeZone != nil {
		tz = strings.TrimSpace(*a.TimeZone)
	}
	if tz != "" {
		if tz == "Local" || len(tz) > 64 {
			return false
		}
		if _, err := time.LoadLocation(tz); err != nil {
			return false
		}
	}
	switch a.Kind {
	case models.AvailabilityAlways:
		return len(a.Windows) == 0
	case models.AvailabilityWeekly:
		if tz == "" || len(a.Windows) == 0 || len(a.Windows) > availability.MaxWindows {
			return false
		}
		// Minutes of the week, Monday 00:00 first: an end not after the
		// start runs into the next day, Sunday into Monday.
		var taken [7 * 24 * 60]bool
		for _, w := range a.Windows {
			if !startClock.MatchString(w.Start) || !endClock.MatchString(w.End) {
				return false
			}
			s, e := minutes(w.Start), minutes(w.End)
			if e == s {
				return false
			}
			if e < s {
				e += 24 * 60
			}
			day := dayIndex(w.Day)
			for m := s; m < e; m++ {
				i := (day*24*60 + m) % len(taken)
				if taken[i] {
					return false
				}
				taken[i] = true
			}
		}
		return true
	}
	return false
}

func dayIndex(d models.Weekday) int {
	for i, w := range models.Weekdays {
		if w == d {
			return i
		}
	}
	return -1
}

// viaStorage is a normalized schedule stored as the application's GPU row
// keeps it (the windows as JSON text) and read back as a form to edit.
func viaStorage(t *testing.T, a availability.Input) availability.Input {
	row := models.Availability{Kind: a.Kind, TimeZone: a.TimeZone, Windows: []*models.AvailabilityWindow{}}
	for _, w := range a.Windows {
		row.Windows = append(row.Windows, &models.AvailabilityWindow{Day: w.Day, Start: w.Start, End: w.End})
	}
	text, err := json.Marshal(row.Windows)
	require.NoError(t, err)
	var windows []*models.AvailabilityWindow
	require.NoError(t, json.Unmarshal(text, &windows))
	back := availability.Input{Kind: row.Kind, TimeZone: row.TimeZone}
	for _, w := range windows {
		var day models.Weekday
		var quoted strings.Builder
		w.Day.MarshalGQL(&quoted)
		unquoted, err := strconv.Unquote(quoted.String())
		require.NoError(t, err)
		require.NoError(t, day.UnmarshalGQL(unquoted), "the stored day reads back over GraphQL")
		back.Windows = append(back.Windows, models.AvailabilityWindow{Day: day, Start: w.Start, End: w.End})
	}
	return back
}

// availabilityPath is where the form's first GPU entry keeps its schedule.
var availabilityPath = validate.At("input.gpus").Index(0).Field("availability")

// problemField is a field a schedule's problem may name.
var problemField = regexp.MustCompile(`^input\.gpus\.0\.availability\.(?:kind|timeZone|windows(?:\.[0-9]+(?:\.start|\.end)?)?)$`)

// FuzzAvailability: a schedule as GraphQL hands it over (kind and days
// among their enums; any zone, any clock text) is checked without a
// panic; it is accepted exactly when the schedule rule holds; an accepted
// one reads back from storage as a schedule that is accepted again
// unchanged; a refused one has problems with codes of the UserErrorCode
// enum, each naming a field of the schedule.
//
// windows is written "DAY,START,END;DAY,START,END".
func FuzzAvailability(f *testing.F) {
	for _, seed := range []struct {
		kind, timeZone string
		hasZone        bool
		windows        string
	}{
		{"ALWAYS", "", false, ""},
		{"ALWAYS", "Europe/Lisbon", true, "MONDAY,09:00,17:00"},
		{"WEEKLY", "Europe/Lisbon", true, "MONDAY,09:00,17:00;TUESDAY,09:00,24:00"},
		{"WEEKLY", " America/New_York ", true, "SUNDAY,00:00,00:01;SUNDAY,00:01,24:00"},
		{"WEEKLY", "Europe/Lisbon", true, "MONDAY,09:00,17:00;MONDAY,16:59,18:00"},
		{"WEEKLY", "Europe/Lisbon", true, "MONDAY,17:00,09:00"},
		{"WEEKLY", "Europe/Lisbon", true, "MONDAY,20:00,08:00;TUESDAY,07:00,09:00"},
		{"WEEKLY", "Europe/Lisbon", true, "SUNDAY,22:00,02:00;MONDAY,02:00,08:00"},
		{"WEEKLY", "Europe/Lisbon", true, "MONDAY,20:00,00:00;TUESDAY,00:00,08:00"},
		{"WEEKLY", "Europe/Lisbon", true, "MONDAY,24:00,24:00"},
		{"WEEKLY", "Europe/Lisbon", true, "MONDAY,9:00,17:00"},
		{"WEEKLY", "Europe/Lisbon", true, "MONDAY,09:60,17:00"},
		{"WEEKLY", "Europe/Lisbon", true, "MONDAY,09:00,24:01"},
		{"WEEKLY", "Local", true, "MONDAY,09:00,17:00"},
		{"WEEKLY", "Mars/Olympus_Mons", true, "MONDAY,09:00,17:00"},
		{"WEEKLY", "../../etc/passwd", true, "MONDAY,09:00,17:00"},
		{"WEEKLY", "", false, "MONDAY,09:00,17:00"},
		{"WEEKLY", "UTC", true, ""},
		{"WEEKLY", "UTC", true, strings.Repeat("MONDAY,00:00,00:01;", availability.MaxWindows+1)},
		{"MONTHLY", "UTC", true, "MONDAY,09:00,17:00"},
	} {
		f.Add(seed.kind, seed.timeZone, seed.hasZone, seed.windows)
	}
	f.Fuzz(func(t *testing.T, kind, timeZone string, hasZone bool, windows string) {
		var a availability.Input
		if err := a.Kind.UnmarshalGQL(kind); err != nil {
			// Not a kind GraphQL would hand over; normalize still refuses it.
			a.Kind = models.AvailabilityKind(kind)
			var v fault.Validation
			normalizeAvailability(&a, &v, availabilityPath)
			require.NotEmpty(t, v.Problems, "an unknown kind %q was accepted", kind)
			return
		}
		if hasZone {
			a.TimeZone = &timeZone
		}
		if windows != "" {
			for _, w := range strings.Split(windows, ";") {
				parts := strings.SplitN(w, ",", 3)
				for len(parts) < 3 {
					parts = append(parts, "")
				}
				var day models.Weekday
				if day.UnmarshalGQL(parts[0]) != nil {
					return // GraphQL refuses the request before the form sees it
				}
				a.Windows = append(a.Windows, models.AvailabilityWindow{Day: day, Start: parts[1], End: parts[2]})
			}
		}
		valid := scheduleIsValid(a)
		var v fault.Validation
		normalizeAvailability(&a, &v, availabilityPath)
		if len(v.Problems) > 0 {
			for _, p := range v.Problems {
				require.True(t, p.Code.Known(), "problem %+v has a code outside the enum", p)
				require.Regexp(t, problemField, p.Field, "problem %+v names no field of the schedule", p)
				require.NotEmpty(t, p.Message)
			}
			require.False(t, valid, "a valid schedule was refused: %+v", v.Problems)
			return
		}
		require.True(t, valid, "accepted a schedule the rule refuses: %+v", a)
		if a.TimeZone != nil {
			require.Equal(t, strings.TrimSpace(*a.TimeZone), *a.TimeZone, "the zone is stored trimmed")
			require.NotEmpty(t, *a.TimeZone)
		}
		if a.Kind == models.AvailabilityAlways {
			require.Nil(t, a.Windows, "24/7 stores no windows")
		}

		again := viaStorage(t, a)
		var v2 fault.Validation
		normalizeAvailability(&again, &v2, availabilityPath)
		require.Empty(t, v2.Problems, "a stored schedule no longer validates")
		require.Equal(t, a, again, "a stored schedule reads back changed")
	})
}
