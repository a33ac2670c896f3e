package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/fault"
)

// AttemptStore keeps the counters that limit sign-in attempts. The memory
// implementation serves one replica; the Redis one lets replicas share
// them, so spreading guesses over replicas gains nothing.
type AttemptStore interface {
	// Incr adds n (at least one) to key's count and returns the new
	// count. A count that did not exist expires ttl after this first
	// increment.
	Incr(ctx context.Context, key string, n int64, ttl time.Duration) (int64, error)
	// Block marks key blocked for d.
	Block(ctx context.Context, key string, d time.Duration) error
	// Blocked returns how much longer key is blocked (zero: it is not).
	Blocked(ctx context.Context, key string) (time.Duration, error)
	// Reset forgets keys.
	Reset(ctx context.Context, keys ...string) error
}

// Limits bound sign-in attempts. Zero fields take the defaults of
// DefaultLimits.
type Limits struct {
	// AccountFailures wrong passwords for one email within FailureWindow
	// lock that email out; AddressFailures from one client address lock
	// the address out (across accounts).
	AccountFailures int
	AddressFailures int
	FailureWindow   time.Duration
	// Lockout is the first lockout; each further one within LockoutMemory
	// lasts twice the one before, up to MaxLockout.
	Lockout       time.Duration
	MaxLockout    time.Duration
	LockoutMemory time.Duration
	// SignUps from one client address within SignUpWindow; more are
	// refused until the window ends.
	SignUps      int
	SignUpWindow time.Duration
	// Writes bounds the mutations one user (or, signed out, one client
	// address; or one agent token) may make within WriteWindow, each
	// mutation field counted, across replicas when Redis is configured.
	// Sign-in fields have the limits above instead; the agent's heartbeat
	// is not counted (its interval is the server's).
	Writes      int
	WriteWindow time.Duration
}

// DefaultLimits are the production limits.
var DefaultLimits = Limits{
	AccountFailures: 10, AddressFailures: 30, FailureWindow: time.Minute,
	Lockout: time.Minute, MaxLockout: 15 * time.Minute, LockoutMemory: 24 * time.Hour,
	SignUps: 10, SignUpWindow: time.Hour,
	Writes: 60, WriteWindow: time.Minute,
}

func (l *Limits) defaults() {
	d := DefaultLimits
	for _, f := range []struct {
		v   *int
		def int
	}{{&l.AccountFailures, d.AccountFailures}, {&l.AddressFailures, d.AddressFailures}, {&l.SignUps, d.SignUps}, {&l.Writes, d.Writes}} {
		if *f.v <= 0 {
			*f.v = f.def
		}
	}
	for _, f := range []struct {
		v   *time.Duration
		def time.Duration
	}{{&l.FailureWindow, d.FailureWindow}, {&l.Lockout, d.Lockout}, {&l.MaxLockout, d.MaxLockout},
		{&l.LockoutMemory, d.LockoutMemory}, {&l.SignUpWindow, d.SignUpWindow}, {&l.WriteWindow, d.WriteWindow}} {
		if *f.v <= 0 {
			*f.v = f.def
		}
	}
}

type clientAddrKey struct{}

// WithClientAddr records the address of the client making the request,
// which sign-in and sign-up limits and an anonymous caller's writes count
// by.
func WithClientAddr(ctx context.Context, addr string) context.Context {
	return context.WithValue(ctx, clientAddrKey{}, addr)
}

// WithClientAddrFunc records how to tell the address of the client making
// the request: addr is called each time ClientAddr is, which few requests
// do (sign-in, sign-up, an anonymous caller's mutations), so the HTTP
// layer hands its rule (the peer, or the nearest untrusted hop behind
// trusted proxies) without applying it to every query and heartbeat.
// addr must give the same answer each time.
func WithClientAddrFunc(ctx context.Context, addr func() string) context.Context {
	return context.WithValue(ctx, clientAddrKey{}, addr)
}

// ClientAddr returns the client address of ctx, empty when unknown (the
// operator's CLI): then only the per-account limits apply.
func ClientAddr(ctx context.Context) string {
	switch a := ctx.Value(clientAddrKey{}).(type) {
	case string:
		return a
	case func() string:
		return a()
	}
	return ""
}

// limiter applies Limits over an AttemptStore. A store that fails lets the
// attempt through, logged: the hashing bound still protects the server,
// and an outage of Redis must not lock every user out.
type limiter struct {
	store  AttemptStore
	limits Limits
	svc    *Service
}

// subject names one counted thing: an account or an address, for logIn
// or signUp. Emails are hashed so the store never holds them.
type subject string

func accountSubject(email string) subject {
	sum := sha256.Sum256([]byte(email))
	return subject("login:account:" + hex.EncodeToString(sum[:16]))
}
func addressSubject(op, addr string) subject { return subject(op + ":address:" + addr) }

func (s subject) failures() string { return "auth:" + string(s) + ":failures" }
func (s subject) lock() string     { return "auth:" + string(s) + ":lock" }
func (s subject) level() string    { return "auth:" + string(s) + ":level" }

// logInSubjects are what a logIn counts against: the account, and the
// address when known.
func logInSubjects(email, addr string) []subject {
	subs := []subject{accountSubject(email)}
	if addr != "" {
		subs = append(subs, addressSubject("login", addr))
	}
	return subs
}

