package mail

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// Defaults of WorkerConfig.
const (
	DefaultInterval    = 2 * time.Second
	DefaultLease       = 2 * time.Minute
	DefaultSendTimeout = 30 * time.Second
	DefaultMaxAttempts = 8
	DefaultBatchSize   = 50
)

// Backoff bounds of ExponentialBackoff.
const (
	backoffBase = 10 * time.Second
	backoffCap  = time.Hour
)

// maxErrorLen bounds the last_error kept per row.
const maxErrorLen = 1000

// WorkerConfig tunes a Worker; zero fields take the defaults.
type WorkerConfig struct {
	// Interval between polls of the outbox (DefaultInterval). It paces the
	// loop in wall time; whether a row is due is decided by the clock.
	Interval time.Duration
	// Lease is how long a claimed row stays reserved for this worker
	// (DefaultLease). A worker that dies mid-send loses its claims when
	// the lease ends, and another replica sends them. A SendTimeout
	// not shorter than the lease is cut to half of it.
	Lease time.Duration
	// SendTimeout bounds one delivery (DefaultSendTimeout).
	SendTimeout time.Duration
	// MaxAttempts is how many deliveries are tried before the row is
	// marked failed (DefaultMaxAttempts). A permanent failure (see
	// Sender) fails the row at its first attempt.
	MaxAttempts int
	// BatchSize is how many due rows are fetched per query
	// (DefaultBatchSize).
	BatchSize int
	// Backoff gives the wait before the next try after the n-th failed
	// attempt (n ≥ 1); ExponentialBackoff when nil.
	Backoff func(n int) time.Duration
}

// ExponentialBackoff is 10s·2^(n-1) capped at one hour, with "equal
// jitter": a random wait between half of that and all of it, so replicas
// and messages that failed together do not retry together.
func ExponentialBackoff(n int) time.Duration {
	d := backoffCap
	if n < 1 {
		n = 1
	}
	if n <= 20 { // 10s·2^19 is already past the cap
		d = min(backoffBase<<(n-1), backoffCap)
	}
	half := d / 2
	return half + rand.N(d-half+1)
}

// Worker sends the outbox's due emails. Run one per replica; claims make
// each email go out once even when several replicas poll one database.
type Worker struct {
	deps WorkerDeps
	cfg  WorkerConfig
	kick chan struct{}
}

// WorkerDeps are what the worker uses.
type WorkerDeps struct {
	// DB reads the outbox (a *store.DB).
	DB bun.IDB
	// Sender delivers each message.
	Sender Sender
	// Clock stamps times and decides what is due.
	Clock clock.Clock
	// Logger may be nil (discard).
	Logger *slog.Logger
}

// NewWorker returns the outbox's delivery worker (the services' shape:
// dependencies, then configuration).
func NewWorker(deps WorkerDeps, cfg WorkerConfig) *Worker {
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultInterval
	}
	if cfg.SendTimeout <= 0 {
		cfg.SendTimeout = DefaultSendTimeout
	}
	if cfg.Lease <= 0 {
		cfg.Lease = max(DefaultLease, 2*cfg.SendTimeout)
	}
	if cfg.SendTimeout >= cfg.Lease {
		// A send outliving its lease could be claimed and sent twice.
		cfg.SendTimeout = cfg.Lease / 2
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = DefaultMaxAttempts
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = DefaultBatchSize
	}
	if cfg.Backoff == nil {
		cfg.Backoff = ExponentialBackoff
	}
	if deps.Logger == nil {
		deps.Logger = slog.New(slog.DiscardHandler)
	}
	return &Worker{deps: deps, cfg: cfg, kick: make(chan struct{}, 1)}
}

