package gpu

import (
	"fmt"
	"math/bits"
)

// ThrottleReasons is NVML's bitmask of reasons the GPU clocks are below
// their maximum (nvmlClocksEventReasons, formerly "throttle reasons").
type ThrottleReasons uint64

// The bits of ThrottleReasons, with the values of nvml.h's
// nvmlClocksEventReason* constants. They are written out here so that the
// simulator and the server-facing types need no go-nvml (and no cgo);
// nvmldetect's tests check them against go-nvml's constants.
const (
	ThrottleGPUIdle                   ThrottleReasons = 0x1
	ThrottleApplicationsClocksSetting ThrottleReasons = 0x2
	ThrottleSWPowerCap                ThrottleReasons = 0x4
	ThrottleHWSlowdown                ThrottleReasons = 0x8
	ThrottleSyncBoost                 ThrottleReasons = 0x10
	ThrottleSWThermalSlowdown         ThrottleReasons = 0x20
	ThrottleHWThermalSlowdown         ThrottleReasons = 0x40
	ThrottleHWPowerBrakeSlowdown      ThrottleReasons = 0x80
	ThrottleDisplayClockSetting       ThrottleReasons = 0x100
)

// throttleNames names each bit, in bit order. The names are stable: the
// server stores them.
var throttleNames = []struct {
	bit  ThrottleReasons
	name string
}{
	{ThrottleGPUIdle, "gpu_idle"},
	{ThrottleApplicationsClocksSetting, "applications_clocks_setting"},
	{ThrottleSWPowerCap, "sw_power_cap"},
	{ThrottleHWSlowdown, "hw_slowdown"},
	{ThrottleSyncBoost, "sync_boost"},
	{ThrottleSWThermalSlowdown, "sw_thermal_slowdown"},
	{ThrottleHWThermalSlowdown, "hw_thermal_slowdown"},
	{ThrottleHWPowerBrakeSlowdown, "hw_power_brake_slowdown"},
	{ThrottleDisplayClockSetting, "display_clock_setting"},
}

// benign are the reasons that do not mean the hardware is held back: an idle
// GPU, clocks the operator chose, and boost synchronised across GPUs.
const benign = ThrottleGPUIdle |
	ThrottleApplicationsClocksSetting |
	ThrottleSyncBoost |
	ThrottleDisplayClockSetting

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
