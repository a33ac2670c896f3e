package fleet

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/notification"
	"github.com/gpunex/gpunex/internal/presence"
	"github.com/gpunex/gpunex/internal/store"
)

// Deps are what the fleet uses.
type Deps struct {
	DB *store.DB
	// Presence holds each online machine's latest heartbeat, with a TTL.
	Presence presence.Store
	// Bus carries machine transitions, telemetry samples and the
	// queued-commands signal between replicas.
	Bus    bus.Bus
	Clock  clock.Clock
	Logger *slog.Logger
	// Notify tells a provider and the admins of a registration refused
	// for what its agent claimed (a GPU registered elsewhere, simulated
	// hardware); nil tells no one (tests of other rules).
	Notify *notification.Service
}

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
	// AllowSimulated admits GPUs the agent says it simulates (--simulate)
	// and lets the market list them. Only a world of test hardware sets
	// it: the demo (gpunex serve --demo) and test servers. A production
	// server (the zero value) refuses a registration with any simulated
	// GPU, so that hardware which does not exist is never listed, rented
	// or billed.
	AllowSimulated bool
	// TelemetryEvery bounds how often one machine's telemetry is
	// published to its provider's dashboards: at most one sample per
	// machine per TelemetryEvery on each replica, whatever its heartbeat
	// rate (default DefaultTelemetryEvery).
	TelemetryEvery time.Duration
}

// DefaultTelemetryEvery is the default of Config.TelemetryEvery: under the
// default heartbeat interval (10s) every beat's telemetry is shown;
// agents told to beat faster are sampled.
const DefaultTelemetryEvery = 5 * time.Second

// Validate checks what an operator may set (gpunex serve): the heartbeat
// interval between 1s and 1h, since agents are told it in whole seconds,
// and the telemetry interval between 1s (a dashboard has no use for more)
// and 1h. Tests may use shorter intervals; New does not call it.
func (c Config) Validate() error {
	if c.Interval < time.Second || c.Interval > time.Hour {
		return fmt.Errorf("the heartbeat interval must be between 1s and 1h; got %s", c.Interval)
	}
	if c.TelemetryEvery < time.Second || c.TelemetryEvery > time.Hour {
		return fmt.Errorf("the telemetry interval must be between 1s and 1h; got %s", c.TelemetryEvery)
	}
	return nil
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
	if c.TelemetryEvery <= 0 {
		c.TelemetryEvery = DefaultTelemetryEvery
	}
}

// Grace is how long a machine stays online without a heartbeat.
func (c Config) Grace() time.Duration { return time.Duration(c.GraceIntervals) * c.Interval }

// Service is the fleet: the one facade resolvers call. It composes one
// part per responsibility — admission (machine lookup and rate limits),
// the command queue and the sweeper — and keeps registration, heartbeats
// and queries itself (registration.go, heartbeat.go, machine.go).
type Service struct {
	deps Deps
	cfg  Config

	admission *admission
	commands  *commandQueue
	sweeper   *sweeper
	// samples picks the heartbeats whose telemetry is published.
	samples *sampler
	// statuses resolves each machine event (a transition, a telemetry
	// sample) once per replica for every dashboard following the
	// provider (see Subscribe).
	statuses *bus.Shared[*StatusEvent]
	// onRegistered are called after each registration (OnRegistered).
	onRegistered []func(ctx context.Context, r Registered)
	// onTransition are called after each status change (OnTransition).
	onTransition []func(ctx context.Context, t Transition)
}

// New returns the fleet service.
func New(deps Deps, cfg Config) *Service {
	cfg.defaults()
	s := &Service{deps: deps, cfg: cfg,
		admission: newAdmission(deps, cfg),
		commands:  newCommandQueue(deps),
		samples:   newSampler(cfg.TelemetryEvery),
	}
	s.sweeper = newSweeper(deps, cfg, s.transition)
	s.statuses = bus.NewShared(deps.Bus, deps.Logger, s.resolveEvent)
	return s
}

// Config returns the effective configuration.
func (s *Service) Config() Config { return s.cfg }

// RunBackground runs until ctx ends: on every replica it listens for
// queued commands; on the one replica that leads, it sweeps every
// interval and compacts every CompactEvery.
func (s *Service) RunBackground(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { s.commands.listen(ctx) })
	s.sweeper.run(ctx)
}
