package presence

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/clock"
)

func TestMemorySweepsExpiredEntriesNobodyAsksFor(t *testing.T) {
	t.Parallel()
	clk := clock.NewManual(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	m := NewMemory(clk)
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
		clk.Advance(tc.advance)
		_, err := m.Touch(t.Context(), "alive", []byte("up"), time.Hour)
		require.NoError(t, err)
		require.Len(t, m.entries, tc.wantEntries, tc.name)
	}
}
