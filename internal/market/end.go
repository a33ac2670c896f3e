package market

import (
	"strings"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/models"
)

// End is how a rental ended, in words a customer reads (Rental.end): the
// GraphQL enum RentalEnd.
type End string

// The ends of a rental.
const (
	// EndStoppedByYou: the customer stopped it.
	EndStoppedByYou End = "STOPPED_BY_YOU"
	// EndFundsRanOut: the platform stopped it while the customer's
	// balance still paid for the stop.
	EndFundsRanOut End = "FUNDS_RAN_OUT"
	// EndCompleted: the job ran to its end (exit code 0, or its time).
	EndCompleted End = "COMPLETED"
	// EndImageNotPulled: the customer's image could not be pulled.
	EndImageNotPulled End = "IMAGE_NOT_PULLED"
	// EndOutOfMemory: the job ran out of memory and was killed.
	EndOutOfMemory End = "OUT_OF_MEMORY"
	// EndJobFailed: the customer's job failed (see its exit code).
	EndJobFailed End = "JOB_FAILED"
	// EndProviderFailed: the provider's host or hardware failed.
	EndProviderFailed End = "PROVIDER_FAILED"
	// EndMachineOffline: the provider's machine went offline.
	EndMachineOffline End = "MACHINE_OFFLINE"
	// EndPlatformFailed: the platform's own fault.
	EndPlatformFailed End = "PLATFORM_FAILED"
)

// EndOf is how r ended, or "" while it has not. Which side stopped a
// stopped rental and that a machine went offline are the platform's own
// records (a stop for funds is billed a grace past its request; the fleet
// interrupts rentals on an offline machine); within a customer's failure,
// an image that would not pull and memory run out are read from the
// agent's report (its exit code 137, its message), which only words the
// explanation: the bill never depends on it.
func EndOf(r *models.Rental) End {
	switch r.State {
	case models.RentalCompleted:
		return EndCompleted
	case models.RentalStopped:
		if r.StopRequestedAt != nil && r.BillableUntil != nil && r.BillableUntil.After(*r.StopRequestedAt) {
			return EndFundsRanOut
		}
		return EndStoppedByYou
	case models.RentalInterrupted:
		return EndMachineOffline
	case models.RentalFailed:
	default:
		return ""
	}
	msg := ""
	if r.Message != nil {
		msg = strings.ToLower(*r.Message)
	}
	switch {
	case r.Cause != nil && *r.Cause == protocol.CauseProvider:
		if strings.Contains(msg, "offline") {
			return EndMachineOffline
		}
		return EndProviderFailed
	case r.Cause != nil && *r.Cause == protocol.CausePlatform:
		return EndPlatformFailed
	case strings.Contains(msg, "image cannot be pulled"):
		return EndImageNotPulled
	case strings.Contains(msg, "memory") || (r.ExitCode != nil && *r.ExitCode == 137):
		return EndOutOfMemory
	default:
		return EndJobFailed
	}
}
