package platform_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/bench"
	"github.com/gpunex/gpunex/internal/platform/platformtest"
)

const submitBenchmark = `mutation($i: BenchmarkResultInput!) { submitBenchmarkResult(input: $i) { accepted userErrors { field code } } }`

// askedRun sends machine uid's heartbeat and returns the RUN_BENCHMARK it
// carries: the run id and the nonce the agent seals its result with.
func askedRun(t *testing.T, agent *platformtest.Client, uid string) protocol.RunBenchmarkPayload {
	t.Helper()
	var hb struct {
		Heartbeat struct {
			Commands []struct{ Kind, Payload string }
		}
	}
	agent.MustDo(&hb, heartbeat, map[string]any{"i": beatInput(uid, 1, 1)})
	require.Len(t, hb.Heartbeat.Commands, 1)
	require.Equal(t, "RUN_BENCHMARK", hb.Heartbeat.Commands[0].Kind)
	var run protocol.RunBenchmarkPayload
	require.NoError(t, json.Unmarshal([]byte(hb.Heartbeat.Commands[0].Payload), &run))
	require.NotEmpty(t, run.Nonce, "a run is asked with a nonce")
	return run
}

// benchmarkResult is an honest agent's result for run on the H100 SXM
// inventory() names: its FP32 figure as given, every other metric at 95 %
// of the datasheet (memory at 85 %), each sealed with the launch of a
// 132-SM GPU and the checksum the run's nonce gives.
func benchmarkResult(t *testing.T, run protocol.RunBenchmarkPayload, machineID string, fp32 float64) protocol.BenchmarkResultInput {
	t.Helper()
	now := time.Now().UTC()
	figures := map[protocol.BenchMetric]float64{protocol.MetricFP32: fp32, protocol.MetricFP16: 127, protocol.MetricTensorFP16: 600,
		protocol.MetricTensorBF16: 600, protocol.MetricMemoryRead: 2850, protocol.MetricMemoryWrite: 2850, protocol.MetricMemoryCopy: 2800}
	seeds := protocol.BenchSeedsFor(run.Nonce)
	var ms []protocol.BenchMeasurement
	for _, metric := range protocol.GPUMetrics {
		v := figures[metric]
		l := protocol.BenchLaunch{SmCount: 132, Grid: 132 * 8, Scale: 64}
		if strings.HasPrefix(string(metric), "MEMORY_") {
			bytes := float64(512 << 20)
			l.BufferBytes = &bytes
		}
		sum, err := protocol.ExpectedBenchChecksum(metric, seeds, l, 5)
		require.NoError(t, err)
		ms = append(ms, protocol.BenchMeasurement{Metric: metric, Supported: true, Median: &v, Repetitions: 5, Launch: &l, Checksum: &sum})
	}
	return protocol.BenchmarkResultInput{RunID: run.RunID, MachineID: machineID, Simulated: true,
		StartedAt: now.Add(-time.Minute), FinishedAt: now,
		Gpus: []protocol.GpuBenchResult{{UUID: "GPU-" + machineID + "-0", Outcome: protocol.BenchCompleted, Measurements: ms}}}
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
		run := askedRun(t, agent, uid)
		require.Equal(t, runID, run.RunID)

		// Over the physical peak, refused whole; nothing changes.
		var res struct {
			SubmitBenchmarkResult struct {
				Accepted   bool
				UserErrors []struct{ Field, Code string }
			}
		}
		agent.MustDo(&res, submitBenchmark, map[string]any{"i": benchmarkResult(t, run, uid, 500.0)})
		require.False(t, res.SubmitBenchmarkResult.Accepted)
		require.Equal(t, "input.gpus.0.measurements.0.median", res.SubmitBenchmarkResult.UserErrors[0].Field)
		require.Equal(t, "OUT_OF_RANGE", res.SubmitBenchmarkResult.UserErrors[0].Code)

		// Another provider's agent cannot report for this machine.
		other := s.NewProvider(t, "bench-api-other")
		r := s.NewAPIClient(t, other.AgentToken).Do(submitBenchmark, map[string]any{"i": benchmarkResult(t, run, uid, 60.0)})
		require.Equal(t, []string{"NOT_FOUND"}, r.Codes())

		agent.MustDo(&res, submitBenchmark, map[string]any{"i": benchmarkResult(t, run, uid, 60.0)})
		require.True(t, res.SubmitBenchmarkResult.Accepted, "%+v", res)
		ev := next().Data.BenchmarkUpdated.Machine
		require.Equal(t, runID, ev.LatestRun.RunID)
		require.Equal(t, "LISTED", ev.Gpus[0].Listing)
		require.NotNil(t, ev.Gpus[0].Score)

		agent.MustDo(&res, submitBenchmark, map[string]any{"i": benchmarkResult(t, run, uid, 60.0)})
		require.False(t, res.SubmitBenchmarkResult.Accepted, "a run id is accepted once")
		require.Equal(t, "DUPLICATE", res.SubmitBenchmarkResult.UserErrors[0].Code)
		require.True(t, strings.HasPrefix(runID, "run_"))
	})
}

