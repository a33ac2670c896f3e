package auth

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/alexedwards/argon2id"

	"github.com/gpunex/gpunex/internal/fault"
)

// DefaultHashWait is how long a sign-in waits for a free hashing slot
// before it is answered RATE_LIMITED.
const DefaultHashWait = 2 * time.Second

// hasher runs argon2id, the one costly step of signing in: each hash or
// verification holds Params.Memory (64 MiB by default) while it runs. At
// most cap(slots) run at once, so the memory sign-ins take is bounded by
// the configuration, not by how many arrive; a caller that finds no slot
// within wait is refused rather than queued without end.
type hasher struct {
	params *argon2id.Params
	slots  chan struct{}
	wait   time.Duration
	// started counts hashes and verifications begun (PasswordChecks);
	// running counts those in progress.
	started atomic.Int64
	running atomic.Int64
	// inSlot, set by tests only, runs while a slot is held, before the
	// hash.
	inSlot func()
}

func newHasher(params *argon2id.Params, concurrent int, wait time.Duration) *hasher {
	return &hasher{params: params, slots: make(chan struct{}, concurrent), wait: wait}
}

// do runs fn holding a slot, or answers RATE_LIMITED when none frees up in
// time (and ctx's error when ctx ends first).
func (h *hasher) do(ctx context.Context, fn func()) error {
	select {
	case h.slots <- struct{}{}:
	default:
		timer := time.NewTimer(h.wait)
		defer timer.Stop()
		select {
		case h.slots <- struct{}{}:
		case <-timer.C:
			return fault.E(fault.RateLimited, "the server is busy signing others in; try again in a moment")
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	defer func() { <-h.slots }()
	h.started.Add(1)
	h.running.Add(1)
	defer h.running.Add(-1)
	if h.inSlot != nil {
		h.inSlot()
	}
	fn()
	return nil
}

// hash derives the stored hash of a new password.
func (h *hasher) hash(ctx context.Context, password string) (hash string, err error) {
	if slotErr := h.do(ctx, func() { hash, err = argon2id.CreateHash(password, h.params) }); slotErr != nil {
		return "", slotErr
	}
	return hash, err
}

// verify reports whether password matches hash.
func (h *hasher) verify(ctx context.Context, password, hash string) (ok bool, err error) {
	if slotErr := h.do(ctx, func() { ok, err = argon2id.ComparePasswordAndHash(password, hash) }); slotErr != nil {
		return false, slotErr
	}
	return ok, err
}

// PasswordChecks reports how many password hashes and verifications this
// service has begun: what a test counts to show a request was refused
// before any password was tried.
func (s *Service) PasswordChecks() int64 { return s.hasher.started.Load() }
