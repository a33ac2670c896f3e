package market

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/models"
)

// Issue 26: a rental's end in words: who stopped it from the platform's
// own records, a machine offline, and a customer's failure by its report.
func TestEndOfARentalInWords(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	later := at.Add(2 * time.Minute)
	customer, provider, platform := protocol.CauseCustomer, protocol.CauseProvider, protocol.CausePlatform
	code := func(n int) *int { return &n }
	msg := func(s string) *string { return &s }
	for _, tc := range []struct {
		desc   string
		rental models.Rental
		want   End
	}{
		{"running has no end", models.Rental{State: models.RentalRunning}, ""},
		{"stopping has no end yet", models.Rental{State: models.RentalStopping, StopRequestedAt: &at, BillableUntil: &at}, ""},
		{"completed", models.Rental{State: models.RentalCompleted, ExitCode: code(0)}, EndCompleted},
		{"stopped by the customer: billed to the request", models.Rental{State: models.RentalStopped, StopRequestedAt: &at, BillableUntil: &at}, EndStoppedByYou},
		{"stopped for funds: billed a grace past the request", models.Rental{State: models.RentalStopped, StopRequestedAt: &at, BillableUntil: &later}, EndFundsRanOut},
		{"interrupted: the machine went offline", models.Rental{State: models.RentalInterrupted, Cause: &provider}, EndMachineOffline},
		{"an image that would not pull", models.Rental{State: models.RentalFailed, Cause: &customer, Message: msg("the job's image cannot be pulled: not found")}, EndImageNotPulled},
		{"out of memory, said", models.Rental{State: models.RentalFailed, Cause: &customer, ExitCode: code(137), Message: msg("the job ran out of its memory limit and was killed (exit code 137)")}, EndOutOfMemory},
		{"killed with 137 and no word", models.Rental{State: models.RentalFailed, Cause: &customer, ExitCode: code(137)}, EndOutOfMemory},
		{"the job's own error", models.Rental{State: models.RentalFailed, Cause: &customer, ExitCode: code(1)}, EndJobFailed},
		{"the provider's host", models.Rental{State: models.RentalFailed, Cause: &provider, Message: msg("a GPU of the job is busy")}, EndProviderFailed},
		{"the platform's fault", models.Rental{State: models.RentalFailed, Cause: &platform}, EndPlatformFailed},
	} {
		require.Equal(t, tc.want, EndOf(&tc.rental), tc.desc)
	}
}
