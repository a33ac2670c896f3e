package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/catalog"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/validate"
	"github.com/gpunex/gpunex/models"
)

// The agent is the seller's software, so a result is a claim. Once a result
// is well formed (validate), Submit checks what it claims against itself
// and against the run it answers (verify): a result that fails is refused
// whole with a userErrors entry naming the field, nothing of it is stored,
// and the GPUs keep their listing; but the refusal itself is recorded on
// the run (refused_at, refusal), which it closes (EXPIRED: one result per
// run, so the checks cannot be probed one answer at a time), the provider
// is told in the app, and a warning is logged, for the GPUnex team.
//
// What verify holds a result to:
//
//   - Every metric the GPU's catalogue model supports (compute capability
//     8.0 or more: all seven GPU metrics, for every catalogue model) is
//     reported by a COMPLETED GPU, and marked supported: false only where
//     the model lacks it (protocol.MinComputeMajor). A GPU of no catalogue
//     model keeps the earlier rules (it is not scored).
//   - Each supported GPU metric of a run asked with a nonce carries its
//     launch and a checksum equal to protocol.ExpectedBenchChecksum of the
//     run's nonce and that launch, whose grid is a whole number (1 to
//     BenchMaxBlocksPerSM) of blocks per SM on the SMs it names, the same
//     for every metric of the GPU. A run asked before nonces is checked
//     without.
//   - A compute figure (FP32, FP16, the tensor metrics) is at most what the
//     SMs the run reports can do at the highest SM clock its evidence saw:
//     the datasheet figure × (max SM clock / boost clock) × (SMs / the
//     model's SMs, at most 1) × ClockMargin. The highest clock, never the
//     mean: the mean counts the samples between kernels (a real H200 had a
//     mean of 1,798 MHz and a max of 1,980 MHz while its FP32 kernel ran
//     at 95 % of the datasheet's 67 TFLOPS at 1,980 MHz). A clock above
//     the boost clock × MaxClockHeadroom is itself refused; without a
//     clock sampled under load (MinClockSamples) or an SM count the
//     model's own are assumed.
//   - A GPU its own evidence says was held back by heat or power in at
//     least ThrottledShareLimit of the samples does not also reach the
//     expected figure (datasheet × the attainable share) of a compute
//     metric.
//
// Power is not a check of its own: the mean power draw counts the idle
// samples too, and a power limit alone does not bound a figure; what a
// power cap does to the run shows in the clocks it holds down and in the
// throttled share (sw_power_cap counts), which are checked.
//
// What this proves, and what it does not: see docs/agent.md ("Benchmarks").
const (
	// ClockMargin is how far above what the reported SMs and clock allow a
	// compute figure may be: the clock is sampled every quarter second, so
	// its highest sample may miss the kernel's clock by a step, and the
	// datasheets round.
	ClockMargin = 1.10
	// MaxClockHeadroom is how far above its model's boost clock a GPU's
	// highest SM clock may be reported: GeForce boards boost past their
	// rated clock (an RTX 4090's NVML maximum is 3,105 MHz against a rated
	// 2,520, 1.23×); datacenter boards do not.
	MaxClockHeadroom = 1.25
	// ThrottledShareLimit is the throttled share from which a GPU is held
	// back most of the run: it cannot also reach its expected compute.
	ThrottledShareLimit = 0.5
	// MinClockSamples is how many NVML samples a run needs for its highest
	// SM clock to bound its figures: the agent samples once as a GPU's
	// measurement begins and once as it ends, with the GPU idle, so only
	// a run sampled while its kernels ran says what clock they ran at. With
	// fewer, the model's boost clock stands in.
	MinClockSamples = 3
)

// computeMetrics are the GPU metrics bounded by the SMs and the clock.
var computeMetrics = []protocol.BenchMetric{protocol.MetricFP32, protocol.MetricFP16, protocol.MetricTensorFP16, protocol.MetricTensorBF16}

