package bench_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/bench"
	"github.com/gpunex/gpunex/agent/gpu"
	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/await"
)

// cudaError is what agent/bench/cuda's errors look like to the suite.
type cudaError string

func (e cudaError) Error() string     { return "cuda: " + string(e) + ": details" }
func (e cudaError) ErrorName() string { return string(e) }

// fakeMeasurer answers each GPU after delay: its error when it has one,
// else one FP32 figure. It counts how many GPUs it measures at once.
type fakeMeasurer struct {
	delay time.Duration
	errs  map[string]error

	mu              sync.Mutex
	measured        []string
	running, maxRun int
	cancelled       atomic.Int32
}

func (f *fakeMeasurer) Measure(ctx context.Context, uuid string, budget time.Duration) ([]protocol.BenchMeasurement, error) {
	f.mu.Lock()
	f.measured = append(f.measured, uuid)
	f.running++
	f.maxRun = max(f.maxRun, f.running)
	f.mu.Unlock()
	defer func() { f.mu.Lock(); f.running--; f.mu.Unlock() }()
	select {
	case <-ctx.Done():
		f.cancelled.Add(1)
		return nil, ctx.Err()
	case <-time.After(f.delay):
	}
	if err := f.errs[uuid]; err != nil {
		return nil, err
	}
	v := 1.0
	return []protocol.BenchMeasurement{{Metric: protocol.MetricFP32, Supported: true, Median: &v, Min: &v, Max: &v, Repetitions: 1}}, nil
}

// suiteBundle is a suite over simulated GPUs.
type suiteBundle struct {
	sim     *gpu.Simulator
	devices []gpu.Device
	uuids   []string
}

func setupGPUs(t *testing.T, spec string) suiteBundle {
	t.Helper()
	s, err := gpu.ParseSimSpec(spec)
	require.NoError(t, err)
	sim := gpu.NewSimulator(s, gpu.WithSeed(t.Name()))
	devices, err := sim.Inventory(context.Background())
	require.NoError(t, err)
	b := suiteBundle{sim: sim, devices: devices}
	for _, d := range devices {
		b.uuids = append(b.uuids, d.UUID)
	}
	return b
}

func byUUID(res protocol.BenchmarkResultInput) map[string]protocol.GpuBenchResult {
	out := map[string]protocol.GpuBenchResult{}
	for _, g := range res.Gpus {
		out[g.UUID] = g
	}
	return out
}

func TestSuiteOneGPUFailingLeavesTheOthersAndBusyGPUsArePostponed(t *testing.T) {
	t.Parallel()
	b := setupGPUs(t, "4xL4")
	m := &fakeMeasurer{delay: 80 * time.Millisecond, errs: map[string]error{b.uuids[1]: cudaError("CUDA_ERROR_LAUNCH_FAILED")}}
	suite := bench.NewSuite(bench.Options{
		MachineID: "m-1", Detector: b.sim, GPU: m, SampleEvery: 10 * time.Millisecond,
		Busy: func(context.Context) (map[string]string, error) { return map[string]string{b.uuids[2]: "job-7"}, nil },
	})

	res := suite.Run(context.Background(), protocol.RunBenchmarkPayload{RunID: "run-1", Reason: protocol.BenchRequested})
	require.Equal(t, "run-1", res.RunID)
	require.Equal(t, "m-1", res.MachineID)
	require.False(t, res.Simulated, "no Simulator was given")
	require.Equal(t, time.UTC, res.StartedAt.Location())
	require.False(t, res.FinishedAt.Before(res.StartedAt))
	require.Nil(t, res.Network)
	require.Nil(t, res.Storage)
	require.Len(t, res.Gpus, 4)
	for i, g := range res.Gpus {
		require.Equal(t, b.uuids[i], g.UUID, "in the machine's order")
		require.NotNil(t, g.Measurements, "measurements is a list, never null")
	}

	got := byUUID(res)
	for _, u := range []string{b.uuids[0], b.uuids[3]} {
		require.Equal(t, protocol.BenchCompleted, got[u].Outcome)
		require.Nil(t, got[u].Error)
		require.Len(t, got[u].Measurements, 1)
		require.NotNil(t, got[u].Evidence)
		require.GreaterOrEqual(t, got[u].Evidence.Samples, 2, "a sample at each end at least")
	}
	failed := got[b.uuids[1]]
	require.Equal(t, protocol.BenchFailed, failed.Outcome)
	require.Equal(t, "CUDA_ERROR_LAUNCH_FAILED", *failed.Error, "the driver's error name")
	busy := got[b.uuids[2]]
	require.Equal(t, protocol.BenchPostponed, busy.Outcome)
	require.Equal(t, "GPU_BUSY: job job-7", *busy.Error)
	require.Nil(t, busy.Evidence)
	require.NotContains(t, m.measured, b.uuids[2], "a customer's GPU is never touched")
	require.Equal(t, 3, m.maxRun, "the GPUs are measured at once")
}

