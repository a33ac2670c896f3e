package bench_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/bench"
	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/await"
)

func median(t *testing.T, ms []protocol.BenchMeasurement, metric protocol.BenchMetric) float64 {
	t.Helper()
	for _, m := range ms {
		if m.Metric == metric {
			require.True(t, m.Supported)
			require.LessOrEqual(t, *m.Min, *m.Median)
			require.LessOrEqual(t, *m.Median, *m.Max)
			return *m.Median
		}
	}
	t.Fatalf("no %s", metric)
	return 0
}

func simulatedSuite(t *testing.T, spec string) (suiteBundle, *bench.Suite) {
	b := setupGPUs(t, spec)
	return b, bench.NewSuite(bench.Options{MachineID: "m-sim", Detector: b.sim, Simulator: b.sim,
		GPU: &bench.SimulatedMeasurer{Sim: b.sim, Duration: 200 * time.Millisecond}, SampleEvery: 20 * time.Millisecond})
}

func TestSimulatedProfilesShowInFiguresAndEvidence(t *testing.T) {
	t.Parallel()
	b := setupGPUs(t, "1xH100,1xH100:throttled,1xH100:failing,1xH100:ecc-errors+pcie-degraded,1xH100:power-capped,1xRTX4090")
	// Each GPU's simulated measurement waits until all six have begun: a
	// suite that measured them one after another would never get past the
	// first (a provider with eight GPUs would wait eight runs).
	gate := &together{inner: &bench.SimulatedMeasurer{Sim: b.sim, Duration: 200 * time.Millisecond}, want: len(b.uuids), all: make(chan struct{})}
	suite := bench.NewSuite(bench.Options{MachineID: "m-sim", Detector: b.sim, Simulator: b.sim, GPU: gate, SampleEvery: 20 * time.Millisecond})
	ran := make(chan protocol.BenchmarkResultInput, 1)
	go func() { ran <- suite.Run(context.Background(), protocol.RunBenchmarkPayload{RunID: "run-sim"}) }()
	res := await.Receive(t, ran, "the simulated GPUs were not measured at once")
	require.True(t, res.Simulated)
	g := byUUID(res)
	healthy, throttled, failing, ecc, capped, geforce := g[b.uuids[0]], g[b.uuids[1]], g[b.uuids[2]], g[b.uuids[3]], g[b.uuids[4]], g[b.uuids[5]]

	require.Equal(t, protocol.BenchCompleted, healthy.Outcome)
	require.Len(t, healthy.Measurements, len(protocol.GPUMetrics))
	// H100 SXM: 67 TFLOPS FP32, 134 FP16, 989.5 tensor, 3,350 GB/s.
	require.InEpsilon(t, 0.95*67, median(t, healthy.Measurements, protocol.MetricFP32), 0.025)
	require.InEpsilon(t, 0.90*134, median(t, healthy.Measurements, protocol.MetricFP16), 0.025)
	require.InEpsilon(t, 0.63*989.5, median(t, healthy.Measurements, protocol.MetricTensorBF16), 0.025)
	require.InEpsilon(t, 0.95*3350, median(t, healthy.Measurements, protocol.MetricMemoryRead), 0.025)
	require.InEpsilon(t, 0.82*3350, median(t, healthy.Measurements, protocol.MetricMemoryCopy), 0.025)
	require.Zero(t, healthy.Evidence.ThrottledShare)
	require.Equal(t, 5, *healthy.Evidence.PcieGeneration)

	require.Equal(t, protocol.BenchCompleted, throttled.Outcome)
	require.InEpsilon(t, 0.55*0.95*67, median(t, throttled.Measurements, protocol.MetricFP32), 0.05)
	require.InEpsilon(t, 0.8*0.95*3350, median(t, throttled.Measurements, protocol.MetricMemoryRead), 0.05)
	require.Greater(t, throttled.Evidence.ThrottledShare, 0.5)
	require.Subset(t, throttled.Evidence.ThrottleReasons, []string{"hw_thermal_slowdown", "sw_thermal_slowdown"})
	require.GreaterOrEqual(t, *throttled.Evidence.MaxTemperatureC, 90.0)
	require.Less(t, *throttled.Evidence.MeanSMClockMHz, 0.6*1980)

	require.Equal(t, protocol.BenchFailed, failing.Outcome)
	require.Equal(t, "CUDA_ERROR_LAUNCH_FAILED", *failing.Error)

	require.Less(t, median(t, ecc.Measurements, protocol.MetricMemoryRead), 0.75*0.95*3350)
	require.Greater(t, *ecc.Evidence.EccUncorrectedDelta, 0.0)
	require.Equal(t, []int{1, 4, 5, 16}, []int{*ecc.Evidence.PcieGeneration, *ecc.Evidence.PcieWidth,
		*ecc.Evidence.PcieMaxGeneration, *ecc.Evidence.PcieMaxWidth})

	require.InEpsilon(t, 0.6*0.95*67, median(t, capped.Measurements, protocol.MetricFP32), 0.05)
	require.Contains(t, capped.Evidence.ThrottleReasons, "sw_power_cap")
	require.InDelta(t, *capped.Evidence.PowerLimitW, *capped.Evidence.MeanPowerDrawW, 0.03**capped.Evidence.PowerLimitW)

	// Ada: non-tensor FP16 runs at the FP32 rate.
	require.InEpsilon(t, median(t, geforce.Measurements, protocol.MetricFP32), median(t, geforce.Measurements, protocol.MetricFP16), 0.06)

	// The jitter is fixed by GPU and run: the same run id gives the same figures.
	again := byUUID(suite.Run(context.Background(), protocol.RunBenchmarkPayload{RunID: "run-sim", GpuUUIDs: []string{b.uuids[0]}}))
	require.Equal(t, healthy.Measurements, again[b.uuids[0]].Measurements)
	other := byUUID(suite.Run(context.Background(), protocol.RunBenchmarkPayload{RunID: "run-other", GpuUUIDs: []string{b.uuids[0]}}))
	require.NotEqual(t, healthy.Measurements, other[b.uuids[0]].Measurements)
}

