package e2e_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/benchtest"
	"github.com/gpunex/gpunex/internal/platform/platformtest"
)

// BenchmarkAgentResources runs the real gpunex-agent with 8 simulated
// GPUs, heartbeating every second to a real gpunex serve, and reports its
// resident memory (now and at its peak) and CPU use once it is online.
// Target: under 30 MiB RSS. Run it once: -benchtime 1x. At
// the smallest size (benchtest, make test) it measures for a second instead of five.
func BenchmarkAgentResources(b *testing.B) {
	settle, measure := 2*time.Second, 5*time.Second
	if benchtest.Smallest() {
		settle, measure = 500*time.Millisecond, time.Second
	}
	serverBin, agentBin := binaries(b)
	_, url := serve(b, serverBin)
	srv := &platformtest.Server{URL: url}
	provider, token := demoAgentToken(b, srv)
	agent := startWithEnv(b, []string{"GPUNEX_TOKEN=" + token}, agentBin, "--server", url, "--data-dir", b.TempDir(),
		"--simulate", "8xH100", "--hostname", "bench-host")
	require.Eventually(b, func() bool {
		var mp struct {
			MyProvider struct {
				Machines []struct{ Hostname, Status string }
			}
		}
		provider.MustDo(&mp, `{ myProvider { machines { hostname status } } }`, nil)
		for _, m := range mp.MyProvider.Machines {
			if m.Hostname == "bench-host" && m.Status == "ONLINE" {
				return true
			}
		}
		return false
	}, 30*time.Second, 100*time.Millisecond, "the agent did not come online")

	pid := agent.cmd.Process.Pid
	time.Sleep(settle) // past start-up
	b.ResetTimer()
	cpu0, wall0 := cpuTime(b, pid), time.Now()
	for range b.N {
		time.Sleep(measure)
	}
	cpu := float64(cpuTime(b, pid)-cpu0) / float64(time.Since(wall0)) * 100
	b.StopTimer()
	b.ReportMetric(float64(statusKiB(b, pid, "VmRSS"))/1024, "rss_MiB")
	b.ReportMetric(float64(statusKiB(b, pid, "VmHWM"))/1024, "peak_rss_MiB")
	b.ReportMetric(cpu, "cpu_%_of_a_core")
}