// On an H200 host without Docker the engine's error (the socket path, the
// daemon hint) was 240 characters: prefixed with JOBS_UNKNOWN it was longer
// than the server takes, so the whole result, network and storage included,
// was refused (TOO_LONG) and the GPU stayed PENDING with nothing to show.
func TestSuitePostponesEveryGPUWhenJobsCannotBeListedWithAnErrorTheServerTakes(t *testing.T) {
	t.Parallel()
	b := setupGPUs(t, "2xH200")
	m := &fakeMeasurer{delay: time.Millisecond}
	dockerErr := errors.New("listing jobs: docker: list jobs: failed to connect to the docker API at unix:///var/run/docker.sock; " +
		"check if the path is correct and if the daemon is running: dial unix /var/run/docker.sock: connect: no such file or directory")
	suite := bench.NewSuite(bench.Options{MachineID: "m-1", Detector: b.sim, GPU: m,
		Busy: func(context.Context) (map[string]string, error) { return nil, dockerErr }})

	res := suite.Run(context.Background(), protocol.RunBenchmarkPayload{RunID: "r"})
	require.Len(t, res.Gpus, 2)
	for _, g := range res.Gpus {
		require.Equal(t, protocol.BenchPostponed, g.Outcome, "the suite will not guess that no customer is there")
		require.NotNil(t, g.Error)
		require.True(t, strings.HasPrefix(*g.Error, bench.ErrorJobsUnknown+": listing jobs: docker"), *g.Error)
		require.LessOrEqual(t, utf8.RuneCountInString(*g.Error), protocol.MaxBenchErrorRunes, "the server refuses a longer one")
		require.True(t, strings.HasSuffix(*g.Error, "…"), "cut where it was too long")
	}
	require.Empty(t, m.measured, "no GPU is touched")
}

func TestSuiteMeasuresOnlyTheRequestedGPUs(t *testing.T) {
	t.Parallel()
	b := setupGPUs(t, "3xH100")
	m := &fakeMeasurer{delay: time.Millisecond}
	suite := bench.NewSuite(bench.Options{MachineID: "m-1", Detector: b.sim, GPU: m})

	res := suite.Run(context.Background(), protocol.RunBenchmarkPayload{RunID: "r", GpuUUIDs: []string{b.uuids[2], "GPU-elsewhere"}})
	require.Len(t, res.Gpus, 2)
	require.Equal(t, b.uuids[2], res.Gpus[0].UUID)
	require.Equal(t, protocol.BenchCompleted, res.Gpus[0].Outcome)
	require.Equal(t, "GPU-elsewhere", res.Gpus[1].UUID)
	require.Equal(t, protocol.BenchFailed, res.Gpus[1].Outcome)
	require.Equal(t, "GPU_NOT_FOUND: not on this machine", *res.Gpus[1].Error)
	require.Equal(t, []string{b.uuids[2]}, m.measured)
}

func TestSuitePostponesEveryGPUWhenTheJobsCannotBeListed(t *testing.T) {
	t.Parallel()
	b := setupGPUs(t, "2xL4")
	m := &fakeMeasurer{}
	suite := bench.NewSuite(bench.Options{MachineID: "m-1", Detector: b.sim, GPU: m,
		Busy: func(context.Context) (map[string]string, error) { return nil, errors.New("docker: no answer") }})

	res := suite.Run(context.Background(), protocol.RunBenchmarkPayload{RunID: "r"})
	for _, g := range res.Gpus {
		require.Equal(t, protocol.BenchPostponed, g.Outcome)
		require.Contains(t, *g.Error, "JOBS_UNKNOWN: docker: no answer")
	}
	require.Empty(t, m.measured)
}

func TestSuiteStopsAGPUsMeasurementWhenAJobStartsOnIt(t *testing.T) {
	t.Parallel()
	b := setupGPUs(t, "2xL4")
	m := &fakeMeasurer{delay: time.Hour}
	start := time.Now()
	suite := bench.NewSuite(bench.Options{MachineID: "m-1", Detector: b.sim, GPU: m,
		SampleEvery: 5 * time.Millisecond, BusyEvery: 5 * time.Millisecond,
		Busy: func(context.Context) (map[string]string, error) {
			if time.Since(start) > 50*time.Millisecond {
				return map[string]string{b.uuids[0]: "job-9", b.uuids[1]: "job-9"}, nil
			}
			return nil, nil
		}})

	// Each measurement would take an hour: the run ending at all shows the
	// job starting cut them short.
	ran := make(chan protocol.BenchmarkResultInput, 1)
	go func() { ran <- suite.Run(context.Background(), protocol.RunBenchmarkPayload{RunID: "r"}) }()
	res := await.Receive(t, ran, "the measurements were not cut short when a job started")
	for _, g := range res.Gpus {
		require.Equal(t, protocol.BenchPostponed, g.Outcome)
		require.Equal(t, "GPU_BUSY: job job-9", *g.Error)
	}
	require.Equal(t, int32(2), m.cancelled.Load())
}

