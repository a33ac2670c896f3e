package fleet

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// Machines returns providerID's machines with their current GPUs and live
// telemetry, oldest first.
func (s *Service) Machines(ctx context.Context, providerID int64) ([]*models.Machine, error) {
	var ms []*models.Machine
	err := s.deps.DB.NewSelect().Model(&ms).Where("m.provider_id = ?", providerID).OrderExpr("m.id ASC").
		Relation("Gpus", currentGpus).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("fleet: unable to list machines: %w", err)
	}
	return ms, s.attachLive(ctx, ms)
}

// Machine returns one machine with its GPUs and live telemetry.
func (s *Service) Machine(ctx context.Context, id int64) (*models.Machine, error) {
	m, err := s.machineRow(ctx, id)
	if err != nil {
		return nil, err
	}
	return m, s.attachLive(ctx, []*models.Machine{m})
}

// machineRow loads one machine with its GPUs, without live state.
func (s *Service) machineRow(ctx context.Context, id int64) (*models.Machine, error) {
	m := new(models.Machine)
	err := s.deps.DB.NewSelect().Model(m).Where("m.id = ?", id).
		Relation("Gpus", currentGpus).Scan(ctx)
	if store.IsNoRows(err) {
		return nil, fault.E(fault.NotFound, "no such machine")
	}
	if err != nil {
		return nil, fmt.Errorf("fleet: unable to load machine: %w", err)
	}
	return m, nil
}

// currentGpus selects a machine's current GPUs in index order, each with
// its listing (what its benchmarks decided, PENDING before the first) and
// whether a rental holds it now, in the same statement: the Overview shows
// both beside the GPU's telemetry, and every machine event carries them.
func currentGpus(q *bun.SelectQuery) *bun.SelectQuery {
	return q.ColumnExpr("mg.*").
		ColumnExpr("COALESCE((SELECT gbs.listing FROM gpu_bench_status AS gbs WHERE gbs.gpu_id = mg.id), ?) AS listing", models.GpuListingPending).
		ColumnExpr("EXISTS (SELECT 1 FROM gpu_allocations AS ga WHERE ga.gpu_id = mg.id) AS rented").
		Where("mg.removed_at IS NULL").OrderExpr("mg.idx ASC")
}

// attachLive fills in the latest heartbeat and telemetry of online
// machines from the presence store, in one round trip. An offline machine
// keeps the last heartbeat its transition recorded, and no telemetry.
//
// For an online machine the column is never the answer: it holds the
// session's first beat, hours old on a machine that has been up that long.
// Its last heartbeat is the live one or, when the presence record is gone
// (expired before the sweeper ran) or unreadable, unknown (nil), never
// the stale column.
func (s *Service) attachLive(ctx context.Context, ms []*models.Machine) error {
	keys := make([]string, 0, len(ms))
	for _, m := range ms {
		if m.Status == protocol.MachineOnline {
			m.LastHeartbeatAt = nil
			keys = append(keys, presenceKey(m.ID))
		}
	}
	if len(keys) == 0 {
		return nil
	}
	values, err := s.deps.Presence.GetMany(ctx, keys)
	if err != nil {
		// The dashboard still shows status from SQL; telemetry waits.
		s.deps.Logger.WarnContext(ctx, "fleet: unable to read presence", "err", err)
		return nil
	}
	for _, m := range ms {
		if b, ok := beatOf(values, m.ID); ok {
			showBeat(m, b)
		}
	}
	return nil
}

// showBeat makes b an online machine's latest heartbeat and telemetry.
func showBeat(m *models.Machine, b beat) {
	at := b.At
	m.LastHeartbeatAt = &at
	byUUID := make(map[string]*models.GpuTelemetry, len(b.Gpus))
	for i := range b.Gpus {
		byUUID[b.Gpus[i].UUID] = &models.GpuTelemetry{GpuTelemetry: b.Gpus[i], At: at}
	}
	for _, g := range m.Gpus {
		g.Telemetry = byUUID[g.UUID]
	}
}

// StatusEvent is one message of a machineStatusChanged subscription: the
// whole machine, and what brought it.
type StatusEvent struct {
	Machine *models.Machine
	Kind    models.MachineEventKind
}

// Initial reports whether the event is a machine's current state, sent
// when the subscription starts.
func (e *StatusEvent) Initial() bool { return e.Kind == models.MachineEventInitial }

// Subscribe streams providerID's machines: every machine's current state
// first (INITIAL), then each transition (STATUS) and each telemetry
// sample of an online machine (TELEMETRY, see Config.TelemetryEvery) as
// they happen, until ctx ends. Every event is the whole machine. The
// channel closes early if the subscriber falls behind; resubscribing sends
// the current state again, so nothing that matters is lost. An event is
// resolved once per replica for every dashboard of the provider, not once
// per dashboard (bus.Shared); the events are shared and read-only.
func (s *Service) Subscribe(ctx context.Context, providerID int64) (<-chan *StatusEvent, error) {
	current := func(ctx context.Context) ([]*StatusEvent, error) {
		ms, err := s.Machines(ctx, providerID)
		if err != nil {
			return nil, err
		}
		evs := make([]*StatusEvent, len(ms))
		for i, m := range ms {
			evs[i] = &StatusEvent{Machine: m, Kind: models.MachineEventInitial}
		}
		return evs, nil
	}
	return s.statuses.Follow(ctx, Channel(providerID), current, nil)
}

// resolveEvent loads the machine an event names: for a transition, with
// its live state from the presence store; for a telemetry sample, with the
// sample the event carries. A sample of a machine that is no longer
// online (its transition offline overtook it) is dropped.
func (s *Service) resolveEvent(ctx context.Context, msg bus.Message) (*StatusEvent, bool) {
	var ev machineEvent
	if err := json.Unmarshal(msg.Payload, &ev); err != nil {
		return nil, false
	}
	var sample beat
	if ev.Beat != nil {
		if err := json.Unmarshal(ev.Beat, &sample); err != nil {
			return nil, false
		}
	}
	load := s.Machine
	if ev.Beat != nil {
		load = s.machineRow
	}
	m, err := load(ctx, ev.MachineID)
	if err != nil {
		if ctx.Err() == nil {
			s.deps.Logger.WarnContext(ctx, "fleet: unable to load machine for event", "machine_id", ev.MachineID, "err", err)
		}
		return nil, false
	}
	if ev.Beat == nil {
		return &StatusEvent{Machine: m, Kind: models.MachineEventStatus}, true
	}
	if m.Status != protocol.MachineOnline {
		return nil, false
	}
	showBeat(m, sample)
	return &StatusEvent{Machine: m, Kind: models.MachineEventTelemetry}, true
}
