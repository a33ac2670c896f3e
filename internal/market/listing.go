package market

import (
	"time"

	"github.com/gpunex/gpunex/models"
)

// Listing is N free GPUs of one model on one machine, rentable now.
type Listing struct {
	// ID is opaque to clients (see listingID).
	ID                string
	MachineID         int64
	ProviderID        int64
	ModelKey          string
	GpuCount          int
	VramGb            *int
	PricePerHour      models.USDC
	PerformanceScore  *int
	ReliabilityScore  *int
	Uptime            *float64
	Tier              models.ProviderTier
	CommitmentMonths  int
	Location          models.Location
	Rank              float64
	NextMaintenanceAt *time.Time
	Simulated         bool
}

// ProviderRental is a rental on a provider's GPUs as the provider sees it.
type ProviderRental struct {
	models.Rental
	Hostname string
	GpuUUIDs []string
}
