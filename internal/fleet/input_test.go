package fleet

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/fault/faulttest"
)

var inputTestNow = time.Date(2026, 11, 29, 22, 34, 37, 0, time.UTC)

// validInputTestBeat is a heartbeat of eight GPUs that passes, every
// reading given.
func validInputTestBeat() protocol.HeartbeatInput {
	util, mem, temp, power, ecc, clk := 97.5, 40e9, 64.0, 350.0, 0.0, 1980
	in := protocol.HeartbeatInput{MachineID: "machine-0001", At: &inputTestNow}
	for i := range 8 {
		in.Gpus = append(in.Gpus, protocol.GpuTelemetry{
			UUID: "GPU-8f0e4c6a-1b2c-4d5e-8f90-0123456789a" + string(rune('0'+i)), UtilizationPct: &util, MemoryUsedBytes: &mem,
			TemperatureC: &temp, PowerDrawW: &power, ECCCorrected: &ecc, ECCUncorrected: &ecc, SMClockMHz: &clk,
			ThrottleReasons: []string{"GPU_IDLE", "SW_POWER_CAP"}, RecentUtilizationPct: []float64{90, 95, 97.5},
		})
	}
	return in
}

// The agent's input is checked by internal/validate's rules. Cases marked
// "since the shared rules" are behaviour changes: labels were limited to
// 128 bytes and are now limited to 128 characters, and the Unicode line
// and paragraph separators are refused.
func TestAgentInputRules(t *testing.T) {
	t.Parallel()
	nan, inf, hot := math.NaN(), math.Inf(1), 151.0
	future := inputTestNow.Add(maxClockSkewIntoFuture + time.Second)
	register := func(change func(in *protocol.RegisterMachineInput)) func() error {
		return func() error {
			in := protocol.RegisterMachineInput{MachineID: "machine-0001", Hostname: " rig-01 ", AgentVersion: "1.2.3",
				Gpus: []protocol.GpuInventory{{UUID: "GPU-1", Index: 0, Name: "NVIDIA H100 80GB HBM3"}, {UUID: "GPU-2", Index: 1, Name: "NVIDIA H100 80GB HBM3"}}}
			change(&in)
			return validateRegistration(&in, false)
		}
	}
	beat := func(change func(in *protocol.HeartbeatInput)) func() error {
		return func() error {
			in := validInputTestBeat()
			change(&in)
			return validateHeartbeat(&in, inputTestNow)
		}
	}
	cases := []struct {
		desc  string
		check func() error
		field string
		code  fault.ProblemCode
	}{
		{desc: "a valid registration", check: register(func(*protocol.RegisterMachineInput) {})},
		{desc: "a valid heartbeat", check: beat(func(*protocol.HeartbeatInput) {})},
		{desc: "a hostname of 128 characters in 256 bytes (refused as over 128 bytes before the shared rules)",
			check: register(func(in *protocol.RegisterMachineInput) { in.Hostname = strings.Repeat("é", MaxTextLength) })},
		{desc: "a hostname of 129 characters", check: register(func(in *protocol.RegisterMachineInput) { in.Hostname = strings.Repeat("h", MaxTextLength+1) }),
			field: "input.hostname", code: fault.TooLong},
		{desc: "a hostname with a line break", check: register(func(in *protocol.RegisterMachineInput) { in.Hostname = "rig\n01" }),
			field: "input.hostname", code: fault.InvalidValue},
		{desc: "a GPU name with a line separator (taken before the shared rules)",
			check: register(func(in *protocol.RegisterMachineInput) { in.Gpus[1].Name = "H100\u2028SXM" }),
			field: "input.gpus.1.name", code: fault.InvalidValue},
		{desc: "a machine id with a dot", check: register(func(in *protocol.RegisterMachineInput) { in.MachineID = "machine.0001" }),
			field: "input.machineId", code: fault.InvalidValue},
		{desc: "a GPU listed twice", check: register(func(in *protocol.RegisterMachineInput) { in.Gpus[1].UUID = "GPU-1" }),
			field: "input.gpus.1.uuid", code: fault.Duplicate},
		{desc: "a GPU index past the last", check: register(func(in *protocol.RegisterMachineInput) { in.Gpus[1].Index = MaxGPUsPerMachine }),
			field: "input.gpus.1.index", code: fault.OutOfRange},
		{desc: "too many GPUs", check: register(func(in *protocol.RegisterMachineInput) {
			in.Gpus = make([]protocol.GpuInventory, MaxGPUsPerMachine+1)
		}), field: "input.gpus", code: fault.TooMany},
		{desc: "a sample time past the tolerated skew", check: beat(func(in *protocol.HeartbeatInput) { in.At = &future }),
			field: "input.at", code: fault.InFuture},
		{desc: "a utilisation of NaN", check: beat(func(in *protocol.HeartbeatInput) { in.Gpus[2].UtilizationPct = &nan }),
			field: "input.gpus.2.utilizationPct", code: fault.OutOfRange},
		{desc: "a power draw of +Inf", check: beat(func(in *protocol.HeartbeatInput) { in.Gpus[0].PowerDrawW = &inf }),
			field: "input.gpus.0.powerDrawW", code: fault.OutOfRange},
		{desc: "a temperature above the range", check: beat(func(in *protocol.HeartbeatInput) { in.Gpus[7].TemperatureC = &hot }),
			field: "input.gpus.7.temperatureC", code: fault.OutOfRange},
		{desc: "an empty throttle reason", check: beat(func(in *protocol.HeartbeatInput) { in.Gpus[3].ThrottleReasons = []string{"GPU_IDLE", ""} }),
			field: "input.gpus.3.throttleReasons.1", code: fault.Required},
		{desc: "a recent sample out of range", check: beat(func(in *protocol.HeartbeatInput) { in.Gpus[1].RecentUtilizationPct = []float64{1, 2, 3, 101} }),
			field: "input.gpus.1.recentUtilizationPct.3", code: fault.OutOfRange},
		{desc: "too many recent samples", check: beat(func(in *protocol.HeartbeatInput) {
			in.Gpus[1].RecentUtilizationPct = make([]float64, MaxRecentSamples+1)
		}), field: "input.gpus.1.recentUtilizationPct", code: fault.TooMany},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			err := tc.check()
			if tc.code == "" {
				require.NoError(t, err)
				return
			}
			faulttest.RequireProblem(t, err, tc.field, tc.code)
		})
	}
}

// A valid heartbeat formats no field name and writes no message: the
// checks of eight GPUs allocate nothing beyond the validation itself
// (which escapes through its error result).
func TestAValidHeartbeatFormatsNoFieldName(t *testing.T) {
	in := validInputTestBeat()
	allocs := testing.AllocsPerRun(100, func() {
		if err := validateHeartbeat(&in, inputTestNow); err != nil {
			t.Fatal(err)
		}
	})
	require.LessOrEqual(t, allocs, 1.0)
}
