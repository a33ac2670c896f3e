package fleet

import (
	"sync"
	"time"

	"github.com/gpunex/gpunex/internal/clock"
)

// rateLimiter is a token bucket per key (a machine, an agent token), in
// this replica's memory: a runaway agent is slowed without any shared
// state on the hot path.
type rateLimiter struct {
	clock clock.Clock
	rate  float64
	burst float64

	mu      sync.Mutex
	buckets map[int64]*bucket
}

type bucket struct {
	tokens float64
	last   time.Time
}

func newRateLimiter(clk clock.Clock, rate float64, burst int) *rateLimiter {
	return &rateLimiter{clock: clk, rate: rate, burst: float64(burst), buckets: map[int64]*bucket{}}
}

func (l *rateLimiter) allow(key int64) bool {
	now := l.clock.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[key]
	if !ok {
		if len(l.buckets) > 100_000 {
			l.buckets = map[int64]*bucket{} // bound memory; buckets refill anyway
		}
		b = &bucket{tokens: l.burst, last: now}
		l.buckets[key] = b
	}
	b.tokens = min(l.burst, b.tokens+now.Sub(b.last).Seconds()*l.rate)
	b.last = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}
