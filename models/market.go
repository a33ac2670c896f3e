package models

import (
	"io"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/agent/protocol"
)

// RentalState is where a rental is.
type RentalState string

// The rental states.
const (
	RentalStarting    RentalState = "STARTING"
	RentalRunning     RentalState = "RUNNING"
	RentalStopping    RentalState = "STOPPING"
	RentalCompleted   RentalState = "COMPLETED"
	RentalStopped     RentalState = "STOPPED"
	RentalFailed      RentalState = "FAILED"
	RentalInterrupted RentalState = "INTERRUPTED"
)

var rentalStates = []RentalState{RentalStarting, RentalRunning, RentalStopping, RentalCompleted, RentalStopped, RentalFailed, RentalInterrupted}

// UnmarshalGQL reads the enum.
func (s *RentalState) UnmarshalGQL(v any) (err error) {
	*s, err = unmarshalEnum(v, rentalStates, "RentalState")
	return err
}

// MarshalGQL writes the enum.
func (s RentalState) MarshalGQL(w io.Writer) { marshalEnum(w, s) }

// Ended reports whether the rental is over (its GPUs are free again).
func (s RentalState) Ended() bool {
	return s == RentalCompleted || s == RentalStopped || s == RentalFailed || s == RentalInterrupted
}

// JobCause says whose side a failure is on; the protocol defines them.
type JobCause = protocol.JobCause

// Rental is GPUs of one machine running a customer's container. The price,
// the location and the tier are those of when it started.
type Rental struct {
	bun.BaseModel `bun:"table:rentals,alias:r"`

	ID           int64        `bun:"id,pk,autoincrement"`
	JobID        string       `bun:"job_uid,notnull"`
	CustomerID   int64        `bun:"customer_id,notnull"`
	ProviderID   int64        `bun:"provider_id,notnull"`
	MachineID    int64        `bun:"machine_id,notnull"`
	ModelKey     string       `bun:"model_key,notnull"`
	GpuCount     int          `bun:"gpu_count,notnull"`
	PricePerHour USDC         `bun:"price_micros,notnull"`
	Image        string       `bun:"image,notnull"`
	Command      []string     `bun:"command,type:text,notnull"`
	EnvNames     []string     `bun:"env_names,type:text,notnull"`
	Location     Location     `bun:"embed:location_"`
	Tier         ProviderTier `bun:"tier,notnull"`
	State        RentalState  `bun:"state,notnull"`
	Cause        *JobCause    `bun:"cause"`
	Message      *string      `bun:"message"`
	ExitCode     *int         `bun:"exit_code"`
	LogTail      *string      `bun:"log_tail"`
	EndsBy       *time.Time   `bun:"ends_by"`
	CreatedAt    time.Time    `bun:"created_at,notnull"`
	StartedAt    *time.Time   `bun:"started_at"`
	// StopRequestedAt is when the customer asked to stop: a rental
	// STOPPING longer than the market's stop grace ends STOPPED.
	StopRequestedAt *time.Time `bun:"stop_requested_at"`
	EndedAt         *time.Time `bun:"ended_at"`
	UpdatedAt       time.Time  `bun:"updated_at,notnull"`
}

// RentalGpu is one GPU a rental had: kept after the rental ends (the
// history billing and reliability read).
type RentalGpu struct {
	bun.BaseModel `bun:"table:rental_gpus,alias:rg"`

	RentalID int64 `bun:"rental_id,pk"`
	GpuID    int64 `bun:"gpu_id,pk"`
}

// GpuAllocation is a GPU held by a running rental: at most one row per
// GPU (its primary key), so two rentals can never hold the same GPU, on
// either database; the row is removed when the rental ends.
type GpuAllocation struct {
	bun.BaseModel `bun:"table:gpu_allocations,alias:ga"`

	GpuID     int64     `bun:"gpu_id,pk"`
	RentalID  int64     `bun:"rental_id,notnull"`
	MachineID int64     `bun:"machine_id,notnull"`
	CreatedAt time.Time `bun:"created_at,notnull"`
}

// ProviderMarketProfile is what the marketplace shows of a provider that
// its approved application says: the location (the application's first
// GPU entry's) and the commitment. Materialised from the application so a
// marketplace page joins one row per provider.
type ProviderMarketProfile struct {
	bun.BaseModel `bun:"table:provider_market_profiles,alias:pmp"`

	ProviderID       int64     `bun:"provider_id,pk"`
	Location         Location  `bun:"embed:location_"`
	CommitmentMonths int       `bun:"commitment_months,notnull"`
	UpdatedAt        time.Time `bun:"updated_at,notnull"`
}

// MachineMarketStats is what the market's periodic refresh computed of a
// machine: its uptime, the share of the last 30 days (or of its life, if
// shorter) it was online.
type MachineMarketStats struct {
	bun.BaseModel `bun:"table:machine_market_stats,alias:mms"`

	MachineID  int64     `bun:"machine_id,pk"`
	Uptime     float64   `bun:"uptime,notnull"`
	ComputedAt time.Time `bun:"computed_at,notnull"`
}

// ModelMarketPrice is the median rate of a GPU model over every
// provider's price, the reference the ranking compares a price with.
type ModelMarketPrice struct {
	bun.BaseModel `bun:"table:model_market_prices,alias:mmp"`

	ModelKey   string    `bun:"model_key,pk"`
	Median     USDC      `bun:"median_micros,notnull"`
	ComputedAt time.Time `bun:"computed_at,notnull"`
}
