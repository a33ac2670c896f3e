package gpu_test

import (
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
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
		{"idle only", nvml.ClocksEventReasonGpuIdle, []string{"gpu_idle"}, false},
		{"power cap", nvml.ClocksEventReasonSwPowerCap, []string{"sw_power_cap"}, true},
		{"sync boost is benign", nvml.ClocksEventReasonSyncBoost, []string{"sync_boost"}, false},
		{
			"thermal and power brake, in bit order",
			nvml.ClocksThrottleReasonHwPowerBrakeSlowdown | nvml.ClocksEventReasonSwThermalSlowdown | nvml.ClocksThrottleReasonHwSlowdown,
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
