package fleet

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
)

// hostOf is a registration of machine-0001 (its one GPU) with host facts.
func hostOf(h *protocol.HostFacts) protocol.RegisterMachineInput {
	return protocol.RegisterMachineInput{MachineID: machineUID, Hostname: "h", AgentVersion: "2",
		Gpus: []protocol.GpuInventory{{UUID: "GPU-1", Name: "NVIDIA L4", Simulated: true}}, Host: h}
}

func ptr[T any](v T) *T { return &v }

// Issue 26: the agent reports its host's CPU, RAM and disk at
// registration; they are stored on the machine as the agent's claim, and
// an old agent (no host) registers as before, its facts unknown.
func TestRegistrationStoresTheHostAsTheAgentsClaimAndAnOldAgentOmitsIt(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setupStack(t, db)

		old := b.machine(t)
		require.Nil(t, old.CPUModel, "setup registered as an agent before issue 26")
		require.Nil(t, old.CPUCores)
		require.Nil(t, old.RAMBytes)
		require.Nil(t, old.DiskBytes)
		require.Nil(t, old.DiskFreeBytes)

		host := &protocol.HostFacts{CPUModel: ptr("  AMD EPYC 9654 96-Core Processor "), CPUCores: ptr(192),
			RAMBytes: ptr(float64(1536 << 30)), DiskBytes: ptr(7.68e12), DiskFreeBytes: ptr(6.1e12)}
		m, err := b.svc.Register(b.ctx, b.agent, hostOf(host))
		require.NoError(t, err)
		require.Equal(t, "AMD EPYC 9654 96-Core Processor", *m.CPUModel, "trimmed")
		require.Equal(t, 192, *m.CPUCores)
		stored := b.machine(t)
		require.Equal(t, "AMD EPYC 9654 96-Core Processor", *stored.CPUModel)
		require.Equal(t, 192, *stored.CPUCores)
		require.InDelta(t, float64(1536<<30), *stored.RAMBytes, 0)
		require.InDelta(t, 7.68e12, *stored.DiskBytes, 0)
		require.InDelta(t, 6.1e12, *stored.DiskFreeBytes, 0)

		// Only some facts: the others are unknown, not the previous claim.
		_, err = b.svc.Register(b.ctx, b.agent, hostOf(&protocol.HostFacts{CPUCores: ptr(8)}))
		require.NoError(t, err)
		partial := b.machine(t)
		require.Equal(t, 8, *partial.CPUCores)
		require.Nil(t, partial.CPUModel)
		require.Nil(t, partial.RAMBytes)

		// The agent downgraded: it registers, and the claim is gone.
		_, err = b.svc.Register(b.ctx, b.agent, hostOf(nil))
		require.NoError(t, err)
		again := b.machine(t)
		require.Nil(t, again.CPUCores)
		require.Nil(t, again.DiskFreeBytes)
	})
}

// Issue 26: a host fact out of range is refused as INVALID naming the
// field (OUT_OF_RANGE), and nothing is written.
func TestRegistrationRefusesAHostFactOutOfRangeNamingTheField(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setupStack(t, db)
		_, err := b.svc.Register(b.ctx, b.agent, hostOf(&protocol.HostFacts{CPUCores: ptr(16), RAMBytes: ptr(64e9)}))
		require.NoError(t, err)
		tests := []struct {
			name  string
			host  protocol.HostFacts
			field string
			code  fault.ProblemCode
		}{
			{name: "no cores", host: protocol.HostFacts{CPUCores: ptr(0)}, field: "input.host.cpuCores", code: fault.OutOfRange},
			{name: "more than 4096 cores", host: protocol.HostFacts{CPUCores: ptr(4097)}, field: "input.host.cpuCores", code: fault.OutOfRange},
			{name: "more than 64 TiB of RAM", host: protocol.HostFacts{RAMBytes: ptr(float64(64<<40) + 1)}, field: "input.host.ramBytes", code: fault.OutOfRange},
			{name: "negative RAM", host: protocol.HostFacts{RAMBytes: ptr(-1.0)}, field: "input.host.ramBytes", code: fault.OutOfRange},
			{name: "a disk over 10 PiB", host: protocol.HostFacts{DiskBytes: ptr(float64(10<<50) * 2)}, field: "input.host.diskBytes", code: fault.OutOfRange},
			{name: "more free space than the disk", host: protocol.HostFacts{DiskBytes: ptr(1e12), DiskFreeBytes: ptr(2e12)}, field: "input.host.diskFreeBytes", code: fault.OutOfRange},
			{name: "a CPU model of several lines", host: protocol.HostFacts{CPUModel: ptr("Xeon\nrm -rf")}, field: "input.host.cpuModel"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				writes := db.Writes()
				_, err := b.svc.Register(b.ctx, b.agent, hostOf(&tt.host))
				require.Equal(t, fault.Invalid, fault.CodeOf(err))
				v, ok := fault.AsValidation(err)
				require.True(t, ok)
				require.Len(t, v.Problems, 1)
				require.Equal(t, tt.field, v.Problems[0].Field)
				if tt.code != "" {
					require.Equal(t, tt.code, v.Problems[0].Code)
				}
				require.Equal(t, writes, db.Writes(), "nothing written")
				m := b.machine(t)
				require.Equal(t, 16, *m.CPUCores, "the previous claim stands")
				require.InDelta(t, 64e9, *m.RAMBytes, 0)
			})
		}
	})
}
