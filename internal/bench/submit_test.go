package bench

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/fault/faulttest"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// Acceptance point 2: registration asks for one run, delivered with the
// next heartbeat; a throttled GPU is delisted with one notice in the app
// and one email; a requested run that passes relists it with a notice; a
// first passing run lists without one; consistency is nil for the first
// scored run and score/median for later ones.
func TestSubmitDelistsWithNoticesAndARequestedPassingRunRelists(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		machineID := b.register(t, b.agent, "machine-1", gpu("GPU-A", 0, h100), gpu("GPU-B", 1, h100))
		require.Equal(t, 1, b.count(t, "agent_commands", "machine_id = ? AND kind = ?", machineID, protocol.CommandRunBenchmark),
			"registration queues exactly one RUN_BENCHMARK")
		run := b.runOf(t, b.agent, "machine-1")
		require.Equal(t, protocol.BenchOnRegistration, run.Reason)
		require.Empty(t, b.beat(t, b.agent, "machine-1"), "a command is delivered once")
		require.Equal(t, models.GpuListingPending, b.listing(t, "GPU-A"))

		b.clock.Advance(20 * time.Minute)
		require.NoError(t, b.svc.Submit(b.ctx, b.agent, b.result(run.RunID, "machine-1", healthy("GPU-A"), throttled("GPU-B"))))

		require.Equal(t, models.GpuListingListed, b.listing(t, "GPU-A"), "the first passing run lists")
		require.Equal(t, models.GpuListingDelisted, b.listing(t, "GPU-B"))
		runs := b.runs(t, machineID)
		require.Len(t, runs, 1)
		require.Equal(t, models.BenchmarkRunCompleted, runs[0].State)
		require.NotNil(t, runs[0].Network)
		require.NotNil(t, runs[0].Storage)
		hb := b.history(t, "GPU-B")
		require.Len(t, hb, 1, "the history row is stored")
		require.False(t, hb[0].Passed)
		require.Equal(t, protocol.BenchOnRegistration, hb[0].Reason)
		require.Nil(t, hb[0].Consistency, "no consistency for the first scored run")
		require.Nil(t, b.history(t, "GPU-A")[0].Consistency)
		scoreA1, scoreB1 := *b.history(t, "GPU-A")[0].Score, *hb[0].Score

		ns := b.notifications(t, b.email)
		require.Len(t, ns, 1, "one notification for the delisting, none for the first listing")
		require.Equal(t, KindGpuDelisted, ns[0].Kind)
		require.Equal(t, "FP32_TFLOPS,TENSOR_FP16_TFLOPS", ns[0].Params["metrics"])
		require.Equal(t, "THERMAL_THROTTLING", ns[0].Params["guidance"])
		require.Equal(t, "1", ns[0].Params["gpus"], "GPU 1 (GPU-B)")
		require.Equal(t, run.RunID, ns[0].Params["runId"])
		require.Equal(t, "host-machine-1", ns[0].Params["hostname"])
		es := b.emails(t)
		require.Len(t, es, 1)
		require.Equal(t, b.email, es[0].ToAddress)
		require.Equal(t, "benchmark.delisted", es[0].Kind)
		require.Contains(t, es[0].Subject, "host-machine-1")
		require.Contains(t, es[0].TextBody, "FP32 compute measured 33.165; expected 60.3, minimum 42.21")
		require.Contains(t, es[0].TextBody, "Tensor cores (FP16) measured 299.324; expected 544.225")
		require.Contains(t, es[0].TextBody, "What to check: Throttled for heat during 62 % of the run")
		require.Contains(t, es[0].TextBody, "https://gpunex.test/provider/benchmarks")
		require.NotContains(t, es[0].TextBody, "GPU 0", "the listed GPU is not in the notice")

		// The provider fixes the fans and asks for a run.
		b.clock.Advance(time.Hour)
		req, err := b.svc.Request(b.ctx, b.agent.ProviderID, machineID)
		require.NoError(t, err)
		require.Equal(t, protocol.BenchRequested, req.Run.Reason)
		again := b.runOf(t, b.agent, "machine-1")
		require.Equal(t, req.Run.RunID, again.RunID)
		require.Equal(t, protocol.BenchRequested, again.Reason)
		b.clock.Advance(15 * time.Minute)
		second := healthy("GPU-A")
		second = withMeasurement(second, figure(protocol.MetricFP32, 50)) // a little slower than before
		require.NoError(t, b.svc.Submit(b.ctx, b.agent, b.result(again.RunID, "machine-1", second, healthy("GPU-B"))))

		require.Equal(t, models.GpuListingListed, b.listing(t, "GPU-A"))
		require.Equal(t, models.GpuListingListed, b.listing(t, "GPU-B"), "a passing run relists")
		ns = b.notifications(t, b.email)
		require.Len(t, ns, 2, "one more notification, for the relisting only")
		require.Equal(t, KindGpuRelisted, ns[1].Kind)
		require.Equal(t, "1", ns[1].Params["gpus"])
		es = b.emails(t)
		require.Len(t, es, 2)
		require.Equal(t, "benchmark.relisted", es[1].Kind)
		require.Equal(t, b.email, es[1].ToAddress)
		require.Contains(t, es[1].TextBody, "GPU 1 (NVIDIA H100 80GB HBM3) passed every threshold")

		ha, hb := b.history(t, "GPU-A"), b.history(t, "GPU-B")
		require.Len(t, ha, 2)
		require.Len(t, hb, 2)
		require.Equal(t, protocol.BenchRequested, hb[1].Reason)
		require.NotNil(t, ha[1].Consistency)
		require.InDelta(t, float64(*ha[1].Score)/float64(scoreA1), *ha[1].Consistency, 0.001, "score over the earlier median")
		require.Less(t, *ha[1].Consistency, 1.0)
		require.InDelta(t, float64(*hb[1].Score)/float64(scoreB1), *hb[1].Consistency, 0.001)
		require.Greater(t, *hb[1].Consistency, 1.0)
	})
}

