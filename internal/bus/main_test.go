package bus_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if any goroutine outlives its tests, including
// the private Redis server tests that bustest's own check does not cover.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
