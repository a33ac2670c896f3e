// Package market is the marketplace and rentals: what can be rented now,
// ranked; rentals scheduled on a machine's free GPUs, run as jobs by the
// provider's agent, and never double-booked.
package market

import (
	"log/slog"

	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/fleet"
	"github.com/gpunex/gpunex/internal/store"
)

// Deps are what the market uses.
type Deps struct {
	DB     *store.DB
	Bus    bus.Bus
	Fleet  *fleet.Service
	Clock  clock.Clock
	Logger *slog.Logger
}

// Config tunes the market. Zero values take the defaults.
type Config struct{}

// Service lists, rents and tracks rentals.
type Service struct {
	deps Deps
	cfg  Config
}

// New returns the market service.
func New(deps Deps, cfg Config) *Service {
	return &Service{deps: deps, cfg: cfg}
}