// Acceptance point 2: consistency is the score over the median of the
// GPU's earlier scores (the mean of the middle two for an even count).
func TestConsistencyIsTheScoreOverTheMedianOfEarlierScores(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		machineID := b.register(t, b.agent, "machine-1", gpu("GPU-A", 0, h100))
		run := b.runOf(t, b.agent, "machine-1").RunID
		var scores []int
		var consistency []*float64
		for i, factor := range []float64{0.98, 0.80, 0.90, 0.98} {
			if i > 0 {
				b.clock.Advance(time.Hour)
				req, err := b.svc.Request(b.ctx, b.agent.ProviderID, machineID)
				require.NoError(t, err)
				run = req.Run.RunID
			}
			b.clock.Advance(time.Minute)
			require.NoError(t, b.svc.Submit(b.ctx, b.agent, b.result(run, "machine-1", measured("GPU-A", factor, factor))))
			h := b.history(t, "GPU-A")
			scores = append(scores, *h[len(h)-1].Score)
			consistency = append(consistency, h[len(h)-1].Consistency)
		}
		require.Equal(t, []int{98, 80, 90, 98}, scores)
		require.Nil(t, consistency[0])
		require.InDelta(t, 80.0/98, *consistency[1], 0.001)
		require.InDelta(t, 90.0/89, *consistency[2], 0.001, "median of 98 and 80 is 89")
		require.InDelta(t, 98.0/90, *consistency[3], 0.001, "median of 98, 80, 90 is 90")
	})
}