// Issue 24, item 3, the drill through the public API: a benchmark result
// replayed from an earlier run, or sent with a wrong checksum, is refused
// (accepted false, a coded userError naming the field), the GPU keeps its
// listing state, the provider finds a BENCHMARK_REFUSED notification, the
// refused run answers nothing more, and the server keeps serving: the next
// honest run is accepted.
func TestAReplayedBenchmarkOrAWrongChecksumIsRefusedThroughTheAPI(t *testing.T) {
	t.Parallel()
	platformtest.Each(t, platformtest.Options{Bench: bench.Config{Cooldown: time.Nanosecond}}, func(t *testing.T, s *platformtest.Server) {
		p := s.NewProvider(t, "bench-drill")
		uid := registered(t, s, p)
		agent := s.NewAPIClient(t, p.AgentToken)
		type answer struct {
			SubmitBenchmarkResult struct {
				Accepted   bool
				UserErrors []struct{ Field, Code string }
			}
		}
		submit := func(in protocol.BenchmarkResultInput) answer {
			var a answer
			agent.MustDo(&a, submitBenchmark, map[string]any{"i": in})
			return a
		}
		var view struct {
			MyProvider struct {
				Benchmarks []struct {
					MachineID string
					Gpus      []struct{ Listing string }
				}
			}
		}
		listing := func() string {
			p.User.MustDo(&view, `{ myProvider { benchmarks { machineId gpus { listing } } } }`, nil)
			require.Len(t, view.MyProvider.Benchmarks, 1)
			return view.MyProvider.Benchmarks[0].Gpus[0].Listing
		}
		ask := func() protocol.RunBenchmarkPayload {
			var r struct {
				RequestBenchmark struct{ UserErrors []any }
			}
			p.User.MustDo(&r, `mutation($m: ID!) { requestBenchmark(input: {machineId: $m}) { userErrors { field code } } }`,
				map[string]any{"m": view.MyProvider.Benchmarks[0].MachineID})
			require.Empty(t, r.RequestBenchmark.UserErrors)
			return askedRun(t, agent, uid)
		}
		refusals := func() int {
			var n struct {
				Notifications struct {
					Edges []struct{ Node struct{ Kind string } }
				}
			}
			p.User.MustDo(&n, `{ notifications(first: 50) { edges { node { kind } } } }`, nil)
			count := 0
			for _, e := range n.Notifications.Edges {
				if e.Node.Kind == bench.KindBenchmarkRefused {
					count++
				}
			}
			return count
		}

		first := askedRun(t, agent, uid)
		earlier := benchmarkResult(t, first, uid, 60)
		require.True(t, submit(earlier).SubmitBenchmarkResult.Accepted)
		require.Equal(t, "LISTED", listing())

		for i, tc := range []struct {
			desc  string
			input func(run protocol.RunBenchmarkPayload) protocol.BenchmarkResultInput
			field string
		}{
			{"the earlier run's result replayed under the new run id", func(run protocol.RunBenchmarkPayload) protocol.BenchmarkResultInput {
				replay := earlier
				replay.RunID = run.RunID
				return replay
			}, "input.gpus.0.measurements.0.checksum"},
			{"a wrong checksum", func(run protocol.RunBenchmarkPayload) protocol.BenchmarkResultInput {
				in := benchmarkResult(t, run, uid, 60)
				wrong := strings.Repeat("0", 16)
				in.Gpus[0].Measurements[2].Checksum = &wrong
				return in
			}, "input.gpus.0.measurements.2.checksum"},
		} {
			run := ask()
			a := submit(tc.input(run))
			require.False(t, a.SubmitBenchmarkResult.Accepted, tc.desc)
			require.Contains(t, a.SubmitBenchmarkResult.UserErrors, struct{ Field, Code string }{tc.field, "INVALID"}, tc.desc)
			require.Equal(t, "LISTED", listing(), "%s: the GPU keeps its listing", tc.desc)
			require.Equal(t, i+1, refusals(), "%s: the provider is told", tc.desc)
			again := submit(benchmarkResult(t, run, uid, 60))
			require.False(t, again.SubmitBenchmarkResult.Accepted, "%s: a refused run answers nothing more", tc.desc)
			require.Equal(t, "INVALID_STATE", again.SubmitBenchmarkResult.UserErrors[0].Code)
		}
		run := ask()
		require.True(t, submit(benchmarkResult(t, run, uid, 61)).SubmitBenchmarkResult.Accepted, "the server keeps serving")
		require.Equal(t, "LISTED", listing())
	})
}
