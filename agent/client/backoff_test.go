package client_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/client"
)

func TestBackoff_ExponentialWithFullJitter(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		desc    string
		b       client.Backoff
		attempt int
		want    time.Duration
	}{
		{"first retry, top of the range", client.Backoff{Rand: func() float64 { return 1 }}, 1, time.Second},
		{"first retry, bottom of the range", client.Backoff{Rand: func() float64 { return 0 }}, 1, 0},
		{"doubles", client.Backoff{Rand: func() float64 { return 1 }}, 4, 8 * time.Second},
		{"jitter is a share of the ceiling", client.Backoff{Rand: func() float64 { return 0.25 }}, 3, time.Second},
		{"capped at 60 s", client.Backoff{Rand: func() float64 { return 1 }}, 7, time.Minute},
		{"no overflow far out", client.Backoff{Rand: func() float64 { return 1 }}, 10_000, time.Minute},
		{"attempt 0 counts as 1", client.Backoff{Rand: func() float64 { return 1 }}, 0, time.Second},
		{"own base and cap", client.Backoff{Base: 100 * time.Millisecond, Cap: time.Second, Rand: func() float64 { return 1 }}, 5, time.Second},
		{"a bad random source is clamped", client.Backoff{Rand: func() float64 { return 7 }}, 2, 2 * time.Second},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, tc.b.Delay(tc.attempt))
		})
	}
}

func TestBackoff_DefaultRandomStaysInRange(t *testing.T) {
	t.Parallel()
	var b client.Backoff
	for attempt := 1; attempt <= 10; attempt++ {
		for range 100 {
			d := b.Delay(attempt)
			require.GreaterOrEqual(t, d, time.Duration(0))
			require.Less(t, d, b.Ceiling(attempt))
		}
	}
}
