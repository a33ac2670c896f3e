package gpu_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/gpu"
)

func TestParseSimSpecReadsProfiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc      string
		in        string
		canonical string
		profiles  [][]gpu.Profile
		machine   []gpu.Profile
	}{
		{"no profile is healthy", "2xH100", "2xH100", [][]gpu.Profile{nil}, nil},
		{"healthy is the default and drops out", "1xH100:healthy", "1xH100", [][]gpu.Profile{nil}, nil},
		{"one per group", "1xH100:throttled,1xL4:slow-disk", "1xH100:throttled,1xL4:slow-disk",
			[][]gpu.Profile{{gpu.ProfileThrottled}, {gpu.ProfileSlowDisk}}, []gpu.Profile{gpu.ProfileSlowDisk}},
		{"several, canonical order, any case", "2xA100: ECC-Errors + Power-Capped", "2xA100:power-capped+ecc-errors",
			[][]gpu.Profile{{gpu.ProfilePowerCapped, gpu.ProfileECCErrors}}, nil},
		{"machine profiles from any group", "1xL4:slow-network,1xH100:slow-disk+failing", "1xL4:slow-network,1xH100:failing+slow-disk",
			[][]gpu.Profile{{gpu.ProfileSlowNetwork}, {gpu.ProfileFailing, gpu.ProfileSlowDisk}},
			[]gpu.Profile{gpu.ProfileSlowDisk, gpu.ProfileSlowNetwork}},
		{"pcie", "1xH100-PCIE:pcie-degraded", "1xH100-PCIE:pcie-degraded", [][]gpu.Profile{{gpu.ProfilePCIeDegraded}}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			spec, err := gpu.ParseSimSpec(tc.in)
			require.NoError(t, err)
			require.Equal(t, tc.canonical, spec.String())
			require.Len(t, spec, len(tc.profiles))
			for i, g := range spec {
				require.Equal(t, tc.profiles[i], g.Profiles)
			}
			require.Equal(t, tc.machine, spec.MachineProfiles())
			again, err := gpu.ParseSimSpec(spec.String())
			require.NoError(t, err, "the canonical form parses")
			require.Equal(t, spec, again)
		})
	}
}

func TestParseSimSpecRejectsBadProfilesNamingTheKnownOnes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc string
		in   string
		want string
	}{
		{"unknown", "1xH100:melting", `group "1xH100:melting": unknown profile "melting"; known: healthy, throttled, power-capped, pcie-degraded, ecc-errors, failing, slow-disk, slow-network`},
		{"empty after colon", "1xH100:", `empty profile; want PROFILE[+PROFILE…], known: healthy`},
		{"empty between plus", "1xH100:throttled++failing", `empty profile`},
		{"twice", "1xH100:throttled+throttled", `profile "throttled" given twice`},
		{"model still checked", "1xH900:throttled", `unknown model "H900"`},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			spec, err := gpu.ParseSimSpec(tc.in)
			require.Nil(t, spec)
			require.ErrorContains(t, err, "--simulate")
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestSimulatorTelemetryShowsEachProfileAtAllTimes(t *testing.T) {
	t.Parallel()
	b := setupSim(t, "1xH100,1xH100:throttled,1xH100:power-capped,1xH100:ecc-errors,1xL4:pcie-degraded", "machine-1")
	healthy, throttled, capped, ecc := b.devices[0], b.devices[1], b.devices[2], b.devices[3]

	// Idle, as heartbeats see the board between benchmarks.
	idle := func(i int) gpu.Sample { return b.sample(t, time.Second, i) }
	require.Less(t, *idle(0).TemperatureC, 50)
	require.NotContains(t, idle(0).ThrottleReasons, "hw_thermal_slowdown")
	s := idle(1)
	require.InDelta(t, 92, *s.TemperatureC, 2)
	require.Subset(t, s.ThrottleReasons, []string{"hw_thermal_slowdown", "sw_thermal_slowdown"})
	s = idle(2)
	require.Contains(t, s.ThrottleReasons, "sw_power_cap")
	require.InDelta(t, *capped.PowerLimitW, *s.PowerDrawW, 0.02**capped.PowerLimitW)
	require.LessOrEqual(t, *s.PowerDrawW, *capped.PowerLimitW)
	require.Less(t, *capped.PowerLimitW, 700.0, "the provider lowered the limit")

	// Under the benchmark's load.
	for _, d := range []gpu.Device{healthy, throttled, capped, ecc} {
		require.NoError(t, b.sim.SetBenchmarking(d.UUID, true))
	}
	first := b.sample(t, time.Minute, 3)
	loaded := func(i int) gpu.Sample { return b.sample(t, time.Second, i) }
	boost := *loaded(0).SMClockMHz
	require.Equal(t, 1980, boost, "a healthy H100 boosts")
	s = loaded(1)
	require.Less(t, *s.SMClockMHz, boost*6/10, "well below boost")
	require.True(t, s.Throttle.Throttling())
	s = loaded(2)
	require.Less(t, *s.SMClockMHz, boost*7/10)
	require.Contains(t, s.ThrottleReasons, "sw_power_cap")
	last := loaded(3)
	require.Greater(t, *last.ECCUncorrected, *first.ECCUncorrected, "the uncorrected counter rises under load")
	require.Equal(t, uint64(0), *b.sample(t, time.Second, 0).ECCUncorrected, "a healthy board counts none")

	require.NoError(t, b.sim.SetBenchmarking(ecc.UUID, false))
	stopped := b.sample(t, time.Second, 3)
	require.Equal(t, *stopped.ECCUncorrected, *b.sample(t, time.Minute, 3).ECCUncorrected, "idle, it stops rising")
	require.Error(t, b.sim.SetBenchmarking("GPU-nope", true))
}

func TestSimulatorReportsPCIeLinksAndProfiles(t *testing.T) {
	t.Parallel()
	b := setupSim(t, "1xH100,1xA100-PCIE:pcie-degraded+slow-disk", "machine-1")
	links, err := b.sim.PCIeLinks(context.Background())
	require.NoError(t, err)
	require.Len(t, links, 2)
	require.Equal(t, []int{5, 16, 5, 16}, []int{*links[0].Generation, *links[0].Width, *links[0].MaxGeneration, *links[0].MaxWidth})
	require.Equal(t, []int{1, 4, 4, 16}, []int{*links[1].Generation, *links[1].Width, *links[1].MaxGeneration, *links[1].MaxWidth})

	g, ok := b.sim.GPU(b.devices[1].UUID)
	require.True(t, ok)
	require.Equal(t, "A100_PCIE_80GB", g.Model.Key)
	require.Equal(t, []gpu.Profile{gpu.ProfilePCIeDegraded, gpu.ProfileSlowDisk}, g.Profiles)
	require.Equal(t, []gpu.Profile{gpu.ProfileSlowDisk}, b.sim.MachineProfiles())
	_, ok = b.sim.GPU("GPU-nope")
	require.False(t, ok)
}
