package bench

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/gpunex/gpunex/agent/job"
	"github.com/gpunex/gpunex/agent/protocol"
)

// MaxQueuedRuns bounds the runs waiting behind the one in progress.
const MaxQueuedRuns = 4

// Errors Runner.Enqueue returns.
var (
	// ErrDuplicateRun: a run with that id is already waiting or running.
	ErrDuplicateRun = errors.New("bench: run already queued")
	// ErrQueueFull: MaxQueuedRuns runs are already waiting.
	ErrQueueFull = errors.New("bench: too many runs queued")
)

// Runner runs benchmarks one at a time on a goroutine of its own, so the
// agent's command handler (which handles START_JOB too, one command at a
// time) hands a RUN_BENCHMARK over and moves on at once: a benchmark of
// a minute never holds a customer's job back.
//
// A RUN_BENCHMARK that arrives while another runs waits and runs after it
// rather than being dropped: each run id is a run the server waits for a
// result of, and two runs at once would measure GPUs that the other is
// loading. A run id already waiting or running is dropped (the server may
// repeat a command), and so is a run beyond MaxQueuedRuns.
type Runner struct {
	run    func(context.Context, protocol.RunBenchmarkPayload) protocol.BenchmarkResultInput
	submit func(context.Context, protocol.BenchmarkResultInput) error
	log    *slog.Logger

	mu      sync.Mutex
	queue   []protocol.RunBenchmarkPayload
	current string
	wake    chan struct{}
}

// NewRunner returns a runner that runs each payload with run (a Suite's
// Run) and hands the result to submit (the client's SubmitBenchmark).
func NewRunner(run func(context.Context, protocol.RunBenchmarkPayload) protocol.BenchmarkResultInput,
	submit func(context.Context, protocol.BenchmarkResultInput) error, logger *slog.Logger) *Runner {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Runner{run: run, submit: submit, log: logger, wake: make(chan struct{}, 1)}
}

// Enqueue queues a run and returns at once.
func (r *Runner) Enqueue(p protocol.RunBenchmarkPayload) error {
	if p.RunID == "" {
		return errors.New("bench: RUN_BENCHMARK payload: runId is required")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.current == p.RunID {
		return fmt.Errorf("%w: %s is running", ErrDuplicateRun, p.RunID)
	}
	for _, q := range r.queue {
		if q.RunID == p.RunID {
			return fmt.Errorf("%w: %s is waiting", ErrDuplicateRun, p.RunID)
		}
	}
	if len(r.queue) >= MaxQueuedRuns {
		return fmt.Errorf("%w: %d waiting; %s dropped", ErrQueueFull, len(r.queue), p.RunID)
	}
	r.queue = append(r.queue, p)
	select {
	case r.wake <- struct{}{}:
	default:
	}
	return nil
}

// Run runs queued benchmarks until ctx ends; a run in progress then stops
// early (its GPUs are not left loaded past the agent's life) and its
// result is not submitted.
func (r *Runner) Run(ctx context.Context) {
	for {
		r.mu.Lock()
		r.current = ""
		if len(r.queue) == 0 {
			r.mu.Unlock()
			select {
			case <-ctx.Done():
				return
			case <-r.wake:
				continue
			}
		}
		p := r.queue[0]
		r.queue = r.queue[1:]
		r.current = p.RunID
		r.mu.Unlock()

		res := r.run(ctx, p)
		if ctx.Err() != nil {
			r.log.Info("bench: agent stopping; run abandoned", "run_id", p.RunID)
			return
		}
		r.log.Info("bench: run done", "run_id", p.RunID, "took", res.FinishedAt.Sub(res.StartedAt), "summary", Summary(res))
		if err := r.submit(ctx, res); err != nil {
			r.log.Error("bench: result not submitted", "run_id", p.RunID, "err", err)
			continue
		}
		r.log.Info("bench: result submitted", "run_id", p.RunID)
	}
}

// Summary renders a result in one line for the log: each part's outcome.
func Summary(res protocol.BenchmarkResultInput) string {
	counts := map[protocol.BenchOutcome]int{}
	for _, g := range res.Gpus {
		counts[g.Outcome]++
	}
	s := fmt.Sprintf("gpus %d completed, %d failed, %d postponed", counts[protocol.BenchCompleted],
		counts[protocol.BenchFailed], counts[protocol.BenchPostponed])
	if res.Network != nil {
		s += "; network " + string(res.Network.Outcome)
	}
	if res.Storage != nil {
		s += "; storage " + string(res.Storage.Outcome)
	}
	return s
}

// JobsOn is the BusyFunc over the agent's job runtime: every GPU of a job
// that has not exited (created, which is a job starting, running, or a
// state the runtime does not model, such as paused) is a customer's.
func JobsOn(rt job.Runtime) BusyFunc {
	return func(ctx context.Context) (map[string]string, error) {
		jobs, err := rt.List(ctx)
		if err != nil {
			return nil, fmt.Errorf("listing jobs: %w", err)
		}
		busy := map[string]string{}
		for _, j := range jobs {
			if j.State == job.StateExited {
				continue
			}
			for _, u := range j.GPUUUIDs {
				busy[u] = j.ID
			}
		}
		return busy, nil
	}
}
