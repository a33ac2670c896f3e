package pricing

import (
	"context"
	"log/slog"
	"time"

	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/fleet"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// Defaults of Config.
const (
	// DefaultMaxPricePerHour caps a rate: 100 USDC per GPU per hour.
	DefaultMaxPricePerHour = 100 * models.MicrosPerUSDC
	// DefaultTick is how often the leader refreshes the open intervals.
	DefaultTick = time.Minute
)

// Deps are what the pricing service uses.
type Deps struct {
	DB     *store.DB
	Bus    bus.Bus
	Clock  clock.Clock
	Logger *slog.Logger
	// FeeBps is the platform's fee on rentals in basis points, the
	// market's (market.Config.FeeBps, which every rental locks; the
	// platform passes market.Service.Config's): price advice shows
	// earnings after it. Pricing has no fee of its own.
	FeeBps int
}

// Config tunes pricing. Zero values take the defaults.
type Config struct {
	// MaxPricePerHour is the highest rate a provider may set, per GPU per
	// hour (DefaultMaxPricePerHour).
	MaxPricePerHour models.USDC
	// Tick is how often RunBackground refreshes the schedules' open
	// intervals (DefaultTick); an interval ends at most one tick late.
	Tick time.Duration
	// FloorBps and MinPricePerHour make a model's price floor: the higher
	// of MinPricePerHour and FloorBps basis points of the model's market
	// median (DefaultFloorBps, 10 %; DefaultMinPricePerHour, 0.01 USDC).
	// A token price buys a provider nothing: wash rentals of its own
	// GPUs are refused anyway, and a floor keeps a listing's price a
	// price.
	FloorBps        int
	MinPricePerHour models.USDC
}

// The price floor's defaults (Config.FloorBps, Config.MinPricePerHour).
const (
	DefaultFloorBps        = 1000
	DefaultMinPricePerHour = models.MicrosPerUSDC / 100
)

func (c Config) withDefaults() Config {
	if c.FloorBps <= 0 || c.FloorBps > 10_000 {
		c.FloorBps = DefaultFloorBps
	}
	if c.MinPricePerHour <= 0 {
		c.MinPricePerHour = DefaultMinPricePerHour
	}
	if c.MaxPricePerHour <= 0 {
		c.MaxPricePerHour = DefaultMaxPricePerHour
	}
	if c.Tick <= 0 {
		c.Tick = DefaultTick
	}
	return c
}

// Service sets and reads prices, schedules and maintenance.
type Service struct {
	deps Deps
	cfg  Config
}

// New returns the pricing service.
func New(deps Deps, cfg Config) *Service {
	if deps.Logger == nil {
		deps.Logger = slog.New(slog.DiscardHandler)
	}
	if deps.Clock == nil {
		deps.Clock = clock.Real{}
	}
	return &Service{deps: deps, cfg: cfg.withDefaults()}
}

// Config returns the configuration in effect, defaults filled in.
func (s *Service) Config() Config { return s.cfg }

// OnRegistered gives a provider whose first machine registers its
// starting schedule (the application's availability) at once, so the
// marketplace's filter on provider_schedules finds it before the next
// Refresh. The fleet calls it (fleet.Service.OnRegistered).
func (s *Service) OnRegistered(ctx context.Context, r fleet.Registered) {
	if !r.New {
		return
	}
	if err := s.ensure(ctx, r.ProviderID); err != nil && ctx.Err() == nil {
		s.deps.Logger.WarnContext(ctx, "pricing: unable to start the provider's schedule", "provider_id", r.ProviderID, "err", err)
	}
}

// RunBackground refreshes the schedules every Tick until ctx ends, on the
// one replica that leads (store.DB.TryLead).
func (s *Service) RunBackground(ctx context.Context) {
	s.deps.DB.Periodic(ctx, "pricing.schedule", s.cfg.Tick, s.deps.Logger, "pricing: schedule refresh", s.Refresh)
}
