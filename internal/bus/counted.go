package bus

import (
	"context"
	"sync/atomic"
)

// Counted decorates a Bus, counting publishes: how "no publish per
// heartbeat in steady state" is measured.
type Counted struct {
	Bus
	publishes atomic.Int64
}

var _ Bus = (*Counted)(nil)

// NewCounted wraps b.
func NewCounted(b Bus) *Counted { return &Counted{Bus: b} }

// Publish counts, then publishes.
func (c *Counted) Publish(ctx context.Context, channel string, payload []byte) error {
	c.publishes.Add(1)
	return c.Bus.Publish(ctx, channel, payload)
}

// Publishes is how many messages were published through c.
func (c *Counted) Publishes() int64 { return c.publishes.Load() }