// Kick wakes Run at once instead of at the next poll. It never blocks;
// kicks while Run is busy fold into one more pass.
func (w *Worker) Kick() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// Run sends due emails until ctx ends, polling every Interval and whenever
// Kick is called. It starts no goroutine, and returns nil once ctx is done.
// A delivery interrupted by the end of ctx is released, not counted as a
// failed attempt.
func (w *Worker) Run(ctx context.Context) error {
	ticker := time.NewTicker(w.cfg.Interval)
	defer ticker.Stop()
	for {
		if _, err := w.SendDue(ctx); err != nil && ctx.Err() == nil {
			w.deps.Logger.ErrorContext(ctx, "mail: outbox pass failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		case <-w.kick:
		}
	}
}

// SendDue makes one pass: it claims and delivers every row due by the
// clock's now, and returns how many were delivered. Run calls it; tests
// call it directly to step through time with a manual clock.
func (w *Worker) SendDue(ctx context.Context) (int, error) {
	sent := 0
	for ctx.Err() == nil {
		now := w.deps.Clock.Now().UTC()
		var ids []int64
		err := w.deps.DB.NewSelect().Model((*models.OutboxEmail)(nil)).Column("id").
			Where("sent_at IS NULL").
			Where("failed_at IS NULL").
			Where("next_attempt_at <= ?", now).
			Where("(locked_until IS NULL OR locked_until < ?)", now).
			OrderExpr("next_attempt_at, id").
			Limit(int64(w.cfg.BatchSize)).
			Scan(ctx, &ids)
		if err != nil {
			return sent, fmt.Errorf("mail: unable to list due emails: %w", err)
		}
		claimed := 0
		for _, id := range ids {
			row, err := w.claim(ctx, id)
			if err != nil {
				return sent, err
			}
			if row == nil {
				continue // another worker has it
			}
			claimed++
			ok, err := w.deliver(ctx, row)
			if err != nil {
				return sent, err
			}
			if ok {
				sent++
			}
		}
		if len(ids) < w.cfg.BatchSize || claimed == 0 {
			break
		}
	}
	return sent, nil
}

// claim reserves one row for this worker with a conditional UPDATE: of
// several workers racing for a row, exactly one sees it change. It returns
// nil when the row was taken, sent or not yet due.
func (w *Worker) claim(ctx context.Context, id int64) (*models.OutboxEmail, error) {
	now := w.deps.Clock.Now().UTC()
	row := new(models.OutboxEmail)
	err := w.deps.DB.NewUpdate().Model(row).
		Set("locked_until = ?", now.Add(w.cfg.Lease)).
		Where("id = ?", id).
		Where("sent_at IS NULL").
		Where("failed_at IS NULL").
		Where("next_attempt_at <= ?", now).
		Where("(locked_until IS NULL OR locked_until < ?)", now).
		Returning("*").
		Scan(ctx)
	if store.IsNoRows(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mail: unable to claim email %d: %w", id, err)
	}
	return row, nil
}

// deliver sends a claimed row and records the outcome. It reports whether
// the email was sent; the error is for the database only.
func (w *Worker) deliver(ctx context.Context, row *models.OutboxEmail) (bool, error) {
	msg := Message{
		To:       row.ToAddress,
		Subject:  row.Subject,
		Text:     row.TextBody,
		HTML:     row.HTMLBody,
		Language: row.Language,
		Kind:     row.Kind,
		ID:       row.ID,
		Created:  row.CreatedAt,
	}
	sendCtx, cancel := context.WithTimeout(ctx, w.cfg.SendTimeout)
	sendErr := w.deps.Sender.Send(sendCtx, msg)
	cancel()
	// The outcome is recorded even if ctx has just ended: the email left.
	dbCtx := context.WithoutCancel(ctx)
	now := w.deps.Clock.Now().UTC()
	attempt := row.Attempts + 1
	log := w.deps.Logger.With("email_id", row.ID, "kind", row.Kind, "attempt", attempt)

	if sendErr == nil {
		_, err := w.deps.DB.NewUpdate().Model((*models.OutboxEmail)(nil)).
			Set("sent_at = ?", now).
			Set("attempts = ?", attempt).
			Set("locked_until = NULL").
			Where("id = ?", row.ID).
			Where("sent_at IS NULL").
			Exec(dbCtx)
		if err != nil {
			return true, fmt.Errorf("mail: email %d was sent but could not be marked sent: %w", row.ID, err)
		}
		log.InfoContext(ctx, "mail: email sent")
		return true, nil
	}

	permanent := isPermanent(sendErr)
	if ctx.Err() != nil && !permanent {
		// Shutting down: release the claim so another replica (or this
		// one, restarted) sends it, without spending an attempt.
		_, err := w.deps.DB.NewUpdate().Model((*models.OutboxEmail)(nil)).
			Set("locked_until = NULL").
			Where("id = ?", row.ID).
			Where("sent_at IS NULL").
			Exec(dbCtx)
		return false, err
	}

	q := w.deps.DB.NewUpdate().Model((*models.OutboxEmail)(nil)).
		Set("attempts = ?", attempt).
		Set("last_error = ?", truncate(sendErr.Error(), maxErrorLen)).
		Set("locked_until = NULL").
		Where("id = ?", row.ID).
		Where("sent_at IS NULL").
		Where("attempts = ?", row.Attempts)
	switch {
	case permanent:
		// No retry can deliver it: fail it now, with the reason in
		// last_error, rather than after MaxAttempts over hours.
		q = q.Set("failed_at = ?", now)
		log.ErrorContext(ctx, "mail: email failed permanently, not retrying", "err", sendErr)
	case attempt >= w.cfg.MaxAttempts:
		q = q.Set("failed_at = ?", now)
		log.ErrorContext(ctx, "mail: giving up on email", "err", sendErr)
	default:
		next := now.Add(w.cfg.Backoff(attempt))
		q = q.Set("next_attempt_at = ?", next)
		log.WarnContext(ctx, "mail: delivery failed, will retry", "err", sendErr, "next_attempt_at", next)
	}
	if _, err := q.Exec(dbCtx); err != nil {
		return false, fmt.Errorf("mail: unable to record the failure of email %d: %w", row.ID, err)
	}
	return false, nil
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}
