package fleet

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/fault"
)

// Limits on what an agent may report.
const (
	MaxGPUsPerMachine      = 64
	MaxThrottleReasons     = 32
	MaxRecentSamples       = 120
	MaxTextLength          = 128
	maxMemoryBytes         = 1 << 50 // 1 PiB
	maxPowerW              = 5_000
	maxClockMHz            = 10_000
	minTemperatureC        = -50
	maxTemperatureC        = 150
	maxECC                 = 1e15
	maxClockSkewIntoFuture = 5 * time.Minute
)

var machineIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{8,64}$`)

// path names an input field: prefix.name, or input.gpus.<gpu>.name for a
// field of a GPU entry (gpu ≥ 0), with .idx after it for a list element
// (idx ≥ 0). It is formatted only when a problem is found, so a valid
// heartbeat (the hot path) formats no field names.
type path struct {
	prefix, name string
	gpu, idx     int
}

func at(prefix, name string) path { return path{prefix: prefix, name: name, gpu: -1, idx: -1} }

// gpuAt names field name of GPU entry gpu, element idx if idx ≥ 0.
func gpuAt(gpu int, name string, idx int) path {
	return path{prefix: "input.gpus", name: name, gpu: gpu, idx: idx}
}

func (p path) String() string {
	s := p.prefix
	if p.gpu >= 0 {
		s += "." + strconv.Itoa(p.gpu)
	}
	s += "." + p.name
	if p.idx >= 0 {
		s += "." + strconv.Itoa(p.idx)
	}
	return s
}

func checkLabel(v *fault.Validation, field path, s string, required bool) {
	switch {
	case s == "" && required:
		v.Add(field.String(), "REQUIRED", "required")
	case len(s) > MaxTextLength:
		v.Add(field.String(), "TOO_LONG", fmt.Sprintf("at most %d characters", MaxTextLength))
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		v.Add(field.String(), "INVALID", "control characters are not allowed")
	}
}

func checkRange(v *fault.Validation, field path, p *float64, lo, hi float64) {
	if p == nil {
		return
	}
	if math.IsNaN(*p) || math.IsInf(*p, 0) || *p < lo || *p > hi {
		v.Add(field.String(), "OUT_OF_RANGE", fmt.Sprintf("must be between %g and %g", lo, hi))
	}
}

// validateRegistration checks a registration, trimming the hostname.
func validateRegistration(in *protocol.RegisterMachineInput) error {
	var v fault.Validation
	if !machineIDPattern.MatchString(in.MachineID) {
		v.Add("input.machineId", "INVALID", "machineId must be 8–64 characters of A-Z, a-z, 0-9, - and _")
	}
	in.Hostname = strings.TrimSpace(in.Hostname)
	checkLabel(&v, at("input", "hostname"), in.Hostname, true)
	checkLabel(&v, at("input", "agentVersion"), in.AgentVersion, true)
	if len(in.Gpus) > MaxGPUsPerMachine {
		v.Add("input.gpus", "TOO_MANY", fmt.Sprintf("at most %d GPUs per machine", MaxGPUsPerMachine))
		return v.Err()
	}
	seen := map[string]bool{}
	for i, g := range in.Gpus {
		checkLabel(&v, gpuAt(i, "uuid", -1), g.UUID, true)
		if seen[g.UUID] {
			v.Add(gpuAt(i, "uuid", -1).String(), "DUPLICATE", "each GPU appears once")
		}
		seen[g.UUID] = true
		checkLabel(&v, gpuAt(i, "name", -1), g.Name, true)
		if g.Index < 0 || g.Index >= MaxGPUsPerMachine {
			v.Add(gpuAt(i, "index", -1).String(), "OUT_OF_RANGE", "index out of range")
		}
		checkRange(&v, gpuAt(i, "vramBytes", -1), g.VRAMBytes, 0, maxMemoryBytes)
		checkRange(&v, gpuAt(i, "powerLimitW", -1), g.PowerLimitW, 0, maxPowerW)
		for _, l := range []struct {
			name string
			p    *string
		}{{"pciBusId", g.PCIBusID}, {"driverVersion", g.DriverVersion}, {"cudaDriverVersion", g.CUDADriverVersion}} {
			if l.p != nil {
				checkLabel(&v, gpuAt(i, l.name, -1), *l.p, false)
			}
		}
	}
	return v.Err()
}

// validateHeartbeat checks a heartbeat; now bounds the sample time.
func validateHeartbeat(in *protocol.HeartbeatInput, now time.Time) error {
	var v fault.Validation
	if !machineIDPattern.MatchString(in.MachineID) {
		v.Add("input.machineId", "INVALID", "machineId must be 8–64 characters of A-Z, a-z, 0-9, - and _")
	}
	if in.At != nil && in.At.After(now.Add(maxClockSkewIntoFuture)) {
		v.Add("input.at", "IN_FUTURE", "the sample time is in the future; check the host clock")
	}
	if len(in.Gpus) > MaxGPUsPerMachine {
		v.Add("input.gpus", "TOO_MANY", fmt.Sprintf("at most %d GPUs per machine", MaxGPUsPerMachine))
		return v.Err()
	}
	for i := range in.Gpus {
		g := &in.Gpus[i]
		checkLabel(&v, gpuAt(i, "uuid", -1), g.UUID, true)
		checkRange(&v, gpuAt(i, "utilizationPct", -1), g.UtilizationPct, 0, 100)
		checkRange(&v, gpuAt(i, "memoryUsedBytes", -1), g.MemoryUsedBytes, 0, maxMemoryBytes)
		checkRange(&v, gpuAt(i, "temperatureC", -1), g.TemperatureC, minTemperatureC, maxTemperatureC)
		checkRange(&v, gpuAt(i, "powerDrawW", -1), g.PowerDrawW, 0, maxPowerW)
		checkRange(&v, gpuAt(i, "eccCorrected", -1), g.ECCCorrected, 0, maxECC)
		checkRange(&v, gpuAt(i, "eccUncorrected", -1), g.ECCUncorrected, 0, maxECC)
		if g.SMClockMHz != nil && (*g.SMClockMHz < 0 || *g.SMClockMHz > maxClockMHz) {
			v.Add(gpuAt(i, "smClockMHz", -1).String(), "OUT_OF_RANGE", fmt.Sprintf("must be between 0 and %d", maxClockMHz))
		}
		if len(g.ThrottleReasons) > MaxThrottleReasons {
			v.Add(gpuAt(i, "throttleReasons", -1).String(), "TOO_MANY", fmt.Sprintf("at most %d reasons", MaxThrottleReasons))
		}
		for j, r := range g.ThrottleReasons {
			checkLabel(&v, gpuAt(i, "throttleReasons", j), r, true)
		}
		if len(g.RecentUtilizationPct) > MaxRecentSamples {
			v.Add(gpuAt(i, "recentUtilizationPct", -1).String(), "TOO_MANY", fmt.Sprintf("at most %d samples", MaxRecentSamples))
		} else {
			for j := range g.RecentUtilizationPct {
				checkRange(&v, gpuAt(i, "recentUtilizationPct", j), &g.RecentUtilizationPct[j], 0, 100)
			}
		}
	}
	return v.Err()
}
