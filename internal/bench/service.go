package bench

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"log/slog"
	mrand "math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/mail"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// Fleet is what the benchmark needs of the fleet: the machine an agent
// names, and the command queue its runs ride on.
type Fleet interface {
	ResolveMachine(ctx context.Context, agent *auth.Agent, uid string) (int64, error)
	Enqueue(ctx context.Context, machineID int64, kind protocol.CommandKind, payload any) (*models.AgentCommand, error)
	Withdraw(ctx context.Context, machineID int64, kind protocol.CommandKind) (int, error)
}

// Notifier stores an in-app notification in the caller's transaction.
type Notifier interface {
	Add(ctx context.Context, idb bun.IDB, n *models.Notification) error
}

// Outbox stores an email in the caller's transaction.
type Outbox interface {
	Enqueue(ctx context.Context, idb bun.IDB, msg mail.Message) error
}

// Deps are what the benchmark service uses.
type Deps struct {
	DB     *store.DB
	Bus    bus.Bus
	Fleet  Fleet
	Notify Notifier
	Outbox Outbox
	Clock  clock.Clock
	Logger *slog.Logger
	// Random draws the times of the unannounced runs; nil is a source
	// seeded from crypto/rand. Tests pass a seeded one, as they pass a
	// manual clock. (Run ids and nonces always come from crypto/rand.)
	Random mrand.Source
}

// Config tunes the benchmarks. Zero values take the defaults.
type Config struct {
	// Thresholds score and delist; default DefaultThresholds().
	Thresholds *Thresholds
	// Every is how often each machine is benchmarked (default 24h), each
	// machine at its own offset within Jitter (default Every/4) so a fleet
	// registered together does not run at once.
	Every  time.Duration
	Jitter time.Duration
	// Cooldown is how long after a requestBenchmark the provider must wait
	// to ask again for the same machine (default 10m).
	Cooldown time.Duration
	// RunTimeout is how long a run may stay unreported before it expires
	// (default 30m); a machine whose run expired is asked again at its next
	// periodic time.
	RunTimeout time.Duration
	// RetryAfter is how long a GPU postponed for a customer's job waits
	// before it is asked again (default 1h).
	RetryAfter time.Duration
	// Tick is how often the leader looks for due and expired runs (default 1m).
	Tick time.Duration
	// PublicURL is where providers reach the dashboard (links in emails).
	PublicURL func() string
}

// Validate checks what an operator may set (gpunex serve): machines
// benchmarked at most hourly, and a provider's requests at least a minute
// apart. Tests may use shorter periods; New does not call it.
func (c Config) Validate() error {
	if c.Every < time.Hour {
		return fmt.Errorf("machines are benchmarked at most every hour; got every %s", c.Every)
	}
	if c.Cooldown < time.Minute {
		return fmt.Errorf("a requested benchmark's cooldown is at least 1m; got %s", c.Cooldown)
	}
	return nil
}

func (c *Config) defaults() {
	if c.Thresholds == nil {
		t := DefaultThresholds()
		c.Thresholds = &t
	}
	if c.Every <= 0 {
		c.Every = 24 * time.Hour
	}
	if c.Jitter <= 0 {
		c.Jitter = c.Every / 4
	}
	if c.Cooldown <= 0 {
		c.Cooldown = 10 * time.Minute
	}
	if c.RunTimeout <= 0 {
		c.RunTimeout = 30 * time.Minute
	}
	if c.RetryAfter <= 0 {
		c.RetryAfter = time.Hour
	}
	if c.Tick <= 0 {
		c.Tick = time.Minute
	}
	if c.PublicURL == nil {
		c.PublicURL = func() string { return "" }
	}
}

// Service runs, scores and lists by benchmarks.
type Service struct {
	deps Deps
	cfg  Config
	// live resolves each change once per replica for every dashboard of
	// the provider (see Subscribe).
	live *bus.Shared[*Event]
	// scored are called with each stored run's GPU results (OnScored).
	scored []func(context.Context, []*models.GpuBenchmark)

	rngMu sync.Mutex
	rng   *mrand.Rand
}

// OnScored adds fn to the functions called with a run's GPU results once
// they are stored (after the transaction commits, on the replica that
// stored them). Call it while assembling the platform.
func (s *Service) OnScored(fn func(ctx context.Context, results []*models.GpuBenchmark)) {
	s.scored = append(s.scored, fn)
}

// New returns the benchmark service.
func New(deps Deps, cfg Config) *Service {
	cfg.defaults()
	if deps.Random == nil {
		var seed [16]byte
		_, _ = rand.Read(seed[:])
		deps.Random = mrand.NewPCG(binary.LittleEndian.Uint64(seed[:8]), binary.LittleEndian.Uint64(seed[8:]))
	}
	s := &Service{deps: deps, cfg: cfg, rng: mrand.New(deps.Random)}
	s.live = bus.NewShared(deps.Bus, deps.Logger, s.resolveEvent)
	return s
}

// Config returns the effective configuration.
func (s *Service) Config() Config { return s.cfg }

// Channel is the bus channel of providerID's benchmark changes.
func Channel(providerID int64) string {
	return "provider." + strconv.FormatInt(providerID, 10) + ".benchmarks"
}

// offset is machine id's place in the jitter window: the same machine
// always runs at the same offset, and machines spread over the window.
func (s *Service) offset(machineID int64) time.Duration {
	h := fnv.New64a()
	_, _ = h.Write([]byte(strconv.FormatInt(machineID, 10)))
	return time.Duration(h.Sum64() % uint64(s.cfg.Jitter))
}

// newRunID makes a run id: random, so an agent cannot guess another run's.
func newRunID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "run_" + hex.EncodeToString(b[:])
}

// newNonce makes a run's nonce: 128 random bits (crypto/rand), so no one
// knows the values the run's kernels start from before the run is asked.
func newNonce() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// uniform is a random duration in [0, d), in whole microseconds (what
// both databases keep of a time).
func (s *Service) uniform(d time.Duration) time.Duration {
	n := int64(d / time.Microsecond)
	if n <= 0 {
		return 0
	}
	s.rngMu.Lock()
	defer s.rngMu.Unlock()
	return time.Duration(s.rng.Int64N(n)) * time.Microsecond
}

// surpriseAfter is the time of an unannounced run in the period after the
// one holding t: periods are Every long, counted from the Unix epoch (the
// same for every machine), and the time is uniform within the period, so
// an agent cannot tell from the last one when the next will come.
func (s *Service) surpriseAfter(t time.Time) time.Time {
	every := int64(s.cfg.Every)
	next := time.Unix(0, (t.UnixNano()/every+1)*every).UTC()
	return next.Add(s.uniform(s.cfg.Every))
}

// RunBackground runs until ctx ends: on the one replica that leads, every
// Tick it dispatches the periodic runs that are due and expires runs that
// were never reported.
func (s *Service) RunBackground(ctx context.Context) {
	t := time.NewTicker(s.cfg.Tick)
	defer t.Stop()
	var lease *store.Lease
	defer func() { lease.Release() }()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if !lease.Alive(ctx) {
			lease.Release()
			l, err := s.deps.DB.TryLead(ctx, "bench.schedule")
			if err != nil {
				s.deps.Logger.WarnContext(ctx, "bench: unable to contend for the schedule", "err", err)
				continue
			}
			lease = l
			if lease == nil {
				continue
			}
		}
		s.Tick(ctx)
	}
}
