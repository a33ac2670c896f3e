// Package pricing holds providers' rates per GPU model (with their
// history), their weekly availability schedules and planned maintenance.
package pricing

import (
	"log/slog"

	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/store"
)

// Deps are what the pricing service uses.
type Deps struct {
	DB     *store.DB
	Bus    bus.Bus
	Clock  clock.Clock
	Logger *slog.Logger
}

// Config tunes pricing. Zero values take the defaults.
type Config struct{}

// Service sets and reads prices, schedules and maintenance.
type Service struct {
	deps Deps
	cfg  Config
}

// New returns the pricing service.
func New(deps Deps, cfg Config) *Service {
	return &Service{deps: deps, cfg: cfg}
}
