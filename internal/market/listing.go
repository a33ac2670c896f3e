package market

import (
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"github.com/gpunex/gpunex/internal/reliability"
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
	// ProviderName is the provider's display name.
	ProviderName string
	// DriverVersion and CudaVersion are what the machine's agent reports:
	// the provider's claim, shown as such.
	DriverVersion *string
	CudaVersion   *string
	// CPUModel, CPUCores, RAMBytes and DiskBytes are the machine's host as
	// its agent reports it (protocol.HostFacts): the provider's claim, nil
	// where not reported. They come from the page's own statement.
	CPUModel  *string
	CPUCores  *int
	RAMBytes  *float64
	DiskBytes *float64
	// Performance is what the platform's benchmarks measured of the
	// listing's GPUs; nil until they have figures.
	Performance *Performance
	// Measured is the machine's network and storage from its latest
	// benchmark; nil until benchmarked.
	Measured *Measured
	// ScheduleClosesAt is when the provider's schedule closes; nil when it
	// stays open.
	ScheduleClosesAt *time.Time
	// ReliabilityParts are the parts of the provider's score; nil until
	// it has one (or without SetReliability).
	ReliabilityParts *reliability.Components
}

// Performance is a listing's GPUs as the platform measured them against
// the model's datasheet. The benchmark's score caps each ratio at what a
// healthy GPU of the model reaches, so it is 100 on every healthy machine
// of every model; measured TFLOPS tell models and machines apart.
type Performance struct {
	// Metric is the compared metric: the tensor metric the GPUs support
	// (BF16, else FP16), else FP32.
	Metric string
	// MeasuredTflops is the lowest median among the listing's free GPUs.
	MeasuredTflops float64
	// DatasheetTflops is the model's datasheet figure, nil if unknown.
	DatasheetTflops *float64
	// Ratio is MeasuredTflops / DatasheetTflops.
	Ratio *float64
	// TflopsPerDollar is MeasuredTflops of every GPU of the listing per
	// USDC of their hourly price.
	TflopsPerDollar float64
}

// Measured is a machine's network and storage from the platform's latest
// benchmark of it.
type Measured struct {
	At               *time.Time
	NetworkDownMbps  *float64
	NetworkUpMbps    *float64
	StorageReadMBps  *float64
	StorageWriteMBps *float64
}

// ProviderRental is a rental on a provider's GPUs as the provider sees it.
type ProviderRental struct {
	models.Rental
	Hostname string
	GpuUUIDs []string
	// GpuIndexes are the GPUs' indexes on their machine, in GpuUUIDs'
	// order: how a provider names them (GPU 0, GPU 1).
	GpuIndexes []int
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
