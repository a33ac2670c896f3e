package e2e_test

import (
	"encoding/json"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/platform/platformtest"
	"github.com/gpunex/gpunex/internal/redistest"
	"github.com/gpunex/gpunex/internal/store/storetest"
)

// benchmarkSubscription follows the provider's benchmarks.
const benchmarkSubscription = `subscription { benchmarkUpdated { initial machine {
  machineId hostname
  pendingRun { runId reason }
  latestRun { runId reason simulated network { outcome figures { metric measured passed } } storage { outcome figures { metric measured passed } } }
  gpus { gpuUuid listing score shortfalls { metric measured expected minimum } guidance { code params { key value } }
    latest { runId outcome score evidence { throttleReasons throttledShare maxTemperatureC } } }
} } }`

// benchEvent is one benchmarkUpdated message.
type benchEvent struct {
	Data struct {
		BenchmarkUpdated struct {
			Initial bool
			Machine struct {
				MachineID, Hostname string
				PendingRun          *struct{ RunID, Reason string }
				LatestRun           *struct {
					RunID, Reason string
					Simulated     bool
				}
				Gpus []struct {
					GpuUUID, Listing string
					Score            *int
					Shortfalls       []struct{ Metric string }
					Guidance         []struct{ Code string }
					Latest           *struct {
						RunID, Outcome string
						Evidence       *struct {
							ThrottleReasons []string
							ThrottledShare  float64
						}
					}
				}
			}
		}
	}
}

