package fleet

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/uptrace/bun"

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
		Relation("Gpus", func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.Where("mg.removed_at IS NULL").OrderExpr("mg.idx ASC")
		}).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("fleet: unable to list machines: %w", err)
	}
	return ms, s.attachLive(ctx, ms)
}

// Machine returns one machine with its GPUs and live telemetry.
func (s *Service) Machine(ctx context.Context, id int64) (*models.Machine, error) {
	m := new(models.Machine)
	err := s.deps.DB.NewSelect().Model(m).Where("m.id = ?", id).
		Relation("Gpus", func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.Where("mg.removed_at IS NULL").OrderExpr("mg.idx ASC")
		}).Scan(ctx)
	if store.IsNoRows(err) {
		return nil, fault.E(fault.NotFound, "no such machine")
	}
	if err != nil {
		return nil, fmt.Errorf("fleet: unable to load machine: %w", err)
	}
	return m, s.attachLive(ctx, []*models.Machine{m})
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
		if m.Status == models.MachineOnline {
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
		b, ok := beatOf(values, m.ID)
		if !ok {
			continue
		}
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
	return nil
}

// StatusEvent is one message of a machineStatusChanged subscription.
type StatusEvent struct {
	Machine *models.Machine
	Initial bool
}

// Subscribe streams providerID's machines: every machine's current state
// first (Initial), then each transition as it happens, until ctx ends. The
// channel closes early if the subscriber falls behind; resubscribing sends
// the current state again, so nothing that matters is lost. A transition
// is loaded once per replica for every dashboard of the provider, not once
// per dashboard (bus.Shared); the events are shared and read-only.
func (s *Service) Subscribe(ctx context.Context, providerID int64) (<-chan *StatusEvent, error) {
	current := func(ctx context.Context) ([]*StatusEvent, error) {
		ms, err := s.Machines(ctx, providerID)
		if err != nil {
			return nil, err
		}
		evs := make([]*StatusEvent, len(ms))
		for i, m := range ms {
			evs[i] = &StatusEvent{Machine: m, Initial: true}
		}
		return evs, nil
	}
	return s.statuses.Follow(ctx, Channel(providerID), current, nil)
}

// resolveTransition loads the machine a transition message names.
func (s *Service) resolveTransition(ctx context.Context, msg bus.Message) (*StatusEvent, bool) {
	var ev transitionEvent
	if err := json.Unmarshal(msg.Payload, &ev); err != nil {
		return nil, false
	}
	m, err := s.Machine(ctx, ev.MachineID)
	if err != nil {
		if ctx.Err() == nil {
			s.deps.Logger.WarnContext(ctx, "fleet: unable to load machine for event", "machine_id", ev.MachineID, "err", err)
		}
		return nil, false
	}
	return &StatusEvent{Machine: m}, true
}
