package nvmldetect_test

import (
	"context"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxa100"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxh100"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxh200"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"
	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/gpu"
	"github.com/gpunex/gpunex/agent/gpu/nvmldetect"
	"github.com/gpunex/gpunex/internal/clock"
)

var testNow = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

// nvmlBundle is a detector over one of go-nvml's mock servers.
type nvmlBundle struct {
	server   *server.Server
	detector *nvmldetect.Detector
	clock    *clock.Manual
}

// setupNVML wraps srv in an NVML detector after giving each mock device the
// live readings the mock server leaves unset (it models identity and MIG,
// not sensors): every board idles at index-dependent values.
func setupNVML(t *testing.T, srv *server.Server) nvmlBundle {
	t.Helper()
	for _, d := range srv.Devices {
		withReadings(d.(*server.Device))
	}
	clk := clock.NewManual(testNow)
	det, err := nvmldetect.New(srv, gpu.WithClock(clk))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, det.Close()) })
	return nvmlBundle{server: srv, detector: det, clock: clk}
}

// device returns mock device i, to override one of its answers.
func (b nvmlBundle) device(i int) *server.Device { return b.server.Devices[i].(*server.Device) }

// withReadings sets the sensor answers of a mock device; board i reads
// i+40 °C, 100·i mW over 60 W, 1000+i MHz, and so on.
func withReadings(d *server.Device) {
	i := uint32(d.Index)
	d.GetPciInfoFunc = func() (nvml.PciInfo, nvml.Return) {
		p := nvml.PciInfo{PciDeviceId: d.Config.PciDeviceId}
		for j, c := range d.PciBusID {
			p.BusId[j] = int8(c)
		}
		return p, nvml.SUCCESS
	}
	d.GetEnforcedPowerLimitFunc = func() (uint32, nvml.Return) { return 700_000, nvml.SUCCESS }
	d.GetPowerManagementLimitFunc = func() (uint32, nvml.Return) { return 650_000, nvml.SUCCESS }
	d.GetUtilizationRatesFunc = func() (nvml.Utilization, nvml.Return) {
		return nvml.Utilization{Gpu: 10 + i, Memory: 5 + i}, nvml.SUCCESS
	}
	d.GetMemoryInfoFunc = func() (nvml.Memory, nvml.Return) {
		used := uint64(1+i)<<30 + uint64(600)<<20 // the older call counts reserved memory as used
		return nvml.Memory{Total: d.MemoryInfo.Total, Used: used, Free: d.MemoryInfo.Total - used}, nvml.SUCCESS
	}
	d.GetMemoryInfo_v2Func = func() (nvml.Memory_v2, nvml.Return) {
		used := uint64(1+i) << 30
		reserved := uint64(600) << 20
		return nvml.Memory_v2{Version: 2, Total: d.MemoryInfo.Total, Reserved: reserved, Used: used,
			Free: d.MemoryInfo.Total - used - reserved}, nvml.SUCCESS
	}
	d.GetTemperatureFunc = func(sensor nvml.TemperatureSensors) (uint32, nvml.Return) {
		if sensor != nvml.TEMPERATURE_GPU {
			return 0, nvml.ERROR_INVALID_ARGUMENT
		}
		return 40 + i, nvml.SUCCESS
	}
	d.GetPowerUsageFunc = func() (uint32, nvml.Return) { return 60_000 + 100*i, nvml.SUCCESS }
	d.GetClockInfoFunc = func(c nvml.ClockType) (uint32, nvml.Return) {
		if c != nvml.CLOCK_SM {
			return 0, nvml.ERROR_INVALID_ARGUMENT
		}
		return 1000 + i, nvml.SUCCESS
	}
	d.GetCurrentClocksEventReasonsFunc = func() (uint64, nvml.Return) {
		return nvml.ClocksEventReasonGpuIdle, nvml.SUCCESS
	}
	d.GetTotalEccErrorsFunc = func(kind nvml.MemoryErrorType, counter nvml.EccCounterType) (uint64, nvml.Return) {
		if counter != nvml.VOLATILE_ECC {
			return 0, nvml.ERROR_INVALID_ARGUMENT
		}
		if kind == nvml.MEMORY_ERROR_TYPE_CORRECTED {
			return 3, nvml.SUCCESS
		}
		return 0, nvml.SUCCESS
	}
}

