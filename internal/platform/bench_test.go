package platform_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/platform/platformtest"
)

const submitBenchmark = `mutation($i: BenchmarkResultInput!) { submitBenchmarkResult(input: $i) { accepted userErrors { field code } } }`

// benchmarkResult is a run's result for the GPU inventory() names, its
// FP32 figure as given.
func benchmarkResult(runID, machineID string, fp32 any) map[string]any {
	now := time.Now().UTC()
	m := func(metric string, v any) map[string]any {
		return map[string]any{"metric": metric, "supported": true, "median": v, "repetitions": 5}
	}
	return map[string]any{"runId": runID, "machineId": machineID, "simulated": true,
		"startedAt": now.Add(-time.Minute).Format(time.RFC3339), "finishedAt": now.Format(time.RFC3339),
		"gpus": []any{map[string]any{"uuid": "GPU-" + machineID + "-0", "outcome": "COMPLETED", "measurements": []any{
			m("FP32_TFLOPS", fp32), m("TENSOR_FP16_TFLOPS", 600.0), m("MEMORY_COPY_GBS", 2800.0)}}}}
}

func TestBenchmarksReachTheDashboardFromTheAgentsSubmission(t *testing.T) {
	t.Parallel()
	platformtest.Each(t, platformtest.Options{}, func(t *testing.T, s *platformtest.Server) {
		p := s.NewProvider(t, "bench-api")
		uid := registered(t, s, p)
		agent := s.NewAPIClient(t, p.AgentToken)

		ws, _, err := s.DialWS(t, nil)
		require.NoError(t, err)
		ws.Init(map[string]any{"authorization": "Bearer " + p.User.Token})
		ws.Subscribe("1", `subscription { benchmarkUpdated { initial machine { hostname pendingRun { runId reason }
		  latestRun { runId } gpus { gpuUuid listing score listingChangedAt latest { runId figures { metric measured expected passed } } } } } }`, nil)
		type event struct {
			Data struct {
				BenchmarkUpdated struct {
					Initial bool
					Machine struct {
						PendingRun *struct{ RunID, Reason string }
						LatestRun  *struct{ RunID string }
						Gpus       []struct {
							Listing, ListingChangedAt string
							Score                     *int
						}
					}
				}
			}
			Errors []any
		}
		next := func() event {
			t.Helper()
			m := ws.MustRead(10 * time.Second)
			require.Equal(t, "next", m.Type, "%s", m.Payload)
			var ev event
			require.NoError(t, json.Unmarshal(m.Payload, &ev))
			require.Empty(t, ev.Errors, "%s", m.Payload)
			return ev
		}
		first := next().Data.BenchmarkUpdated
		require.True(t, first.Initial)
		require.Equal(t, "REGISTRATION", first.Machine.PendingRun.Reason, "a machine is benchmarked as soon as it registers")
		require.Equal(t, "PENDING", first.Machine.Gpus[0].Listing)
		require.NotEmpty(t, first.Machine.Gpus[0].ListingChangedAt, "pending since it joined")
		runID := first.Machine.PendingRun.RunID

		// Over the physical peak, refused whole; nothing changes.
		var res struct {
			SubmitBenchmarkResult struct {
				Accepted   bool
				UserErrors []struct{ Field, Code string }
			}
		}
		agent.MustDo(&res, submitBenchmark, map[string]any{"i": benchmarkResult(runID, uid, 500.0)})
		require.False(t, res.SubmitBenchmarkResult.Accepted)
		require.Equal(t, "input.gpus.0.measurements.0.median", res.SubmitBenchmarkResult.UserErrors[0].Field)
		require.Equal(t, "OUT_OF_RANGE", res.SubmitBenchmarkResult.UserErrors[0].Code)

		// Another provider's agent cannot report for this machine.
		other := s.NewProvider(t, "bench-api-other")
		r := s.NewAPIClient(t, other.AgentToken).Do(submitBenchmark, map[string]any{"i": benchmarkResult(runID, uid, 60.0)})
		require.Equal(t, []string{"NOT_FOUND"}, r.Codes())

		agent.MustDo(&res, submitBenchmark, map[string]any{"i": benchmarkResult(runID, uid, 60.0)})
		require.True(t, res.SubmitBenchmarkResult.Accepted, "%+v", res)
		ev := next().Data.BenchmarkUpdated.Machine
		require.Equal(t, runID, ev.LatestRun.RunID)
		require.Equal(t, "LISTED", ev.Gpus[0].Listing)
		require.NotNil(t, ev.Gpus[0].Score)

		agent.MustDo(&res, submitBenchmark, map[string]any{"i": benchmarkResult(runID, uid, 60.0)})
		require.False(t, res.SubmitBenchmarkResult.Accepted, "a run id is accepted once")
		require.Equal(t, "DUPLICATE", res.SubmitBenchmarkResult.UserErrors[0].Code)
		require.True(t, strings.HasPrefix(runID, "run_"))
	})
}