func TestSimulatedMachineProfilesReplaceNetworkAndStorage(t *testing.T) {
	t.Parallel()
	// Measured for real (the platform answers), reported as the profiles model.
	p := newBenchServer(t)
	b := setupGPUs(t, "1xL4:slow-disk,1xL4:slow-network")
	suite := bench.NewSuite(bench.Options{MachineID: "m", Detector: b.sim, Simulator: b.sim,
		GPU:     &bench.SimulatedMeasurer{Sim: b.sim, Duration: time.Millisecond},
		Network: &bench.Network{Platform: newPlatform(t, p.srv.URL), Bytes: 1 << 20, Pings: 3},
		Storage: &bench.Storage{Dir: t.TempDir(), Bytes: 1 << 20, FreeSpace: plenty, RandomReadFor: 20 * time.Millisecond}})
	res := suite.Run(context.Background(), protocol.RunBenchmarkPayload{RunID: "r"})
	require.Greater(t, p.pings.Load(), int64(0), "the network was measured for real")

	require.Equal(t, protocol.BenchCompleted, res.Network.Outcome)
	require.InEpsilon(t, 180, median(t, res.Network.Measurements, protocol.MetricNetworkLatency), 0.03)
	require.InEpsilon(t, 8, median(t, res.Network.Measurements, protocol.MetricNetworkDownload), 0.03)
	require.InEpsilon(t, 8, median(t, res.Network.Measurements, protocol.MetricNetworkUpload), 0.03)
	require.Equal(t, protocol.BenchCompleted, res.Storage.Outcome)
	require.InEpsilon(t, 40, median(t, res.Storage.Measurements, protocol.MetricStorageWrite), 0.03)
	require.InEpsilon(t, 60, median(t, res.Storage.Measurements, protocol.MetricStorageRead), 0.03)
	require.InEpsilon(t, 150, median(t, res.Storage.Measurements, protocol.MetricStorageRandomRead), 0.03)
	for _, g := range res.Gpus {
		require.Equal(t, protocol.BenchCompleted, g.Outcome, "machine profiles leave the GPUs healthy")
	}
}

func TestSimulatedMachineReportsARealNetworkFailure(t *testing.T) {
	t.Parallel()
	// The platform refuses everything: the failure is reported, not a model.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTooManyRequests) }))
	t.Cleanup(srv.Close)
	b := setupGPUs(t, "1xL4:slow-network")
	suite := bench.NewSuite(bench.Options{MachineID: "m", Detector: b.sim, Simulator: b.sim,
		GPU:     &bench.SimulatedMeasurer{Sim: b.sim, Duration: time.Millisecond},
		Network: &bench.Network{Platform: newPlatform(t, srv.URL)}})
	res := suite.Run(context.Background(), protocol.RunBenchmarkPayload{RunID: "r"})
	require.Equal(t, protocol.BenchFailed, res.Network.Outcome)
	require.Contains(t, *res.Network.Error, "429")
}

