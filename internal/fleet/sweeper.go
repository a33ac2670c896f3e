package fleet

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// epochKey marks the presence store as continuous: if it disappears, the
// store was wiped (a Redis restart) and absent keys say nothing yet.
const epochKey = "fleet:epoch"

// presenceTrusted reports whether absent presence keys can be believed:
// the store must have been continuously up (its epoch key present) for a
// whole grace period, so a wiped store lets agents heartbeat again before
// anyone is marked offline.
func (s *Service) presenceTrusted(ctx context.Context, now time.Time) bool {
	s.sweepMu.Lock()
	defer s.sweepMu.Unlock()
	_, ok, err := s.presence.Get(ctx, epochKey)
	if err != nil {
		s.healthySince = time.Time{}
		return false
	}
	if !ok || s.healthySince.IsZero() {
		if _, err := s.presence.Touch(ctx, epochKey, []byte(now.Format(time.RFC3339)), 365*24*time.Hour); err != nil {
			s.healthySince = time.Time{}
			return false
		}
		s.healthySince = now
		return false
	}
	return now.Sub(s.healthySince) >= s.cfg.Grace()
}

// Sweep marks online machines whose presence expired offline (unplanned)
// and returns how many. It is safe on several replicas at once, but one
// runs it (RunBackground).
func (s *Service) Sweep(ctx context.Context) (int, error) {
	now := s.clock.Now()
	if !s.presenceTrusted(ctx, now) {
		return 0, nil
	}
	online, present, err := s.onlinePresence(ctx)
	if err != nil || len(online) == 0 {
		return 0, err
	}
	n := 0
	reason := models.OfflineUnplanned
	for _, m := range online {
		if _, ok := present[presenceKey(m.ID)]; ok {
			continue
		}
		// The key expired one grace period after the last heartbeat.
		if err := s.transition(ctx, machineRef{id: m.ID, providerID: m.ProviderID}, models.MachineOffline, &reason, now.Add(-s.cfg.Grace())); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// Compact advances the open uptime interval of every online machine to its
// latest heartbeat: one write per machine per CompactEvery, so a crash
// loses at most that much of the uptime record.
func (s *Service) Compact(ctx context.Context) error {
	online, present, err := s.onlinePresence(ctx)
	if err != nil {
		return err
	}
	for _, m := range online {
		b, ok := beatOf(present, m.ID)
		if !ok {
			continue
		}
		if _, err := s.db.NewUpdate().Model((*models.MachineStatusInterval)(nil)).Set("last_seen_at = ?", b.At).
			Where("machine_id = ? AND ended_at IS NULL", m.ID).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

// onlinePresence lists the machines SQL says are online, with the presence
// values of those still present.
func (s *Service) onlinePresence(ctx context.Context) ([]*models.Machine, map[string][]byte, error) {
	var online []*models.Machine
	if err := s.db.NewSelect().Model(&online).Column("id", "provider_id").Where("status = ?", models.MachineOnline).Scan(ctx); err != nil {
		return nil, nil, err
	}
	if len(online) == 0 {
		return nil, nil, nil
	}
	keys := make([]string, len(online))
	for i, m := range online {
		keys[i] = presenceKey(m.ID)
	}
	present, err := s.presence.GetMany(ctx, keys)
	return online, present, err
}

// RunBackground runs until ctx ends: on every replica it listens for
// queued commands; on the one replica that leads, it sweeps every interval
// and compacts every CompactEvery.
func (s *Service) RunBackground(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() {
		// After any gap, the pending set is reloaded from SQL.
		bus.Listen(ctx, s.bus, commandsChannel, s.logger, func() { s.loadPending(ctx) }, func(m bus.Message) {
			if id, err := strconv.ParseInt(string(m.Payload), 10, 64); err == nil {
				s.pending.Store(id, struct{}{})
			}
		})
	})
	ticker := time.NewTicker(s.cfg.Interval)
	defer ticker.Stop()
	var lease *store.Lease
	defer func() { lease.Release() }()
	lastCompact := s.clock.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			if lease != nil && !lease.Alive(ctx) {
				lease.Release()
				lease = nil
			}
			if lease == nil {
				var err error
				if lease, err = s.db.TryLead(ctx, "fleet-sweeper"); err != nil || lease == nil {
					continue
				}
				s.logger.InfoContext(ctx, "fleet: this replica sweeps for offline machines")
			}
			if n, err := s.Sweep(ctx); err != nil && ctx.Err() == nil {
				s.logger.WarnContext(ctx, "fleet: sweep failed", "err", err)
			} else if n > 0 {
				s.logger.InfoContext(ctx, "fleet: machines went offline", "count", n)
			}
			if now := s.clock.Now(); now.Sub(lastCompact) >= s.cfg.CompactEvery {
				lastCompact = now
				if err := s.Compact(ctx); err != nil && ctx.Err() == nil {
					s.logger.WarnContext(ctx, "fleet: compaction failed", "err", err)
				}
			}
		}
	}
}

// loadPending remembers machines with undelivered commands at start.
func (s *Service) loadPending(ctx context.Context) {
	var ids []int64
	if err := s.db.NewSelect().Model((*models.AgentCommand)(nil)).Column("machine_id").Distinct().
		Where("delivered_at IS NULL").Scan(ctx, &ids); err != nil {
		s.logger.WarnContext(ctx, "fleet: unable to load pending commands", "err", err)
		return
	}
	for _, id := range ids {
		s.pending.Store(id, struct{}{})
	}
}
