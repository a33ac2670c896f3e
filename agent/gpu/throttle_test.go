package gpu_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/gpu"
)

func TestThrottleReasonsDecodeNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc       string
		mask       gpu.ThrottleReasons
		names      []string
		throttling bool
	}{
		{"none", 0, nil, false},
		{"idle only", gpu.ThrottleGPUIdle, []string{"gpu_idle"}, false},
		{"power cap", gpu.ThrottleSWPowerCap, []string{"sw_power_cap"}, true},
		{"sync boost is benign", gpu.ThrottleSyncBoost, []string{"sync_boost"}, false},
		{
			"thermal and power brake, in bit order",
			gpu.ThrottleHWPowerBrakeSlowdown | gpu.ThrottleSWThermalSlowdown | gpu.ThrottleHWSlowdown,
			[]string{"hw_slowdown", "sw_thermal_slowdown", "hw_power_brake_slowdown"},
			true,
		},
		{"a bit added after this list", 1 << 40, []string{"unknown_0x10000000000"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.names, tc.mask.Names())
			require.Equal(t, tc.throttling, tc.mask.Throttling())
		})
	}
}