// A simulated machine measures its network and storage for real (the
// client and the platform's endpoints run) and reports the modelled
// healthy figures: the host running the simulation is not the machine.
func TestSimulatedHealthyMachineMeasuresNetworkAndStorageForReal(t *testing.T) {
	t.Parallel()
	p := newBenchServer(t)
	b := setupGPUs(t, "1xL4")
	dir := t.TempDir()
	suite := bench.NewSuite(bench.Options{MachineID: "m", Detector: b.sim, Simulator: b.sim,
		GPU:     &bench.SimulatedMeasurer{Sim: b.sim, Duration: time.Millisecond},
		Network: &bench.Network{Platform: newPlatform(t, p.srv.URL), Bytes: 1 << 20, Pings: 3},
		Storage: &bench.Storage{Dir: dir, Bytes: 1 << 20, FreeSpace: plenty, RandomReadFor: 20 * time.Millisecond}})
	res := suite.Run(context.Background(), protocol.RunBenchmarkPayload{RunID: "r"})
	require.Equal(t, protocol.BenchCompleted, res.Network.Outcome, "%v", res.Network.Error)
	require.Equal(t, protocol.BenchCompleted, res.Storage.Outcome, "%v", res.Storage.Error)
	require.Greater(t, p.pings.Load(), int64(0), "the loopback server was asked")
	require.InEpsilon(t, 940, median(t, res.Network.Measurements, protocol.MetricNetworkDownload), 0.03, "a datacenter uplink is modelled")
	require.InEpsilon(t, 1800, median(t, res.Storage.Measurements, protocol.MetricStorageWrite), 0.03, "an NVMe drive is modelled")
}

// Issue 24, item 3: a simulated GPU's result carries, for every metric,
// the launch a real run on its model would have had and the checksum of
// that launch's outputs under the run's nonce, the one the server
// computes; the demo world passes the server's check as a real agent does.
func TestSimulatedMeasurementsCarryTheChecksumOfTheRunsNonce(t *testing.T) {
	t.Parallel()
	b, suite := simulatedSuite(t, "1xH100,1xRTX4090")
	seal := func(nonce string) map[string]protocol.GpuBenchResult {
		return byUUID(suite.Run(context.Background(), protocol.RunBenchmarkPayload{RunID: "run-sealed", Nonce: nonce}))
	}
	results, other := seal("the-nonce"), seal("another-nonce")
	seeds := protocol.BenchSeedsFor("the-nonce")
	for i, want := range []struct{ sms, grid int }{{132, 132 * 8}, {128, 128 * 6}} {
		g := results[b.uuids[i]]
		require.Len(t, g.Measurements, len(protocol.GPUMetrics))
		for j, m := range g.Measurements {
			require.NotNil(t, m.Launch, m.Metric)
			require.Equal(t, want.sms, m.Launch.SmCount, m.Metric)
			require.Equal(t, want.grid, m.Launch.Grid, m.Metric)
			require.Positive(t, m.Launch.Scale, m.Metric)
			sum, err := protocol.ExpectedBenchChecksum(m.Metric, seeds, *m.Launch, m.Repetitions)
			require.NoError(t, err)
			require.Equal(t, sum, *m.Checksum, m.Metric)
			require.NotEqual(t, *m.Checksum, *other[b.uuids[i]].Measurements[j].Checksum, "%s: another nonce, another checksum", m.Metric)
		}
	}
}

// together holds each measurement until want of them have begun, then lets
// the inner measurer run them.
type together struct {
	inner bench.GPUMeasurer
	want  int
	mu    sync.Mutex
	began int
	all   chan struct{}
}

func (g *together) Measure(ctx context.Context, uuid string, budget time.Duration) ([]protocol.BenchMeasurement, error) {
	g.mu.Lock()
	g.began++
	if g.began == g.want {
		close(g.all)
	}
	g.mu.Unlock()
	select {
	case <-g.all:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return g.inner.Measure(ctx, uuid, budget)
}
