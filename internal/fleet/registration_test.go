package fleet

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// A few representative cases: the exhaustive field checks are tested
// where they are defined.
func TestValidationRefusesBadInputAndChangesNothing(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setupStack(t, db)
		future := b.clock.Now().Add(time.Hour)
		tooBusy := 101.0
		tests := []struct {
			name  string
			call  func() error
			field string
		}{
			{
				name: "a registration with a malformed machine id",
				call: func() error {
					_, err := b.svc.Register(b.ctx, b.agent, protocol.RegisterMachineInput{MachineID: "short", Hostname: "h", AgentVersion: "1"})
					return err
				},
				field: "input.machineId",
			},
			{
				name: "a re-registration without a hostname",
				call: func() error {
					_, err := b.svc.Register(b.ctx, b.agent, protocol.RegisterMachineInput{MachineID: machineUID, Hostname: "  ", AgentVersion: "2",
						Gpus: []protocol.GpuInventory{{UUID: "GPU-2", Name: "NVIDIA H100 80GB HBM3"}}})
					return err
				},
				field: "input.hostname",
			},
			{
				name: "a heartbeat with a utilisation above 100%",
				call: func() error {
					_, err := b.svc.Heartbeat(b.ctx, b.agent, protocol.HeartbeatInput{MachineID: machineUID,
						Gpus: []protocol.GpuTelemetry{{UUID: "GPU-1", UtilizationPct: &tooBusy}}})
					return err
				},
				field: "input.gpus.0.utilizationPct",
			},
			{
				name: "a heartbeat sampled an hour in the future",
				call: func() error {
					_, err := b.svc.Heartbeat(b.ctx, b.agent, protocol.HeartbeatInput{MachineID: machineUID, At: &future})
					return err
				},
				field: "input.at",
			},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				writes := db.Writes()
				err := tt.call()
				require.Equal(t, fault.Invalid, fault.CodeOf(err))
				v, ok := fault.AsValidation(err)
				require.True(t, ok)
				fields := make([]string, len(v.Problems))
				for i, p := range v.Problems {
					fields[i] = p.Field
				}
				require.Contains(t, fields, tt.field)

				require.Equal(t, writes, db.Writes(), "no row written")
				m := b.machine(t)
				require.Equal(t, "h", m.Hostname)
				require.Equal(t, protocol.MachineOffline, m.Status)
				_, live := b.live(t)
				require.False(t, live, "no presence written")
				n, err := db.NewSelect().Model((*models.Machine)(nil)).Count(context.Background())
				require.NoError(t, err)
				require.EqualValues(t, 1, n)
			})
		}
	})
}