func TestNVMLInventoryReadsEveryGPUOfAMockDGXH200(t *testing.T) {
	t.Parallel()
	b := setupNVML(t, dgxh200.New())

	devices, err := b.detector.Inventory(context.Background())
	require.NoError(t, err)
	require.Len(t, devices, 8)
	for i, d := range devices {
		mock := b.device(i)
		require.Equal(t, i, d.Index)
		require.Equal(t, mock.UUID, d.UUID)
		require.Equal(t, "NVIDIA H200 141GB HBM3e", d.Name)
		require.Equal(t, "H200_SXM_141GB", d.ModelKey)
		require.Equal(t, uint64(144384)<<20, *d.VRAMBytes)
		require.Equal(t, mock.PciBusID, d.PCIBusID)
		require.Equal(t, "550.54.15", d.DriverVersion)
		require.Equal(t, "12.4", d.CUDADriverVersion)
		require.Equal(t, 700.0, *d.PowerLimitW)
		require.False(t, d.Simulated)
		require.Empty(t, d.Problems)
	}
}

func TestNVMLInventoryMatchesModelsOnEachMockServer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc     string
		server   *server.Server
		name     string
		modelKey string
	}{
		{"DGX H100 boards are H100 SXM", dgxh100.New(), "NVIDIA H100 80GB HBM3", "H100_SXM_80GB"},
		{"DGX H200 boards are H200 SXM", dgxh200.New(), "NVIDIA H200 141GB HBM3e", "H200_SXM_141GB"},
		// go-nvml's A100 mock reports a name no real board has: it must
		// come through as an unsupported ("other") model, not a guess.
		{"an unknown product name has no model key", dgxa100.New(), "Mock NVIDIA A100-SXM4-40GB", ""},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			b := setupNVML(t, tc.server)
			devices, err := b.detector.Inventory(context.Background())
			require.NoError(t, err)
			require.Len(t, devices, 8)
			require.Equal(t, tc.name, devices[0].Name)
			require.Equal(t, tc.modelKey, devices[0].ModelKey)
		})
	}
}

func TestNVMLTelemetryReadsEveryField(t *testing.T) {
	t.Parallel()
	b := setupNVML(t, dgxh200.New())

	samples, err := b.detector.Telemetry(context.Background())
	require.NoError(t, err)
	require.Len(t, samples, 8)
	s := samples[2]
	require.Equal(t, gpu.Sample{
		Index:                2,
		UUID:                 b.device(2).UUID,
		At:                   testNow,
		UtilizationPct:       ptr(12),
		MemoryUtilizationPct: ptr(7),
		MemoryUsedBytes:      ptr(uint64(3) << 30),
		TemperatureC:         ptr(42),
		PowerDrawW:           ptr(60.2),
		SMClockMHz:           ptr(1002),
		Throttle:             ptr(gpu.ThrottleReasons(nvml.ClocksEventReasonGpuIdle)),
		ThrottleReasons:      []string{"gpu_idle"},
		ECCCorrected:         ptr(uint64(3)),
		ECCUncorrected:       ptr(uint64(0)),
	}, s)
}

func TestNVMLMemoryUsedExcludesDriverReservedMemoryLikeNvidiaSmi(t *testing.T) {
	t.Parallel()
	b := setupNVML(t, dgxh200.New())
	// A driver older than R510 lacks the newer call.
	b.device(1).GetMemoryInfo_v2Func = func() (nvml.Memory_v2, nvml.Return) {
		return nvml.Memory_v2{}, nvml.ERROR_FUNCTION_NOT_FOUND
	}

	samples, err := b.detector.Telemetry(context.Background())
	require.NoError(t, err)
	require.Equal(t, uint64(1)<<30, *samples[0].MemoryUsedBytes, "reserved memory is not the job's")
	require.Equal(t, uint64(2)<<30+uint64(600)<<20, *samples[1].MemoryUsedBytes, "old drivers: what they report")
	require.Empty(t, samples[1].Problems)
}