// Acceptance point 3: bad input is refused with a coded userError naming
// the field, and changes nothing: no row stored, nothing relisted.
func TestSubmitRefusesBadInputAndStoresNothing(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		other, _ := b.provider(t, "q")
		machineID := b.register(t, b.agent, "machine-1", gpu("GPU-A", 0, h100))
		b.register(t, b.agent, "machine-2", gpu("GPU-M2", 0, h100))
		b.register(t, other, "machine-q", gpu("GPU-Q", 0, h100))
		first := b.runOf(t, b.agent, "machine-1").RunID
		otherMachineRun := b.runOf(t, b.agent, "machine-2").RunID
		b.clock.Advance(time.Minute)
		require.NoError(t, b.svc.Submit(b.ctx, b.agent, b.result(first, "machine-1", throttled("GPU-A"))))
		require.Equal(t, models.GpuListingDelisted, b.listing(t, "GPU-A"))
		b.clock.Advance(time.Hour)
		req, err := b.svc.Request(b.ctx, b.agent.ProviderID, machineID)
		require.NoError(t, err)
		pending := req.Run.RunID
		b.clock.Advance(time.Minute)

		measurement := func(in *protocol.BenchmarkResultInput, i int) *protocol.BenchMeasurement {
			return &in.Gpus[0].Measurements[i]
		}
		tests := []struct {
			desc  string
			agent *auth.Agent
			edit  func(in *protocol.BenchmarkResultInput)
			// code is the error's code when it is not a userError.
			code  fault.Code
			field string
			prob  fault.ProblemCode
		}{
			{desc: "another provider's machine", agent: other, code: fault.NotFound},
			{desc: "an unknown machine", edit: func(in *protocol.BenchmarkResultInput) { in.MachineID = "machine-404" }, code: fault.NotFound},
			{desc: "a GPU not of the machine", edit: func(in *protocol.BenchmarkResultInput) { in.Gpus[0].UUID = "GPU-M2" },
				field: "input.gpus.0.uuid", prob: fault.InvalidValue},
			{desc: "a GPU twice", edit: func(in *protocol.BenchmarkResultInput) { in.Gpus = append(in.Gpus, in.Gpus[0]) },
				field: "input.gpus.1.uuid", prob: fault.Duplicate},
			{desc: "an unknown run id", edit: func(in *protocol.BenchmarkResultInput) { in.RunID = "run_000000000000000000000000" },
				field: "input.runId", prob: fault.InvalidValue},
			{desc: "a run id of another machine", edit: func(in *protocol.BenchmarkResultInput) { in.RunID = otherMachineRun },
				field: "input.runId", prob: fault.InvalidValue},
			{desc: "no run id", edit: func(in *protocol.BenchmarkResultInput) { in.RunID = "" }, field: "input.runId", prob: fault.Required},
			{desc: "a replayed run id", edit: func(in *protocol.BenchmarkResultInput) { in.RunID = first }, field: "input.runId", prob: fault.Duplicate},
			{desc: "a NaN median", edit: func(in *protocol.BenchmarkResultInput) { measurement(in, 0).Median = ptr(math.NaN()) },
				field: "input.gpus.0.measurements.0.median", prob: fault.OutOfRange},
			{desc: "a negative median", edit: func(in *protocol.BenchmarkResultInput) { measurement(in, 0).Median = ptr(-1.0) },
				field: "input.gpus.0.measurements.0.median", prob: fault.OutOfRange},
			{desc: "an infinite median", edit: func(in *protocol.BenchmarkResultInput) { measurement(in, 4).Median = ptr(math.Inf(1)) },
				field: "input.gpus.0.measurements.4.median", prob: fault.OutOfRange},
			{desc: "a NaN min", edit: func(in *protocol.BenchmarkResultInput) { measurement(in, 0).Min = ptr(math.NaN()) },
				field: "input.gpus.0.measurements.0.min", prob: fault.OutOfRange},
			{desc: "an infinite max", edit: func(in *protocol.BenchmarkResultInput) { measurement(in, 0).Max = ptr(math.Inf(1)) },
				field: "input.gpus.0.measurements.0.max", prob: fault.OutOfRange},
			{desc: "a NaN network figure", edit: func(in *protocol.BenchmarkResultInput) { in.Network.Measurements[1].Median = ptr(math.NaN()) },
				field: "input.network.measurements.1.median", prob: fault.OutOfRange},
			{desc: "a NaN throttled share", edit: func(in *protocol.BenchmarkResultInput) { in.Gpus[0].Evidence.ThrottledShare = math.NaN() },
				field: "input.gpus.0.evidence.throttledShare", prob: fault.OutOfRange},
			{desc: "a figure above 1.5× the datasheet", edit: func(in *protocol.BenchmarkResultInput) {
				*measurement(in, 0) = figure(protocol.MetricFP32, 67*1.5+1)
			}, field: "input.gpus.0.measurements.0.median", prob: fault.OutOfRange},
			{desc: "min above the median", edit: func(in *protocol.BenchmarkResultInput) { measurement(in, 0).Min = ptr(*measurement(in, 0).Median + 1) },
				field: "input.gpus.0.measurements.0.median", prob: fault.OutOfRange},
			{desc: "an unsupported metric with figures", edit: func(in *protocol.BenchmarkResultInput) { measurement(in, 2).Supported = false },
				field: "input.gpus.0.measurements.2.median", prob: fault.InvalidValue},
			{desc: "a supported metric without a median", edit: func(in *protocol.BenchmarkResultInput) { measurement(in, 2).Median = nil },
				field: "input.gpus.0.measurements.2.median", prob: fault.Required},
			{desc: "a metric of the wrong section", edit: func(in *protocol.BenchmarkResultInput) {
				*measurement(in, 6) = figure(protocol.MetricStorageRead, 2000)
			}, field: "input.gpus.0.measurements.6.metric", prob: fault.InvalidValue},
			{desc: "a GPU metric in the network section", edit: func(in *protocol.BenchmarkResultInput) {
				in.Network.Measurements[0] = figure(protocol.MetricFP32, 10)
			}, field: "input.network.measurements.0.metric", prob: fault.InvalidValue},
			{desc: "a metric twice", edit: func(in *protocol.BenchmarkResultInput) { *measurement(in, 1) = *measurement(in, 0) },
				field: "input.gpus.0.measurements.1.metric", prob: fault.Duplicate},
			{desc: "too many GPUs", edit: func(in *protocol.BenchmarkResultInput) {
				for len(in.Gpus) <= MaxGPUs {
					in.Gpus = append(in.Gpus, in.Gpus[0])
				}
			}, field: "input.gpus", prob: fault.TooMany},
			{desc: "too many measurements", edit: func(in *protocol.BenchmarkResultInput) {
				for len(in.Gpus[0].Measurements) <= MaxMeasurements {
					in.Gpus[0].Measurements = append(in.Gpus[0].Measurements, in.Gpus[0].Measurements[0])
				}
			}, field: "input.gpus.0.measurements", prob: fault.TooMany},
			{desc: "a completed GPU without measurements", edit: func(in *protocol.BenchmarkResultInput) { in.Gpus[0].Measurements = nil },
				field: "input.gpus.0.measurements", prob: fault.Required},
			{desc: "an unknown outcome", edit: func(in *protocol.BenchmarkResultInput) { in.Gpus[0].Outcome = "BROKEN"; in.Gpus[0].Error = ptr("x") },
				field: "input.gpus.0.outcome", prob: fault.InvalidValue},
			{desc: "a failed GPU that does not say why", edit: func(in *protocol.BenchmarkResultInput) { in.Gpus[0].Outcome = protocol.BenchFailed },
				field: "input.gpus.0.error", prob: fault.Required},
			{desc: "an error too long", edit: func(in *protocol.BenchmarkResultInput) {
				in.Gpus[0].Outcome, in.Gpus[0].Error = protocol.BenchFailed, ptr(strings.Repeat("x", MaxErrorLength+1))
			}, field: "input.gpus.0.error", prob: fault.TooLong},
			{desc: "finishedAt in the future", edit: func(in *protocol.BenchmarkResultInput) { in.FinishedAt = b.clock.Now().Add(10 * time.Minute) },
				field: "input.finishedAt", prob: fault.InFuture},
			{desc: "finishedAt before startedAt", edit: func(in *protocol.BenchmarkResultInput) { in.FinishedAt = in.StartedAt.Add(-time.Second) },
				field: "input.finishedAt", prob: fault.OutOfRange},
			{desc: "no startedAt", edit: func(in *protocol.BenchmarkResultInput) { in.StartedAt = time.Time{} },
				field: "input.finishedAt", prob: fault.OutOfRange},
		}
		tables := []string{"gpu_benchmarks", "gpu_bench_status", "notifications", "email_outbox", "agent_commands"}
		before := map[string]int{}
		for _, table := range tables {
			before[table] = b.count(t, table, "")
		}
		completed := b.count(t, "benchmark_runs", "state = ?", models.BenchmarkRunCompleted)
		for _, tc := range tests {
			t.Run(tc.desc, func(t *testing.T) {
				in := b.result(pending, "machine-1", healthy("GPU-A"))
				if tc.edit != nil {
					tc.edit(&in)
				}
				agent := b.agent
				if tc.agent != nil {
					agent = tc.agent
				}
				writes := db.Writes()
				err := b.svc.Submit(b.ctx, agent, in)
				if tc.code != "" {
					require.Equal(t, tc.code, fault.CodeOf(err), "%v", err)
				} else {
					faulttest.RequireProblem(t, err, tc.field, tc.prob)
				}
				require.Equal(t, writes, db.Writes(), "nothing written")
				for _, table := range tables {
					require.Equal(t, before[table], b.count(t, table, ""), table)
				}
				require.Equal(t, completed, b.count(t, "benchmark_runs", "state = ?", models.BenchmarkRunCompleted))
				require.Equal(t, models.GpuListingDelisted, b.listing(t, "GPU-A"), "nothing relisted")
			})
		}
		// The run refused so many times is still open to its real result.
		require.NoError(t, b.svc.Submit(b.ctx, b.agent, b.result(pending, "machine-1", healthy("GPU-A"))))
		require.Equal(t, models.GpuListingListed, b.listing(t, "GPU-A"))
	})
}

