package resolvers

import (
	"github.com/gpunex/gpunex/graph/model"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/pricing"
	"github.com/gpunex/gpunex/internal/validate"
	"github.com/gpunex/gpunex/models"
)

// scheduleInput maps setAvailabilitySchedule's input to the service's; a
// malformed machine id is a validation problem naming its field, like the
// service's own.
func scheduleInput(in model.SetAvailabilityScheduleInput) (pricing.ScheduleInput, error) {
	var out pricing.ScheduleInput
	if in.Availability != nil {
		out.Availability = *in.Availability
	}
	if in.Maintenance == nil {
		return out, nil
	}
	var v fault.Validation
	out.Maintenance = make([]pricing.MaintenanceInput, 0, len(in.Maintenance))
	for i, m := range in.Maintenance {
		if m == nil {
			continue
		}
		mi := pricing.MaintenanceInput{StartsAt: m.StartsAt, EndsAt: m.EndsAt, Note: m.Note}
		if m.MachineID != nil {
			id, err := models.UnmarshalInt64ID(*m.MachineID)
			if err != nil {
				v.Add(validate.At("input.maintenance").Index(i).Field("machineId").String(), fault.InvalidValue, "not a machine id")
				continue
			}
			mi.MachineID = &id
		}
		out.Maintenance = append(out.Maintenance, mi)
	}
	return out, v.Err()
}
