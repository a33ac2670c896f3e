package e2e_test

import (
	"os"
	"testing"

	"github.com/gpunex/gpunex/internal/proxytest"
)

// TestMain lets this test binary serve as the soak's balancers
// (proxytest.StartProcess starts it again as one).
func TestMain(m *testing.M) {
	proxytest.Main()
	os.Exit(m.Run())
}
