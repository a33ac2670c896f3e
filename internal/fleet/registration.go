package fleet

import (
	"context"
	"errors"
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
//
// What the agent claims is checked against what the platform holds
// (identity.go). A GPU UUID is one GPU across the platform: a GPU that
// another machine has, not removed, is refused (TAKEN at
// input.gpus.N.uuid); a card that moves leaves its old machine first (that
// machine re-registers without it, and its row is removed). Unless
// Config.AllowSimulated, a simulated GPU is refused (INVALID at
// input.gpus.N.simulated). A refused registration changes nothing of the
// fleet; its provider and the admins are notified once per machine id,
// reason and GPU, so an agent that retries does not flood them.
func (s *Service) Register(ctx context.Context, agent *auth.Agent, in protocol.RegisterMachineInput) (*models.Machine, error) {
	if err := s.admission.allowLookup(agent); err != nil {
		return nil, err
	}
	if err := validateRegistration(&in, s.cfg.AllowSimulated); err != nil {
		if onlySimulated(err) {
			s.tell(ctx, agent, &in, []refusal{{reason: models.RefusalSimulated}})
		}
		return nil, err
	}
	var (
		machineID int64
		created   bool
		err       error
	)
	// The check of GPU identities reads before it writes; a registration
	// that lost a race for a UUID (the unique index on live UUIDs refused
	// its row) runs again and is then answered as if it had come second.
	for attempt := 1; ; attempt++ {
		machineID, created, err = s.register(ctx, agent, &in)
		if !errors.Is(err, errIdentityRace) {
			break
		}
		if attempt == identityAttempts {
			return nil, fault.E(fault.Conflict, "other registrations are taking these GPUs at this moment; retry")
		}
	}
	var taken *gpusTaken
	if errors.As(err, &taken) {
		s.tell(ctx, agent, &in, taken.refusals())
		return nil, taken.validation()
	}
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

// register stores a valid registration in one transaction: the machine
// (created the first time) and its inventory. It returns a *gpusTaken,
// having written nothing, when another machine holds one of its GPUs, and
// errIdentityRace when another registration took one meanwhile.
func (s *Service) register(ctx context.Context, agent *auth.Agent, in *protocol.RegisterMachineInput) (machineID int64, created bool, err error) {
	now := s.deps.Clock.Now()
	err = s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		m := new(models.Machine)
		err := tx.NewSelect().Model(m).Where("machine_uid = ?", in.MachineID).Scan(ctx)
		switch {
		case store.IsNoRows(err):
			m = nil
		case err != nil:
			return fmt.Errorf("fleet: unable to look up machine: %w", err)
		case m.ProviderID != agent.ProviderID:
			return fault.E(fault.Forbidden, "this machine id is registered to another provider")
		}
		var self int64
		if m != nil {
			self = m.ID
		}
		holders, err := holdersOf(ctx, tx, self, in.Gpus)
		if err != nil {
			return err
		}
		if len(holders) > 0 {
			return &gpusTaken{agent: agent, holders: holders}
		}
		if m == nil {
			reason := models.OfflineNeverSeen
			m = &models.Machine{
				ProviderID: agent.ProviderID, MachineID: in.MachineID, Status: protocol.MachineOffline,
				OfflineReason: &reason, StatusChangedAt: now, RegisteredAt: now,
			}
			applyRegistration(m, agent, in, now)
			created = true
			if _, err := tx.NewInsert().Model(m).Returning("id").Exec(ctx); err != nil {
				if s.deps.DB.IsUniqueViolation(err) {
					return fault.E(fault.Conflict, "this machine is being registered concurrently; retry")
				}
				return fmt.Errorf("fleet: unable to register machine: %w", err)
			}
			if _, err := tx.NewInsert().Model(&models.MachineStatusInterval{
				MachineID: m.ID, Status: protocol.MachineOffline, Reason: &reason, StartedAt: now,
			}).Exec(ctx); err != nil {
				return fmt.Errorf("fleet: unable to open status interval: %w", err)
			}
		} else {
			applyRegistration(m, agent, in, now)
			if _, err := tx.NewUpdate().Model(m).Column("hostname", "agent_version", "driver_version", "cuda_version", "simulated", "agent_token_id", "updated_at",
				"cpu_model", "cpu_cores", "ram_bytes", "disk_bytes", "disk_free_bytes").
				WherePK().Exec(ctx); err != nil {
				return fmt.Errorf("fleet: unable to update machine: %w", err)
			}
		}
		machineID = m.ID
		return s.syncInventory(ctx, tx, m.ID, in.Gpus, now)
	})
	return machineID, created, err
}

// applyRegistration sets m's columns from a registration by agent: the
// machine counts for the token it last registered with.
func applyRegistration(m *models.Machine, agent *auth.Agent, in *protocol.RegisterMachineInput, now time.Time) {
	m.Hostname, m.AgentVersion, m.UpdatedAt = in.Hostname, in.AgentVersion, now
	tokenID := agent.TokenID
	m.AgentTokenID = &tokenID
	m.DriverVersion, m.CudaVersion = nil, nil
	// One simulated GPU makes the machine simulated: a machine that mixes
	// them is not rentable hardware either.
	m.Simulated = false
	for _, g := range in.Gpus {
		if m.DriverVersion == nil && g.DriverVersion != nil {
			m.DriverVersion = g.DriverVersion
		}
		if m.CudaVersion == nil && g.CUDADriverVersion != nil {
			m.CudaVersion = g.CUDADriverVersion
		}
		m.Simulated = m.Simulated || g.Simulated
	}
	// The host is the agent's claim at its latest registration: an agent
	// that stops reporting a fact leaves it unknown, not stale.
	m.CPUModel, m.CPUCores, m.RAMBytes, m.DiskBytes, m.DiskFreeBytes = nil, nil, nil, nil, nil
	if h := in.Host; h != nil {
		m.CPUModel, m.CPUCores, m.RAMBytes, m.DiskBytes, m.DiskFreeBytes = h.CPUModel, h.CPUCores, h.RAMBytes, h.DiskBytes, h.DiskFreeBytes
	}
}

// syncInventory brings machine_gpus in line with gpus, recording each GPU
// added, removed or changed. A GPU row refused by a unique index (another
// registration took the GPU since Register checked) is errIdentityRace.
func (s *Service) syncInventory(ctx context.Context, tx bun.Tx, machineID int64, gpus []protocol.GpuInventory, now time.Time) error {
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
				if s.deps.DB.IsUniqueViolation(err) {
					return errIdentityRace
				}
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
			if s.deps.DB.IsUniqueViolation(err) {
				return errIdentityRace
			}
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
