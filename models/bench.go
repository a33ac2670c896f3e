package models

import (
	"io"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/agent/protocol"
)

// BenchmarkRunState is where a run is.
type BenchmarkRunState string

// The run states.
const (
	// BenchmarkRunPending: asked of the agent, no result yet.
	BenchmarkRunPending BenchmarkRunState = "PENDING"
	// BenchmarkRunCompleted: the agent's result is stored.
	BenchmarkRunCompleted BenchmarkRunState = "COMPLETED"
	// BenchmarkRunExpired: no result came within the run timeout.
	BenchmarkRunExpired BenchmarkRunState = "EXPIRED"
)

var benchmarkRunStates = []BenchmarkRunState{BenchmarkRunPending, BenchmarkRunCompleted, BenchmarkRunExpired}

// UnmarshalGQL reads the enum.
func (s *BenchmarkRunState) UnmarshalGQL(v any) (err error) {
	*s, err = unmarshalEnum(v, benchmarkRunStates, "BenchmarkRunState")
	return err
}

// MarshalGQL writes the enum.
func (s BenchmarkRunState) MarshalGQL(w io.Writer) { marshalEnum(w, s) }

// GpuListing is whether customers may rent a GPU as far as its benchmarks
// decide.
type GpuListing string

// The listing states.
const (
	// GpuListingPending: no benchmark has scored the GPU yet.
	GpuListingPending GpuListing = "PENDING"
	// GpuListingListed: its latest scored run passed every threshold.
	GpuListingListed GpuListing = "LISTED"
	// GpuListingDelisted: its latest scored run fell under a threshold;
	// it stays delisted until a run passes.
	GpuListingDelisted GpuListing = "DELISTED"
)

var gpuListings = []GpuListing{GpuListingPending, GpuListingListed, GpuListingDelisted}

// UnmarshalGQL reads the enum.
func (l *GpuListing) UnmarshalGQL(v any) (err error) {
	*l, err = unmarshalEnum(v, gpuListings, "GpuListing")
	return err
}

// MarshalGQL writes the enum.
func (l GpuListing) MarshalGQL(w io.Writer) { marshalEnum(w, l) }

// BenchmarkGuidanceCode is a stable reason a GPU fell short and what to
// check; the SPA translates it with its params.
type BenchmarkGuidanceCode string

// The guidance codes.
const (
	GuidanceThermalThrottling BenchmarkGuidanceCode = "THERMAL_THROTTLING"
	GuidancePowerThrottling   BenchmarkGuidanceCode = "POWER_THROTTLING"
	GuidancePCIeLinkReduced   BenchmarkGuidanceCode = "PCIE_LINK_REDUCED"
	GuidanceMemoryErrors      BenchmarkGuidanceCode = "MEMORY_ERRORS"
	GuidanceSlowDisk          BenchmarkGuidanceCode = "SLOW_DISK"
	GuidanceSlowUplink        BenchmarkGuidanceCode = "SLOW_UPLINK"
	GuidanceDriverError       BenchmarkGuidanceCode = "DRIVER_ERROR"
	GuidanceCheckHardware     BenchmarkGuidanceCode = "CHECK_HARDWARE"
)

var guidanceCodes = []BenchmarkGuidanceCode{GuidanceThermalThrottling, GuidancePowerThrottling, GuidancePCIeLinkReduced,
	GuidanceMemoryErrors, GuidanceSlowDisk, GuidanceSlowUplink, GuidanceDriverError, GuidanceCheckHardware}

// UnmarshalGQL reads the enum.
func (c *BenchmarkGuidanceCode) UnmarshalGQL(v any) (err error) {
	*c, err = unmarshalEnum(v, guidanceCodes, "BenchmarkGuidanceCode")
	return err
}

// MarshalGQL writes the enum.
func (c BenchmarkGuidanceCode) MarshalGQL(w io.Writer) { marshalEnum(w, c) }

