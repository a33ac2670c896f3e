package fleet

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/catalog"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/presence"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// Config tunes the fleet. Zero values take the defaults.
type Config struct {
	// Interval is how often agents send heartbeats (default 10s).
	Interval time.Duration
	// GraceIntervals is how many intervals may pass without a heartbeat
	// before a machine is offline (default 3).
	GraceIntervals int
	// CompactEvery is how often open uptime intervals are advanced
	// (default 10m).
	CompactEvery time.Duration
	// RatePerSecond and Burst bound one machine's heartbeats (defaults
	// 5/s, burst 60: room to replay a buffer after an outage).
	RatePerSecond float64
	Burst         int
	// TokenRatePerSecond and TokenBurst bound, per replica, what one
	// agent token asks of the database: registrations and heartbeats
	// naming a machine id the replica has not resolved yet, unknown ids
	// included (defaults 200/s, burst 2000: a fleet of a thousand machines
	// on one token is resolved at once after a replica restarts).
	// Heartbeats of resolved machines spend only their machine's bucket,
	// so a large fleet replaying after an outage is never held back by
	// its shared token.
	TokenRatePerSecond float64
	TokenBurst         int
}

func (c *Config) defaults() {
	if c.Interval <= 0 {
		c.Interval = 10 * time.Second
	}
	if c.GraceIntervals <= 0 {
		c.GraceIntervals = 3
	}
	if c.CompactEvery <= 0 {
		c.CompactEvery = 10 * time.Minute
	}
	if c.RatePerSecond <= 0 {
		c.RatePerSecond = 5
	}
	if c.Burst <= 0 {
		c.Burst = 60
	}
	if c.TokenRatePerSecond <= 0 {
		c.TokenRatePerSecond = 200
	}
	if c.TokenBurst <= 0 {
		c.TokenBurst = 2000
	}
}

// Grace is how long a machine stays online without a heartbeat.
func (c Config) Grace() time.Duration { return time.Duration(c.GraceIntervals) * c.Interval }

// commandsChannel announces that a machine has commands waiting, so every
// replica knows to look (and only then) when its heartbeat arrives.
const commandsChannel = "fleet.commands"

// Service is the fleet.
type Service struct {
	db       *store.DB
	presence presence.Store
	bus      bus.Bus
	clock    clock.Clock
	logger   *slog.Logger
	cfg      Config

	refs    sync.Map     // machine_uid -> machineRef
	pending sync.Map     // machine id -> struct{}
	limiter *rateLimiter // heartbeats, per machine
	tokens  *rateLimiter // lookups and registrations, per agent token

	sweepMu      sync.Mutex
	healthySince time.Time
}

type machineRef struct {
	id, providerID int64
}

// NewService returns the fleet service.
func NewService(db *store.DB, p presence.Store, b bus.Bus, clk clock.Clock, logger *slog.Logger, cfg Config) *Service {
	cfg.defaults()
	return &Service{db: db, presence: p, bus: b, clock: clk, logger: logger, cfg: cfg,
		limiter: newRateLimiter(clk, cfg.RatePerSecond, cfg.Burst),
		tokens:  newRateLimiter(clk, cfg.TokenRatePerSecond, cfg.TokenBurst)}
}

// Config returns the effective configuration.
func (s *Service) Config() Config { return s.cfg }

// Channel is the bus channel of providerID's machine transitions.
func Channel(providerID int64) string {
	return "provider." + strconv.FormatInt(providerID, 10) + ".machines"
}

func presenceKey(machineID int64) string { return "machine:" + strconv.FormatInt(machineID, 10) }

// beat is what the presence store holds for an online machine.
type beat struct {
	At   time.Time               `json:"at"`
	Gpus []protocol.GpuTelemetry `json:"g"`
}

// beatOf is machineID's beat among values read from the presence store;
// false when it has none, or one that does not decode.
func beatOf(values map[string][]byte, machineID int64) (beat, bool) {
	raw, ok := values[presenceKey(machineID)]
	if !ok {
		return beat{}, false
	}
	var b beat
	if err := json.Unmarshal(raw, &b); err != nil {
		return beat{}, false
	}
	return b, true
}