// checkLogIn refuses a logIn while its account or address is locked out.
func (l *limiter) checkLogIn(ctx context.Context, email, addr string) error {
	for _, sub := range logInSubjects(email, addr) {
		d, err := l.store.Blocked(ctx, sub.lock())
		if err != nil {
			l.storeFailed(ctx, err)
			continue
		}
		if d > 0 {
			return fault.E(fault.RateLimited, "too many sign-in attempts; try again in %d s", int(math.Ceil(d.Seconds())))
		}
	}
	return nil
}

// failedLogIn counts a wrong password; the one that reaches a limit locks
// its subject out, for twice as long as the last lockout.
func (l *limiter) failedLogIn(ctx context.Context, email, addr string) {
	for i, sub := range logInSubjects(email, addr) {
		limit := l.limits.AccountFailures
		if i > 0 {
			limit = l.limits.AddressFailures
		}
		n, err := l.store.Incr(ctx, sub.failures(), 1, l.limits.FailureWindow)
		if err != nil {
			l.storeFailed(ctx, err)
			continue
		}
		if n < int64(limit) {
			continue
		}
		level, err := l.store.Incr(ctx, sub.level(), 1, l.limits.LockoutMemory)
		if err != nil {
			l.storeFailed(ctx, err)
			continue
		}
		d := l.limits.MaxLockout
		if level <= 32 {
			d = min(l.limits.Lockout<<(level-1), l.limits.MaxLockout)
		}
		if err := l.store.Block(ctx, sub.lock(), d); err != nil {
			l.storeFailed(ctx, err)
		}
		if err := l.store.Reset(ctx, sub.failures()); err != nil {
			l.storeFailed(ctx, err)
		}
	}
}

// succeededLogIn forgets the account's failures and lockouts. The
// address's stay: one valid account must not reset guessing at others.
func (l *limiter) succeededLogIn(ctx context.Context, email string) {
	sub := accountSubject(email)
	if err := l.store.Reset(ctx, sub.failures(), sub.level()); err != nil {
		l.storeFailed(ctx, err)
	}
}

// signUp counts a sign-up from addr and refuses one over the limit.
func (l *limiter) signUp(ctx context.Context, addr string) error {
	if addr == "" {
		return nil
	}
	n, err := l.store.Incr(ctx, addressSubject("signup", addr).failures(), 1, l.limits.SignUpWindow)
	if err != nil {
		l.storeFailed(ctx, err)
		return nil
	}
	if n > int64(l.limits.SignUps) {
		return fault.E(fault.RateLimited, "too many sign-ups from this address; try again later")
	}
	return nil
}

func (l *limiter) storeFailed(ctx context.Context, err error) {
	l.svc.deps.Logger.WarnContext(ctx, "auth: unable to count a sign-in attempt", "err", err)
}

// MemoryAttempts is the AttemptStore of one replica, on its clock.
type MemoryAttempts struct {
	clock  clock.Clock
	mu     sync.Mutex
	counts map[string]memoryCount
	writes int
}

type memoryCount struct {
	n       int64
	expires time.Time
}

var _ AttemptStore = (*MemoryAttempts)(nil)

// NewMemoryAttempts returns an empty store whose counts expire on clk.
func NewMemoryAttempts(clk clock.Clock) *MemoryAttempts {
	return &MemoryAttempts{clock: clk, counts: map[string]memoryCount{}}
}

// get returns key's live count; the caller holds mu.
func (m *MemoryAttempts) get(key string, now time.Time) (memoryCount, bool) {
	c, ok := m.counts[key]
	if !ok || !now.Before(c.expires) {
		return memoryCount{}, false
	}
	return c, true
}

// put stores c, and every 1024 writes sweeps out expired counts so
// guesses at many emails cannot grow the map without end.
func (m *MemoryAttempts) put(key string, c memoryCount, now time.Time) {
	m.counts[key] = c
	m.writes++
	if m.writes%1024 == 0 {
		for k, v := range m.counts {
			if !now.Before(v.expires) {
				delete(m.counts, k)
			}
		}
	}
}

// Incr implements AttemptStore.
func (m *MemoryAttempts) Incr(_ context.Context, key string, n int64, ttl time.Duration) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.clock.Now()
	c, ok := m.get(key, now)
	if !ok {
		c = memoryCount{expires: now.Add(ttl)}
	}
	c.n += max(n, 1)
	m.put(key, c, now)
	return c.n, nil
}

// Block implements AttemptStore.
func (m *MemoryAttempts) Block(_ context.Context, key string, d time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.clock.Now()
	m.put(key, memoryCount{n: 1, expires: now.Add(d)}, now)
	return nil
}

// Blocked implements AttemptStore.
func (m *MemoryAttempts) Blocked(_ context.Context, key string) (time.Duration, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.clock.Now()
	c, ok := m.get(key, now)
	if !ok {
		return 0, nil
	}
	return c.expires.Sub(now), nil
}

// Reset implements AttemptStore.
func (m *MemoryAttempts) Reset(_ context.Context, keys ...string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, k := range keys {
		delete(m.counts, k)
	}
	return nil
}

// errorf wraps a store error with its layer.
func errorf(format string, err error) error { return fmt.Errorf("auth: "+format+": %w", err) }
