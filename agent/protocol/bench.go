package protocol

import (
	"time"
	"unicode/utf8"
)

// MaxBenchErrorRunes is the most characters (runes) a benchmark part's
// Error may hold: the server refuses a longer one (TOO_LONG) and, with it,
// the whole result. The agent clips its texts with ClipBenchError.
const MaxBenchErrorRunes = 200

// ClipBenchError is s cut to at most MaxBenchErrorRunes runes, ending in
// "…" where it was cut.
func ClipBenchError(s string) string {
	if utf8.RuneCountInString(s) <= MaxBenchErrorRunes {
		return s
	}
	n, i := 0, 0
	for i = range s {
		if n == MaxBenchErrorRunes-1 {
			break
		}
		n++
	}
	return s[:i] + "…"
}

// BenchMetric names one benchmark figure (BenchmarkMetric in the schema).
// Its unit is part of its name.
type BenchMetric string

// The GPU metrics, measured per GPU by the agent's CUDA suite.
const (
	// MetricFP32 is FP32 FMA throughput, TFLOPS (an FMA counts two).
	MetricFP32 BenchMetric = "FP32_TFLOPS"
	// MetricFP16 is FP16 throughput with half2 FMA, TFLOPS.
	MetricFP16 BenchMetric = "FP16_TFLOPS"
	// MetricTensorFP16 is tensor-core throughput (mma.sync), FP16 inputs
	// with FP32 accumulate, TFLOPS.
	MetricTensorFP16 BenchMetric = "TENSOR_FP16_TFLOPS"
	// MetricTensorBF16 is the same with BF16 inputs, TFLOPS.
	MetricTensorBF16 BenchMetric = "TENSOR_BF16_TFLOPS"
	// MetricMemoryRead, MetricMemoryWrite and MetricMemoryCopy are device
	// memory bandwidth over a buffer much larger than L2, GB/s (10^9
	// bytes per second; a copy counts the bytes read plus those written).
	MetricMemoryRead  BenchMetric = "MEMORY_READ_GBS"
	MetricMemoryWrite BenchMetric = "MEMORY_WRITE_GBS"
	MetricMemoryCopy  BenchMetric = "MEMORY_COPY_GBS"
)

// The machine metrics, measured once per machine.
const (
	// MetricNetworkLatency is the median round trip of a small request to
	// the platform, milliseconds.
	MetricNetworkLatency BenchMetric = "NETWORK_LATENCY_MS"
	// MetricNetworkDownload and MetricNetworkUpload are throughput from and
	// to the platform, Mbit/s.
	MetricNetworkDownload BenchMetric = "NETWORK_DOWNLOAD_MBITS"
	MetricNetworkUpload   BenchMetric = "NETWORK_UPLOAD_MBITS"
	// MetricStorageWrite is sequential write with fsync, MetricStorageRead
	// sequential read (direct I/O where the filesystem allows), MB/s (10^6
	// bytes per second).
	MetricStorageWrite BenchMetric = "STORAGE_WRITE_MBS"
	MetricStorageRead  BenchMetric = "STORAGE_READ_MBS"
	// MetricStorageRandomRead is random 4 KiB reads per second.
	MetricStorageRandomRead BenchMetric = "STORAGE_RANDOM_READ_IOPS"
)

// GPUMetrics are the per-GPU metrics in the order the suite runs them.
var GPUMetrics = []BenchMetric{MetricFP32, MetricFP16, MetricTensorFP16, MetricTensorBF16,
	MetricMemoryRead, MetricMemoryWrite, MetricMemoryCopy}

// MinComputeMajor is the compute capability (major) a GPU needs for the
// suite to measure metric: 8 for the tensor metrics (mma.sync m16n8k16
// with FP16 and BF16 inputs needs sm_80), 0 for the others. Below it the
// metric is reported Supported false.
func MinComputeMajor(metric BenchMetric) int {
	if metric == MetricTensorFP16 || metric == MetricTensorBF16 {
		return 8
	}
	return 0
}

// NetworkMetrics and StorageMetrics are the machine's metrics.
var (
	NetworkMetrics = []BenchMetric{MetricNetworkLatency, MetricNetworkDownload, MetricNetworkUpload}
	StorageMetrics = []BenchMetric{MetricStorageWrite, MetricStorageRead, MetricStorageRandomRead}
)