// transitionEvent is published on a provider's machines channel.
type transitionEvent struct {
	MachineID int64                `json:"machineId"`
	Status    models.MachineStatus `json:"status"`
}

// Register records (or refreshes) agent's machine and its GPU inventory.
// It is idempotent for a machineId; inventory changes are recorded. A
// machineId that belongs to another provider is refused.
func (s *Service) Register(ctx context.Context, agent *auth.Agent, in protocol.RegisterMachineInput) (*models.Machine, error) {
	if !s.tokens.allow(agent.TokenID) {
		return nil, errTokenRateLimited
	}
	if err := validateRegistration(&in); err != nil {
		return nil, err
	}
	now := s.clock.Now()
	var machineID int64
	err := s.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		m := new(models.Machine)
		err := tx.NewSelect().Model(m).Where("machine_uid = ?", in.MachineID).Scan(ctx)
		switch {
		case store.IsNoRows(err):
			reason := models.OfflineNeverSeen
			m = &models.Machine{
				ProviderID: agent.ProviderID, MachineID: in.MachineID, Status: models.MachineOffline,
				OfflineReason: &reason, StatusChangedAt: now, RegisteredAt: now,
			}
			applyRegistration(m, &in, now)
			if _, err := tx.NewInsert().Model(m).Returning("id").Exec(ctx); err != nil {
				if s.db.IsUniqueViolation(err) {
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
			applyRegistration(m, &in, now)
			if _, err := tx.NewUpdate().Model(m).Column("hostname", "agent_version", "driver_version", "cuda_version", "simulated", "updated_at").
				WherePK().Exec(ctx); err != nil {
				return fmt.Errorf("fleet: unable to update machine: %w", err)
			}
		}
		machineID = m.ID
		return s.syncInventory(ctx, tx, m.ID, in.Gpus, now)
	})
	if err != nil {
		return nil, err
	}
	s.refs.Store(in.MachineID, machineRef{id: machineID, providerID: agent.ProviderID})
	s.logger.InfoContext(ctx, "fleet: machine registered", "machine_id", machineID, "provider_id", agent.ProviderID, "gpus", len(in.Gpus))
	return s.Machine(ctx, machineID)
}