// BenchmarkFigure is one metric of one run against what the GPU's model
// (or any machine) should reach.
type BenchmarkFigure struct {
	Metric    protocol.BenchMetric `json:"metric"`
	Supported bool                 `json:"supported"`
	Measured  *float64             `json:"measured,omitempty"`
	Min       *float64             `json:"min,omitempty"`
	Max       *float64             `json:"max,omitempty"`
	// Reference is the datasheet figure, nil where none is known.
	Reference *float64 `json:"reference,omitempty"`
	// Expected is what a healthy GPU of the model measures.
	Expected *float64 `json:"expected,omitempty"`
	// Minimum is the threshold under which the GPU is delisted; nil for a
	// metric that is not a threshold.
	Minimum *float64 `json:"minimum,omitempty"`
	// Ratio is Measured/Expected.
	Ratio *float64 `json:"ratio,omitempty"`
	// Passed is false when Measured is under Minimum (or above it, for a
	// metric where lower is better).
	Passed bool `json:"passed"`
}

// BenchmarkParam is one named value of a guidance text.
type BenchmarkParam struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// BenchmarkGuidance is one thing to check, drawn from a run's evidence.
type BenchmarkGuidance struct {
	Code    BenchmarkGuidanceCode `json:"code"`
	Message string                `json:"message"`
	Params  []BenchmarkParam      `json:"params"`
}

// BenchmarkSection is a run's network or storage part, scored.
type BenchmarkSection struct {
	Outcome protocol.BenchOutcome `json:"outcome"`
	Error   *string               `json:"error,omitempty"`
	Figures []BenchmarkFigure     `json:"figures"`
}

// BenchmarkRun is one benchmark asked of one machine, and, once the agent
// reports, its machine-wide figures.
type BenchmarkRun struct {
	bun.BaseModel `bun:"table:benchmark_runs,alias:br"`

	ID          int64                `bun:"id,pk,autoincrement"`
	RunID       string               `bun:"run_uid,notnull"`
	MachineID   int64                `bun:"machine_id,notnull"`
	ProviderID  int64                `bun:"provider_id,notnull"`
	Reason      protocol.BenchReason `bun:"reason,notnull"`
	State       BenchmarkRunState    `bun:"state,notnull"`
	RequestedAt time.Time            `bun:"requested_at,notnull"`
	StartedAt   *time.Time           `bun:"started_at"`
	FinishedAt  *time.Time           `bun:"finished_at"`
	Simulated   bool                 `bun:"simulated,notnull"`
	Network     *BenchmarkSection    `bun:"network,type:text"`
	Storage     *BenchmarkSection    `bun:"storage,type:text"`
	// Nonce is the random value the run was asked with: it seeds the
	// kernels, so the result's checksums are this run's. Nil for runs
	// asked before nonces (checked without checksums).
	Nonce *string `bun:"nonce"`
	// RefusedAt and Refusal record a result refused as untrustworthy (a
	// checksum that does not match, figures its own evidence contradicts):
	// when, and the problems, for the GPUnex team. The run is then closed
	// (EXPIRED) and the GPUs keep their listing.
	RefusedAt *time.Time         `bun:"refused_at"`
	Refusal   []BenchmarkProblem `bun:"refusal,type:text"`
}

// BenchmarkRunStep is one part of a run as the agent reported it finished
// (progress only: the submitted result is what is checked and stored).
type BenchmarkRunStep struct {
	bun.BaseModel `bun:"table:benchmark_run_steps,alias:brs"`

	ID         int64                 `bun:"id,pk,autoincrement"`
	RunID      int64                 `bun:"run_id,notnull"`
	Part       protocol.BenchPart    `bun:"part,notnull"`
	GpuUUID    string                `bun:"gpu_uuid,notnull"`
	Outcome    protocol.BenchOutcome `bun:"outcome,notnull"`
	ReportedAt time.Time             `bun:"reported_at,notnull"`
}

