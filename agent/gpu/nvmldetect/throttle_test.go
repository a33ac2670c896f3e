package nvmldetect_test

import (
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/gpu"
)

// TestThrottleBitsAreNVMLs checks the bits package gpu writes out (so that
// it needs no go-nvml) against go-nvml's own constants.
func TestThrottleBitsAreNVMLs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc string
		ours gpu.ThrottleReasons
		nvml uint64
	}{
		{"gpu idle", gpu.ThrottleGPUIdle, nvml.ClocksEventReasonGpuIdle},
		{"applications clocks setting", gpu.ThrottleApplicationsClocksSetting, nvml.ClocksEventReasonApplicationsClocksSetting},
		{"software power cap", gpu.ThrottleSWPowerCap, nvml.ClocksEventReasonSwPowerCap},
		{"hardware slowdown", gpu.ThrottleHWSlowdown, nvml.ClocksThrottleReasonHwSlowdown},
		{"sync boost", gpu.ThrottleSyncBoost, nvml.ClocksEventReasonSyncBoost},
		{"software thermal slowdown", gpu.ThrottleSWThermalSlowdown, nvml.ClocksEventReasonSwThermalSlowdown},
		{"hardware thermal slowdown", gpu.ThrottleHWThermalSlowdown, nvml.ClocksThrottleReasonHwThermalSlowdown},
		{"hardware power brake slowdown", gpu.ThrottleHWPowerBrakeSlowdown, nvml.ClocksThrottleReasonHwPowerBrakeSlowdown},
		{"display clock setting", gpu.ThrottleDisplayClockSetting, nvml.ClocksEventReasonDisplayClockSetting},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.nvml, uint64(tc.ours))
		})
	}
}
