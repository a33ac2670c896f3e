package bench

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/gpunex/gpunex/agent/gpu"
	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/catalog"
)

// DefaultSimulatedDuration is how long SimulatedMeasurer keeps a simulated
// GPU loaded: long enough for a few NVML samples, short enough that a demo
// run takes about a second.
const DefaultSimulatedDuration = 600 * time.Millisecond

// simulatedRepetitions is how many timed repetitions modelled figures claim
// to come from.
const simulatedRepetitions = 10

// Achieved shares of the datasheet figures a healthy board reaches with the
// suite's kernels, as measured on a real H200 SXM (scripts/gpu-device-check.sh,
// internal/bench/testdata/h200-real.json): FMA loops reach 95% of peak FP32
// and 90% of FP16 (half2), mma.sync 63% of the dense tensor peak (Hopper's
// full rate needs wgmma, see GPU-REFERENCE.md), and streaming kernels 95%
// (read), 90% (write) and 82% (copy) of the memory bandwidth.
var achieved = map[protocol.BenchMetric]float64{
	protocol.MetricFP32:        0.95,
	protocol.MetricFP16:        0.90,
	protocol.MetricTensorFP16:  0.63,
	protocol.MetricTensorBF16:  0.63,
	protocol.MetricMemoryRead:  0.95,
	protocol.MetricMemoryWrite: 0.90,
	protocol.MetricMemoryCopy:  0.82,
}

// What the GPU profiles cost (see gpu.Profile).
const (
	throttledCompute   = 0.55
	throttledMemory    = 0.80
	powerCappedCompute = 0.60
	eccErrorsMemory    = 0.70
)

// ErrorLaunchFailed is the driver error a failing simulated GPU reports.
const ErrorLaunchFailed = "CUDA_ERROR_LAUNCH_FAILED"

// DriverError is a GPU failure named the way the CUDA driver names it, so
// the suite reports Name as the GPU's Error. The agent uses it for the
// failures it models (a failing simulated GPU) and for a host without
// libcuda.
type DriverError struct {
	// Name is the driver's error name, e.g. CUDA_ERROR_LAUNCH_FAILED.
	Name string
	// Detail says more, for the log.
	Detail string
}

// Error returns the name and the detail.
func (e *DriverError) Error() string {
	if e.Detail == "" {
		return e.Name
	}
	return e.Name + ": " + e.Detail
}

// ErrorName returns Name.
func (e *DriverError) ErrorName() string { return e.Name }

// SimulatedMeasurer is the GPUMeasurer for --simulate: it loads the
// simulated GPU for Duration (so its telemetry moves as under a real run)
// and returns the figures the catalogue's datasheet and the GPU's profiles
// model, with a small jitter fixed by the GPU and the run id, each sealed
// with the checksum of the run's nonce (see seal).
type SimulatedMeasurer struct {
	// Sim holds the simulated GPUs.
	Sim *gpu.Simulator
	// Duration is how long one GPU stays loaded; DefaultSimulatedDuration
	// when zero. The budget bounds it too.
	Duration time.Duration
}

var _ GPUMeasurer = (*SimulatedMeasurer)(nil)

