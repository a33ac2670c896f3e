package bench

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/gpunex/gpunex/agent/gpu"
	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/clock"
)

// Defaults of Options.
const (
	// DefaultGPUBudget is how long one GPU's measurement may take.
	DefaultGPUBudget = 50 * time.Second
	// DefaultSampleEvery is how often NVML is sampled while GPUs are
	// measured.
	DefaultSampleEvery = 250 * time.Millisecond
	// DefaultBusyEvery is how often the jobs are listed while GPUs are
	// measured, so a job that starts on a GPU ends its measurement.
	DefaultBusyEvery = time.Second
	// budgetGrace is how long past its budget a measurer is waited for
	// before its GPU is reported as timed out.
	budgetGrace = 10 * time.Second
)

// Error names the suite itself reports in GpuBenchResult.Error (a driver's
// own names, CUDA_ERROR_…, come from the measurer).
const (
	// ErrorGPUBusy prefixes a POSTPONED GPU's error: "GPU_BUSY: job <id>".
	ErrorGPUBusy = "GPU_BUSY"
	// ErrorJobsUnknown prefixes a POSTPONED GPU's error when the jobs could
	// not be listed: the suite cannot tell whether a customer is using it.
	ErrorJobsUnknown = "JOBS_UNKNOWN"
	// ErrorGPUNotFound is a requested GPU this machine does not have.
	ErrorGPUNotFound = "GPU_NOT_FOUND"
	// ErrorTimeout is a GPU whose measurer overran its budget.
	ErrorTimeout = "BENCH_TIMEOUT"
)

// GPUMeasurer runs the per-GPU part of the suite on one GPU: every metric
// of protocol.GPUMetrics, within budget. The real one is agent/bench/cuda's
// Driver; SimulatedMeasurer models figures for --simulate. It must be safe
// for concurrent use on different GPUs. An error that has an
// ErrorName() string method (a CUDA driver error) is reported by that name.
// The run's nonce is in ctx (protocol.BenchNonceFrom): each measurement of
// a kernel carries its launch and the checksum of its outputs under the
// nonce's seeds.
type GPUMeasurer interface {
	Measure(ctx context.Context, uuid string, budget time.Duration) ([]protocol.BenchMeasurement, error)
}

// BusyFunc lists the GPUs a customer's job holds now: GPU UUID to job id.
// JobsOn builds one over the agent's job runtime.
type BusyFunc func(ctx context.Context) (map[string]string, error)

// Options configures a Suite. MachineID and Detector are required; GPU is
// required for the GPU part (without it every GPU fails).
type Options struct {
	// MachineID is the machine's identity, copied into the result.
	MachineID string
	// Detector lists the GPUs and samples NVML while they are measured;
	// where it is a gpu.LinkReader the PCIe link is read too.
	Detector gpu.Detector
	// GPU measures one GPU.
	GPU GPUMeasurer
	// Busy says which GPUs run a customer's job; nil means none ever does.
	Busy BusyFunc
	// Network and Storage measure the machine's sections; a nil one leaves
	// its section out of the result.
	Network *Network
	Storage *Storage
	// Simulator is set when the GPUs are simulated: the result is flagged
	// Simulated and the spec's machine profiles (slow-disk, slow-network)
	// replace the measured sections by modelled ones.
	Simulator *gpu.Simulator
	// GPUBudget bounds one GPU's measurement; DefaultGPUBudget when zero.
	GPUBudget time.Duration
	// SampleEvery spaces the NVML samples; DefaultSampleEvery when zero.
	SampleEvery time.Duration
	// BusyEvery spaces the job checks during measurement; DefaultBusyEvery
	// when zero.
	BusyEvery time.Duration
	// Clock stamps the run; the system clock when nil.
	Clock clock.Clock
	// Logger receives the suite's log; nothing is logged when nil.
	Logger *slog.Logger
	// Progress is told each part of a run as it finishes (the network, the
	// storage, each GPU), so the platform can show the run going; nil tells
	// no one. It is called from the part's own goroutine and must not block
	// the run for long.
	Progress ProgressFunc
}

// ProgressFunc is told that one part of run runID finished: part, the GPU
// of a GPU part (else ""), and how it ended.
type ProgressFunc func(ctx context.Context, runID string, part protocol.BenchPart, gpuUUID string, outcome protocol.BenchOutcome)

// Suite runs the benchmark: every GPU at once, the network and the storage
// beside them. It is safe for concurrent use, though the agent runs one
// suite at a time (see Runner).
type Suite struct {
	opts Options
}

// NewSuite returns a suite with opts' defaults filled in.
func NewSuite(opts Options) *Suite {
	if opts.GPUBudget <= 0 {
		opts.GPUBudget = DefaultGPUBudget
	}
	if opts.SampleEvery <= 0 {
		opts.SampleEvery = DefaultSampleEvery
	}
	if opts.BusyEvery <= 0 {
		opts.BusyEvery = DefaultBusyEvery
	}
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Suite{opts: opts}
}

// runIDKey carries the run id to the measurers (SimulatedMeasurer seeds its
// jitter with it).
type runIDKey struct{}

func runIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(runIDKey{}).(string)
	return id
}

// Run runs the suite for payload and returns the result to submit. It
// never fails as a whole: every part that could not run says why in its
// Outcome and Error. The GPUs are payload.GpuUUIDs, or all of the
// machine's when empty.
func (s *Suite) Run(ctx context.Context, payload protocol.RunBenchmarkPayload) protocol.BenchmarkResultInput {
	o := s.opts
	log := o.Logger.With("run_id", payload.RunID)
	ctx = context.WithValue(ctx, runIDKey{}, payload.RunID)
	// The nonce seeds the kernels (protocol.BenchSeedsFor); the measurers
	// read it from the context, as GPUMeasurer.Measure takes no run.
	ctx = protocol.WithBenchNonce(ctx, payload.Nonce)
	res := protocol.BenchmarkResultInput{
		RunID:     payload.RunID,
		MachineID: o.MachineID,
		StartedAt: o.Clock.Now().UTC(),
		Simulated: o.Simulator != nil,
	}
	log.Info("bench: run starting", "reason", payload.Reason, "gpus", payload.GpuUUIDs)

	var wg sync.WaitGroup
	wg.Go(func() { res.Network, res.Storage = s.machine(ctx, log) })
	// The GPUs report their own parts as each ends (gpus); the machine's
	// sections are reported by machine.
	res.Gpus = s.gpus(ctx, payload.GpuUUIDs, log)
	wg.Wait()

	res.FinishedAt = o.Clock.Now().UTC()
	return res
}

// machine measures the network, then the storage. They run one after the
// other (so neither disturbs the other's figures) but beside the GPUs, whose
// figures depend on nothing the host's NIC or disk do.
//
// A simulated machine measures both for real too, so the client and the
// platform's endpoints run as they do for real hardware, and a real failure
// (a refused token, a full disk) is reported as it is; but the figures it
// reports are modelled, healthy or degraded by the spec's machine profiles
// (slow-network, slow-disk): the host running a simulation, a laptop or a
// CI runner, is not the machine being simulated, and its disk must not
// decide whether the simulated GPUs are listed.
func (s *Suite) machine(ctx context.Context, log *slog.Logger) (network, storage *protocol.BenchSection) {
	o := s.opts
	var profiles []gpu.Profile
	if o.Simulator != nil {
		profiles = o.Simulator.MachineProfiles()
	}
	seed := o.MachineID + "\x00" + runIDFrom(ctx)
	if o.Network != nil {
		network = o.Network.Measure(ctx)
		if o.Simulator != nil {
			network = simulatedSection(network, simulatedNetwork(seed, slices.Contains(profiles, gpu.ProfileSlowNetwork)))
		}
		if network != nil {
			s.progress(ctx, protocol.BenchPartNetwork, "", network.Outcome)
		}
	}
	if o.Storage != nil {
		storage = o.Storage.Measure(ctx)
		if o.Simulator != nil {
			storage = simulatedSection(storage, simulatedStorage(seed, slices.Contains(profiles, gpu.ProfileSlowDisk)))
		}
		if storage != nil {
			s.progress(ctx, protocol.BenchPartStorage, "", storage.Outcome)
		}
	}
	for name, sec := range map[string]*protocol.BenchSection{"network": network, "storage": storage} {
		if sec != nil && sec.Outcome != protocol.BenchCompleted {
			log.Warn("bench: "+name+" section did not complete", "outcome", sec.Outcome, "error", deref(sec.Error))
		}
	}
	return network, storage
}

// simulatedSection is what a simulated machine reports for a section it
// measured for real: the modelled figures, unless the real measurement
// failed (then its failure), or was not made (then nothing).
func simulatedSection(measured, modelled *protocol.BenchSection) *protocol.BenchSection {
	if measured == nil || measured.Outcome != protocol.BenchCompleted {
		return measured
	}
	return modelled
}

