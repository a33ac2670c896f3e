package fleet

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/catalog"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// Register records (or refreshes) agent's machine and its GPU inventory.
// It is idempotent for a machineId; inventory changes are recorded. A
// machineId that belongs to another provider is refused.
func (s *Service) Register(ctx context.Context, agent *auth.Agent, in protocol.RegisterMachineInput) (*models.Machine, error) {
	if err := s.admission.allowLookup(agent); err != nil {
		return nil, err
	}
	if err := validateRegistration(&in); err != nil {
		return nil, err
	}
	now := s.deps.Clock.Now()
	var machineID int64
	created := false
	err := s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		m := new(models.Machine)
		err := tx.NewSelect().Model(m).Where("machine_uid = ?", in.MachineID).Scan(ctx)
		switch {
		case store.IsNoRows(err):
			reason := models.OfflineNeverSeen
			m = &models.Machine{
				ProviderID: agent.ProviderID, MachineID: in.MachineID, Status: models.MachineOffline,
				OfflineReason: &reason, StatusChangedAt: now, RegisteredAt: now,
			}
			applyRegistration(m, agent, &in, now)
			created = true
			if _, err := tx.NewInsert().Model(m).Returning("id").Exec(ctx); err != nil {
				if s.deps.DB.IsUniqueViolation(err) {
					return fault.E(fault.Conflict, "this machine is being registered concurrently; retry")
				}
				return fmt.Errorf("fleet: unable to register machine: %w", err)
			}
			if _, err := tx.NewInsert().Model(&models.MachineStatusInterval{
				MachineID: m.ID, Status: models.MachineOffline, Reason: &reason, StartedAt: now,
			}).Exec(ctx); err != nil {
				return fmt.Errorf("fleet: unable to open status interval: %w", err)
			}
		case err != nil:
			return fmt.Errorf("fleet: unable to look up machine: %w", err)
		case m.ProviderID != agent.ProviderID:
			return fault.E(fault.Forbidden, "this machine id is registered to another provider")
		default:
			applyRegistration(m, agent, &in, now)
			if _, err := tx.NewUpdate().Model(m).Column("hostname", "agent_version", "driver_version", "cuda_version", "simulated", "agent_token_id", "updated_at").
				WherePK().Exec(ctx); err != nil {
				return fmt.Errorf("fleet: unable to update machine: %w", err)
			}
		}
		machineID = m.ID
		return syncInventory(ctx, tx, m.ID, in.Gpus, now)
	})
	if err != nil {
		return nil, err
	}
	s.admission.remember(in.MachineID, machineRef{id: machineID, providerID: agent.ProviderID})
	s.deps.Logger.InfoContext(ctx, "fleet: machine registered", "machine_id", machineID, "provider_id", agent.ProviderID, "gpus", len(in.Gpus))
	m, err := s.Machine(ctx, machineID)
	if err != nil {
		return nil, err
	}
	reg := Registered{MachineID: machineID, ProviderID: agent.ProviderID, New: created, Hardware: hardwareOf(m)}
	for _, fn := range s.onRegistered {
		fn(ctx, reg)
	}
	return m, nil
}

// applyRegistration sets m's columns from a registration by agent: the
// machine counts for the token it last registered with.
func applyRegistration(m *models.Machine, agent *auth.Agent, in *protocol.RegisterMachineInput, now time.Time) {
	m.Hostname, m.AgentVersion, m.UpdatedAt = in.Hostname, in.AgentVersion, now
	tokenID := agent.TokenID
	m.AgentTokenID = &tokenID
	m.DriverVersion, m.CudaVersion = nil, nil
	m.Simulated = len(in.Gpus) > 0
	for _, g := range in.Gpus {
		if m.DriverVersion == nil && g.DriverVersion != nil {
			m.DriverVersion = g.DriverVersion
		}
		if m.CudaVersion == nil && g.CUDADriverVersion != nil {
			m.CudaVersion = g.CUDADriverVersion
		}
		m.Simulated = m.Simulated && g.Simulated
	}
}

// syncInventory brings machine_gpus in line with gpus, recording each GPU
// added, removed or changed.
func syncInventory(ctx context.Context, tx bun.Tx, machineID int64, gpus []protocol.GpuInventory, now time.Time) error {
	var existing []*models.MachineGpu
	if err := tx.NewSelect().Model(&existing).Where("machine_id = ?", machineID).Scan(ctx); err != nil {
		return fmt.Errorf("fleet: unable to load inventory: %w", err)
	}
	byUUID := map[string]*models.MachineGpu{}
	for _, g := range existing {
		byUUID[g.UUID] = g
	}
	record := func(change, uuid, detail string) error {
		_, err := tx.NewInsert().Model(&models.MachineInventoryChange{MachineID: machineID, At: now, Change: change, GpuUUID: uuid, Detail: detail}).Exec(ctx)
		if err != nil {
			return fmt.Errorf("fleet: unable to record inventory change: %w", err)
		}
		return nil
	}
	seen := map[string]bool{}
	for _, in := range gpus {
		seen[in.UUID] = true
		var modelKey *string
		if m := catalog.ByNVMLName(in.Name); m != nil {
			k := m.Key
			modelKey = &k
		}
		row, ok := byUUID[in.UUID]
		if !ok {
			row = &models.MachineGpu{MachineID: machineID, UUID: in.UUID, Index: in.Index, Name: in.Name, ModelKey: modelKey,
				VramBytes: in.VRAMBytes, PciBusID: in.PCIBusID, PowerLimitW: in.PowerLimitW, Simulated: in.Simulated, AddedAt: now}
			if _, err := tx.NewInsert().Model(row).Exec(ctx); err != nil {
				return fmt.Errorf("fleet: unable to add GPU: %w", err)
			}
			if err := record("ADDED", in.UUID, in.Name); err != nil {
				return err
			}
			continue
		}
		changed := row.RemovedAt != nil || row.Name != in.Name || row.Index != in.Index || !eqf(row.VramBytes, in.VRAMBytes) || row.Simulated != in.Simulated
		if !changed && eqs(row.PciBusID, in.PCIBusID) && eqf(row.PowerLimitW, in.PowerLimitW) {
			continue
		}
		what := "CHANGED"
		if row.RemovedAt != nil {
			what = "ADDED"
		}
		row.Index, row.Name, row.ModelKey, row.VramBytes, row.PciBusID, row.PowerLimitW, row.Simulated, row.RemovedAt =
			in.Index, in.Name, modelKey, in.VRAMBytes, in.PCIBusID, in.PowerLimitW, in.Simulated, nil
		if _, err := tx.NewUpdate().Model(row).WherePK().Exec(ctx); err != nil {
			return fmt.Errorf("fleet: unable to update GPU: %w", err)
		}
		if changed {
			if err := record(what, in.UUID, in.Name); err != nil {
				return err
			}
		}
	}
	for _, row := range existing {
		if seen[row.UUID] || row.RemovedAt != nil {
			continue
		}
		if _, err := tx.NewUpdate().Model((*models.MachineGpu)(nil)).Set("removed_at = ?", now).Where("id = ?", row.ID).Exec(ctx); err != nil {
			return fmt.Errorf("fleet: unable to remove GPU: %w", err)
		}
		if err := record("REMOVED", row.UUID, row.Name); err != nil {
			return err
		}
	}
	return nil
}

func eqf(a, b *float64) bool { return (a == nil && b == nil) || (a != nil && b != nil && *a == *b) }
func eqs(a, b *string) bool  { return (a == nil && b == nil) || (a != nil && b != nil && *a == *b) }
