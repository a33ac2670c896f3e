package client

import (
	"math/rand/v2"
	"time"
)

// Default backoff bounds: the first retry within a second, never more than
// a minute apart.
const (
	DefaultBackoffBase = time.Second
	DefaultBackoffCap  = time.Minute
)

// Backoff computes waits between retries: exponential backoff with full
// jitter, a uniformly random delay in [0, min(Cap, Base·2^(attempt-1))).
// Full jitter spreads a fleet of agents that lost the server at the same
// moment, so they do not all come back at the same instant.
type Backoff struct {
	// Base is the ceiling of the first delay; DefaultBackoffBase when zero.
	Base time.Duration
	// Cap bounds every delay; DefaultBackoffCap when zero.
	Cap time.Duration
	// Rand returns a number in [0, 1); math/rand/v2's Float64 when nil.
	Rand func() float64
}

// Delay is the wait before retry number attempt (1 for the first retry).
func (b Backoff) Delay(attempt int) time.Duration {
	return time.Duration(b.random() * float64(b.Ceiling(attempt)))
}

// Ceiling is the largest delay Delay may return for attempt.
func (b Backoff) Ceiling(attempt int) time.Duration {
	base, ceiling := b.Base, b.Cap
	if base <= 0 {
		base = DefaultBackoffBase
	}
	if ceiling <= 0 {
		ceiling = DefaultBackoffCap
	}
	if attempt < 1 {
		attempt = 1
	}
	d := base
	for i := 1; i < attempt; i++ {
		if d >= ceiling/2 {
			return ceiling
		}
		d *= 2
	}
	return min(d, ceiling)
}

func (b Backoff) random() float64 {
	if b.Rand == nil {
		return rand.Float64()
	}
	r := b.Rand()
	switch {
	case r < 0:
		return 0
	case r > 1:
		return 1
	}
	return r
}
