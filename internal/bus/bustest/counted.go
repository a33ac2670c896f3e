package bustest

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/gpunex/gpunex/internal/bus"
)

// Counted decorates a Bus, counting publishes: how tests and benchmarks
// measure "no publish per heartbeat in steady state". Production never
// wraps its bus (platform.Config.WrapBus is for tests).
type Counted struct {
	bus.Bus
	publishes atomic.Int64

	mu       sync.Mutex
	watchers []func(ctx context.Context, channel string)
}

var _ bus.Bus = (*Counted)(nil)

// NewCounted wraps b.
func NewCounted(b bus.Bus) *Counted { return &Counted{Bus: b} }

// Publish counts, then publishes.
func (c *Counted) Publish(ctx context.Context, channel string, payload []byte) error {
	c.publishes.Add(1)
	c.mu.Lock()
	watchers := c.watchers
	c.mu.Unlock()
	for _, w := range watchers {
		w(ctx, channel)
	}
	return c.Bus.Publish(ctx, channel, payload)
}

// Watch calls f with the context and channel of every later publish, so a
// test can tell which request published (one served by a heartbeat, say)
// from what background work published meanwhile.
func (c *Counted) Watch(f func(ctx context.Context, channel string)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.watchers = append(c.watchers[:len(c.watchers):len(c.watchers)], f)
}

// Publishes is how many messages were published through c.
func (c *Counted) Publishes() int64 { return c.publishes.Load() }
