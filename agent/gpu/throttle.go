package gpu

import (
	"fmt"
	"math/bits"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// ThrottleReasons is NVML's bitmask of reasons the GPU clocks are below
// their maximum (nvmlClocksEventReasons, formerly "throttle reasons").
type ThrottleReasons uint64

// throttleNames names each bit, in bit order. The names are stable: the
// server stores them.
var throttleNames = []struct {
	bit  ThrottleReasons
	name string
}{
	{nvml.ClocksEventReasonGpuIdle, "gpu_idle"},
	{nvml.ClocksEventReasonApplicationsClocksSetting, "applications_clocks_setting"},
	{nvml.ClocksEventReasonSwPowerCap, "sw_power_cap"},
	{nvml.ClocksThrottleReasonHwSlowdown, "hw_slowdown"},
	{nvml.ClocksEventReasonSyncBoost, "sync_boost"},
	{nvml.ClocksEventReasonSwThermalSlowdown, "sw_thermal_slowdown"},
	{nvml.ClocksThrottleReasonHwThermalSlowdown, "hw_thermal_slowdown"},
	{nvml.ClocksThrottleReasonHwPowerBrakeSlowdown, "hw_power_brake_slowdown"},
	{nvml.ClocksEventReasonDisplayClockSetting, "display_clock_setting"},
}

// benign are the reasons that do not mean the hardware is held back: an idle
// GPU, clocks the operator chose, and boost synchronised across GPUs.
const benign = ThrottleReasons(nvml.ClocksEventReasonGpuIdle |
	nvml.ClocksEventReasonApplicationsClocksSetting |
	nvml.ClocksEventReasonSyncBoost |
	nvml.ClocksEventReasonDisplayClockSetting)

// Names returns the names of the set bits in bit order; a bit NVML added
// after this list was written is named by its value, e.g. "unknown_0x800".
func (r ThrottleReasons) Names() []string {
	if r == 0 {
		return nil
	}
	names := make([]string, 0, bits.OnesCount64(uint64(r)))
	rest := r
	for _, n := range throttleNames {
		if r&n.bit != 0 {
			names = append(names, n.name)
			rest &^= n.bit
		}
	}
	for rest != 0 {
		bit := rest & -rest
		names = append(names, fmt.Sprintf("unknown_%#x", uint64(bit)))
		rest &^= bit
	}
	return names
}

// Throttling reports whether a reason that costs performance is set: power
// or thermal capping and hardware slowdowns, but not idling or
// operator-chosen clocks. Benchmark consistency uses it.
func (r ThrottleReasons) Throttling() bool { return r&^benign != 0 }