func TestNVMLNotSupportedFieldIsLeftUnsetAndNotFatal(t *testing.T) {
	t.Parallel()
	b := setupNVML(t, dgxh200.New())
	// Board 1 behaves like a GeForce card: no ECC, no power reading, and
	// no power limit of either kind.
	d := b.device(1)
	notSupported := func() (uint32, nvml.Return) { return 0, nvml.ERROR_NOT_SUPPORTED }
	d.GetTotalEccErrorsFunc = func(nvml.MemoryErrorType, nvml.EccCounterType) (uint64, nvml.Return) {
		return 0, nvml.ERROR_NOT_SUPPORTED
	}
	d.GetPowerUsageFunc = notSupported
	d.GetEnforcedPowerLimitFunc = notSupported
	d.GetPowerManagementLimitFunc = notSupported

	samples, err := b.detector.Telemetry(context.Background())
	require.NoError(t, err)
	require.Len(t, samples, 8)
	s := samples[1]
	require.Nil(t, s.ECCCorrected)
	require.Nil(t, s.ECCUncorrected)
	require.Nil(t, s.PowerDrawW)
	require.Empty(t, s.Problems, "not supported is a normal answer, not a problem")
	require.Equal(t, 41, *s.TemperatureC, "the other fields are still read")
	require.Equal(t, 11, *s.UtilizationPct)
	require.NotNil(t, samples[0].ECCCorrected, "the other boards are unaffected")

	devices, err := b.detector.Inventory(context.Background())
	require.NoError(t, err)
	require.Nil(t, devices[1].PowerLimitW)
	require.Empty(t, devices[1].Problems)
	require.Equal(t, "H200_SXM_141GB", devices[1].ModelKey)
}

func TestNVMLPowerLimitFallsBackToManagementLimit(t *testing.T) {
	t.Parallel()
	b := setupNVML(t, dgxh100.New())
	b.device(0).GetEnforcedPowerLimitFunc = func() (uint32, nvml.Return) { return 0, nvml.ERROR_NOT_SUPPORTED }

	devices, err := b.detector.Inventory(context.Background())
	require.NoError(t, err)
	require.Equal(t, 650.0, *devices[0].PowerLimitW)
	require.Equal(t, 700.0, *devices[1].PowerLimitW)
}

func TestNVMLFieldErrorIsRecordedAsProblem(t *testing.T) {
	t.Parallel()
	b := setupNVML(t, dgxh200.New())
	b.device(4).GetTemperatureFunc = func(nvml.TemperatureSensors) (uint32, nvml.Return) {
		return 0, nvml.ERROR_UNKNOWN
	}
	b.device(4).GetPciInfoFunc = func() (nvml.PciInfo, nvml.Return) { return nvml.PciInfo{}, nvml.ERROR_NO_PERMISSION }

	samples, err := b.detector.Telemetry(context.Background())
	require.NoError(t, err)
	require.Nil(t, samples[4].TemperatureC)
	require.Equal(t, []string{"temperature: ERROR_UNKNOWN"}, samples[4].Problems)
	require.Equal(t, 14, *samples[4].UtilizationPct)

	devices, err := b.detector.Inventory(context.Background())
	require.NoError(t, err)
	require.Empty(t, devices[4].PCIBusID)
	require.Equal(t, []string{"pci bus id: ERROR_NO_PERMISSION"}, devices[4].Problems)
}

