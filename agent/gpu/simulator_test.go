package gpu_test

import (
	"context"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/gpu"
	"github.com/gpunex/gpunex/internal/clock"
)

var testNow = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

// simBundle is a simulator on a manual clock.
type simBundle struct {
	sim     *gpu.Simulator
	clock   *clock.Manual
	devices []gpu.Device
}

func setupSim(t *testing.T, spec, seed string) simBundle {
	t.Helper()
	s, err := gpu.ParseSimSpec(spec)
	require.NoError(t, err)
	clk := clock.NewManual(testNow)
	sim := gpu.NewSimulator(s, gpu.WithSeed(seed), gpu.WithClock(clk))
	devices, err := sim.Inventory(context.Background())
	require.NoError(t, err)
	return simBundle{sim: sim, clock: clk, devices: devices}
}

// sample advances the clock by d and reads GPU i.
func (b simBundle) sample(t *testing.T, d time.Duration, i int) gpu.Sample {
	t.Helper()
	b.clock.Advance(d)
	samples, err := b.sim.Telemetry(context.Background())
	require.NoError(t, err)
	require.Len(t, samples, len(b.devices))
	return samples[i]
}

var nvmlUUID = regexp.MustCompile(`^GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

func TestSimulatorInventoryLooksLikeNVML(t *testing.T) {
	t.Parallel()
	b := setupSim(t, "2xH100,1xL4", "machine-1")

	require.Len(t, b.devices, 3)
	for i, d := range b.devices {
		require.Equal(t, i, d.Index)
		require.Regexp(t, nvmlUUID, d.UUID)
		require.True(t, d.Simulated, "simulated hardware is marked as such")
		require.Equal(t, "550.54.15", d.DriverVersion)
		require.Equal(t, "12.4", d.CUDADriverVersion)
		require.Regexp(t, `^00000000:[0-9A-F]{2}:00\.0$`, d.PCIBusID)
		require.Empty(t, d.Problems)
	}
	require.Equal(t, "NVIDIA H100 80GB HBM3", b.devices[0].Name)
	require.Equal(t, "H100_SXM_80GB", b.devices[0].ModelKey)
	require.Equal(t, uint64(80)<<30, *b.devices[0].VRAMBytes)
	require.Equal(t, 700.0, *b.devices[0].PowerLimitW)
	require.Equal(t, "NVIDIA L4", b.devices[2].Name)
	require.Equal(t, "L4_24GB", b.devices[2].ModelKey)
	require.Equal(t, uint64(24)<<30, *b.devices[2].VRAMBytes)
	require.Equal(t, 72.0, *b.devices[2].PowerLimitW)
	require.NotEqual(t, b.devices[0].UUID, b.devices[1].UUID)
	require.NotEqual(t, b.devices[0].PCIBusID, b.devices[1].PCIBusID)
}

func TestSimulatorUUIDsAreStablePerSeed(t *testing.T) {
	t.Parallel()
	first := setupSim(t, "2xH100,1xL4", "machine-1")
	again := setupSim(t, "2xH100,1xL4", "machine-1")
	other := setupSim(t, "2xH100,1xL4", "machine-2")

	for i := range first.devices {
		require.Equal(t, first.devices[i].UUID, again.devices[i].UUID, "same machine, same GPUs after a restart")
		require.NotEqual(t, first.devices[i].UUID, other.devices[i].UUID, "two machines never share a GPU")
	}
}

func TestSimulatorIdlesAtZeroToFivePercent(t *testing.T) {
	t.Parallel()
	b := setupSim(t, "2xH100,1xL4", "machine-1")

	for step := range 120 {
		for i := range b.devices {
			s := b.sample(t, 0, i)
			require.GreaterOrEqual(t, *s.UtilizationPct, 0)
			require.LessOrEqual(t, *s.UtilizationPct, 5, "step %d gpu %d", step, i)
			require.Equal(t, []string{"gpu_idle"}, s.ThrottleReasons)
			require.False(t, s.Throttle.Throttling())
			require.Less(t, *s.TemperatureC, 40)
			require.Less(t, *s.PowerDrawW, 0.3**b.devices[i].PowerLimitW)
			require.Less(t, *s.MemoryUsedBytes, *b.devices[i].VRAMBytes/50)
		}
		b.clock.Advance(time.Second)
	}
}

func TestSimulatorLoadFollowsJobsWithSmoothing(t *testing.T) {
	t.Parallel()
	b := setupSim(t, "2xH100,1xL4", "machine-1")
	busy := b.devices[1].UUID
	idle := b.sample(t, 0, 1)

	require.NoError(t, b.sim.SetBusy(busy, true))
	require.True(t, b.sim.Busy(busy))
	soon := b.sample(t, 2*time.Second, 1)
	later := b.sample(t, 28*time.Second, 1)
	hot := b.sample(t, 5*time.Minute, 1)

	// Utilisation and power jump within seconds, temperature climbs slowly.
	require.Greater(t, *soon.UtilizationPct, *idle.UtilizationPct)
	require.Less(t, *soon.UtilizationPct, 90, "a board does not reach full load instantly")
	require.GreaterOrEqual(t, *later.UtilizationPct, 88)
	require.GreaterOrEqual(t, *hot.UtilizationPct, 90)
	require.LessOrEqual(t, *hot.UtilizationPct, 98)
	require.Greater(t, *later.PowerDrawW, 0.8*700)
	require.LessOrEqual(t, *hot.PowerDrawW, 700.0)
	require.Greater(t, *soon.TemperatureC, *idle.TemperatureC-1)
	require.Less(t, *later.TemperatureC, *hot.TemperatureC, "temperature is still rising after 30 s")
	require.GreaterOrEqual(t, *hot.TemperatureC, 70)
	require.Greater(t, *hot.MemoryUsedBytes, uint64(50)<<30)
	require.NotContains(t, hot.ThrottleReasons, "gpu_idle")
	require.Equal(t, 345, *idle.SMClockMHz, "idle boards drop their clocks")
	if slices.Contains(hot.ThrottleReasons, "sw_power_cap") {
		require.Less(t, *hot.SMClockMHz, 1980, "a power-capped board runs below boost")
	} else {
		require.Equal(t, 1980, *hot.SMClockMHz, "a busy board runs at boost")
	}

	// The other GPUs stay idle.
	other := b.sample(t, 0, 0)
	require.LessOrEqual(t, *other.UtilizationPct, 5)

	// When the job ends the board cools down again.
	require.NoError(t, b.sim.SetBusy(busy, false))
	require.False(t, b.sim.Busy(busy))
	after := b.sample(t, 30*time.Second, 1)
	cold := b.sample(t, 10*time.Minute, 1)
	require.LessOrEqual(t, *after.UtilizationPct, 5)
	require.Greater(t, *after.TemperatureC, *cold.TemperatureC, "the heatsink takes time to cool")
	require.Less(t, *cold.TemperatureC, 40)
	require.Equal(t, []string{"gpu_idle"}, cold.ThrottleReasons)
}

func TestSimulatorReadingsAreDeterministic(t *testing.T) {
	t.Parallel()
	a := setupSim(t, "1xH200,1xA100", "machine-1")
	b := setupSim(t, "1xH200,1xA100", "machine-1")
	require.NoError(t, a.sim.SetBusy(a.devices[0].UUID, true))
	require.NoError(t, b.sim.SetBusy(b.devices[0].UUID, true))
	for range 10 {
		require.Equal(t, a.sample(t, 7*time.Second, 0), b.sample(t, 7*time.Second, 0))
		require.Equal(t, a.sample(t, 0, 1), b.sample(t, 0, 1))
	}
}

func TestSimulatorReportsECCOnlyForBoardsThatHaveIt(t *testing.T) {
	t.Parallel()
	b := setupSim(t, "1xRTX4090,1xA6000", "machine-1")
	geforce := b.sample(t, 0, 0)
	require.Nil(t, geforce.ECCCorrected)
	require.Nil(t, geforce.ECCUncorrected)
	workstation := b.sample(t, 0, 1)
	require.Equal(t, uint64(0), *workstation.ECCCorrected)
	require.Equal(t, uint64(0), *workstation.ECCUncorrected)
}

func TestSimulatorSetBusyRejectsUnknownGPU(t *testing.T) {
	t.Parallel()
	b := setupSim(t, "1xL4", "machine-1")
	require.ErrorContains(t, b.sim.SetBusy("GPU-nope", true), `no simulated GPU "GPU-nope"`)
	require.False(t, b.sim.Busy("GPU-nope"))
}
