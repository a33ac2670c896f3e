package cuda_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/bench/cuda"
	"github.com/gpunex/gpunex/agent/protocol"
)

// h200 is a fake sm_90 device: 4 SMs, 1 MiB L2.
var h200 = "device " + testGPU + " 9 0 4 1048576"

// rates are the fake's speeds (work per simulated ms) and the figures they
// must give.
var rates = []struct {
	kernel string
	perMs  float64
	metric protocol.BenchMetric
	figure float64
}{
	{"fma_f32", 2e10, protocol.MetricFP32, 20},
	{"fma_f16x2", 4e10, protocol.MetricFP16, 40},
	{"mma_f16", 1e11, protocol.MetricTensorFP16, 100},
	{"mma_bf16", 9e10, protocol.MetricTensorBF16, 90},
	{"mem_read", 2e9, protocol.MetricMemoryRead, 2000},
	{"mem_write", 1.5e9, protocol.MetricMemoryWrite, 1500},
	{"mem_copy", 1.8e9, protocol.MetricMemoryCopy, 1800},
}

func rateLines() []string {
	var l []string
	for _, r := range rates {
		l = append(l, "rate "+r.kernel+" "+strconvFormat(r.perMs))
	}
	return l
}

// open opens the fake with a small memory buffer.
func open(t *testing.T, f *fake) *cuda.Driver {
	t.Helper()
	d, err := cuda.Open(cuda.Config{Library: f.lib, MemoryBytes: 1 << 20})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, d.Close()) })
	return d
}

// requireCudaError checks that err is a *cuda.Error, named as the
// orchestrator will report it.
func requireCudaError(t *testing.T, err error, name string) {
	t.Helper()
	require.Error(t, err)
	var ce *cuda.Error
	require.ErrorAs(t, err, &ce)
	var named interface{ ErrorName() string }
	require.ErrorAs(t, err, &named)
	require.Equal(t, name, named.ErrorName(), "%v", err)
}

func TestMeasureReportsTheFiguresTheFakesTimesGive(t *testing.T) {
	t.Parallel()
	f := newFake(t, append(rateLines(), h200, "occupancy 2",
		// The warm-up, then five repetitions at 1, 2, 0.5, 1 and 4 times
		// the fake's time.
		"scales fma_f32 1,1,2,0.5,1,4")...)
	d := open(t, f)

	got, err := d.Measure(context.Background(), testGPU, 0)
	require.NoError(t, err)
	require.Len(t, got, len(protocol.GPUMetrics))
	for i, r := range rates {
		m := got[i]
		require.Equal(t, protocol.GPUMetrics[i], m.Metric)
		require.Equal(t, r.metric, m.Metric)
		require.True(t, m.Supported, r.metric)
		require.Equal(t, cuda.DefaultRepetitions, m.Repetitions, r.metric)
		require.InEpsilon(t, r.figure, *m.Median, 1e-5, r.metric)
		if r.kernel == "fma_f32" {
			require.InEpsilon(t, r.figure/4, *m.Min, 1e-5)
			require.InEpsilon(t, r.figure*2, *m.Max, 1e-5)
			continue
		}
		require.InEpsilon(t, r.figure, *m.Min, 1e-5, r.metric)
		require.InEpsilon(t, r.figure, *m.Max, 1e-5, r.metric)
	}
	require.Equal(t, 1, f.count(t, "ctx_create"))
	require.Equal(t, 2, f.count(t, "module_load"), "core.ptx and tensor.ptx")
	f.requireReleased(t)
}

// Issue 24, item 3: the run's nonce seeds every kernel, and each metric
// comes back with its launch and the checksum of the outputs the host
// verified, which is the one the server computes from the nonce and the
// launch (protocol.ExpectedBenchChecksum). Another nonce gives other
// checksums, so an earlier run's result does not pass for this one.
func TestMeasureSealsEachMetricWithTheChecksumOfItsRunsNonce(t *testing.T) {
	t.Parallel()
	f := newFake(t, append(rateLines(), h200, "occupancy 2")...)
	d := open(t, f)
	measure := func(nonce string) []protocol.BenchMeasurement {
		got, err := d.Measure(protocol.WithBenchNonce(context.Background(), nonce), testGPU, 0)
		require.NoError(t, err)
		require.Len(t, got, len(protocol.GPUMetrics))
		return got
	}
	first, second := measure("nonce-one"), measure("nonce-two")
	seeds := protocol.BenchSeedsFor("nonce-one")
	for i, m := range first {
		require.NotNil(t, m.Launch, m.Metric)
		require.NotNil(t, m.Checksum, m.Metric)
		require.Equal(t, 4, m.Launch.SmCount, "the device's SMs")
		require.Equal(t, 8, m.Launch.Grid, "4 SMs × 2 blocks")
		require.Positive(t, m.Launch.Scale)
		if i >= 4 {
			require.Equal(t, float64(1<<20), *m.Launch.BufferBytes, "Config.MemoryBytes")
		} else {
			require.Nil(t, m.Launch.BufferBytes)
		}
		want, err := protocol.ExpectedBenchChecksum(m.Metric, seeds, *m.Launch, m.Repetitions)
		require.NoError(t, err)
		require.Equal(t, want, *m.Checksum, "%s: the checksum the server expects", m.Metric)
		require.Len(t, *m.Checksum, 16)
		require.NotEqual(t, *m.Checksum, *second[i].Checksum, "%s: another nonce, another checksum", m.Metric)
	}
	f.requireReleased(t)
}