func applyRegistration(m *models.Machine, in *protocol.RegisterMachineInput, now time.Time) {
	m.Hostname, m.AgentVersion, m.UpdatedAt = in.Hostname, in.AgentVersion, now
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

// errTokenRateLimited refuses an agent token that asks for too many
// lookups or registrations.
var errTokenRateLimited = fault.E(fault.RateLimited, "too many requests for this agent token; slow down")

// resolve finds agent's machine by its machine id: from memory after the
// first time, so a steady heartbeat reads no SQL. A lookup (a machine id
// this replica has not resolved, unknown ones included) spends the
// token's budget; a resolved machine is bounded by its own bucket.
func (s *Service) resolve(ctx context.Context, agent *auth.Agent, uid string) (machineRef, error) {
	if v, ok := s.refs.Load(uid); ok {
		ref := v.(machineRef)
		if ref.providerID != agent.ProviderID {
			return ref, fault.E(fault.Forbidden, "this machine belongs to another provider")
		}
		return ref, nil
	}
	if !s.tokens.allow(agent.TokenID) {
		return machineRef{}, errTokenRateLimited
	}
	var m models.Machine
	err := s.db.NewSelect().Model(&m).Column("id", "provider_id").Where("machine_uid = ?", uid).Scan(ctx)
	if store.IsNoRows(err) {
		return machineRef{}, fault.E(fault.NotFound, "unknown machine: register it first")
	}
	if err != nil {
		return machineRef{}, fmt.Errorf("fleet: unable to look up machine: %w", err)
	}
	ref := machineRef{id: m.ID, providerID: m.ProviderID}
	s.refs.Store(uid, ref)
	if ref.providerID != agent.ProviderID {
		return ref, fault.E(fault.Forbidden, "this machine belongs to another provider")
	}
	return ref, nil
}

// HeartbeatResult answers a heartbeat.
type HeartbeatResult struct {
	Accepted bool
	Status   *models.MachineStatus
	Interval time.Duration
	Commands []*models.AgentCommand
}

// Heartbeat records a machine's liveness and telemetry. Steady state
// touches only the presence store.
func (s *Service) Heartbeat(ctx context.Context, agent *auth.Agent, in protocol.HeartbeatInput) (*HeartbeatResult, error) {
	now := s.clock.Now()
	if err := validateHeartbeat(&in, now); err != nil {
		return nil, err
	}
	ref, err := s.resolve(ctx, agent, in.MachineID)
	if err != nil {
		return nil, err
	}
	if !s.limiter.allow(ref.id) {
		return nil, fault.E(fault.RateLimited, "too many heartbeats for this machine; slow down")
	}
	res := &HeartbeatResult{Accepted: true, Interval: s.cfg.Interval}
	if in.GoingOffline != nil && *in.GoingOffline {
		if _, err := s.presence.Remove(ctx, presenceKey(ref.id)); err != nil {
			return nil, fmt.Errorf("fleet: unable to clear presence: %w", err)
		}
		reason := models.OfflinePlanned
		if err := s.transition(ctx, ref, models.MachineOffline, &reason, now); err != nil {
			return nil, err
		}
		st := models.MachineOffline
		res.Status = &st
		return res, nil
	}
	at := now
	if in.At != nil {
		at = in.At.UTC()
	}
	if now.Sub(at) > s.cfg.Grace() {
		// A replayed sample from an outage: acknowledged, not live state.
		return res, nil
	}
	value, err := json.Marshal(beat{At: at, Gpus: in.Gpus})
	if err != nil {
		return nil, fmt.Errorf("fleet: unable to encode telemetry: %w", err)
	}
	appeared, err := s.presence.Touch(ctx, presenceKey(ref.id), value, s.cfg.Grace())
	if err != nil {
		return nil, fmt.Errorf("fleet: unable to record presence: %w", err)
	}
	if appeared {
		if err := s.transition(ctx, ref, models.MachineOnline, nil, at); err != nil {
			return nil, err
		}
	}
	st := models.MachineOnline
	res.Status = &st
	if _, ok := s.pending.Load(ref.id); ok {
		if res.Commands, err = s.takeCommands(ctx, ref.id); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// transition moves a machine to status, recording the interval and
// announcing it, unless it is there already (so racing replicas record it
// once).
func (s *Service) transition(ctx context.Context, ref machineRef, to models.MachineStatus, reason *models.OfflineReason, at time.Time) error {
	from := models.MachineOffline
	if to == models.MachineOffline {
		from = models.MachineOnline
	}
	changed := false
	err := s.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		now := s.clock.Now()
		res, err := tx.NewUpdate().Model((*models.Machine)(nil)).
			Set("status = ?", to).Set("offline_reason = ?", reason).Set("status_changed_at = ?", at).Set("updated_at = ?", now).
			Where("id = ? AND status = ?", ref.id, from).Exec(ctx)
		if err != nil {
			return fmt.Errorf("fleet: unable to change status: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		changed = true
		if _, err := tx.NewUpdate().Model((*models.MachineStatusInterval)(nil)).Set("ended_at = ?", at).
			Where("machine_id = ? AND ended_at IS NULL", ref.id).Exec(ctx); err != nil {
			return fmt.Errorf("fleet: unable to close status interval: %w", err)
		}
		if _, err := tx.NewInsert().Model(&models.MachineStatusInterval{MachineID: ref.id, Status: to, Reason: reason, StartedAt: at}).Exec(ctx); err != nil {
			return fmt.Errorf("fleet: unable to open status interval: %w", err)
		}
		payload, _ := json.Marshal(transitionEvent{MachineID: ref.id, Status: to})
		store.AfterCommit(ctx, func() {
			pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			if err := s.bus.Publish(pctx, Channel(ref.providerID), payload); err != nil {
				s.logger.WarnContext(ctx, "fleet: unable to publish transition", "machine_id", ref.id, "err", err)
			}
		})
		return nil
	})
	if err == nil && changed {
		attrs := []any{"machine_id", ref.id, "status", to}
		if reason != nil {
			attrs = append(attrs, "reason", *reason)
		}
		s.logger.InfoContext(ctx, "fleet: machine status changed", attrs...)
	}
	return err
}
