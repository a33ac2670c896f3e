package market

import (
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"github.com/gpunex/gpunex/models"
)

// Listing is N free GPUs of one model on one machine, rentable now.
type Listing struct {
	// ID is opaque to clients (see ListingID).
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

// ListingID is the opaque id of the listing of modelKey's GPUs on
// machineID: base64url of "machineID:modelKey".
func ListingID(machineID int64, modelKey string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(machineID, 10) + ":" + modelKey))
}

// parseListingID reads a ListingID; ok is false for anything else.
func parseListingID(id string) (machineID int64, modelKey string, ok bool) {
	b, err := base64.RawURLEncoding.DecodeString(id)
	if err != nil {
		return 0, "", false
	}
	m, k, found := strings.Cut(string(b), ":")
	if !found || k == "" {
		return 0, "", false
	}
	machineID, err = strconv.ParseInt(m, 10, 64)
	return machineID, k, err == nil && machineID > 0
}
