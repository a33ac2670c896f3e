package billing

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/gpunex/gpunex/internal/billing/solana"
	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/mail"
	"github.com/gpunex/gpunex/internal/notification"
	"github.com/gpunex/gpunex/internal/store"
)

// Deps are what billing uses.
type Deps struct {
	DB     *store.DB
	Bus    bus.Bus
	Notify *notification.Service
	Clock  clock.Clock
	Logger *slog.Logger
	// Stop ends a rental whose customer's funds ran out (the market's
	// StopUnfunded); nil: such a rental is only billed up to the funds.
	Stop func(ctx context.Context, rentalID int64) error
	// Solana sends USDC payouts; nil: Solana payouts are MANUAL (an admin
	// sends them and marks them paid).
	Solana *solana.Client
	// Passwords checks the password again before a payout method change.
	Passwords Passwords
	// Outbox sends the payout emails: a method changed, a payout paid or failed.
	Outbox *mail.Outbox
}

// Config tunes billing. Zero values take the defaults.
type Config struct {
	// TickEvery is how often the leading replica meters rentals (default
	// 30s, at most 60s).
	TickEvery time.Duration
	// MinPrepaid is how long a customer's balance must pay for a rental
	// at its rate before it starts (default 1h).
	MinPrepaid time.Duration
	// LowFunds is how much running time left on a customer's balance
	// warns them (default 1h).
	LowFunds time.Duration
	// ChunkSize bounds the rentals one metering transaction handles
	// (default 500).
	ChunkSize int
	// MeterWorkers is how many metering transactions a tick runs at once
	// on PostgreSQL, each over its share of the customers (default 4;
	// SQLite, one writer, always 1).
	MeterWorkers int
	// Payouts tunes payouts.
	Payouts PayoutConfig
}

// Validate checks what an operator may set (gpunex serve): metering at
// least once a minute, payout runs at most once a second.
func (c Config) Validate() error {
	if c.TickEvery <= 0 || c.TickEvery > time.Minute {
		return fmt.Errorf("metering runs at least once a minute; got every %s", c.TickEvery)
	}
	if c.Payouts.RunEvery < time.Second {
		return fmt.Errorf("payout runs are at least 1s apart; got %s", c.Payouts.RunEvery)
	}
	return nil
}

func (c Config) withDefaults() Config {
	if c.TickEvery <= 0 || c.TickEvery > time.Minute {
		c.TickEvery = 30 * time.Second
	}
	if c.MinPrepaid <= 0 {
		c.MinPrepaid = time.Hour
	}
	if c.LowFunds <= 0 {
		c.LowFunds = time.Hour
	}
	if c.ChunkSize <= 0 {
		c.ChunkSize = 500
	}
	if c.MeterWorkers <= 0 {
		c.MeterWorkers = 4
	}
	c.Payouts = c.Payouts.withDefaults()
	return c
}

// Service keeps the ledger: customer funds, metering, earnings.
type Service struct {
	deps Deps
	cfg  Config
	pcfg PayoutConfig
	// stopLead is the running time a balance must still pay for when a
	// rental is stopped for funds (SetStop); zero stops only when the
	// balance is spent.
	stopLead time.Duration
	live     *bus.Shared[*Summary]
	// onCharged is told of each rental whose charge a tick changed, once
	// the tick's chunk committed (OnCharged).
	onCharged func(context.Context, ChargedRental)
}

// OnCharged sets fn, told of each rental whose charge a metering tick
// changed once the tick's transaction committed (the market announces
// the rental to its customer, so a rental's page follows its meter).
// Call it while assembling.
func (s *Service) OnCharged(fn func(ctx context.Context, c ChargedRental)) { s.onCharged = fn }

// New returns the billing service.
func New(deps Deps, cfg Config) *Service {
	if deps.Logger == nil {
		deps.Logger = slog.New(slog.DiscardHandler)
	}
	if deps.Clock == nil {
		deps.Clock = clock.Real{}
	}
	s := &Service{deps: deps, cfg: cfg.withDefaults()}
	s.pcfg = s.cfg.Payouts
	s.live = bus.NewShared(deps.Bus, deps.Logger, s.resolveEvent)
	return s
}

// SetStop sets Deps.Stop once the market exists (it is built after
// billing, which it asks about funds). Call it while assembling.
//
// grace is how long a stop may take to end a rental's billing (the
// market's StopGrace): a rental is stopped while its customer's balance
// still pays grace plus one metering tick of everything the customer
// runs, so the time until the stop lands is paid for and no balance goes
// below zero.
func (s *Service) SetStop(stop func(ctx context.Context, rentalID int64) error, grace time.Duration) {
	s.deps.Stop = stop
	s.stopLead = grace + s.cfg.TickEvery
}

// Config returns the configuration in effect.
func (s *Service) Config() Config { return s.cfg }

// RunBackground meters rentals every TickEvery and runs payouts every
// Payouts.RunEvery, each on the one replica that leads its lease (the
// store's leader lock), until ctx ends.
func (s *Service) RunBackground(ctx context.Context) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.deps.DB.Periodic(ctx, "billing-payouts", s.pcfg.RunEvery, s.deps.Logger, "billing: payouts", s.RunPayouts)
	}()
	s.deps.DB.Periodic(ctx, "billing-meter", s.cfg.TickEvery, s.deps.Logger, "billing: metering", s.Tick)
	<-done
}
