package gpu

import (
	"slices"
	"strings"
)

// Profile is a fault a --simulate group can be given, so the demo and the
// tests can show how the platform treats hardware that is not healthy:
// `--simulate 1xH100:throttled,1xL4:slow-disk`. A GPU profile changes the
// simulated GPUs' telemetry (always, heartbeats included) and their modelled
// benchmark figures; a machine profile (MachineLevel) changes the machine's
// network or storage figures, whichever group names it.
type Profile string

// The profiles.
const (
	// ProfileHealthy is the default: datasheet-like figures, no faults.
	ProfileHealthy Profile = "healthy"
	// ProfileThrottled is a board held back by heat: about 92 °C, SM clock
	// well below boost, thermal slowdown reasons, compute ×0.55 and memory
	// ×0.8.
	ProfileThrottled Profile = "throttled"
	// ProfilePowerCapped is a board capped below its rated power: draw at
	// the (lowered) limit, SW power cap reason, compute ×0.6.
	ProfilePowerCapped Profile = "power-capped"
	// ProfilePCIeDegraded is a board whose link trained at gen 1 x4 instead
	// of its maximum; the figures are unchanged.
	ProfilePCIeDegraded Profile = "pcie-degraded"
	// ProfileECCErrors is a board whose uncorrected ECC counter rises under
	// load; memory ×0.7.
	ProfileECCErrors Profile = "ecc-errors"
	// ProfileFailing is a board whose benchmark fails with
	// CUDA_ERROR_LAUNCH_FAILED.
	ProfileFailing Profile = "failing"
	// ProfileSlowDisk (machine) replaces the storage figures by a slow
	// disk's: about 40 MB/s write, 60 MB/s read, 150 IOPS.
	ProfileSlowDisk Profile = "slow-disk"
	// ProfileSlowNetwork (machine) replaces the network figures by a slow
	// line's: about 8 Mbit/s each way and 180 ms latency.
	ProfileSlowNetwork Profile = "slow-network"
)

// profiles are the known profiles, in canonical order.
var profiles = []Profile{ProfileHealthy, ProfileThrottled, ProfilePowerCapped, ProfilePCIeDegraded,
	ProfileECCErrors, ProfileFailing, ProfileSlowDisk, ProfileSlowNetwork}

// Profiles lists the known profiles, for help text and error messages.
func Profiles() []Profile { return slices.Clone(profiles) }

// MachineLevel reports whether p concerns the machine (its disk or network)
// rather than the GPUs of the group that names it.
func (p Profile) MachineLevel() bool { return p == ProfileSlowDisk || p == ProfileSlowNetwork }

// parseProfile accepts a known profile name, ignoring case and spaces.
func parseProfile(s string) (Profile, bool) {
	p := Profile(strings.ToLower(strings.TrimSpace(s)))
	return p, slices.Contains(profiles, p)
}

// profileNames joins the known profile names for an error message.
func profileNames() string {
	names := make([]string, len(profiles))
	for i, p := range profiles {
		names[i] = string(p)
	}
	return strings.Join(names, ", ")
}

// profileSet is a GPU's profiles as flags, for the simulator's hot path.
type profileSet struct {
	throttled, powerCapped, pcieDegraded, eccErrors, failing bool
}

func newProfileSet(ps []Profile) profileSet {
	var s profileSet
	for _, p := range ps {
		switch p {
		case ProfileThrottled:
			s.throttled = true
		case ProfilePowerCapped:
			s.powerCapped = true
		case ProfilePCIeDegraded:
			s.pcieDegraded = true
		case ProfileECCErrors:
			s.eccErrors = true
		case ProfileFailing:
			s.failing = true
		}
	}
	return s
}
