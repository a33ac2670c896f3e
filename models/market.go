package models

import (
	"io"
	"math"
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

// Rental is GPUs of one machine running a customer's container. The price,
// the location and the tier are those of when it started.
type Rental struct {
	bun.BaseModel `bun:"table:rentals,alias:r"`

	ID           int64  `bun:"id,pk,autoincrement"`
	JobID        string `bun:"job_uid,notnull"`
	CustomerID   int64  `bun:"customer_id,notnull"`
	ProviderID   int64  `bun:"provider_id,notnull"`
	MachineID    int64  `bun:"machine_id,notnull"`
	ModelKey     string `bun:"model_key,notnull"`
	GpuCount     int    `bun:"gpu_count,notnull"`
	PricePerHour USDC   `bun:"price_micros,notnull"`
	// FeeBps is the platform's fee in force when the rental started, in
	// basis points of what it is charged.
	FeeBps    int                `bun:"fee_bps,notnull"`
	Image     string             `bun:"image,notnull"`
	Command   []string           `bun:"command,type:text,notnull"`
	EnvNames  []string           `bun:"env_names,type:text,notnull"`
	Location  Location           `bun:"embed:location_"`
	Tier      ProviderTier       `bun:"tier,notnull"`
	State     RentalState        `bun:"state,notnull"`
	Cause     *protocol.JobCause `bun:"cause"`
	Message   *string            `bun:"message"`
	ExitCode  *int               `bun:"exit_code"`
	LogTail   *string            `bun:"log_tail"`
	EndsBy    *time.Time         `bun:"ends_by"`
	CreatedAt time.Time          `bun:"created_at,notnull"`
	// StartedAt is when billing starts: the agent's reported start, bound
	// by what the platform observed (no earlier than the heartbeat that
	// delivered the START_JOB, nor than the report's arrival less the
	// market's ReportSkew; no later than the arrival).
	StartedAt *time.Time `bun:"started_at"`
	// StartCommandID is the START_JOB command queued with the rental.
	StartCommandID *int64 `bun:"start_command_id"`
	// AgentStartedAt and AgentEndedAt are the times the agent reported:
	// evidence, never the bill.
	AgentStartedAt *time.Time `bun:"agent_started_at"`
	AgentEndedAt   *time.Time `bun:"agent_ended_at"`
	// StopRequestedAt is when the customer asked to stop: a rental
	// STOPPING longer than the market's stop grace ends STOPPED.
	StopRequestedAt *time.Time `bun:"stop_requested_at"`
	// BillableUntil is the latest a stopping rental is billed to: the
	// customer's request, or the request plus the stop's grace when the
	// platform stopped it for funds (the balance still covers it).
	BillableUntil *time.Time `bun:"billable_until"`
	// EndedAt is when billing ends: no later than the platform received
	// the end, nor than the customer's stop request for a stop.
	EndedAt   *time.Time `bun:"ended_at"`
	UpdatedAt time.Time  `bun:"updated_at,notnull"`
	// Cost is what the rental has cost its customer, from the meter and
	// the ledger (billing's Costs), attached where the rental is loaded
	// for its customer; nil where it was not.
	Cost *RentalCost `bun:"-"`
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

// ModelSupply is one provider's offer of one GPU model now, as the
// market's periodic refresh last saw it: its rate, its GPUs of the model
// that are offered (on an online machine, listed by their benchmarks,
// inside the schedule and outside maintenance, rented or not) and how
// many of those are rented, with the provider's tier and place (city or
// datacenter region lower-cased, ISO country code, continent code; empty
// when unknown). Price recommendations read it instead of every GPU.
type ModelSupply struct {
	bun.BaseModel `bun:"table:model_supply,alias:ms"`

	ProviderID  int64     `bun:"provider_id,pk"`
	ModelKey    string    `bun:"model_key,pk"`
	Price       USDC      `bun:"price_micros,notnull"`
	GPUs        int       `bun:"gpus,notnull"`
	Rented      int       `bun:"rented,notnull"`
	Tier        string    `bun:"tier,notnull"`
	City        string    `bun:"city,notnull"`
	Country     string    `bun:"country,notnull"`
	Continent   string    `bun:"continent,notnull"`
	RefreshedAt time.Time `bun:"refreshed_at,notnull"`
}

// MarketUsage is how many GPU-seconds of one model were offered and rented
// in one week (starting Monday 00:00 UTC), in one place, at rates in one
// price band (see UsageBand). The market's refresh adds to it; price
// recommendations read utilisation from it.
type MarketUsage struct {
	bun.BaseModel `bun:"table:market_usage,alias:mu"`

	ModelKey         string    `bun:"model_key,pk"`
	WeekStart        time.Time `bun:"week_start,pk"`
	Country          string    `bun:"country,pk"`
	City             string    `bun:"city,pk"`
	Continent        string    `bun:"continent,notnull"`
	Band             int       `bun:"band,pk"`
	AvailableSeconds int64     `bun:"available_seconds,notnull"`
	RentedSeconds    int64     `bun:"rented_seconds,notnull"`
}

// ProviderUsage is one provider's share of MarketUsage (by model, week and
// band), so a provider's advice can leave its own GPUs out.
type ProviderUsage struct {
	bun.BaseModel `bun:"table:provider_usage,alias:pu"`

	ProviderID       int64     `bun:"provider_id,pk"`
	ModelKey         string    `bun:"model_key,pk"`
	WeekStart        time.Time `bun:"week_start,pk"`
	Band             int       `bun:"band,pk"`
	AvailableSeconds int64     `bun:"available_seconds,notnull"`
	RentedSeconds    int64     `bun:"rented_seconds,notnull"`
}

// Usage bands: a rate's band is where it sits against the model's median
// rate, in steps of 10 % (band k holds rates from 1.1^(k−½) to 1.1^(k+½)
// times the median), from MinBand (about 0.44× and under) to MaxBand
// (about 2.2× and over). The edges are integer basis points of the
// median, so a band is found without a float touching money.
const (
	MinBand = -8
	MaxBand = 8
)

// bandEdgesBP[i] is the lower edge of band MinBand+i in basis points of
// the median (band MinBand has no lower edge).
var bandEdgesBP = func() []int64 {
	edges := make([]int64, 0, MaxBand-MinBand+1)
	for k := MinBand; k <= MaxBand; k++ {
		edges = append(edges, int64(math.Round(10000*math.Pow(1.1, float64(k)-0.5))))
	}
	return edges
}()

// UsageBand is the band of a rate against a median (0 when the median is
// not positive).
func UsageBand(price, median USDC) int {
	if median <= 0 {
		return 0
	}
	bp := int64(price) * 10000 / int64(median)
	band := MinBand
	for k := MinBand + 1; k <= MaxBand; k++ {
		if bp >= bandEdgesBP[k-MinBand] {
			band = k
		}
	}
	return band
}

// BandBoundsBP returns a band's edges in basis points of the median: lo
// is 0 for MinBand, hi is 0 (no bound) for MaxBand.
func BandBoundsBP(band int) (lo, hi int64) {
	if band > MinBand {
		lo = bandEdgesBP[band-MinBand]
	}
	if band < MaxBand {
		hi = bandEdgesBP[band+1-MinBand]
	}
	return lo, hi
}

// WeekStart is the Monday 00:00 UTC that starts t's week.
func WeekStart(t time.Time) time.Time {
	t = t.UTC()
	d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	return d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
}
