package bench

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/catalog"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/fault/faulttest"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// requireRefusal asserts that err is a validation error naming field with
// code (among, possibly, other problems).
func requireRefusal(t *testing.T, err error, field string, code fault.ProblemCode) {
	t.Helper()
	require.Equal(t, fault.Invalid, fault.CodeOf(err), "%v", err)
	v, ok := fault.AsValidation(err)
	require.True(t, ok, "%v", err)
	for _, p := range v.Problems {
		if p.Field == field && p.Code == code {
			require.NotEmpty(t, p.Message)
			return
		}
	}
	t.Fatalf("no %s on %s in %v", code, field, err)
}

// nonce is the nonce run runID was asked with.
func (b *bundle) nonce(t *testing.T, runID string) string {
	t.Helper()
	run := new(models.BenchmarkRun)
	require.NoError(t, b.db.NewSelect().Model(run).Where("run_uid = ?", runID).Scan(b.ctx))
	require.NotNil(t, run.Nonce, "a run is asked with a nonce")
	return *run.Nonce
}

// run loads run runID.
func (b *bundle) run(t *testing.T, runID string) models.BenchmarkRun {
	t.Helper()
	var run models.BenchmarkRun
	require.NoError(t, b.db.NewSelect().Model(&run).Where("run_uid = ?", runID).Scan(b.ctx))
	return run
}

// ask asks for a run on machine uid (after the cooldown) and returns the
// payload its heartbeat delivers.
func (b *bundle) ask(t *testing.T, machineID int64, uid string) protocol.RunBenchmarkPayload {
	t.Helper()
	b.clock.Advance(b.svc.Config().Cooldown + time.Minute)
	_, err := b.svc.Request(b.ctx, b.agent.ProviderID, machineID)
	require.NoError(t, err)
	run := b.runOf(t, b.agent, uid)
	b.clock.Advance(time.Minute)
	return run
}

// atShare is an H100 SXM's result with every compute figure at share of
// its datasheet figure (its fastest repetition too) and memory at 98 % of
// its expected.
func atShare(uuid string, share float64) protocol.GpuBenchResult {
	model := catalog.ByKey("H100_SXM_80GB")
	r := healthy(uuid)
	for i, m := range r.Measurements {
		if i < 4 {
			r.Measurements[i] = figure(m.Metric, round3(*reference(model, m.Metric)*share))
			r.Measurements[i].Max = r.Measurements[i].Median
		}
	}
	return r
}

