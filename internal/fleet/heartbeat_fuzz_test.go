package fleet

import (
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/fault"
)

// fuzzNow is the server's clock for the heartbeats of FuzzHeartbeatTelemetry.
var fuzzNow = time.Date(2026, 11, 29, 22, 34, 37, 0, time.UTC)

// isLabel is the rule for a reported label, written out independently of
// internal/validate: 1 to MaxTextLength characters of UTF-8, no control
// character, line or paragraph separator or bidirectional override.
func isLabel(s string) bool {
	if s == "" || !utf8.ValidString(s) || utf8.RuneCountInString(s) > MaxTextLength {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || ('\u202A' <= r && r <= '\u202E') || ('\u2066' <= r && r <= '\u2069') {
			return false
		}
	}
	return true
}

func inRange[T int | float64](p *T, lo, hi T) bool {
	if p == nil {
		return true
	}
	f := float64(*p)
	return !math.IsNaN(f) && !math.IsInf(f, 0) && lo <= *p && *p <= hi
}

// telemetryIsValid is what the platform documents it accepts from an
// agent: a machine id of the agent's own form (protocol.ValidMachineID),
// a sample time no later than the clock's skew allows, at most
// MaxGPUsPerMachine GPUs, and each reading within its physical bounds.
func telemetryIsValid(in protocol.HeartbeatInput, now time.Time) bool {
	if !protocol.ValidMachineID(in.MachineID) || len(in.Gpus) > MaxGPUsPerMachine {
		return false
	}
	if in.At != nil && in.At.After(now.Add(maxClockSkewIntoFuture)) {
		return false
	}
	for _, g := range in.Gpus {
		if !isLabel(g.UUID) || len(g.ThrottleReasons) > MaxThrottleReasons || len(g.RecentUtilizationPct) > MaxRecentSamples ||
			!inRange(g.UtilizationPct, 0, 100) || !inRange(g.MemoryUsedBytes, 0, maxMemoryBytes) ||
			!inRange(g.TemperatureC, minTemperatureC, maxTemperatureC) || !inRange(g.PowerDrawW, 0, maxPowerW) ||
			!inRange(g.ECCCorrected, 0, maxECC) || !inRange(g.ECCUncorrected, 0, maxECC) || !inRange(g.SMClockMHz, 0, maxClockMHz) {
			return false
		}
		for _, r := range g.ThrottleReasons {
			if !isLabel(r) {
				return false
			}
		}
		for _, s := range g.RecentUtilizationPct {
			if !inRange(&s, 0, 100) {
				return false
			}
		}
	}
	return true
}

// telemetryField is a field a heartbeat's problem may name.
var telemetryField = regexp.MustCompile(`^input\.(?:machineId|at|gpus(?:\.[0-9]+\.(?:uuid|utilizationPct|memoryUsedBytes|temperatureC|powerDrawW|` +
	`eccCorrected|eccUncorrected|smClockMHz|(?:throttleReasons|recentUtilizationPct)(?:\.[0-9]+)?))?)$`)