// BenchOutcome is how one part of a run ended (BenchmarkOutcome).
type BenchOutcome string

// The outcomes.
const (
	// BenchCompleted: every metric was measured (or is unsupported).
	BenchCompleted BenchOutcome = "COMPLETED"
	// BenchFailed: the part ended early; Error names why (for a GPU, the
	// driver's error name, e.g. CUDA_ERROR_OUT_OF_MEMORY).
	BenchFailed BenchOutcome = "FAILED"
	// BenchPostponed: the part was not run because it would have disturbed
	// a customer (a GPU running a job); Error says which job.
	BenchPostponed BenchOutcome = "POSTPONED"
)

// BenchReason says why a run was asked for (BenchmarkReason).
type BenchReason string

// The reasons.
const (
	BenchOnRegistration BenchReason = "REGISTRATION"
	BenchScheduled      BenchReason = "SCHEDULED"
	BenchHardwareChange BenchReason = "HARDWARE_CHANGE"
	BenchRequested      BenchReason = "REQUESTED"
	BenchRetry          BenchReason = "RETRY"
)

// RunBenchmarkPayload is RUN_BENCHMARK's payload.
type RunBenchmarkPayload struct {
	// RunID names the run; the agent submits its result under it, and a
	// result for a run id already stored is refused.
	RunID  string      `json:"runId"`
	Reason BenchReason `json:"reason"`
	// Nonce is the server's random value for this run: it fixes the values
	// the kernels start from (BenchSeedsFor), so the checksums the result
	// carries are this run's and no other's.
	Nonce string `json:"nonce,omitempty"`
	// GpuUUIDs limits the GPU part to these GPUs; empty means all.
	GpuUUIDs []string `json:"gpuUuids,omitempty"`
}

// BenchMeasurement is one metric's figure (BenchmarkMeasurementInput):
// the median of the timed repetitions with their spread. An unsupported
// metric (no tensor cores, an architecture the kernel does not cover) has
// Supported false and no figures: it is never reported as zero.
type BenchMeasurement struct {
	Metric    BenchMetric `json:"metric"`
	Supported bool        `json:"supported"`
	Median    *float64    `json:"median,omitempty"`
	Min       *float64    `json:"min,omitempty"`
	Max       *float64    `json:"max,omitempty"`
	// Repetitions is how many timed repetitions the figures come from.
	Repetitions int `json:"repetitions"`
	// Launch and Checksum, for a GPU metric, say how its kernel was
	// launched and what the outputs of its verified launches added up to
	// (see BenchChecksum); the server checks the checksum against the
	// run's nonce.
	Launch   *BenchLaunch `json:"launch,omitempty"`
	Checksum *string      `json:"checksum,omitempty"`
}

// GpuBenchEvidence is what NVML showed while a GPU was measured
// (GpuBenchmarkEvidenceInput): the server draws its guidance from it.
type GpuBenchEvidence struct {
	// Samples is how many NVML samples were taken during the run.
	Samples         int      `json:"samples"`
	MaxTemperatureC *float64 `json:"maxTemperatureC,omitempty"`
	MeanSMClockMHz  *float64 `json:"meanSmClockMHz,omitempty"`
	MaxSMClockMHz   *float64 `json:"maxSmClockMHz,omitempty"`
	MeanPowerDrawW  *float64 `json:"meanPowerDrawW,omitempty"`
	PowerLimitW     *float64 `json:"powerLimitW,omitempty"`
	// ThrottleReasons are the NVML clock event reasons seen in any sample
	// (names as GpuTelemetry's, e.g. hw_thermal_slowdown, sw_power_cap).
	ThrottleReasons []string `json:"throttleReasons,omitempty"`
	// ThrottledShare is the share of samples (0–1) in which a thermal or
	// power reason held the clocks down.
	ThrottledShare float64 `json:"throttledShare"`
	// The PCIe link as it ran and the most it can run at.
	PcieGeneration    *int `json:"pcieGeneration,omitempty"`
	PcieWidth         *int `json:"pcieWidth,omitempty"`
	PcieMaxGeneration *int `json:"pcieMaxGeneration,omitempty"`
	PcieMaxWidth      *int `json:"pcieMaxWidth,omitempty"`
	// ECC errors counted during the run (nil without ECC).
	EccCorrectedDelta   *float64 `json:"eccCorrectedDelta,omitempty"`
	EccUncorrectedDelta *float64 `json:"eccUncorrectedDelta,omitempty"`
}

