package cuda

import (
	"context"
	"runtime"
	"time"

	"github.com/gpunex/gpunex/agent/protocol"
)

// Measure runs the GPU metrics on the GPU with the given UUID (as NVML
// gives it, "GPU-xxxxxxxx-…") and returns one measurement per
// protocol.GPUMetrics, in that order. Tensor metrics on a GPU below
// compute capability 8.0 are Supported false with no figures.
//
// The run takes about budget (DefaultBudget when zero or less): each
// metric gets an even share of what is left, and a tight share means fewer
// repetitions and shorter launches (at least one of each always runs).
// When ctx ends the run stops at the next launch.
//
// An error ends the run: a *Error whose ErrorName is the driver's error
// name (CUDA_ERROR_LAUNCH_FAILED, ...) or one of the Name* constants; the
// measurements finished before it are returned with it. Everything the run
// allocated is released on every path.
func (d *Driver) Measure(ctx context.Context, uuid string, budget time.Duration) ([]protocol.BenchMeasurement, error) {
	if budget <= 0 {
		budget = DefaultBudget
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.api == nil {
		return nil, &Error{Name: NameClosed, Call: "Measure", Detail: "the driver was closed"}
	}
	if err := ctx.Err(); err != nil {
		return nil, &Error{Name: NameCancelled, Call: "Measure", Err: err}
	}
	// A context is current on one OS thread: every driver call of this run
	// happens on this one.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	s := newSession(d, uuid, budget)
	s.seeds = protocol.BenchSeedsFor(protocol.BenchNonceFrom(ctx))
	defer s.close()
	if err := s.open(); err != nil {
		return nil, err
	}
	supported := func(metric protocol.BenchMetric) bool { return s.ccMajor >= protocol.MinComputeMajor(metric) }
	var out []protocol.BenchMeasurement
	for i, metric := range protocol.GPUMetrics {
		if !supported(metric) {
			out = append(out, protocol.BenchMeasurement{Metric: metric, Supported: false})
			continue
		}
		left := 0
		for _, m := range protocol.GPUMetrics[i:] {
			if supported(m) {
				left++
			}
		}
		share := (s.budget - s.spent()) / time.Duration(left)
		s.metric = metric
		m, err := s.measure(ctx, d.bench(metric, s.seeds), share)
		if err != nil {
			return out, err
		}
		out = append(out, m)
	}
	return out, nil
}

// bench is metric's kernel, started from the run's seeds.
func (d *Driver) bench(metric protocol.BenchMetric, seeds protocol.BenchSeeds) bench {
	switch metric {
	case protocol.MetricFP32:
		return newFMA(false, seeds)
	case protocol.MetricFP16:
		return newFMA(true, seeds)
	case protocol.MetricTensorFP16:
		return newMMA(false, seeds)
	case protocol.MetricTensorBF16:
		return newMMA(true, seeds)
	case protocol.MetricMemoryRead:
		return &memBench{k: kernelMemRead, cfg: d.cfg.MemoryBytes}
	case protocol.MetricMemoryWrite:
		return &memBench{k: kernelMemWrite, cfg: d.cfg.MemoryBytes}
	default:
		return &memBench{k: kernelMemCopy, cfg: d.cfg.MemoryBytes}
	}
}

// measure runs one metric in its share of the budget: a verified warm-up
// at scale 1 that also calibrates, then the planned timed repetitions,
// each verified before its figure counts.
func (s *session) measure(ctx context.Context, b bench, share time.Duration) (m protocol.BenchMeasurement, err error) {
	if err := b.setup(ctx, s); err != nil {
		return m, err
	}
	defer func() {
		if ferr := b.teardown(s); err == nil && ferr != nil {
			err = ferr
		}
	}()
	var sum protocol.BenchChecksum
	warm, err := s.rep(ctx, b, 1, 0, &sum)
	if err != nil {
		return m, err
	}
	scale, reps := plan(share, time.Duration(warm*float64(time.Second)), s.d.cfg.Repetitions)
	figures := make([]float64, 0, reps)
	for rep := 1; rep <= reps; rep++ {
		sec, err := s.rep(ctx, b, scale, rep, &sum)
		if err != nil {
			return m, err
		}
		figures = append(figures, b.work(scale)/sec/b.unit())
	}
	m = summarize(s.metric, figures)
	launch := b.launch(s)
	launch.Scale = scale
	checksum := sum.String()
	m.Launch, m.Checksum = &launch, &checksum
	return m, nil
}

// rep runs and verifies one launch, returning its seconds; the total of
// the outputs it verified goes into sum.
func (s *session) rep(ctx context.Context, b bench, scale, rep int, sum *protocol.BenchChecksum) (float64, error) {
	sec, err := b.run(ctx, s, scale, rep)
	if err != nil {
		return 0, err
	}
	total, err := b.verify(ctx, s, scale, rep)
	if err != nil {
		return 0, err
	}
	if sec <= 0 {
		return 0, &Error{Name: NameVerifyFailed, Call: "cuEventElapsedTime", Metric: s.metric, Detail: "a launch took no time"}
	}
	sum.Add(total)
	return sec, nil
}