// verify checks a well-formed result against itself and the run it
// answers (see above). nonce is the run's, nil for a run asked before
// nonces.
func (t Thresholds) verify(in *protocol.BenchmarkResultInput, byUUID map[string]gpuRow, nonce *string) error {
	var v fault.Validation
	var seeds *protocol.BenchSeeds
	if nonce != nil {
		s := protocol.BenchSeedsFor(*nonce)
		seeds = &s
	}
	for i := range in.Gpus {
		g := &in.Gpus[i]
		if g.Outcome == protocol.BenchPostponed {
			continue
		}
		row := byUUID[g.UUID]
		model := ModelFor(row.ModelKey, row.Name)
		p := gpusPath.Index(i)
		checkSupported(&v, p, model, g)
		if seeds != nil {
			checkSeals(&v, p, *seeds, g)
		}
		if model != nil {
			t.checkAgainstEvidence(&v, p, model, g)
		}
	}
	return v.Err()
}

// checkSupported requires every metric model supports of a completed GPU,
// and refuses supported: false for a metric the model supports.
func checkSupported(v *fault.Validation, p validate.Path, model *catalog.GpuModel, g *protocol.GpuBenchResult) {
	if model == nil {
		return
	}
	major := model.ComputeMajor()
	supports := func(m protocol.BenchMetric) bool { return major >= protocol.MinComputeMajor(m) }
	for j, m := range g.Measurements {
		if !m.Supported && supports(m.Metric) {
			v.Add(p.Field("measurements").Index(j).Field("supported").String(), fault.InvalidValue,
				fmt.Sprintf("the %s (compute capability %s) supports %s: it is measured, not marked unsupported", model.Name, model.ComputeCapability, m.Metric))
		}
	}
	if g.Outcome != protocol.BenchCompleted {
		return
	}
	var missing []string
	for _, m := range protocol.GPUMetrics {
		if supports(m) && !slices.ContainsFunc(g.Measurements, func(x protocol.BenchMeasurement) bool { return x.Metric == m }) {
			missing = append(missing, string(m))
		}
	}
	if len(missing) > 0 {
		v.Add(p.Field("measurements").String(), fault.Required,
			fmt.Sprintf("a completed run measures every metric the %s supports; missing: %s", model.Name, strings.Join(missing, ", ")))
	}
}

// checkSeals checks each supported GPU metric's launch and checksum
// against the run's seeds.
func checkSeals(v *fault.Validation, p validate.Path, seeds protocol.BenchSeeds, g *protocol.GpuBenchResult) {
	sms := 0
	for j, m := range g.Measurements {
		if !m.Supported || !slices.Contains(protocol.GPUMetrics, m.Metric) {
			continue
		}
		mp := p.Field("measurements").Index(j)
		if m.Launch == nil {
			v.Add(mp.Field("launch").String(), fault.Required, "a GPU metric says how its kernel was launched; update the agent if it does not")
			continue
		}
		if m.Checksum == nil {
			v.Add(mp.Field("checksum").String(), fault.Required, "a GPU metric carries the checksum of its kernels' outputs; update the agent if it does not")
			continue
		}
		l := *m.Launch
		if l.Grid%l.SmCount != 0 || l.Grid/l.SmCount > protocol.BenchMaxBlocksPerSM {
			v.Add(mp.Field("launch").Field("grid").String(), fault.InvalidValue,
				fmt.Sprintf("a grid of %d blocks is not a whole number of blocks (1 to %d) per SM on %d SMs", l.Grid, protocol.BenchMaxBlocksPerSM, l.SmCount))
			continue
		}
		if sms == 0 {
			sms = l.SmCount
		} else if l.SmCount != sms {
			v.Add(mp.Field("launch").Field("smCount").String(), fault.InvalidValue,
				fmt.Sprintf("every metric of a GPU runs on the same SMs: %d here, %d before", l.SmCount, sms))
			continue
		}
		want, err := protocol.ExpectedBenchChecksum(m.Metric, seeds, l, m.Repetitions)
		if err != nil {
			v.Add(mp.Field("launch").String(), fault.InvalidValue, err.Error())
			continue
		}
		if *m.Checksum != want {
			v.Add(mp.Field("checksum").String(), fault.InvalidValue,
				"does not match this run's nonce and launch: the result was not computed for this run")
		}
	}
}