func TestNVMLLostGPUIsLeftOutAndNamed(t *testing.T) {
	t.Parallel()
	b := setupNVML(t, dgxh200.New())
	b.device(3).GetUUIDFunc = func() (string, nvml.Return) { return "", nvml.ERROR_GPU_IS_LOST }

	devices, err := b.detector.Inventory(context.Background())
	require.ErrorContains(t, err, "gpu 3: uuid: ERROR_GPU_IS_LOST")
	require.ErrorIs(t, err, nvml.ERROR_GPU_IS_LOST)
	require.Len(t, devices, 7, "the other GPUs are still reported")
	require.Equal(t, []int{0, 1, 2, 4, 5, 6, 7}, indexes(devices))

	samples, err := b.detector.Telemetry(context.Background())
	require.ErrorIs(t, err, nvml.ERROR_GPU_IS_LOST)
	require.Len(t, samples, 7)
}

func TestNVMLThrottleReasonsFallBackOnDriversBeforeTheRename(t *testing.T) {
	t.Parallel()
	b := setupNVML(t, dgxh100.New())
	d := b.device(0)
	d.GetCurrentClocksEventReasonsFunc = func() (uint64, nvml.Return) { return 0, nvml.ERROR_FUNCTION_NOT_FOUND }
	d.GetCurrentClocksThrottleReasonsFunc = func() (uint64, nvml.Return) {
		return nvml.ClocksThrottleReasonSwPowerCap | nvml.ClocksThrottleReasonHwThermalSlowdown, nvml.SUCCESS
	}

	samples, err := b.detector.Telemetry(context.Background())
	require.NoError(t, err)
	require.Equal(t, []string{"sw_power_cap", "hw_thermal_slowdown"}, samples[0].ThrottleReasons)
	require.True(t, samples[0].Throttle.Throttling())
}

func TestNVMLWithoutLibraryNamesTheFix(t *testing.T) {
	t.Parallel()
	// The real go-nvml library, pointed at a path with no driver: the same
	// failure as a host without the NVIDIA driver.
	lib := nvml.New(nvml.WithLibraryPath("/nonexistent/libnvidia-ml.so.1"))

	det, err := nvmldetect.New(lib)
	require.Nil(t, det)
	require.ErrorIs(t, err, gpu.ErrNoNVML)
	require.True(t, gpu.IsUnavailable(err))
	for _, want := range []string{"ERROR_LIBRARY_NOT_FOUND", "install the NVIDIA driver", "NVIDIA Container Toolkit", "--gpus all", "--simulate 2xH100,1xL4"} {
		require.ErrorContains(t, err, want)
	}
}

func TestNVMLInitFailuresExplainThemselves(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc string
		ret  nvml.Return
		want string
	}{
		{"driver not loaded", nvml.ERROR_DRIVER_NOT_LOADED, "install the NVIDIA driver"},
		{"no permission", nvml.ERROR_NO_PERMISSION, "/dev/nvidia*"},
		{"driver upgraded without reboot", nvml.ERROR_LIB_RM_VERSION_MISMATCH, "reboot the host"},
		{"anything else", nvml.ERROR_UNKNOWN, "nvidia-smi"},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			srv := dgxh200.New()
			srv.InitFunc = func() nvml.Return { return tc.ret }
			_, err := nvmldetect.New(srv)
			require.ErrorIs(t, err, gpu.ErrNoNVML)
			require.ErrorContains(t, err, tc.ret.Error())
			require.ErrorContains(t, err, tc.want)
			require.ErrorContains(t, err, "--simulate")
		})
	}
}

func TestNVMLCloseShutsTheLibraryDownOnce(t *testing.T) {
	t.Parallel()
	srv := dgxh100.New()
	det, err := nvmldetect.New(srv)
	require.NoError(t, err)
	require.Len(t, srv.InitCalls(), 1)
	require.NoError(t, det.Close())
	require.NoError(t, det.Close())
	require.Len(t, srv.ShutdownCalls(), 1)
}

func TestNVMLTelemetryStopsWhenContextEnds(t *testing.T) {
	t.Parallel()
	b := setupNVML(t, dgxh100.New())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := b.detector.Telemetry(ctx)
	require.ErrorIs(t, err, context.Canceled)
}

func indexes(devices []gpu.Device) []int {
	out := make([]int, len(devices))
	for i, d := range devices {
		out[i] = d.Index
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// The mock server must satisfy the same interface main injects.
var _ nvml.Interface = (*server.Server)(nil)
