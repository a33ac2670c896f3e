// Package ratelimit holds the token buckets that slow a runaway client:
// one bucket per key (a machine, an agent token), in this replica's
// memory, so the hot path needs no shared state. A client spread over
// several replicas gets a bucket on each; that bound is enough to protect
// a replica, which is what these limits are for.
package ratelimit

import (
	"sync"
	"time"

	"github.com/gpunex/gpunex/internal/clock"
)

// maxKeys bounds the buckets kept; past it they are dropped (they refill
// anyway, so forgetting one only forgives its debt).
const maxKeys = 100_000

// Buckets is a token bucket per key: Burst tokens at most, refilled at
// Rate per second.
type Buckets struct {
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

// New returns buckets refilled at rate tokens per second, holding burst.
func New(clk clock.Clock, rate float64, burst int) *Buckets {
	return &Buckets{clock: clk, rate: rate, burst: float64(burst), buckets: map[int64]*bucket{}}
}

// Allow spends one of key's tokens, reporting false (and spending none)
// when it has none left.
func (l *Buckets) Allow(key int64) bool { return l.AllowN(key, 1) }

// AllowN spends n of key's tokens, reporting false (and spending none)
// when it has fewer.
func (l *Buckets) AllowN(key int64, n float64) bool {
	ok, _ := l.Reserve(key, n)
	return ok
}

// Reserve is AllowN that also says, when it refuses, how long until key
// will have n tokens (zero when it never will: n exceeds the burst).
func (l *Buckets) Reserve(key int64, n float64) (bool, time.Duration) {
	now := l.clock.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[key]
	if !ok {
		if len(l.buckets) > maxKeys {
			l.buckets = map[int64]*bucket{}
		}
		b = &bucket{tokens: l.burst, last: now}
		l.buckets[key] = b
	}
	b.tokens = min(l.burst, b.tokens+now.Sub(b.last).Seconds()*l.rate)
	b.last = now
	if b.tokens < n {
		if n > l.burst || l.rate <= 0 {
			return false, 0
		}
		return false, time.Duration((n - b.tokens) / l.rate * float64(time.Second))
	}
	b.tokens -= n
	return true, 0
}
