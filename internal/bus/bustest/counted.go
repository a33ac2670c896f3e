package bustest

import (
	"context"
	"sync/atomic"

	"github.com/gpunex/gpunex/internal/bus"
)

// Counted decorates a Bus, counting publishes: how tests and benchmarks
// measure "no publish per heartbeat in steady state". Production never
// wraps its bus (platform.Config.WrapBus is for tests).
type Counted struct {
	bus.Bus
	publishes atomic.Int64
}

var _ bus.Bus = (*Counted)(nil)

// NewCounted wraps b.
func NewCounted(b bus.Bus) *Counted { return &Counted{Bus: b} }

// Publish counts, then publishes.
func (c *Counted) Publish(ctx context.Context, channel string, payload []byte) error {
	c.publishes.Add(1)
	return c.Bus.Publish(ctx, channel, payload)
}

// Publishes is how many messages were published through c.
func (c *Counted) Publishes() int64 { return c.publishes.Load() }