// Issue 24, item 3: a result that marks every metric supported: false
// relisted a delisted GPU with no score; one that leaves metrics out could
// too. A catalogue model (compute capability 8.0 or more) supports all
// seven GPU metrics: such a result is refused naming the field, stores no
// figure, and the GPU stays delisted; the refusal is recorded on the run
// (which closes), the provider is told, a warning is logged, and the run
// answers no second result.
func TestAResultMissingMetricsTheModelSupportsIsRefusedAndTheGPUStaysDelisted(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		machineID := b.register(t, b.agent, "machine-1", gpu("GPU-A", 0, h100))
		require.NoError(t, b.svc.Submit(b.ctx, b.agent, b.result(b.runOf(t, b.agent, "machine-1").RunID, "machine-1", throttled("GPU-A"))))
		require.Equal(t, models.GpuListingDelisted, b.listing(t, "GPU-A"))

		tests := []struct {
			desc  string
			gpu   func() protocol.GpuBenchResult
			field string
			code  fault.ProblemCode
		}{
			{desc: "every metric marked supported: false", gpu: func() protocol.GpuBenchResult {
				r := protocol.GpuBenchResult{UUID: "GPU-A", Outcome: protocol.BenchCompleted, Evidence: &protocol.GpuBenchEvidence{Samples: 120}}
				for _, m := range protocol.GPUMetrics {
					r.Measurements = append(r.Measurements, protocol.BenchMeasurement{Metric: m, Supported: false})
				}
				return r
			}, field: "input.gpus.0.measurements.0.supported", code: fault.InvalidValue},
			{desc: "the tensor metrics marked supported: false", gpu: func() protocol.GpuBenchResult {
				r := healthy("GPU-A")
				r.Measurements[2] = protocol.BenchMeasurement{Metric: protocol.MetricTensorFP16}
				r.Measurements[3] = protocol.BenchMeasurement{Metric: protocol.MetricTensorBF16}
				return r
			}, field: "input.gpus.0.measurements.2.supported", code: fault.InvalidValue},
			{desc: "only the threshold metrics, the others left out", gpu: func() protocol.GpuBenchResult {
				r := healthy("GPU-A")
				r.Measurements = []protocol.BenchMeasurement{r.Measurements[0], r.Measurements[2], r.Measurements[6]}
				return r
			}, field: "input.gpus.0.measurements", code: fault.Required},
		}
		for _, tc := range tests {
			t.Run(tc.desc, func(t *testing.T) {
				run := b.ask(t, machineID, "machine-1")
				results, notices := b.count(t, "gpu_benchmarks", ""), len(b.notifications(t, b.email))
				err := b.svc.Submit(b.ctx, b.agent, b.result(run.RunID, "machine-1", tc.gpu()))
				t.Logf("refused: %v", err)
				requireRefusal(t, err, tc.field, tc.code)

				require.Equal(t, models.GpuListingDelisted, b.listing(t, "GPU-A"), "the GPU stays delisted")
				require.Equal(t, results, b.count(t, "gpu_benchmarks", ""), "no figure stored")
				stored := b.run(t, run.RunID)
				require.Equal(t, models.BenchmarkRunExpired, stored.State, "the refused run is closed")
				require.NotNil(t, stored.RefusedAt, "the refusal is recorded")
				require.Contains(t, stored.Refusal, models.BenchmarkProblem{Field: tc.field, Code: string(tc.code), Message: stored.Refusal[0].Message})
				ns := b.notifications(t, b.email)
				require.Len(t, ns, notices+1, "the provider is told")
				require.Equal(t, KindBenchmarkRefused, ns[len(ns)-1].Kind)
				require.Equal(t, run.RunID, ns[len(ns)-1].Params["runId"])
				require.Contains(t, ns[len(ns)-1].Params["fields"], tc.field)
				require.Len(t, b.logs.lines("result refused as untrustworthy", run.RunID, tc.field), 1, "a warning for the team")

				writes := db.Writes()
				err = b.svc.Submit(b.ctx, b.agent, b.result(run.RunID, "machine-1", healthy("GPU-A")))
				faulttest.RequireProblem(t, err, "input.runId", fault.InvalidState)
				require.Equal(t, writes, db.Writes(), "a refused run answers nothing more, and a second try writes nothing")
				require.Equal(t, models.GpuListingDelisted, b.listing(t, "GPU-A"))
			})
		}
		// A GPU of no catalogue model keeps the rules it had.
		b.register(t, b.agent, "machine-2", gpu("GPU-X", 0, "NVIDIA Quadro Mystery 9000"))
		r := healthy("GPU-X")
		r.Measurements = r.Measurements[:3]
		require.NoError(t, b.svc.Submit(b.ctx, b.agent, b.result(b.runOf(t, b.agent, "machine-2").RunID, "machine-2", r)))
	})
}