// BenchmarkProblem is one reason a run's result was refused: the input
// field, the userErrors code and the English message the agent was given.
type BenchmarkProblem struct {
	Field   string `json:"field"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// GpuBenchmark is one GPU's part of one run, scored. Rows are never
// changed: the history and the consistency series are these rows.
type GpuBenchmark struct {
	bun.BaseModel `bun:"table:gpu_benchmarks,alias:gb"`

	ID int64 `bun:"id,pk,autoincrement"`
	// RunRowID is the run's row (BenchmarkRun.ID).
	RunRowID  int64                 `bun:"run_id,notnull"`
	GpuID     int64                 `bun:"gpu_id,notnull"`
	MachineID int64                 `bun:"machine_id,notnull"`
	Reason    protocol.BenchReason  `bun:"reason,notnull"`
	At        time.Time             `bun:"at,notnull"`
	Simulated bool                  `bun:"simulated,notnull"`
	Outcome   protocol.BenchOutcome `bun:"outcome,notnull"`
	Error     *string               `bun:"error"`
	// Score is 0–100 against the model's reference; nil when not scored.
	Score *int `bun:"score"`
	// Passed says whether every threshold held (GPU, network, storage).
	Passed bool `bun:"passed,notnull"`
	// Consistency is Score over the GPU's baseline (the median score of
	// its earlier completed runs); nil for the first.
	Consistency *float64                   `bun:"consistency"`
	Figures     []BenchmarkFigure          `bun:"figures,type:text,notnull"`
	Evidence    *protocol.GpuBenchEvidence `bun:"evidence,type:text"`
	Shortfalls  []BenchmarkFigure          `bun:"shortfalls,type:text,notnull"`
	Guidance    []BenchmarkGuidance        `bun:"guidance,type:text,notnull"`
}

// HeadlineMetrics are the metrics a GPU's headline TFLOPS is read from,
// best first: the tensor figure renters buy GPUs for, else FP32. The
// marketplace shows, compares and sorts listings by it.
var HeadlineMetrics = []protocol.BenchMetric{protocol.MetricTensorBF16, protocol.MetricTensorFP16, protocol.MetricFP32}

// HeadlineFigure is the supported, measured figure in figs of the first of
// HeadlineMetrics the GPU measured, or nil when it measured none.
func HeadlineFigure(figs []BenchmarkFigure) *BenchmarkFigure {
	for _, metric := range HeadlineMetrics {
		for i := range figs {
			if figs[i].Metric == metric && figs[i].Supported && figs[i].Measured != nil {
				return &figs[i]
			}
		}
	}
	return nil
}

// GpuBenchStatus is a GPU's standing: the listing its latest scored run
// decided. One row per GPU, written with each result.
type GpuBenchStatus struct {
	bun.BaseModel `bun:"table:gpu_bench_status,alias:gbs"`

	GpuID      int64      `bun:"gpu_id,pk"`
	MachineID  int64      `bun:"machine_id,notnull"`
	ProviderID int64      `bun:"provider_id,notnull"`
	Listing    GpuListing `bun:"listing,notnull"`
	Score      *int       `bun:"score"`
	// Tflops is the latest scored run's headline figure (HeadlineFigure),
	// what the marketplace's performance-per-USDC sort reads; nil when the
	// run measured none.
	Tflops           *float64            `bun:"tflops"`
	LatestID         *int64              `bun:"latest_id"`
	ListingChangedAt time.Time           `bun:"listing_changed_at,notnull"`
	Shortfalls       []BenchmarkFigure   `bun:"shortfalls,type:text,notnull"`
	Guidance         []BenchmarkGuidance `bun:"guidance,type:text,notnull"`
}

// MachineBenchSchedule is when a machine's next periodic run is due, when
// its provider last asked for one, and the hardware it was last measured
// on (a change asks for a run).
type MachineBenchSchedule struct {
	bun.BaseModel `bun:"table:machine_bench_schedules,alias:mbs"`

	MachineID       int64      `bun:"machine_id,pk"`
	NextRunAt       time.Time  `bun:"next_run_at,notnull"`
	LastRequestedAt *time.Time `bun:"last_requested_at"`
	Hardware        string     `bun:"hardware,notnull"`
	// Retry says the due run asks again for GPUs postponed by a job.
	Retry bool `bun:"retry,notnull"`
	// SurpriseAt is when the machine's unannounced run of the period is
	// due: a random time, drawn anew for each period.
	SurpriseAt *time.Time `bun:"surprise_at"`
}
