package pricing

import (
	"fmt"
	"strings"
	"time"

	"github.com/gpunex/gpunex/internal/availability"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/validate"
	"github.com/gpunex/gpunex/models"
)

// Limits of the schedule form.
const (
	// MaxMaintenance is the most maintenance windows one
	// setAvailabilitySchedule declares.
	MaxMaintenance = 50
	// MaxNoteLength bounds a maintenance window's note.
	MaxNoteLength = 500
)

// PriceInput is setGpuPrice's input.
type PriceInput struct {
	// Model is a catalogue model key (catalog.GpuModel.Key).
	Model string
	// PricePerHour is per GPU per hour.
	PricePerHour models.USDC
}

// ScheduleInput is setAvailabilitySchedule's input.
type ScheduleInput struct {
	// Availability is the weekly schedule, in the application form's
	// shape; unlike the form, a window whose end is before its start runs
	// into the next day.
	Availability availability.Input
	// Maintenance replaces the provider's maintenance windows that have
	// not started; nil leaves them as they are (an empty, non-nil slice
	// removes them).
	Maintenance []MaintenanceInput
}

// MaintenanceInput is one planned maintenance window.
type MaintenanceInput struct {
	// MachineID is a machine of the provider; nil means all of them.
	MachineID *int64
	StartsAt  time.Time
	EndsAt    time.Time
	Note      *string
}

var noteRule = validate.Text{MaxRunes: MaxNoteLength, Chars: validate.MultiLine}

// availabilityOf validates in (naming problems under field) and returns it
// as stored. The rules are the application form's, in one place (package
// availability's Check): a window whose end is before its start crosses
// midnight, one that starts and ends at the same minute is empty, and two
// windows may not share a minute of the week, through a midnight crossing
// included. Only the well-formed windows are kept, and a time zone only
// with weekly windows.
func availabilityOf(v *fault.Validation, field validate.Path, in availability.Input) models.Availability {
	out := models.Availability{Kind: in.Kind, Windows: []*models.AvailabilityWindow{}}
	timeZone := availability.Zone(in.TimeZone)
	for _, i := range availability.Check(v, field, in.Kind, timeZone, in.Windows, availability.MaxWindows) {
		w := in.Windows[i]
		out.Windows = append(out.Windows, &models.AvailabilityWindow{Day: w.Day, Start: w.Start, End: w.End})
	}
	if in.Kind == models.AvailabilityWeekly {
		out.TimeZone = timeZone
	}
	return out
}

// maintenanceOf validates the maintenance windows (naming problems under
// field) against now and the provider's machines (owned), and returns them
// as stored, in UTC.
func maintenanceOf(v *fault.Validation, field validate.Path, in []MaintenanceInput, providerID int64, owned map[int64]bool, now time.Time) []*models.MaintenanceWindow {
	if len(in) > MaxMaintenance {
		v.Add(field.String(), fault.TooMany, fmt.Sprintf("at most %d maintenance windows", MaxMaintenance))
		return nil
	}
	out := make([]*models.MaintenanceWindow, 0, len(in))
	for i, m := range in {
		f := field.Index(i)
		ok := true
		if m.MachineID != nil && !owned[*m.MachineID] {
			v.Add(f.Field("machineId").String(), fault.InvalidValue, "not one of your machines")
			ok = false
		}
		if !m.StartsAt.After(now) {
			v.Add(f.Field("startsAt").String(), fault.OutOfRange, "maintenance is declared ahead: start it in the future")
			ok = false
		}
		if !m.EndsAt.After(m.StartsAt) {
			v.Add(f.Field("endsAt").String(), fault.EmptyWindow, "the maintenance must end after it starts")
			ok = false
		}
		var note *string
		if m.Note != nil {
			if n := strings.TrimSpace(*m.Note); n != "" {
				ok = noteRule.Check(v, f.Field("note"), n) && ok
				note = &n
			}
		}
		if ok {
			out = append(out, &models.MaintenanceWindow{ProviderID: providerID, MachineID: m.MachineID,
				StartsAt: m.StartsAt.UTC(), EndsAt: m.EndsAt.UTC(), Note: note, CreatedAt: now})
		}
	}
	return out
}