// Acceptance point 3: a run that expired may still report (the agent was
// slow, not wrong), once.
func TestAnExpiredRunMayStillReportOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		machineID := b.register(t, b.agent, "machine-1", gpu("GPU-A", 0, h100))
		run := b.runOf(t, b.agent, "machine-1").RunID
		b.clock.Advance(b.svc.Config().RunTimeout + time.Minute)
		b.svc.Tick(b.ctx)
		require.Equal(t, models.BenchmarkRunExpired, b.runs(t, machineID)[0].State)
		require.NoError(t, b.svc.Submit(b.ctx, b.agent, b.result(run, "machine-1", healthy("GPU-A"))))
		require.Equal(t, models.BenchmarkRunCompleted, b.runs(t, machineID)[0].State)
		faulttest.RequireProblem(t, b.svc.Submit(b.ctx, b.agent, b.result(run, "machine-1", healthy("GPU-A"))), "input.runId", fault.Duplicate)
	})
}

// Acceptance point 3: replays racing each other store the result once.
func TestConcurrentReplaysStoreOneResult(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		b.register(t, b.agent, "machine-1", gpu("GPU-A", 0, h100))
		in := b.result(b.runOf(t, b.agent, "machine-1").RunID, "machine-1", throttled("GPU-A"))
		const replays = 4
		errs := make(chan error, replays)
		for range replays {
			go func() { errs <- b.svc.Submit(b.ctx, b.agent, in) }()
		}
		accepted := 0
		for range replays {
			if err := <-errs; err == nil {
				accepted++
			} else {
				faulttest.RequireProblem(t, err, "input.runId", fault.Duplicate)
			}
		}
		require.Equal(t, 1, accepted)
		require.Len(t, b.history(t, "GPU-A"), 1)
		require.Len(t, b.notifications(t, b.email), 1)
		require.Len(t, b.emails(t), 1)
	})
}