// gpus measures the requested GPUs, all at once: one goroutine each. The
// GPU metrics are device-local (FLOPS and device-memory bandwidth stay on
// the board; nothing crosses PCIe or the host during a kernel), so GPUs
// measured together see the figures they would see alone, and measuring one
// after another would multiply an 8-GPU machine's run time by 8.
func (s *Suite) gpus(ctx context.Context, wanted []string, log *slog.Logger) []protocol.GpuBenchResult {
	o := s.opts
	devices, invErr := o.Detector.Inventory(ctx)
	if invErr != nil {
		log.Warn("bench: GPU inventory incomplete", "err", invErr)
	}
	byUUID := make(map[string]gpu.Device, len(devices))
	for _, d := range devices {
		byUUID[d.UUID] = d
	}
	if len(wanted) == 0 {
		for _, d := range devices {
			wanted = append(wanted, d.UUID)
		}
	}
	results := make([]protocol.GpuBenchResult, len(wanted))

	busy, busyErr := s.busy(ctx)
	if busyErr != nil {
		log.Warn("bench: jobs cannot be listed; every GPU is postponed", "err", busyErr)
	}

	smp := newSampler(o.Detector, o.SampleEvery, o.BusyEvery, s.busy, log)
	var wg sync.WaitGroup
	for i, uuid := range wanted {
		results[i] = protocol.GpuBenchResult{UUID: uuid, Measurements: []protocol.BenchMeasurement{}}
		d, ok := byUUID[uuid]
		switch {
		case !ok:
			results[i].Outcome = protocol.BenchFailed
			results[i].Error = ptr(ErrorGPUNotFound + ": not on this machine")
			if invErr != nil {
				results[i].Error = ptr(shorten(ErrorGPUNotFound + ": " + invErr.Error()))
			}
		case busyErr != nil:
			results[i].Outcome = protocol.BenchPostponed
			results[i].Error = ptr(shorten(ErrorJobsUnknown + ": " + busyErr.Error()))
		case busy[uuid] != "":
			results[i].Outcome = protocol.BenchPostponed
			results[i].Error = ptr(shorten(ErrorGPUBusy + ": job " + busy[uuid]))
		default:
			wg.Go(func() {
				results[i] = s.measure(ctx, smp, d, log)
				s.progress(ctx, protocol.BenchPartGPU, uuid, results[i].Outcome)
			})
			continue
		}
		s.progress(ctx, protocol.BenchPartGPU, uuid, results[i].Outcome)
	}
	smpCtx, stopSampler := context.WithCancel(ctx)
	samplerDone := make(chan struct{})
	go func() { defer close(samplerDone); smp.run(smpCtx) }()
	wg.Wait()
	stopSampler()
	<-samplerDone
	return results
}

// progress tells Options.Progress, if any, that a part of the run finished.
func (s *Suite) progress(ctx context.Context, part protocol.BenchPart, gpuUUID string, outcome protocol.BenchOutcome) {
	if s.opts.Progress != nil {
		s.opts.Progress(ctx, runIDFrom(ctx), part, gpuUUID, outcome)
	}
}

// busy lists the GPUs jobs hold; none when no BusyFunc was given.
func (s *Suite) busy(ctx context.Context) (map[string]string, error) {
	if s.opts.Busy == nil {
		return nil, nil
	}
	return s.opts.Busy(ctx)
}

// busyError ends a GPU's measurement when a job starts on it.
type busyError struct{ jobID string }

func (e *busyError) Error() string { return ErrorGPUBusy + ": job " + e.jobID }

// measure runs the measurer on one GPU with NVML watching.
func (s *Suite) measure(ctx context.Context, smp *sampler, d gpu.Device, log *slog.Logger) protocol.GpuBenchResult {
	o := s.opts
	log = log.With("gpu", d.UUID)
	res := protocol.GpuBenchResult{UUID: d.UUID, Measurements: []protocol.BenchMeasurement{}}
	if o.GPU == nil {
		res.Outcome = protocol.BenchFailed
		res.Error = ptr("CUDA_ERROR_NOT_INITIALIZED: no GPU measurer")
		return res
	}
	mctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	w := smp.begin(mctx, d.UUID, cancel)
	start := time.Now()

	type answer struct {
		ms  []protocol.BenchMeasurement
		err error
	}
	done := make(chan answer, 1) // buffered: a measurer that overruns ends on its own
	go func() {
		ms, err := o.GPU.Measure(mctx, d.UUID, o.GPUBudget)
		done <- answer{ms, err}
	}()
	var a answer
	timer := time.NewTimer(o.GPUBudget + budgetGrace)
	defer timer.Stop()
	select {
	case a = <-done:
	case <-timer.C:
		cancel(fmt.Errorf("%s: no answer within %s", ErrorTimeout, o.GPUBudget+budgetGrace))
		a.err = context.Cause(mctx)
	case <-ctx.Done():
		a.err = ctx.Err()
	}
	samples, link := smp.end(ctx, w)
	if a.ms != nil {
		res.Measurements = a.ms
	}
	res.Evidence = aggregateEvidence(samples, link, d.PowerLimitW)

	var be *busyError
	switch {
	case errors.As(context.Cause(mctx), &be):
		res.Outcome = protocol.BenchPostponed
		res.Error = ptr(shorten(be.Error()))
		log.Info("bench: a job started on the GPU; its measurement stopped", "job_id", be.jobID)
	case a.err != nil:
		res.Outcome = protocol.BenchFailed
		res.Error = ptr(errorText(a.err))
		log.Warn("bench: GPU failed", "err", a.err, "took", time.Since(start))
	default:
		res.Outcome = protocol.BenchCompleted
		log.Info("bench: GPU measured", "took", time.Since(start), "samples", res.Evidence.Samples,
			"throttled_share", res.Evidence.ThrottledShare)
	}
	return res
}

// errorText is what a failed GPU's Error says: the driver's error name
// where the error has one, else a short description.
func errorText(err error) string {
	var named interface{ ErrorName() string }
	if errors.As(err, &named) && named.ErrorName() != "" {
		return named.ErrorName()
	}
	return shorten(err.Error())
}

// shorten bounds an Error text to what the server takes (it stores and
// shows it; a longer one would have the whole result refused).
func shorten(s string) string { return protocol.ClipBenchError(s) }

func ptr[T any](v T) *T { return &v }

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