// GpuBenchResult is one GPU's part of a run (GpuBenchmarkResultInput).
type GpuBenchResult struct {
	UUID    string       `json:"uuid"`
	Outcome BenchOutcome `json:"outcome"`
	// Error is the driver's error name for FAILED (e.g.
	// CUDA_ERROR_LAUNCH_FAILED), or why for POSTPONED.
	Error        *string            `json:"error,omitempty"`
	Measurements []BenchMeasurement `json:"measurements"`
	Evidence     *GpuBenchEvidence  `json:"evidence,omitempty"`
}

// BenchSection is the network or the storage part of a run
// (BenchmarkSectionInput).
type BenchSection struct {
	Outcome      BenchOutcome       `json:"outcome"`
	Error        *string            `json:"error,omitempty"`
	Measurements []BenchMeasurement `json:"measurements"`
}

// BenchmarkResultInput is a whole run's result (BenchmarkResultInput),
// submitted with submitBenchmarkResult.
type BenchmarkResultInput struct {
	RunID      string    `json:"runId"`
	MachineID  string    `json:"machineId"`
	StartedAt  time.Time `json:"startedAt"`
	FinishedAt time.Time `json:"finishedAt"`
	// Simulated is true when the figures were modelled by --simulate.
	Simulated bool             `json:"simulated"`
	Gpus      []GpuBenchResult `json:"gpus"`
	Network   *BenchSection    `json:"network,omitempty"`
	Storage   *BenchSection    `json:"storage,omitempty"`
}

// SubmitBenchmarkResultVariables are SubmitBenchmarkResultMutation's
// variables.
type SubmitBenchmarkResultVariables struct {
	Input BenchmarkResultInput `json:"input"`
}

// SubmitBenchmarkResultAnswer is submitBenchmarkResult's answer as
// SubmitBenchmarkResultMutation selects it.
type SubmitBenchmarkResultAnswer struct {
	Accepted   bool        `json:"accepted"`
	UserErrors []UserError `json:"userErrors"`
}

// The network benchmark's endpoints on the platform. Each takes the agent
// token (Authorization: Bearer) and the machine id (BenchMachineHeader) of
// a machine of the token's provider; each is rate-limited per machine.
const (
	// BenchPingPath answers a small GET at once (latency).
	BenchPingPath = "/agent/bench/ping"
	// BenchDownloadPath streams ?bytes=N bytes (at most
	// BenchMaxTransferBytes) of incompressible data.
	BenchDownloadPath = "/agent/bench/download"
	// BenchUploadPath reads and discards a POST body of at most
	// BenchMaxTransferBytes and answers with the byte count read.
	BenchUploadPath = "/agent/bench/upload"
	// BenchMachineHeader carries the machine id.
	BenchMachineHeader = "X-Gpunex-Machine-Id"
	// BenchMaxTransferBytes caps one download or upload.
	BenchMaxTransferBytes = 64 << 20
)

// BenchPart is one part of a run the agent reports as it finishes
// (BenchmarkPart): the network, the storage or one GPU.
type BenchPart string

// The parts.
const (
	BenchPartNetwork BenchPart = "NETWORK"
	BenchPartStorage BenchPart = "STORAGE"
	BenchPartGPU     BenchPart = "GPU"
)

// BenchmarkProgressInput says one part of a run finished
// (BenchmarkProgressInput): the Benchmarks tab shows the run going part
// by part. It is progress only: the result submitted at the end is what
// the platform checks and scores.
type BenchmarkProgressInput struct {
	RunID     string    `json:"runId"`
	MachineID string    `json:"machineId"`
	Part      BenchPart `json:"part"`
	// GpuUUID names the GPU of a GPU part; empty for the others.
	GpuUUID string       `json:"gpuUuid,omitempty"`
	Outcome BenchOutcome `json:"outcome"`
}

// ReportBenchmarkProgressVariables are ReportBenchmarkProgressMutation's
// variables.
type ReportBenchmarkProgressVariables struct {
	Input BenchmarkProgressInput `json:"input"`
}

// ReportBenchmarkProgressAnswer is reportBenchmarkProgress's answer as
// ReportBenchmarkProgressMutation selects it.
type ReportBenchmarkProgressAnswer struct {
	Accepted   bool        `json:"accepted"`
	UserErrors []UserError `json:"userErrors"`
}