// Issue 24, item 3: figures just under the plausibility cap (1.499× the
// datasheet) with the agent's own evidence saying it throttled 95 % of the
// run relisted a delisted GPU with score 100. A result whose own evidence
// contradicts its figures (a throttled GPU at its expected figures, figures
// above what the SMs and the highest SM clock it reports can do, a clock
// the model does not reach) is refused naming the field, and the GPU stays
// delisted. An honest run then relists it.
func TestFiguresTheirOwnEvidenceContradictsAreRefusedAndTheGPUStaysDelisted(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		machineID := b.register(t, b.agent, "machine-1", gpu("GPU-A", 0, h100))
		require.NoError(t, b.svc.Submit(b.ctx, b.agent, b.result(b.runOf(t, b.agent, "machine-1").RunID, "machine-1", throttled("GPU-A"))))
		require.Equal(t, models.GpuListingDelisted, b.listing(t, "GPU-A"))

		heldDown := &protocol.GpuBenchEvidence{Samples: 120, MaxTemperatureC: ptr(93.0), MaxSMClockMHz: ptr(1980.0), MeanSMClockMHz: ptr(1100.0),
			ThrottledShare: 0.95, ThrottleReasons: []string{"hw_thermal_slowdown", "sw_power_cap"}}
		clocked := func(mhz float64) *protocol.GpuBenchEvidence {
			return &protocol.GpuBenchEvidence{Samples: 120, MaxSMClockMHz: ptr(mhz), MeanSMClockMHz: ptr(mhz * 0.9)}
		}
		tests := []struct {
			desc string
			gpu  func(nonce string) protocol.GpuBenchResult
			// resealed: the figures are sealed here (seal), not by result.
			field string
		}{
			{desc: "1.499× the datasheet, throttled in 95 % of the samples", gpu: func(string) protocol.GpuBenchResult {
				r := atShare("GPU-A", 1.499)
				r.Evidence = heldDown
				return r
			}, field: "input.gpus.0.measurements.0.median"},
			{desc: "the expected figures, throttled in 95 % of the samples", gpu: func(string) protocol.GpuBenchResult {
				r := measured("GPU-A", 1.0, 0.98)
				r.Evidence = heldDown
				return r
			}, field: "input.gpus.0.measurements.0.median"},
			{desc: "the expected figures at a highest SM clock of 1,000 MHz", gpu: func(string) protocol.GpuBenchResult {
				r := healthy("GPU-A")
				r.Evidence = clocked(1000)
				return r
			}, field: "input.gpus.0.measurements.0.median"},
			{desc: "an SM clock no H100 SXM reaches", gpu: func(string) protocol.GpuBenchResult {
				r := healthy("GPU-A")
				r.Evidence = clocked(3000)
				return r
			}, field: "input.gpus.0.evidence.maxSmClockMHz"},
			{desc: "the expected figures on 66 of the H100's 132 SMs", gpu: func(nonce string) protocol.GpuBenchResult {
				return seal(healthy("GPU-A"), nonce, 66)
			}, field: "input.gpus.0.measurements.0.median"},
			{desc: "a fastest repetition above what the clocks allow", gpu: func(string) protocol.GpuBenchResult {
				r := healthy("GPU-A")
				r.Measurements[0].Max = ptr(80.0)
				return r
			}, field: "input.gpus.0.measurements.0.max"},
		}
		for _, tc := range tests {
			t.Run(tc.desc, func(t *testing.T) {
				run := b.ask(t, machineID, "machine-1")
				results, notices := b.count(t, "gpu_benchmarks", ""), len(b.notifications(t, b.email))
				in := b.result(run.RunID, "machine-1", tc.gpu(b.nonce(t, run.RunID)))
				err := b.svc.Submit(b.ctx, b.agent, in)
				t.Logf("refused: %v", err)
				requireRefusal(t, err, tc.field, fault.OutOfRange)
				require.Equal(t, models.GpuListingDelisted, b.listing(t, "GPU-A"), "the GPU stays delisted")
				require.Equal(t, results, b.count(t, "gpu_benchmarks", ""))
				require.NotNil(t, b.run(t, run.RunID).RefusedAt)
				require.Len(t, b.notifications(t, b.email), notices+1)
			})
		}

		// The same board, honest: throttled, and its figures show it.
		run := b.ask(t, machineID, "machine-1")
		require.NoError(t, b.svc.Submit(b.ctx, b.agent, b.result(run.RunID, "machine-1", throttled("GPU-A"))))
		require.Equal(t, models.GpuListingDelisted, b.listing(t, "GPU-A"))
		// Fixed: its figures, clocks and SMs agree, and it is listed.
		run = b.ask(t, machineID, "machine-1")
		fixed := healthy("GPU-A")
		fixed.Evidence = clocked(1980)
		require.NoError(t, b.svc.Submit(b.ctx, b.agent, b.result(run.RunID, "machine-1", fixed)))
		require.Equal(t, models.GpuListingListed, b.listing(t, "GPU-A"))
		// Sampled only as the measurement began and ended, with the GPU
		// idle: the idle clock says nothing of the kernels' (MinClockSamples).
		run = b.ask(t, machineID, "machine-1")
		idle := healthy("GPU-A")
		idle.Evidence = &protocol.GpuBenchEvidence{Samples: 2, MaxSMClockMHz: ptr(345.0), MeanSMClockMHz: ptr(345.0)}
		require.NoError(t, b.svc.Submit(b.ctx, b.agent, b.result(run.RunID, "machine-1", idle)))
		require.Equal(t, models.GpuListingListed, b.listing(t, "GPU-A"))
	})
}