func TestRegistrationIsIdempotentPerMachineIDAndRecordsEachInventoryChangeOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setupStack(t, db)
		l4 := protocol.GpuInventory{UUID: "GPU-1", Name: "NVIDIA L4", Simulated: true}
		vram := 80e9
		h100 := protocol.GpuInventory{UUID: "GPU-2", Index: 1, Name: "NVIDIA H100 80GB HBM3", VRAMBytes: &vram, Simulated: true}
		register := func(hostname string, gpus ...protocol.GpuInventory) *models.Machine {
			t.Helper()
			b.clock.Advance(time.Minute)
			m, err := b.svc.Register(b.ctx, b.agent, protocol.RegisterMachineInput{MachineID: machineUID, Hostname: hostname, AgentVersion: "1", Gpus: gpus})
			require.NoError(t, err)
			require.Equal(t, b.machineID, m.ID, "the same machine, however often it registers")
			return m
		}
		type change struct{ At, Change, GpuUUID string }
		changes := func() []change {
			t.Helper()
			var rows []models.MachineInventoryChange
			require.NoError(t, db.NewSelect().Model(&rows).Where("machine_id = ?", b.machineID).OrderExpr("id ASC").Scan(context.Background()))
			out := make([]change, len(rows))
			for i, r := range rows {
				out[i] = change{r.At.UTC().Format(time.RFC3339), r.Change, r.GpuUUID}
			}
			return out
		}
		gpuRows := func() map[string]models.MachineGpu {
			t.Helper()
			var rows []models.MachineGpu
			require.NoError(t, db.NewSelect().Model(&rows).Where("machine_id = ?", b.machineID).Scan(context.Background()))
			out := map[string]models.MachineGpu{}
			for _, r := range rows {
				out[r.UUID] = r
			}
			require.Len(t, out, len(rows), "one row per GPU, however often it comes and goes")
			return out
		}
		at := func(minutes int) string {
			return time.Date(2026, 11, 29, 12, minutes, 0, 0, time.UTC).Format(time.RFC3339)
		}

		m := register("renamed", l4) // 12:01: the same inventory, a new hostname
		require.Equal(t, "renamed", m.Hostname)
		require.Equal(t, []change{{at(0), "ADDED", "GPU-1"}}, changes(), "nothing changed, nothing recorded")
		n, err := db.NewSelect().Model((*models.Machine)(nil)).Count(context.Background())
		require.NoError(t, err)
		require.EqualValues(t, 1, n)

		register("renamed", l4, h100) // 12:02: a GPU added
		register("renamed", l4, h100) // 12:03: the same again
		bigger := h100
		more := 94e9
		bigger.VRAMBytes = &more
		register("renamed", l4, bigger) // 12:04: changed
		m = register("renamed", l4)     // 12:05: removed
		require.Len(t, m.Gpus, 1, "a removed GPU is no longer the machine's")
		removed := gpuRows()["GPU-2"].RemovedAt
		require.NotNil(t, removed)
		require.Equal(t, at(5), removed.UTC().Format(time.RFC3339))
		m = register("renamed", l4, bigger) // 12:06: back again
		require.Len(t, m.Gpus, 2)

		require.Equal(t, []change{
			{at(0), "ADDED", "GPU-1"},
			{at(2), "ADDED", "GPU-2"},
			{at(4), "CHANGED", "GPU-2"},
			{at(5), "REMOVED", "GPU-2"},
			{at(6), "ADDED", "GPU-2"},
		}, changes())
		rows := gpuRows()
		require.Nil(t, rows["GPU-2"].RemovedAt, "re-added in place")
		require.Equal(t, more, *rows["GPU-2"].VramBytes)
		require.Nil(t, rows["GPU-1"].RemovedAt)
	})
}

func TestAMachineIDRegisteredByAnotherProviderIsForbidden(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setupStack(t, db)
		other := &auth.Agent{TokenID: 2, ProviderID: seedProvider(t, db, b.clock.Now(), "other")}
		writes := db.Writes()

		_, err := b.svc.Register(b.ctx, other, protocol.RegisterMachineInput{MachineID: machineUID, Hostname: "taken", AgentVersion: "1",
			Gpus: []protocol.GpuInventory{{UUID: "GPU-9", Name: "NVIDIA L4"}}})
		require.Equal(t, fault.Forbidden, fault.CodeOf(err))

		// Its heartbeats too, on this replica (which knows the machine)
		// and on one that must look it up.
		for _, svc := range []*Service{b.svc, b.replica(Config{Interval: 10 * time.Second})} {
			_, err = svc.Heartbeat(b.ctx, other, protocol.HeartbeatInput{MachineID: machineUID})
			require.Equal(t, fault.NotFound, fault.CodeOf(err), "another provider's machine is answered as an unknown one")
		}

		require.Equal(t, writes, db.Writes(), "a refused registration changes nothing")
		m := b.machine(t)
		require.Equal(t, b.agent.ProviderID, m.ProviderID)
		require.Equal(t, "h", m.Hostname)
		require.Equal(t, protocol.MachineOffline, m.Status)
		_, live := b.live(t)
		require.False(t, live)
	})
}
