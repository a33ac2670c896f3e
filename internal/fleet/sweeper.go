package fleet

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/presence"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// epochKey marks the presence store as continuous: if it disappears, the
// store was wiped (a Redis restart) and absent keys say nothing yet.
const epochKey = "fleet:epoch"

// outageKey is present for a grace period after any replica could not
// take a request because a dependency was out of reach (NoteOutage).
const outageKey = "fleet:outage"

// healEvery is how often the leader looks for heartbeating machines that
// SQL holds offline (Heal): a rare state, so once a minute.
const healEvery = time.Minute

// transitionFunc moves a machine to a status (see Service.transition).
type transitionFunc func(ctx context.Context, ref machineRef, to protocol.MachineStatus, reason *models.OfflineReason, at, lastBeat time.Time) error

// sweeper finds machines whose presence expired and marks them offline,
// and compacts the open uptime intervals; on one replica at a time, the
// one holding the leader lease.
type sweeper struct {
	db         *store.DB
	presence   presence.Store
	clock      clock.Clock
	logger     *slog.Logger
	cfg        Config
	transition transitionFunc
	// compactBatch is how many machines a compaction statement writes
	// (the const compactBatch; tests make it smaller).
	compactBatch int

	mu           sync.Mutex
	healthySince time.Time
	// seen is the latest heartbeat of each machine present at the sweep
	// of seenAt. A silent machine's key expires a grace period (three
	// intervals) after its last heartbeat, so the sweep before the one
	// that finds the key gone read that very heartbeat.
	seen   map[int64]time.Time
	seenAt time.Time

	// outageAt is when this replica last noted an outage (unix
	// nanoseconds, 0: never); outageTold when it last wrote outageKey.
	outageAt, outageTold atomic.Int64
}

func newSweeper(deps Deps, cfg Config, transition transitionFunc) *sweeper {
	return &sweeper{db: deps.DB, presence: deps.Presence, clock: deps.Clock, logger: deps.Logger, cfg: cfg, transition: transition, compactBatch: compactBatch}
}

// Sweep marks online machines whose presence expired offline (unplanned)
// and returns how many. It is safe on several replicas at once, but one
// runs it (RunBackground).
func (s *Service) Sweep(ctx context.Context) (int, error) { return s.sweeper.sweep(ctx) }

// Compact advances the open uptime interval of every online machine to its
// latest heartbeat, every CompactEvery, so a crash loses at most that much
// of the uptime record: a statement per thousand machines.
func (s *Service) Compact(ctx context.Context) error { return s.sweeper.compact(ctx) }

// NoteOutage records that the platform could not take a request now
// because a dependency (the database, Redis) was out of reach; the API
// calls it for every UNAVAILABLE answer. No machine is marked offline
// until a whole grace period after the latest outage noted on any replica
// (outageKey in the presence store, and this replica's own memory when
// that store is the one out of reach): a heartbeat the platform could not
// take is not the machine's downtime, and its agents have a grace to come
// back once the platform can take them again.
func (s *Service) NoteOutage(ctx context.Context) { s.sweeper.noteOutage(ctx) }

func (w *sweeper) noteOutage(ctx context.Context) {
	now := w.clock.Now()
	w.outageAt.Store(now.UnixNano())
	// Told at most once a second across this replica's requests, and
	// never waiting on a store that may be the one out of reach.
	if last := w.outageTold.Load(); now.UnixNano()-last < int64(time.Second) || !w.outageTold.CompareAndSwap(last, now.UnixNano()) {
		return
	}
	go func() {
		tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		if _, err := w.presence.Touch(tctx, outageKey, []byte(now.UTC().Format(time.RFC3339)), w.cfg.Grace()); err != nil {
			w.logger.DebugContext(tctx, "fleet: unable to share an outage", "err", err)
		}
	}()
}

// presenceTrusted reports whether absent presence keys can be believed:
// the store must have been continuously up (its epoch key present) for a
// whole grace period, so a wiped store lets agents heartbeat again before
// anyone is marked offline; and no replica may have noted an outage of the
// platform within a grace period (NoteOutage).
func (w *sweeper) presenceTrusted(ctx context.Context, now time.Time) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if at := w.outageAt.Load(); at != 0 && now.Sub(time.Unix(0, at)) < w.cfg.Grace() {
		return false
	}
	if _, outage, err := w.presence.Get(ctx, outageKey); err != nil || outage {
		if err != nil {
			w.healthySince = time.Time{}
		}
		return false
	}
	_, ok, err := w.presence.Get(ctx, epochKey)
	if err != nil {
		w.healthySince = time.Time{}
		return false
	}
	if !ok || w.healthySince.IsZero() {
		if _, err := w.presence.Touch(ctx, epochKey, []byte(now.Format(time.RFC3339)), 365*24*time.Hour); err != nil {
			w.healthySince = time.Time{}
			return false
		}
		w.healthySince = now
		return false
	}
	return now.Sub(w.healthySince) >= w.cfg.Grace()
}

