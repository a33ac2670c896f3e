package presence

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestMemorySweepsExpiredEntriesNobodyAsksFor(t *testing.T) {
	t.Parallel()
	clock := &steppedClock{now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	m := NewMemory(clock)
	for i := range 100 {
		_, err := m.Touch(t.Context(), fmt.Sprintf("gone-%d", i), []byte("up"), time.Second)
		require.NoError(t, err)
	}

	tests := []struct {
		name        string
		advance     time.Duration
		wantEntries int
	}{
		{"expired entries linger until the next sweep is due", 2 * time.Second, 101},
		{"a Touch after the sweep interval removes them", sweepInterval, 1},
	}
	for _, tc := range tests {
		clock.now = clock.now.Add(tc.advance)
		_, err := m.Touch(t.Context(), "alive", []byte("up"), time.Hour)
		require.NoError(t, err)
		require.Len(t, m.entries, tc.wantEntries, tc.name)
	}
}

// steppedClock is a Clock moved by the test goroutine alone.
type steppedClock struct{ now time.Time }

func (c *steppedClock) Now() time.Time { return c.now }