// Issue 24, item 3, the drill: a benchmark result replayed from an earlier
// run, or sent with a wrong checksum, is refused, and the GPU keeps its
// listing state; so is a result for a run id the server never issued, and
// the earlier run's id itself. The server keeps serving: the next honest
// run is accepted.
func TestAReplayedResultOrAWrongChecksumIsRefusedAndTheGPUKeepsItsListing(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		machineID := b.register(t, b.agent, "machine-1", gpu("GPU-A", 0, h100))
		first := b.runOf(t, b.agent, "machine-1").RunID
		healthyRun := b.result(first, "machine-1", healthy("GPU-A"))
		require.NoError(t, b.svc.Submit(b.ctx, b.agent, healthyRun))
		require.Equal(t, models.GpuListingListed, b.listing(t, "GPU-A"))
		second := b.ask(t, machineID, "machine-1").RunID
		require.NotEqual(t, b.nonce(t, first), b.nonce(t, second), "each run its own nonce")
		require.NoError(t, b.svc.Submit(b.ctx, b.agent, b.result(second, "machine-1", throttled("GPU-A"))))
		require.Equal(t, models.GpuListingDelisted, b.listing(t, "GPU-A"))

		steps := []struct {
			desc  string
			input func(runID string) protocol.BenchmarkResultInput
			field string
			code  fault.ProblemCode
			// refused: the refusal is recorded on the run.
			refused bool
		}{
			{desc: "the first run's healthy result replayed under a new run id", input: func(runID string) protocol.BenchmarkResultInput {
				replay := healthyRun
				replay.RunID, replay.StartedAt, replay.FinishedAt = runID, b.clock.Now().Add(-5*time.Minute), b.clock.Now().Add(-time.Minute)
				return replay
			}, field: "input.gpus.0.measurements.0.checksum", code: fault.InvalidValue, refused: true},
			{desc: "a wrong checksum", input: func(runID string) protocol.BenchmarkResultInput {
				in := b.result(runID, "machine-1", healthy("GPU-A"))
				wrong := "0123456789abcdef"
				in.Gpus[0].Measurements[4].Checksum = &wrong
				return in
			}, field: "input.gpus.0.measurements.4.checksum", code: fault.InvalidValue, refused: true},
			{desc: "no checksum (an agent that does not seal its results)", input: func(runID string) protocol.BenchmarkResultInput {
				in := b.result(runID, "machine-1", healthy("GPU-A"))
				in.Gpus[0].Measurements[1].Checksum = nil
				return in
			}, field: "input.gpus.0.measurements.1.checksum", code: fault.Required, refused: true},
			{desc: "a grid that is not whole blocks per SM", input: func(runID string) protocol.BenchmarkResultInput {
				in := b.result(runID, "machine-1", healthy("GPU-A"))
				in.Gpus[0].Measurements[0].Launch.Grid++
				return in
			}, field: "input.gpus.0.measurements.0.launch.grid", code: fault.InvalidValue, refused: true},
			{desc: "the first run's result under its own id", input: func(string) protocol.BenchmarkResultInput {
				return healthyRun
			}, field: "input.runId", code: fault.Duplicate},
			{desc: "a run id the server never issued", input: func(string) protocol.BenchmarkResultInput {
				in := b.result("run_0123456789abcdef01234567", "machine-1", healthy("GPU-A"))
				return seal2(in, b.nonce(t, first))
			}, field: "input.runId", code: fault.InvalidValue},
		}
		for _, s := range steps {
			t.Run(s.desc, func(t *testing.T) {
				run := b.ask(t, machineID, "machine-1").RunID
				tables := map[string]int{}
				for _, table := range []string{"gpu_benchmarks", "gpu_bench_status", "email_outbox"} {
					tables[table] = b.count(t, table, "")
				}
				notices := len(b.notifications(t, b.email))
				err := b.svc.Submit(b.ctx, b.agent, s.input(run))
				t.Logf("refused: %v", err)
				requireRefusal(t, err, s.field, s.code)
				require.Equal(t, models.GpuListingDelisted, b.listing(t, "GPU-A"), "the GPU keeps its listing")
				for table, n := range tables {
					require.Equal(t, n, b.count(t, table, ""), table)
				}
				if s.refused {
					require.NotNil(t, b.run(t, run).RefusedAt)
					require.Len(t, b.notifications(t, b.email), notices+1)
				} else {
					require.Nil(t, b.run(t, run).RefusedAt, "a refusal of the run id is not the run's")
					require.Len(t, b.notifications(t, b.email), notices)
					// The run asked is still open; it expires unanswered.
					b.clock.Advance(b.svc.Config().RunTimeout)
					b.svc.Tick(b.ctx)
				}
			})
		}
		run := b.ask(t, machineID, "machine-1").RunID
		require.NoError(t, b.svc.Submit(b.ctx, b.agent, b.result(run, "machine-1", healthy("GPU-A"))), "the server keeps serving")
		require.Equal(t, models.GpuListingListed, b.listing(t, "GPU-A"))
		require.Len(t, b.logs.lines("result refused as untrustworthy"), 4, "one warning per refused run")
	})
}

