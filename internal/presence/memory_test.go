package presence_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/presence"
	"github.com/gpunex/gpunex/internal/presence/presencetest"
)

func TestMemory(t *testing.T) {
	t.Parallel()
	var clocks sync.Map // *testing.T → *fakeClock
	presencetest.Exercise(t,
		func(t *testing.T) presence.Store {
			clock := &fakeClock{now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
			clocks.Store(t, clock)
			s := presence.NewMemory(clock)
			t.Cleanup(func() { require.NoError(t, s.Close()) })
			return s
		},
		func(t *testing.T, d time.Duration) {
			clock, ok := clocks.Load(t)
			require.True(t, ok, "advance called with a t that newStore never saw")
			clock.(*fakeClock).advance(d)
		},
	)
}

func TestMemoryUsesTheSystemClockByDefault(t *testing.T) {
	t.Parallel()
	s := presence.NewMemory(nil)
	appeared, err := s.Touch(t.Context(), "machine-1", []byte("up"), 20*time.Millisecond)
	require.NoError(t, err)
	require.True(t, appeared)
	require.Eventually(t, func() bool {
		_, ok, err := s.Get(t.Context(), "machine-1")
		return err == nil && !ok
	}, 5*time.Second, 5*time.Millisecond)
}

// fakeClock is a presence.Clock that moves only when told to.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
