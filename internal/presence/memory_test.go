package presence_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/presence"
	"github.com/gpunex/gpunex/internal/presence/presencetest"
)

func TestMemory(t *testing.T) {
	t.Parallel()
	var clocks sync.Map // *testing.T → *clock.Manual
	presencetest.Exercise(t,
		func(t *testing.T) presence.Store {
			clk := clock.NewManual(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
			clocks.Store(t, clk)
			s := presence.NewMemory(clk)
			t.Cleanup(func() { require.NoError(t, s.Close()) })
			return s
		},
		func(t *testing.T, d time.Duration) {
			clk, ok := clocks.Load(t)
			require.True(t, ok, "advance called with a t that newStore never saw")
			clk.(*clock.Manual).Advance(d)
		},
	)
}

func TestMemoryUsesTheSystemClockByDefault(t *testing.T) {
	t.Parallel()
	s := presence.NewMemory(nil)
	appeared, err := s.Touch(t.Context(), "machine-1", []byte("up"), 20*time.Millisecond)
	require.NoError(t, err)
	require.True(t, appeared)
	await.True(t, func() bool {
		_, ok, err := s.Get(t.Context(), "machine-1")
		return err == nil && !ok
	})
}
