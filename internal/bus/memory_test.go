package bus_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/bus/bustest"
)

// TestMemory is not parallel: bustest.Exercise counts goroutines and runs
// its own cases in parallel.
func TestMemory(t *testing.T) {
	bustest.Exercise(t, func(t *testing.T) bus.Bus {
		b := bus.NewMemory()
		t.Cleanup(func() { require.NoError(t, b.Close()) })
		return b
	})
}
