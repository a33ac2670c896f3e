package market

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/fleet"
	"github.com/gpunex/gpunex/internal/notification"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// Deps are what the market uses.
type Deps struct {
	DB     *store.DB
	Bus    bus.Bus
	Fleet  *fleet.Service
	Clock  clock.Clock
	Logger *slog.Logger
	// Funds, when set, is asked before a rental starts whether the
	// customer can pay for it (billing's prepaid balance); nil: anyone
	// may rent.
	Funds Funds
	// Notify, when set, tells a provider and the admins of job reports
	// whose times could not be true (the bill used the platform's own).
	Notify *notification.Service
	// Costs, when set, tells what each rental has cost its customer
	// (billing's Costs), attached to the rentals a customer reads
	// (models.Rental.Cost); nil: they carry no cost.
	Costs Costs
	// Meter, when set, bills the rentals a transaction ends to their end
	// inside it (billing's SettleEnded); nil: the next metering tick does.
	Meter Meter
}

// Meter settles the bill of rentals as they end.
type Meter interface {
	// SettleEnded meters the rentals ids, just ended in tx, to their
	// end in tx: an excess billed past the end is given back there.
	SettleEnded(ctx context.Context, tx bun.Tx, ids []int64) error
}

// Costs is what rentals have cost their customers, from the platform's
// meter and ledger.
type Costs interface {
	// Costs is each rental's cost by id.
	Costs(ctx context.Context, rentals []*models.Rental) (map[int64]*models.RentalCost, error)
}

// Funds is the check of a customer's means as a rental starts.
type Funds interface {
	// Reserve, inside the transaction tx that allocates the rental,
	// returns nil when the customer's balance, less what the customer's
	// running rentals hold, pays perHour for the configured prepaid
	// period, else a *fault.Validation naming field.
	Reserve(ctx context.Context, tx bun.IDB, customerID int64, perHour models.USDC, field string) error
}

// Config tunes the market. Zero values take the defaults.
type Config struct {
	// RefreshEvery is how often the leading replica recomputes machines'
	// uptime, models' median prices and providers' profiles, ends
	// rentals whose stop went unconfirmed and rentals left on offline
	// machines (default 1m).
	RefreshEvery time.Duration
	// StopGrace is how long a STOPPING rental waits for its agent's
	// report before it ends STOPPED anyway (default 2m).
	StopGrace time.Duration
	// StartAttempts bounds how many times one startRental tries again
	// after another rental took the GPUs it chose (default 8).
	StartAttempts int
	// StartConcurrency is how many rental starts a replica runs at once
	// (default 8); the others wait their turn, in order. Starts are bound
	// by the database's work: a few at a time finish sooner than all at
	// once (200 at once for 50 GPUs on PostgreSQL: p99 654 ms unbounded,
	// 173 ms eight at a time), and a start that finds the GPUs taken by
	// those before it is refused at its first read.
	StartConcurrency int
	// FeeBps is the platform's fee a rental locks when it starts, in
	// basis points (DefaultFeeBps). The market owns it: pricing's advice
	// shows earnings after the market's fee (Service.Config), and billing
	// splits each rental's money at the fee the rental locked.
	FeeBps int
	// ReportSkew is how long before its arrival an agent's report of a
	// job's start may date that start (default 10s): the time a report
	// takes to arrive. Earlier claims are billed from the arrival less
	// ReportSkew; the agent's word is kept as evidence.
	ReportSkew time.Duration
}

// DefaultReportSkew is Config.ReportSkew's default.
const DefaultReportSkew = 10 * time.Second

// DefaultFeeBps is Config.FeeBps's default: the platform's fee on
// rentals, 15 %.
const DefaultFeeBps = 1500

// Validate checks what an operator may set (gpunex serve): the platform's
// fee between 1 and 9,999 basis points.
func (c Config) Validate() error {
	if c.FeeBps < 1 || c.FeeBps > 9999 {
		return fmt.Errorf("the platform's fee must be between 1 and 9999 basis points; got %d", c.FeeBps)
	}
	return nil
}

func (c *Config) defaults() {
	if c.RefreshEvery <= 0 {
		c.RefreshEvery = time.Minute
	}
	if c.StopGrace <= 0 {
		c.StopGrace = 2 * time.Minute
	}
	if c.StartAttempts <= 0 {
		c.StartAttempts = 8
	}
	if c.StartConcurrency <= 0 {
		c.StartConcurrency = 8
	}
	if c.FeeBps <= 0 || c.FeeBps >= 10_000 {
		c.FeeBps = DefaultFeeBps
	}
	if c.ReportSkew <= 0 {
		c.ReportSkew = DefaultReportSkew
	}
}

// Service lists, rents and tracks rentals.
type Service struct {
	deps Deps
	cfg  Config

	// customers and providers resolve each rental change once per
	// replica for every subscriber following it (bus.Shared).
	customers *bus.Shared[*models.Rental]
	providers *bus.Shared[*ProviderRental]
	// ended are called with each rental that ended (OnEnded).
	ended []func(context.Context, *models.Rental)
	// reliability tells the parts of providers' scores (SetReliability).
	reliability Reliability
	// starts holds a slot per start running (Config.StartConcurrency).
	starts chan struct{}
	// soldOut answers the starts waiting behind a read that found
	// nothing free.
	soldOut soldOut
	// profiled is the newest provider up to which ensureProfiles has
	// made every missing profile.
	profiled atomic.Int64
}

// OnEnded adds fn to the functions called with each rental that ends
// (after its transaction commits, on the replica that ended it, with a
// copy of the rental). Call it while assembling the platform.
func (s *Service) OnEnded(fn func(ctx context.Context, r *models.Rental)) {
	s.ended = append(s.ended, fn)
}

// New returns the market service. It follows the fleet's transitions: a
// machine that goes offline interrupts its rentals.
func New(deps Deps, cfg Config) *Service {
	cfg.defaults()
	if deps.Logger == nil {
		deps.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Service{deps: deps, cfg: cfg, starts: make(chan struct{}, cfg.StartConcurrency)}
	s.customers = bus.NewShared(deps.Bus, deps.Logger, s.resolveCustomerEvent)
	s.providers = bus.NewShared(deps.Bus, deps.Logger, s.resolveProviderEvent)
	if deps.Fleet != nil {
		deps.Fleet.OnTransition(s.onTransition)
	}
	return s
}

// Config returns the effective configuration.
func (s *Service) Config() Config { return s.cfg }

// RunBackground runs until ctx ends: on the one replica that leads, every
// RefreshEvery (and once at the start) it runs Tick.
func (s *Service) RunBackground(ctx context.Context) {
	s.deps.DB.Periodic(ctx, "market-refresh", s.cfg.RefreshEvery, s.deps.Logger, "market: refresh", s.Tick)
}

// Tick is the leader's periodic work: Refresh, then ending rentals whose
// stop was not confirmed within StopGrace and rentals still active on
// machines that are offline (a transition whose hook did not run).
func (s *Service) Tick(ctx context.Context) error {
	if err := s.Refresh(ctx); err != nil {
		return err
	}
	if err := s.endUnconfirmedStops(ctx); err != nil {
		return err
	}
	return s.interruptOffline(ctx)
}