func (w *sweeper) sweep(ctx context.Context) (int, error) {
	now := w.clock.Now()
	if !w.presenceTrusted(ctx, now) {
		// The heartbeats are still worth knowing while absent keys are
		// not believed: the first sweep that trusts them again bills an
		// interrupted rental to the last beat it saw, not to a guess.
		if online, present, err := w.onlinePresence(ctx); err == nil {
			w.remember(online, present, now)
		}
		return 0, nil
	}
	online, present, err := w.onlinePresence(ctx)
	if err != nil {
		return 0, err
	}
	seen, seenAt := w.remember(online, present, now)
	reason := models.OfflineUnplanned
	// The key expired one grace period after the last heartbeat, so that
	// is when the machine went offline. Its last heartbeat is the one the
	// previous sweep saw, if that sweep ran within a grace period (after
	// the heartbeat); otherwise the latest it can have been.
	expired := now.Add(-w.cfg.Grace())
	var gone []*models.Machine
	for _, m := range online {
		if _, ok := present[presenceKey(m.ID)]; !ok {
			gone = append(gone, m)
		}
	}
	// Each machine's transition is a transaction of its own (its status,
	// its intervals, its rentals ended and settled), independent of the
	// others': sweepAtOnce go at once. One after the other, the full soak's
	// hundred machines cut off at once took the sweep over a minute and a
	// half on a saturated database, so machines silent for three times
	// the grace were still shown online.
	var (
		n    atomic.Int64
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
		slot = make(chan struct{}, sweepAtOnce)
	)
	for _, m := range gone {
		slot <- struct{}{}
		wg.Go(func() {
			defer func() { <-slot }()
			swept, err := w.sweepOne(ctx, m, reason, expired, seen, seenAt)
			if swept {
				n.Add(1)
			}
			if err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return int(n.Load()), errors.Join(errs...)
}

// sweepAtOnce is how many machines one sweep takes offline at once.
const sweepAtOnce = 8

// sweepOne takes m, whose presence key had expired in the sweep's
// snapshot, offline at expired (its last beat the previous sweep's, when
// that sweep ran within the grace), and reports whether it did.
func (w *sweeper) sweepOne(ctx context.Context, m *models.Machine, reason models.OfflineReason, expired time.Time, seen map[int64]time.Time, seenAt time.Time) (bool, error) {
	key := presenceKey(m.ID)
	// A beat may have come since the snapshot (read again now), or may
	// come while the status is written: its own transition then found the
	// machine still online and changed nothing, and its key no longer
	// "appears". So presence is read once more after the write, and a
	// beat found there brings the machine back.
	if _, ok, err := w.presence.Get(ctx, key); err != nil || ok {
		return false, nil
	}
	lastBeat := expired
	if at, ok := seen[m.ID]; ok && !seenAt.Before(expired) {
		lastBeat = at
	}
	ref := machineRef{id: m.ID, providerID: m.ProviderID}
	if err := w.transition(ctx, ref, protocol.MachineOffline, &reason, expired, lastBeat); err != nil {
		return false, err
	}
	if raw, ok, err := w.presence.Get(ctx, key); err == nil && ok {
		if b, ok := beatOf(map[string][]byte{key: raw}, m.ID); ok {
			if err := w.transition(ctx, ref, protocol.MachineOnline, nil, b.At, b.At); err != nil {
				return true, err
			}
		}
	}
	return true, nil
}

// remember keeps the heartbeats of this sweep for the next one and returns
// those of the previous sweep, with its time.
func (w *sweeper) remember(online []*models.Machine, present map[string][]byte, now time.Time) (map[int64]time.Time, time.Time) {
	beats := make(map[int64]time.Time, len(present))
	for _, m := range online {
		if b, ok := beatOf(present, m.ID); ok {
			beats[m.ID] = b.At
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	seen, seenAt := w.seen, w.seenAt
	w.seen, w.seenAt = beats, now
	return seen, seenAt
}

// Heal brings online each machine SQL says is offline while presence
// holds a heartbeat of it from within the grace period: the state a beat
// leaves when presence took it but its transition failed and its key
// could not be cleared either (heartbeat.go), which no later beat would
// mend, since none of them "appears". It returns how many it brought
// online.
func (s *Service) Heal(ctx context.Context) (int, error) { return s.sweeper.heal(ctx) }

func (w *sweeper) heal(ctx context.Context) (int, error) {
	var offline []*models.Machine
	if err := w.db.NewSelect().Model(&offline).Column("id", "provider_id", "status_changed_at").Where("status = ?", protocol.MachineOffline).Scan(ctx); err != nil {
		return 0, err
	}
	if len(offline) == 0 {
		return 0, nil
	}
	keys := make([]string, len(offline))
	for i, m := range offline {
		keys[i] = presenceKey(m.ID)
	}
	present, err := w.presence.GetMany(ctx, keys)
	if err != nil {
		return 0, err
	}
	now, n := w.clock.Now(), 0
	for _, m := range offline {
		// A beat from before the machine went offline (its going-offline
		// beat's key not yet cleared) says nothing of it now.
		b, ok := beatOf(present, m.ID)
		if !ok || now.Sub(b.At) > w.cfg.Grace() || !b.At.After(m.StatusChangedAt) {
			continue
		}
		if err := w.transition(ctx, machineRef{id: m.ID, providerID: m.ProviderID}, protocol.MachineOnline, nil, b.At, b.At); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// compactBatch is how many open intervals one compaction statement
// advances.
const compactBatch = 1000

// compact writes each online machine's latest beat into its open
// interval: one statement per compactBatch machines (a VALUES list joined
// to the open intervals), not one per machine. The full soak (2,500
// machines on a saturated 2-core host) found the statement per machine
// holding the leader's sweep loop for over ten minutes, each statement
// waiting its turn for a pooled connection; meanwhile no machine was
// swept offline and none healed.
func (w *sweeper) compact(ctx context.Context) error {
	online, present, err := w.onlinePresence(ctx)
	if err != nil {
		return err
	}
	type seen struct {
		id int64
		at time.Time
	}
	var rows []seen
	for _, m := range online {
		if b, ok := beatOf(present, m.ID); ok {
			rows = append(rows, seen{m.ID, b.At.UTC()})
		}
	}
	for batch := range slices.Chunk(rows, w.compactBatch) {
		args := make([]any, 0, 2*len(batch))
		for _, r := range batch {
			args = append(args, r.id, r.at)
		}
		// VALUES' columns are column1, column2 on both databases; the
		// beat's time is a literal PostgreSQL reads as text until cast.
		q := `UPDATE machine_status_intervals SET last_seen_at = ` + w.db.AsTimestamp("v.column2") + `
			FROM (VALUES ` + strings.Repeat("(?, ?), ", len(batch)-1) + `(?, ?)) AS v
			WHERE machine_status_intervals.machine_id = v.column1 AND machine_status_intervals.ended_at IS NULL`
		if _, err := w.db.ExecContext(ctx, q, args...); err != nil {
			return err
		}
	}
	return nil
}

// onlinePresence lists the machines SQL says are online, with the presence
// values of those still present.
func (w *sweeper) onlinePresence(ctx context.Context) ([]*models.Machine, map[string][]byte, error) {
	var online []*models.Machine
	if err := w.db.NewSelect().Model(&online).Column("id", "provider_id").Where("status = ?", protocol.MachineOnline).Scan(ctx); err != nil {
		return nil, nil, err
	}
	if len(online) == 0 {
		return nil, nil, nil
	}
	keys := make([]string, len(online))
	for i, m := range online {
		keys[i] = presenceKey(m.ID)
	}
	present, err := w.presence.GetMany(ctx, keys)
	return online, present, err
}

// run sweeps every interval and compacts every CompactEvery while this
// replica holds the leader lease, trying to take it each interval, until
// ctx ends.
func (w *sweeper) run(ctx context.Context) {
	ticker := time.NewTicker(w.cfg.Interval)
	defer ticker.Stop()
	var lease *store.Lease
	defer func() { lease.Release() }()
	lastCompact, lastHeal := w.clock.Now(), w.clock.Now()
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
				if lease, err = w.db.TryLead(ctx, "fleet-sweeper"); err != nil || lease == nil {
					continue
				}
				w.logger.InfoContext(ctx, "fleet: this replica sweeps for offline machines")
			}
			if n, err := w.sweep(ctx); err != nil && ctx.Err() == nil {
				w.logger.WarnContext(ctx, "fleet: sweep failed", "err", err)
			} else if n > 0 {
				w.logger.InfoContext(ctx, "fleet: machines went offline", "count", n)
			}
			if now := w.clock.Now(); now.Sub(lastHeal) >= healEvery {
				lastHeal = now
				if n, err := w.heal(ctx); err != nil && ctx.Err() == nil {
					w.logger.WarnContext(ctx, "fleet: heal failed", "err", err)
				} else if n > 0 {
					w.logger.WarnContext(ctx, "fleet: heartbeating machines recorded offline were brought online", "count", n)
				}
			}
			if now := w.clock.Now(); now.Sub(lastCompact) >= w.cfg.CompactEvery {
				lastCompact = now
				if err := w.compact(ctx); err != nil && ctx.Err() == nil {
					w.logger.WarnContext(ctx, "fleet: compaction failed", "err", err)
				}
			}
		}
	}
}