// seal2 seals every GPU of in with nonce (a result made for another run).
func seal2(in protocol.BenchmarkResultInput, nonce string) protocol.BenchmarkResultInput {
	for i := range in.Gpus {
		in.Gpus[i] = seal(in.Gpus[i], nonce, 132)
	}
	return in
}

// Issue 24, item 3: a run asked before nonces (its nonce NULL, as the
// migration leaves pending runs) is checked without checksums, and still
// against its evidence and its model's metrics.
func TestARunAskedBeforeNoncesIsCheckedWithoutChecksums(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		machineID := b.register(t, b.agent, "machine-1", gpu("GPU-A", 0, h100))
		legacy := func() string {
			run := b.runOf(t, b.agent, "machine-1").RunID
			_, err := db.NewUpdate().Model((*models.BenchmarkRun)(nil)).Set("nonce = NULL").Where("run_uid = ?", run).Exec(b.ctx)
			require.NoError(t, err)
			return run
		}
		run := legacy()
		in := b.result(run, "machine-1", healthy("GPU-A"))
		require.Nil(t, in.Gpus[0].Measurements[0].Checksum, "nothing to seal with")
		require.NoError(t, b.svc.Submit(b.ctx, b.agent, in))
		require.Equal(t, models.GpuListingListed, b.listing(t, "GPU-A"))

		b.clock.Advance(time.Hour)
		_, err := b.svc.Request(b.ctx, b.agent.ProviderID, machineID)
		require.NoError(t, err)
		run = legacy()
		lying := atShare("GPU-A", 1.499)
		lying.Evidence = &protocol.GpuBenchEvidence{Samples: 9, ThrottledShare: 0.95}
		requireRefusal(t, b.svc.Submit(b.ctx, b.agent, b.result(run, "machine-1", lying)), "input.gpus.0.measurements.0.median", fault.OutOfRange)
		require.Equal(t, models.GpuListingListed, b.listing(t, "GPU-A"))
	})
}

// The trust checks keep the real H200's results (internal/bench/testdata,
// two --bench-once runs: evidence mean SM clock 1,798 MHz, max 1,980 MHz,
// FP32 63.6 of 67 TFLOPS) acceptable: as a run without a nonce, and sealed
// by the run's nonce on the H200's 132 SMs.
func TestTheRealH200PassesTheTrustChecks(t *testing.T) {
	t.Parallel()
	name, runs := realRuns(t, "testdata/h200-real.json")
	byUUID := map[string]gpuRow{}
	for _, r := range runs {
		byUUID[r.UUID] = gpuRow{UUID: r.UUID, Name: name, ModelKey: ptr("H200_SXM_141GB")}
	}
	th := DefaultThresholds()
	for _, r := range runs {
		in := protocol.BenchmarkResultInput{Gpus: []protocol.GpuBenchResult{r}}
		require.NoError(t, th.verify(&in, byUUID, nil))
		in.Gpus[0] = seal(r, "a-nonce", 132)
		require.NoError(t, th.verify(&in, byUUID, ptr("a-nonce")))
		require.Error(t, th.verify(&in, byUUID, ptr("another-nonce")), "sealed for another run")
	}
}