// FuzzHeartbeatTelemetry: a heartbeat of any readings is checked without
// a panic; it is accepted exactly when it is within the documented bounds
// (the machine id by the agent's own protocol.ValidMachineID); accepted
// telemetry survives the presence store's JSON encoding unchanged; a
// refused one has problems coded with the UserErrorCode enum, each naming
// a field of the heartbeat.
//
// Every GPU of the beat carries the same readings; absent has a bit per
// reading left out (nil).
func FuzzHeartbeatTelemetry(f *testing.F) {
	f.Add("m-0000001", "GPU-1", "sw_power_cap", 71.5, 6.1e10, 64.5, 512.25, 0.0, 55.5, 1980, uint8(8), uint8(1), uint8(30), uint16(0), int64(0))
	f.Add("m-0000001", "GPU-1", "", 0.0, 0.0, -50.0, 0.0, 1e15, 100.0, 0, uint8(1), uint8(0), uint8(0), uint16(0xff), int64(5*time.Minute))
	f.Add("m-0000001", "GPU-1", "x", 100.0, float64(1<<50), 150.0, 5000.0, 1e15, 0.0, 10000, uint8(64), uint8(32), uint8(120), uint16(0), int64(-time.Hour))
	f.Add("m-0000001", "GPU-1", "x", 100.0000001, float64(1<<50)+1, 150.1, 5000.5, 1e15+1, -0.1, 10001, uint8(65), uint8(33), uint8(121), uint16(0), int64(5*time.Minute+1))
	f.Add("m-0000001", "GPU-1", "x", math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), -1.0, math.NaN(), -1, uint8(2), uint8(2), uint8(2), uint16(0), int64(0))
	f.Add("short", "GPU\n1", "a\u202Eb", 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1, uint8(1), uint8(1), uint8(1), uint16(0), int64(0))
	f.Add("m-0000001\u00e9", "\xff", "\x00", 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1, uint8(1), uint8(1), uint8(1), uint16(0), int64(0))
	f.Add("m-0000001", string(make([]byte, 129)), "é", 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1, uint8(1), uint8(1), uint8(1), uint16(0), int64(0))
	f.Add("a_b-C_d-E_f-G_h-I_j-K_l-M_n-O_p-Q_r-S_t-U_v-W_x-Y_z-0_1-2_3-4_5-6", "GPU-1", "x", 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1, uint8(0), uint8(0), uint8(0), uint16(0), int64(0))
	f.Fuzz(func(t *testing.T, machineID, uuid, reason string, util, mem, temp, power, ecc, sample float64, clock int,
		gpus, reasons, samples uint8, absent uint16, at int64) {
		optional := func(bit int, v float64) *float64 {
			if absent&(1<<bit) != 0 {
				return nil
			}
			return &v
		}
		in := protocol.HeartbeatInput{MachineID: machineID, Gpus: []protocol.GpuTelemetry{}}
		if absent&(1<<7) == 0 {
			when := fuzzNow.Add(time.Duration(at))
			in.At = &when
		}
		for i := range int(gpus) % (MaxGPUsPerMachine + 3) {
			g := protocol.GpuTelemetry{UUID: uuid + strconv.Itoa(i), UtilizationPct: optional(0, util), MemoryUsedBytes: optional(1, mem),
				TemperatureC: optional(2, temp), PowerDrawW: optional(3, power), ECCCorrected: optional(4, ecc), ECCUncorrected: optional(5, ecc)}
			if absent&(1<<6) == 0 {
				g.SMClockMHz = &clock
			}
			for range int(reasons) % (MaxThrottleReasons + 3) {
				g.ThrottleReasons = append(g.ThrottleReasons, reason)
			}
			for j := range int(samples) % (MaxRecentSamples + 3) {
				// The readings step around sample, so a bound is crossed
				// somewhere in the list and not only at its first entry.
				g.RecentUtilizationPct = append(g.RecentUtilizationPct, sample+float64(j%3-1))
			}
			in.Gpus = append(in.Gpus, g)
		}
		valid := telemetryIsValid(in, fuzzNow)

		err := validateHeartbeat(&in, fuzzNow)
		if err != nil {
			v, ok := fault.AsValidation(err)
			require.True(t, ok, "a refused heartbeat is a validation: %v", err)
			require.NotEmpty(t, v.Problems)
			for _, p := range v.Problems {
				require.True(t, p.Code.Known(), "problem %+v has a code outside the enum", p)
				require.Regexp(t, telemetryField, p.Field, "problem %+v names no field of the heartbeat", p)
				require.NotEmpty(t, p.Message)
			}
			require.False(t, valid, "a heartbeat within the bounds was refused: %v", err)
			return
		}
		require.True(t, valid, "accepted a heartbeat outside the bounds: %+v", in)

		// The presence store keeps each GPU's latest sample in this
		// encoding: an accepted one must encode, and decode unchanged.
		for _, g := range in.Gpus {
			data, err := json.Marshal(g)
			require.NoError(t, err, "accepted telemetry does not encode")
			var back protocol.GpuTelemetry
			require.NoError(t, json.Unmarshal(data, &back))
			require.Equal(t, g, back)
		}
	})
}