// checkAgainstEvidence bounds each compute figure by the SMs and the clock
// the run reports, and refuses a throttled GPU's expected figures.
func (t Thresholds) checkAgainstEvidence(v *fault.Validation, p validate.Path, model *catalog.GpuModel, g *protocol.GpuBenchResult) {
	ev := g.Evidence
	clockFactor, clockText := 1.0, strconv.Itoa(model.BoostClockMHz)+" MHz (its boost clock; the run reports no clock under load)"
	if ev != nil && ev.MaxSMClockMHz != nil && ev.Samples >= MinClockSamples && model.BoostClockMHz > 0 {
		limit := float64(model.BoostClockMHz) * MaxClockHeadroom
		clock := *ev.MaxSMClockMHz
		if clock > limit {
			v.Add(p.Field("evidence").Field("maxSmClockMHz").String(), fault.OutOfRange,
				fmt.Sprintf("the %s's SMs do not run at %s MHz: its boost clock is %d MHz, and %s MHz the most allowed", model.Name, num(&clock), model.BoostClockMHz, num(&limit)))
			clock = limit
		}
		clockFactor, clockText = clock/float64(model.BoostClockMHz), num(&clock)+" MHz"
	}
	smFactor, sms := 1.0, model.SmCount
	for _, m := range g.Measurements {
		if m.Supported && m.Launch != nil && m.Launch.SmCount > 0 && model.SmCount > 0 {
			sms = min(m.Launch.SmCount, model.SmCount)
			smFactor = float64(sms) / float64(model.SmCount)
			break
		}
	}
	throttled := ev != nil && ev.ThrottledShare >= ThrottledShareLimit
	for j, m := range g.Measurements {
		ref := reference(model, m.Metric)
		if !m.Supported || m.Median == nil || ref == nil || !slices.Contains(computeMetrics, m.Metric) {
			continue
		}
		mp := p.Field("measurements").Index(j)
		bound := *ref * clockFactor * smFactor * ClockMargin
		for _, f := range []struct {
			name  string
			value *float64
		}{{"median", m.Median}, {"max", m.Max}} {
			if f.value != nil && *f.value > bound {
				v.Add(mp.Field(f.name).String(), fault.OutOfRange,
					fmt.Sprintf("%s of %s is more than %d SMs of the %s at %s can do (at most %s)", m.Metric, num(f.value), sms, model.Name, clockText, num(&bound)))
				break
			}
		}
		if rule := t.GPU[m.Metric]; throttled && rule.Attainable > 0 {
			expected := round3(*ref * rule.Attainable)
			if *m.Median >= expected {
				v.Add(mp.Field("median").String(), fault.OutOfRange,
					fmt.Sprintf("the run's evidence says heat or power held the GPU's clocks down in %s of its samples; a GPU held down so does not reach the expected %s of %s, yet this one measured %s",
						pct(ev.ThrottledShare), m.Metric, num(&expected), num(m.Median)))
			}
		}
	}
}

// refuse records a result verify refused: on its run (refused_at, the
// problems; the run closes as EXPIRED), with a notification to the
// provider and a warning in the log. A run refused or completed meanwhile
// is left as it is.
func (s *Service) refuse(ctx context.Context, run *models.BenchmarkRun, refusal *fault.Validation) error {
	now := s.deps.Clock.Now()
	problems := make([]models.BenchmarkProblem, len(refusal.Problems))
	for i, p := range refusal.Problems {
		problems[i] = models.BenchmarkProblem{Field: p.Field, Code: string(p.Code), Message: p.Message}
	}
	record, err := json.Marshal(problems)
	if err != nil {
		return fmt.Errorf("bench: unable to encode a refusal: %w", err)
	}
	refused := false
	err = s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewUpdate().Model((*models.BenchmarkRun)(nil)).
			Set("refused_at = ?", now).Set("refusal = ?", string(record)).Set("state = ?", models.BenchmarkRunExpired).
			Where("id = ? AND refused_at IS NULL AND state <> ?", run.ID, models.BenchmarkRunCompleted).Exec(ctx)
		if err != nil {
			return fmt.Errorf("bench: unable to record a refusal: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		refused = true
		if err := s.tellRefused(ctx, tx, run, problems); err != nil {
			return err
		}
		s.announce(ctx, run.ProviderID, run.MachineID)
		return nil
	})
	if err != nil {
		return err
	}
	if refused {
		fields := make([]string, len(problems))
		for i, p := range problems {
			fields[i] = p.Field + " " + p.Code
		}
		s.deps.Logger.WarnContext(ctx, "bench: result refused as untrustworthy; the run is closed and the GPUs keep their listing",
			"run_id", run.RunID, "machine_id", run.MachineID, "provider_id", run.ProviderID, "problems", strings.Join(fields, "; "))
	}
	return nil
}