func TestRealAgentIsBenchmarkedDelistedWhenThrottledAndRelistedWhenHealed(t *testing.T) {
	t.Parallel()
	serverBin, agentBin := binaries(t)
	for _, stack := range []string{"sqlite+memory", "postgres+redis"} {
		t.Run(stack, func(t *testing.T) {
			t.Parallel()
			smtp := platformtest.StartSMTP(t)
			extra := []string{"--smtp-url", smtp.URL()}
			if stack == "postgres+redis" {
				rs := redistest.Start(t, 0)
				extra = append(extra, "--database-url", storetest.PostgresURL(t), "--redis-url", rs.URL(), "--redis-prefix", "e2e:")
			}
			_, url := serve(t, serverBin, extra...)
			srv := &platformtest.Server{URL: url}
			provider, agentToken := demoAgentToken(t, srv)

			ws, _, err := srv.DialWS(t, nil)
			require.NoError(t, err)
			ws.Init(map[string]any{"authorization": "Bearer " + provider.Token})
			ws.Subscribe("1", benchmarkSubscription, nil)
			// until reads events until one for the e2e machine satisfies ok.
			until := func(what string, ok func(ev benchEvent) bool) benchEvent {
				t.Helper()
				deadline := time.Now().Add(90 * time.Second)
				for time.Now().Before(deadline) {
					m := ws.MustRead(time.Until(deadline))
					require.Equal(t, "next", m.Type, "%s", m.Payload)
					var ev benchEvent
					require.NoError(t, json.Unmarshal(m.Payload, &ev), "%s", m.Payload)
					if ev.Data.BenchmarkUpdated.Machine.Hostname == "bench-host" && ok(ev) {
						return ev
					}
				}
				t.Fatalf("no event: %s", what)
				return benchEvent{}
			}

			dataDir := t.TempDir()
			runAgent := func(simulate string) *process {
				return startWithEnv(t, []string{"GPUNEX_TOKEN=" + agentToken}, agentBin, "--server", url, "--data-dir", dataDir,
					"--simulate", simulate, "--hostname", "bench-host")
			}

			// Registered, the machine is benchmarked at once; the throttled
			// GPU falls under the compute minimum and is delisted.
			agent := runAgent("1xH100:throttled")
			asked := until("the registration run is asked for", func(ev benchEvent) bool {
				r := ev.Data.BenchmarkUpdated.Machine.PendingRun
				return r != nil && r.Reason == "REGISTRATION"
			})
			machineID := asked.Data.BenchmarkUpdated.Machine.MachineID
			delisted := until("the GPU is delisted", func(ev benchEvent) bool {
				m := ev.Data.BenchmarkUpdated.Machine
				return m.LatestRun != nil && len(m.Gpus) == 1 && m.Gpus[0].Listing == "DELISTED"
			}).Data.BenchmarkUpdated.Machine
			require.True(t, delisted.LatestRun.Simulated, "simulated figures are flagged")
			gpu := delisted.Gpus[0]
			require.NotNil(t, gpu.Score)
			require.Less(t, *gpu.Score, 80)
			var short []string
			for _, s := range gpu.Shortfalls {
				short = append(short, s.Metric)
			}
			require.Contains(t, short, "FP32_TFLOPS", "the shortfall names the metric")
			var codes []string
			for _, g := range gpu.Guidance {
				codes = append(codes, g.Code)
			}
			require.Contains(t, codes, "THERMAL_THROTTLING", "the guidance is drawn from the evidence")
			require.NotNil(t, gpu.Latest.Evidence)
			require.Contains(t, gpu.Latest.Evidence.ThrottleReasons, "hw_thermal_slowdown")

			mail := smtp.WaitFor(t, "provider@gpunex.demo", "GPU delisted on bench-host")
			require.Contains(t, mail.Body, "FP32 compute measured", "the metric by its name in the provider's language")
			require.Contains(t, mail.Body, "Throttled for heat during 100 % of the run")
			var notes struct {
				Notifications struct {
					Edges []struct{ Node struct{ Kind, Body string } }
				}
			}
			provider.MustDo(&notes, `{ notifications(first: 20) { edges { node { kind body } } } }`, nil)
			found := false
			for _, e := range notes.Notifications.Edges {
				found = found || (e.Node.Kind == "GPU_DELISTED" && strings.Contains(e.Node.Body, "FP32_TFLOPS"))
			}
			require.True(t, found, "an in-app notification names the metric")

			// Healed (the same machine, restarted with a healthy profile)
			// and asked to run again, it is relisted.
			require.NoError(t, agent.cmd.Process.Signal(syscall.SIGTERM))
			_, _ = agent.cmd.Process.Wait()
			runAgent("1xH100")
			var rb struct {
				RequestBenchmark struct {
					Run        *struct{ RunID, Reason string }
					UserErrors []struct{ Field, Code string }
				}
			}
			provider.MustDo(&rb, `mutation($m: ID!) { requestBenchmark(input: {machineId: $m}) { run { runId reason } userErrors { field code } } }`,
				map[string]any{"m": machineID})
			require.Empty(t, rb.RequestBenchmark.UserErrors)
			require.Equal(t, "REQUESTED", rb.RequestBenchmark.Run.Reason)
			relisted := until("the GPU is relisted", func(ev benchEvent) bool {
				m := ev.Data.BenchmarkUpdated.Machine
				return m.LatestRun != nil && m.LatestRun.RunID == rb.RequestBenchmark.Run.RunID && m.Gpus[0].Listing == "LISTED"
			}).Data.BenchmarkUpdated.Machine
			require.GreaterOrEqual(t, *relisted.Gpus[0].Score, 90)
			require.Empty(t, relisted.Gpus[0].Guidance)
			smtp.WaitFor(t, "provider@gpunex.demo", "GPU listed again on bench-host")

			// A second request at once is refused until the cooldown ends.
			provider.MustDo(&rb, `mutation($m: ID!) { requestBenchmark(input: {machineId: $m}) { run { runId reason } userErrors { field code } } }`,
				map[string]any{"m": machineID})
			require.Len(t, rb.RequestBenchmark.UserErrors, 1)
			require.Equal(t, "TOO_SOON", rb.RequestBenchmark.UserErrors[0].Code)
		})
	}
}