func TestSuiteReportsAnErrorWithoutANameAsShortText(t *testing.T) {
	t.Parallel()
	b := setupGPUs(t, "1xL4")
	m := &fakeMeasurer{errs: map[string]error{b.uuids[0]: errors.New("out of host memory")}}
	res := bench.NewSuite(bench.Options{MachineID: "m", Detector: b.sim, GPU: m}).Run(context.Background(), protocol.RunBenchmarkPayload{RunID: "r"})
	require.Equal(t, protocol.BenchFailed, res.Gpus[0].Outcome)
	require.Equal(t, "out of host memory", *res.Gpus[0].Error)

	res = bench.NewSuite(bench.Options{MachineID: "m", Detector: b.sim}).Run(context.Background(), protocol.RunBenchmarkPayload{RunID: "r"})
	require.Equal(t, protocol.BenchFailed, res.Gpus[0].Outcome)
	require.Contains(t, *res.Gpus[0].Error, "CUDA_ERROR_NOT_INITIALIZED")
}

// nonceMeasurer records the nonce each Measure finds in its context.
type nonceMeasurer struct {
	mu     sync.Mutex
	nonces []string
}

func (n *nonceMeasurer) Measure(ctx context.Context, _ string, _ time.Duration) ([]protocol.BenchMeasurement, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.nonces = append(n.nonces, protocol.BenchNonceFrom(ctx))
	return nil, nil
}

// Issue 24, item 3: the RUN_BENCHMARK's nonce reaches every GPU's measurer
// (GPUMeasurer.Measure takes no run: the nonce rides its context).
func TestTheRunsNonceReachesEveryGPUsMeasurer(t *testing.T) {
	t.Parallel()
	b := setupGPUs(t, "2xL4")
	m := &nonceMeasurer{}
	suite := bench.NewSuite(bench.Options{MachineID: "m", Detector: b.sim, GPU: m})
	suite.Run(context.Background(), protocol.RunBenchmarkPayload{RunID: "r", Nonce: "n0nce"})
	require.Equal(t, []string{"n0nce", "n0nce"}, m.nonces)
}

// Each part of a run is told to Progress as it finishes, with its outcome,
// before the run's result is returned: the platform shows the run going.
// A GPU that could not run (busy) is told at once; one that is measured,
// when its measurement ends; the slow GPU last.
func TestSuiteTellsEachPartAsItFinishes(t *testing.T) {
	t.Parallel()
	b := setupGPUs(t, "3xL4")
	m := &slowMeasurer{fakeMeasurer: fakeMeasurer{delay: 20 * time.Millisecond}, slow: b.uuids[0], release: make(chan struct{})}
	type told struct {
		RunID   string
		Part    protocol.BenchPart
		GPU     string
		Outcome protocol.BenchOutcome
	}
	var mu sync.Mutex
	var parts []told
	suite := bench.NewSuite(bench.Options{
		MachineID: "m-1", Detector: b.sim, GPU: m, SampleEvery: 10 * time.Millisecond,
		Busy: func(context.Context) (map[string]string, error) { return map[string]string{b.uuids[2]: "job-7"}, nil },
		Progress: func(_ context.Context, runID string, part protocol.BenchPart, gpuUUID string, outcome protocol.BenchOutcome) {
			mu.Lock()
			defer mu.Unlock()
			parts = append(parts, told{runID, part, gpuUUID, outcome})
			if len(parts) == 2 {
				close(m.release) // the slow GPU ends once the others were told
			}
		},
	})
	res := suite.Run(context.Background(), protocol.RunBenchmarkPayload{RunID: "run-1", Reason: protocol.BenchRequested})
	require.Len(t, res.Gpus, 3)
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []told{
		{"run-1", protocol.BenchPartGPU, b.uuids[2], protocol.BenchPostponed},
		{"run-1", protocol.BenchPartGPU, b.uuids[1], protocol.BenchCompleted},
		{"run-1", protocol.BenchPartGPU, b.uuids[0], protocol.BenchCompleted},
	}, parts)
}

// slowMeasurer measures like fakeMeasurer, but GPU slow only once release
// is closed.
type slowMeasurer struct {
	fakeMeasurer
	slow    string
	release chan struct{}
}

func (s *slowMeasurer) Measure(ctx context.Context, uuid string, budget time.Duration) ([]protocol.BenchMeasurement, error) {
	if uuid == s.slow {
		select {
		case <-s.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return s.fakeMeasurer.Measure(ctx, uuid, budget)
}