// Measure models uuid's figures.
func (m *SimulatedMeasurer) Measure(ctx context.Context, uuid string, budget time.Duration) ([]protocol.BenchMeasurement, error) {
	g, ok := m.Sim.GPU(uuid)
	if !ok {
		return nil, &DriverError{Name: "CUDA_ERROR_INVALID_DEVICE", Detail: fmt.Sprintf("no simulated GPU %s", uuid)}
	}
	cm := catalog.ByKey(g.Model.Key)
	if cm == nil {
		return nil, &DriverError{Name: "CUDA_ERROR_INVALID_DEVICE", Detail: fmt.Sprintf("model %s is not in the catalogue", g.Model.Key)}
	}
	if err := m.Sim.SetBenchmarking(uuid, true); err != nil {
		return nil, err
	}
	defer func() { _ = m.Sim.SetBenchmarking(uuid, false) }()

	d := m.Duration
	if d <= 0 {
		d = DefaultSimulatedDuration
	}
	d = min(d, budget)
	faults := map[gpu.Profile]bool{}
	for _, p := range g.Profiles {
		faults[p] = true
	}
	if faults[gpu.ProfileFailing] {
		d /= 2 // the launch fails part way through
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	case <-t.C:
	}
	if faults[gpu.ProfileFailing] {
		return nil, &DriverError{Name: ErrorLaunchFailed, Detail: "simulated failing GPU"}
	}

	compute, memory := 1.0, 1.0
	if faults[gpu.ProfileThrottled] {
		compute *= throttledCompute
		memory *= throttledMemory
	}
	if faults[gpu.ProfilePowerCapped] {
		compute *= powerCappedCompute
	}
	if faults[gpu.ProfileECCErrors] {
		memory *= eccErrorsMemory
	}
	fp16 := cm.Fp32Tflops // GeForce/Ada: non-tensor FP16 runs at the FP32 rate
	if cm.Fp16Tflops != nil {
		fp16 = *cm.Fp16Tflops
	}
	peak := map[protocol.BenchMetric]float64{
		protocol.MetricFP32:        cm.Fp32Tflops * compute,
		protocol.MetricFP16:        fp16 * compute,
		protocol.MetricTensorFP16:  cm.Fp16TensorTflops * compute,
		protocol.MetricTensorBF16:  cm.Fp16TensorTflops * compute,
		protocol.MetricMemoryRead:  cm.MemoryBandwidthGBs * memory,
		protocol.MetricMemoryWrite: cm.MemoryBandwidthGBs * memory,
		protocol.MetricMemoryCopy:  cm.MemoryBandwidthGBs * memory,
	}
	seed := uuid + "\x00" + runIDFrom(ctx)
	seeds := protocol.BenchSeedsFor(protocol.BenchNonceFrom(ctx))
	out := make([]protocol.BenchMeasurement, 0, len(protocol.GPUMetrics))
	for _, metric := range protocol.GPUMetrics {
		m := modelled(metric, peak[metric]*achieved[metric], seed, 2)
		if err := seal(&m, cm, seeds); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// The launches a simulated GPU claims, as agent/bench/cuda would size
// them: full waves of 256-thread blocks (8 per SM on compute capability
// 8.0 and 9.0, 6 where an SM holds 1,536 threads), timed launches of about
// 50 ms, memory buffers of 512 MiB.
const (
	simulatedLaunch      = 0.05 // seconds
	simulatedBufferBytes = 512 << 20
)

// simulatedWork is one thread's work per round of each arithmetic kernel
// (flops), as agent/bench/cuda's kernels do it.
var simulatedWork = map[protocol.BenchMetric]float64{
	protocol.MetricFP32:       2 * 8 * 2048,
	protocol.MetricFP16:       4 * 8 * 2048,
	protocol.MetricTensorFP16: 8 * 4 * 64 * 4096 / 32,
	protocol.MetricTensorBF16: 8 * 4 * 64 * 4096 / 32,
}

// seal gives a modelled measurement the launch a real run of it on model
// would have had and the checksum of that launch's outputs under seeds,
// computed on the CPU: the demo world has no GPU, and the server checks
// the checksum as it checks a real agent's.
func seal(m *protocol.BenchMeasurement, model *catalog.GpuModel, seeds protocol.BenchSeeds) error {
	blocks := protocol.BenchMaxBlocksPerSM
	if model.ComputeCapability != "8.0" && model.ComputeCapability != "9.0" {
		blocks = 6
	}
	l := protocol.BenchLaunch{SmCount: model.SmCount, Grid: model.SmCount * blocks}
	figure := *m.Median
	if perThread, ok := simulatedWork[m.Metric]; ok {
		perRound := float64(l.Grid*protocol.BenchBlockSize) * perThread
		l.Scale = int(simulatedLaunch * figure * 1e12 / perRound)
	} else {
		bytes := float64(simulatedBufferBytes)
		l.BufferBytes = &bytes
		moved := bytes
		if m.Metric == protocol.MetricMemoryCopy {
			moved *= 2
		}
		l.Scale = int(simulatedLaunch * figure * 1e9 / moved)
	}
	l.Scale = min(max(l.Scale, 1), protocol.BenchMaxScale)
	sum, err := protocol.ExpectedBenchChecksum(m.Metric, seeds, l, m.Repetitions)
	if err != nil {
		return err
	}
	m.Launch, m.Checksum = &l, &sum
	return nil
}

// modelled is a measurement around figure with a jitter of ±2% fixed by
// seed and the metric; digits is the rounding.
func modelled(metric protocol.BenchMetric, figure float64, seed string, digits int) protocol.BenchMeasurement {
	sum := sha256.Sum256([]byte(seed + "\x00" + string(metric)))
	u := func(i int) float64 { return float64(binary.BigEndian.Uint16(sum[2*i:])) / 65535 } // 0..1
	median := figure * (1 + 0.04*(u(0)-0.5))
	return protocol.BenchMeasurement{
		Metric:      metric,
		Supported:   true,
		Median:      ptr(round(median, digits)),
		Min:         ptr(round(median*(1-0.005-0.015*u(1)), digits)),
		Max:         ptr(round(median*(1+0.003+0.01*u(2)), digits)),
		Repetitions: simulatedRepetitions,
	}
}

// Figures of a simulated machine: a datacenter uplink and an NVMe drive
// when healthy; a consumer line and a failing disk under the profiles.
const (
	healthyNetworkLatencyMS = 24.0
	healthyNetworkMbits     = 940.0
	healthyDiskWriteMBs     = 1800.0
	healthyDiskReadMBs      = 3200.0
	healthyDiskIOPS         = 250000.0
	slowNetworkMbits        = 8.0
	slowNetworkLatencyMS    = 180.0
	slowDiskWriteMBs        = 40.0
	slowDiskReadMBs         = 60.0
	slowDiskIOPS            = 150.0
)

// simulatedNetwork is a simulated machine's network section: a healthy
// datacenter uplink, or the slow-network profile's.
func simulatedNetwork(seed string, slow bool) *protocol.BenchSection {
	latency, mbits := healthyNetworkLatencyMS, healthyNetworkMbits
	if slow {
		latency, mbits = slowNetworkLatencyMS, slowNetworkMbits
	}
	return &protocol.BenchSection{Outcome: protocol.BenchCompleted, Measurements: []protocol.BenchMeasurement{
		modelled(protocol.MetricNetworkLatency, latency, seed, 1),
		modelled(protocol.MetricNetworkDownload, mbits, seed, 2),
		modelled(protocol.MetricNetworkUpload, mbits, seed, 2),
	}}
}

// simulatedStorage is a simulated machine's storage section: an NVMe
// drive, or the slow-disk profile's.
func simulatedStorage(seed string, slow bool) *protocol.BenchSection {
	write, read, iops := healthyDiskWriteMBs, healthyDiskReadMBs, healthyDiskIOPS
	if slow {
		write, read, iops = slowDiskWriteMBs, slowDiskReadMBs, slowDiskIOPS
	}
	return &protocol.BenchSection{Outcome: protocol.BenchCompleted, Measurements: []protocol.BenchMeasurement{
		modelled(protocol.MetricStorageWrite, write, seed, 1),
		modelled(protocol.MetricStorageRead, read, seed, 1),
		modelled(protocol.MetricStorageRandomRead, iops, seed, 0),
	}}
}