// Issue 26: each result records the GPU's headline TFLOPS (tensor BF16,
// else tensor FP16, else FP32: models.HeadlineFigure) beside its listing,
// the figure the marketplace sorts by per USDC; the latest result's, never
// an earlier one's.
func TestAResultRecordsTheGPUsHeadlineTflops(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		machineID := b.register(t, b.agent, "machine-1", gpu("GPU-A", 0, h100), gpu("GPU-B", 1, h100))
		tflops := func(uuid string) *float64 {
			t.Helper()
			var v []*float64
			require.NoError(t, b.db.NewSelect().TableExpr("gpu_bench_status AS s").Join("JOIN machine_gpus AS g ON g.id = s.gpu_id").
				ColumnExpr("s.tflops").Where("g.uuid = ?", uuid).Scan(b.ctx, &v))
			require.Len(t, v, 1)
			return v[0]
		}
		valueOf := func(r protocol.GpuBenchResult, metric protocol.BenchMetric) float64 {
			for _, m := range r.Measurements {
				if m.Metric == metric {
					return *m.Median
				}
			}
			t.Fatalf("no %s in the result", metric)
			return 0
		}

		run := b.runOf(t, b.agent, "machine-1")
		a, slow := healthy("GPU-A"), throttled("GPU-B")
		require.NoError(t, b.svc.Submit(b.ctx, b.agent, b.result(run.RunID, "machine-1", a, slow)))
		require.NotNil(t, tflops("GPU-A"))
		require.InDelta(t, valueOf(a, protocol.MetricTensorBF16), *tflops("GPU-A"), 1e-9, "the tensor BF16 figure first")
		require.InDelta(t, valueOf(slow, protocol.MetricTensorBF16), *tflops("GPU-B"), 1e-9, "recorded for a delisted GPU too")

		// The next run measures GPU-A slower: the latest result's figure
		// is the one kept.
		b.clock.Advance(time.Hour)
		req, err := b.svc.Request(b.ctx, b.agent.ProviderID, machineID)
		require.NoError(t, err)
		again := b.runOf(t, b.agent, "machine-1")
		require.Equal(t, req.Run.RunID, again.RunID)
		b.clock.Advance(15 * time.Minute)
		slower := measured("GPU-A", 0.9, 0.98)
		require.NoError(t, b.svc.Submit(b.ctx, b.agent, b.result(again.RunID, "machine-1", slower, healthy("GPU-B"))))
		require.Less(t, valueOf(slower, protocol.MetricTensorBF16), valueOf(a, protocol.MetricTensorBF16))
		require.InDelta(t, valueOf(slower, protocol.MetricTensorBF16), *tflops("GPU-A"), 1e-9, "the latest result's figure, not the earlier one")
	})
}