func TestMeasureReportsNoFigureWhenAKernelsResultIsWrong(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		desc   string
		kernel string
		metric protocol.BenchMetric
	}{
		{"an FP32 chain ends one off", "fma_f32", protocol.MetricFP32},
		{"a half2 chain ends one off", "fma_f16x2", protocol.MetricFP16},
		{"an FP16 mma accumulator is off", "mma_f16", protocol.MetricTensorFP16},
		{"a BF16 mma accumulator is off", "mma_bf16", protocol.MetricTensorBF16},
		{"a read sum is off", "mem_read", protocol.MetricMemoryRead},
		{"a written word is wrong", "mem_write", protocol.MetricMemoryWrite},
		{"a copied byte is wrong", "mem_copy", protocol.MetricMemoryCopy},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, append(rateLines(), h200, "wrong "+tc.kernel)...)
			d := open(t, f)
			got, err := d.Measure(context.Background(), testGPU, 0)
			requireCudaError(t, err, cuda.NameVerifyFailed)
			var ce *cuda.Error
			require.ErrorAs(t, err, &ce)
			require.Equal(t, tc.metric, ce.Metric)
			require.Contains(t, err.Error(), string(tc.metric))
			require.Contains(t, err.Error(), tc.kernel)
			for _, m := range got {
				require.NotEqual(t, tc.metric, m.Metric, "the failed metric has no figure")
			}
			f.requireReleased(t)
		})
	}
}

func TestMeasureEndsWithTheDriversErrorName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		desc     string
		conf     []string
		name     string
		contains string
	}{
		{"a launch fails", []string{"fail cuLaunchKernel 719 6"}, "CUDA_ERROR_LAUNCH_FAILED", "cuLaunchKernel(fma_f16x2)"},
		{"the first allocation finds no memory", []string{"fail cuMemAlloc_v2 2 0"}, "CUDA_ERROR_OUT_OF_MEMORY", "cuMemAlloc_v2"},
		{"the memory buffers find no memory", []string{"fail cuMemAlloc_v2 2 5"}, "CUDA_ERROR_OUT_OF_MEMORY", "MEMORY_READ_GBS"},
		{"an uncorrectable ECC error", []string{"fail cuEventSynchronize 214 8"}, "CUDA_ERROR_ECC_UNCORRECTABLE", "cuEventSynchronize"},
		{"the JIT refuses the PTX", []string{"fail cuModuleLoadDataEx 218 0", "jitlog ptxas application ptx input, line 42; error: Unknown symbol"},
			"CUDA_ERROR_INVALID_PTX", "line 42; error: Unknown symbol"},
		{"no context", []string{"fail cuCtxCreate_v2 2 0"}, "CUDA_ERROR_OUT_OF_MEMORY", "cuCtxCreate_v2"},
		{"a copy back fails", []string{"fail cuMemcpyDtoH_v2 719 0"}, "CUDA_ERROR_LAUNCH_FAILED", "cuMemcpyDtoH_v2"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, append(append(rateLines(), h200), tc.conf...)...)
			d := open(t, f)
			_, err := d.Measure(context.Background(), testGPU, 0)
			requireCudaError(t, err, tc.name)
			require.Contains(t, err.Error(), tc.contains)
			require.Contains(t, err.Error(), tc.name)
			f.requireReleased(t)
		})
	}
}

func TestMeasureSaysWhenNoGPUHasTheUUID(t *testing.T) {
	t.Parallel()
	f := newFake(t, h200)
	d := open(t, f)
	_, err := d.Measure(context.Background(), "GPU-ffffffff-0000-0000-0000-000000000000", 0)
	requireCudaError(t, err, cuda.NameGPUNotFound)
	require.Contains(t, err.Error(), "GPU-ffffffff-0000-0000-0000-000000000000")
	require.Contains(t, err.Error(), testGPU, "the UUIDs the driver sees, formatted as NVML does")
	require.Zero(t, f.count(t, "ctx_create"))
	f.requireReleased(t)
}

