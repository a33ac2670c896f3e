package models

import (
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/agent/protocol"
)

// ReliabilityMachine is a machine's reliability accumulators: for each
// component, a decayed numerator and denominator as of its At (see
// internal/reliability), and the machine's current status interval, which
// a read adds up to now.
type ReliabilityMachine struct {
	bun.BaseModel `bun:"table:reliability_machines,alias:rlm"`

	MachineID  int64 `bun:"machine_id,pk"`
	ProviderID int64 `bun:"provider_id,notnull"`
	// Uptime: scheduled seconds online (Num) over scheduled seconds
	// (Den), maintenance left out.
	UpNum float64   `bun:"up_num,notnull"`
	UpDen float64   `bun:"up_den,notnull"`
	UpAt  time.Time `bun:"up_at,notnull"`
	// Jobs: jobs that ran to their end over jobs that ended, provider
	// causes counting against.
	JobNum float64   `bun:"job_num,notnull"`
	JobDen float64   `bun:"job_den,notnull"`
	JobAt  time.Time `bun:"job_at,notnull"`
	// Consistency: benchmark results against the GPU's own baseline.
	ConsNum float64   `bun:"cons_num,notnull"`
	ConsDen float64   `bun:"cons_den,notnull"`
	ConsAt  time.Time `bun:"cons_at,notnull"`
	// Status and Since are the open interval (ONLINE or OFFLINE since).
	Status    protocol.MachineStatus `bun:"status,notnull"`
	Since     time.Time              `bun:"since,notnull"`
	UpdatedAt time.Time              `bun:"updated_at,notnull"`
}

// ReliabilityEventKind is what lowered a component.
type ReliabilityEventKind string

// The events.
const (
	// EventOutage: unplanned time offline inside the schedule.
	EventOutage ReliabilityEventKind = "OUTAGE"
	// EventJobInterrupted: a rental ended by the provider's side.
	EventJobInterrupted ReliabilityEventKind = "JOB_INTERRUPTED"
	// EventBenchmarkDegraded: a GPU measured below its own baseline, or
	// throttling.
	EventBenchmarkDegraded ReliabilityEventKind = "BENCHMARK_DEGRADED"
)

// ReliabilityEvent is one event behind a component. Magnitude is what it
// weighed when it happened (scheduled seconds of an outage, one job, the
// shortfall of a benchmark); Key is Magnitude × e^(At/τ) from a fixed
// epoch, so ordering by Key orders by the weight the event has now,
// whatever now is.
type ReliabilityEvent struct {
	bun.BaseModel `bun:"table:reliability_events,alias:rle"`

	ID         int64                `bun:"id,pk,autoincrement"`
	MachineID  int64                `bun:"machine_id,notnull"`
	ProviderID int64                `bun:"provider_id,notnull"`
	Kind       ReliabilityEventKind `bun:"kind,notnull"`
	At         time.Time            `bun:"at,notnull"`
	EndedAt    *time.Time           `bun:"ended_at"`
	Magnitude  float64              `bun:"magnitude,notnull"`
	Key        float64              `bun:"weight_key,notnull"`
	// Detail is what the SPA shows: the rental's id, the GPU's index, the
	// throttle reason.
	Detail string `bun:"detail,notnull"`
}

// ReliabilitySnapshot is a score at the end of a day (UTC), of a machine
// or (MachineID 0) of its provider: the trend.
type ReliabilitySnapshot struct {
	bun.BaseModel `bun:"table:reliability_snapshots,alias:rls"`

	ProviderID int64     `bun:"provider_id,pk"`
	MachineID  int64     `bun:"machine_id,pk"`
	Day        time.Time `bun:"day,pk"`
	Score      int       `bun:"score,notnull"`
}

// ReliabilityProvider is a provider's current score, kept by the
// reliability job for the marketplace's ranking and filter.
type ReliabilityProvider struct {
	bun.BaseModel `bun:"table:reliability_providers,alias:rlp"`

	ProviderID int64     `bun:"provider_id,pk"`
	Score      int       `bun:"score,notnull"`
	UpdatedAt  time.Time `bun:"updated_at,notnull"`
	// Uptime, Completion and Consistency are the score's parts (0–1),
	// written with it; nil in a row from before they were kept.
	Uptime      *float64 `bun:"uptime"`
	Completion  *float64 `bun:"completion"`
	Consistency *float64 `bun:"consistency"`
}
