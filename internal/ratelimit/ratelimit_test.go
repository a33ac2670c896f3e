package ratelimit_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/ratelimit"
)

func TestBucketsAllowABurstThenRefill(t *testing.T) {
	t.Parallel()
	clk := clock.NewManual(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
	l := ratelimit.New(clk, 2, 3)
	for range 3 {
		require.True(t, l.Allow(7))
	}
	require.False(t, l.Allow(7), "burst spent")
	require.True(t, l.Allow(8), "other keys have their own bucket")
	clk.Advance(500 * time.Millisecond)
	require.True(t, l.Allow(7), "one token refilled after 1/rate")
	require.False(t, l.Allow(7))
}

func TestReserveSaysHowLongUntilEnoughTokens(t *testing.T) {
	t.Parallel()
	clk := clock.NewManual(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
	l := ratelimit.New(clk, 1000, 4000)
	ok, _ := l.Reserve(1, 3000)
	require.True(t, ok)
	ok, wait := l.Reserve(1, 3000)
	require.False(t, ok, "1000 tokens left, 3000 asked")
	require.Equal(t, 2*time.Second, wait, "2000 more tokens at 1000 a second")
	ok, wait = l.Reserve(1, 5000)
	require.False(t, ok)
	require.Zero(t, wait, "more than the burst is never allowed")
	clk.Advance(2 * time.Second)
	ok, _ = l.Reserve(1, 3000)
	require.True(t, ok, "refused reservations spent nothing")
}