func TestMeasureReportsTensorMetricsUnsupportedBelowSM80(t *testing.T) {
	t.Parallel()
	f := newFake(t, append(rateLines(), "device "+testGPU+" 7 5 4 1048576")...)
	d := open(t, f)
	got, err := d.Measure(context.Background(), testGPU, 0)
	require.NoError(t, err)
	require.Len(t, got, len(protocol.GPUMetrics))
	for _, m := range got {
		if m.Metric == protocol.MetricTensorFP16 || m.Metric == protocol.MetricTensorBF16 {
			require.False(t, m.Supported, m.Metric)
			require.Nil(t, m.Median, m.Metric)
			require.Nil(t, m.Min, m.Metric)
			require.Nil(t, m.Max, m.Metric)
			require.Zero(t, m.Repetitions, m.Metric)
			continue
		}
		require.True(t, m.Supported, m.Metric)
		require.NotNil(t, m.Median, m.Metric)
	}
	require.Equal(t, 1, f.count(t, "module_load"), "the sm_80 module is not loaded")
	f.requireReleased(t)
}

func TestOpenSaysTheNVIDIADriverIsMissing(t *testing.T) {
	t.Parallel()
	_, err := cuda.Open(cuda.Config{Library: "/nonexistent/libcuda.so.1"})
	requireCudaError(t, err, cuda.NameDriverMissing)
	require.Contains(t, err.Error(), "NVIDIA driver is missing")
}

func TestOpenEndsWithCuInitsError(t *testing.T) {
	t.Parallel()
	f := newFake(t, "init 100")
	_, err := cuda.Open(cuda.Config{Library: f.lib})
	requireCudaError(t, err, "CUDA_ERROR_NO_DEVICE")
	require.Contains(t, err.Error(), "cuInit")
}

func TestMeasureFitsATinyBudgetWithFewerRepetitions(t *testing.T) {
	t.Parallel()
	// Every warm-up takes about 67 ms of GPU time (fma_f32: 2048 threads
	// × 32768 flops at 1e6 per ms): longer than a 100 ms budget's share.
	var conf []string
	for _, r := range rates {
		conf = append(conf, "rate "+r.kernel+" 1e6")
	}
	f := newFake(t, append(conf, h200)...)
	d := open(t, f)
	got, err := d.Measure(context.Background(), testGPU, 100*time.Millisecond)
	require.NoError(t, err)
	for _, m := range got {
		require.Equal(t, 1, m.Repetitions, m.Metric)
		require.True(t, m.Supported, m.Metric)
	}
	f.requireReleased(t)
}

func TestMeasureStopsWhenItsContextEnds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		desc    string
		timeout time.Duration
		cause   error
	}{
		{"cancelled before it starts", 0, context.Canceled},
		{"deadline in the middle of the run", 150 * time.Millisecond, context.DeadlineExceeded},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			// Each synchronisation takes 20 ms of real time.
			f := newFake(t, append(rateLines(), h200, "sleep_ms 20")...)
			d := open(t, f)
			ctx, cancel := context.WithCancel(context.Background())
			if tc.timeout > 0 {
				ctx, cancel = context.WithTimeout(context.Background(), tc.timeout)
			} else {
				cancel()
			}
			defer cancel()
			got, err := d.Measure(ctx, testGPU, 0)
			requireCudaError(t, err, cuda.NameCancelled)
			require.ErrorIs(t, err, tc.cause)
			require.Less(t, len(got), len(protocol.GPUMetrics))
			f.requireReleased(t)
		})
	}
}

func TestMeasureRunsGPUsConcurrently(t *testing.T) {
	t.Parallel()
	other := "GPU-89abcdef-0000-1111-2222-333344445555"
	f := newFake(t, append(rateLines(), h200, "device "+other+" 8 6 4 1048576")...)
	d := open(t, f)
	var wg sync.WaitGroup
	results := make([][]protocol.BenchMeasurement, 2)
	errs := make([]error, 2)
	for i, uuid := range []string{testGPU, other} {
		wg.Go(func() {
			results[i], errs[i] = d.Measure(context.Background(), uuid, 0)
		})
	}
	wg.Wait()
	for i := range results {
		require.NoError(t, errs[i])
		require.Len(t, results[i], len(protocol.GPUMetrics))
		require.InEpsilon(t, 20.0, *results[i][0].Median, 1e-5)
	}
	require.Equal(t, 2, f.count(t, "ctx_create"))
	f.requireReleased(t)
}

func TestMeasureAfterCloseFails(t *testing.T) {
	t.Parallel()
	f := newFake(t, h200)
	d, err := cuda.Open(cuda.Config{Library: f.lib})
	require.NoError(t, err)
	require.NoError(t, d.Close())
	require.NoError(t, d.Close(), "Close twice is harmless")
	_, err = d.Measure(context.Background(), testGPU, 0)
	requireCudaError(t, err, cuda.NameClosed)
}
