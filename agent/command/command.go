// Package command carries out the commands the platform sends with its
// heartbeat answers: START_JOB and STOP_JOB go to the job watcher,
// RUN_BENCHMARK to the benchmark runner. gpunex-agent and the demo world's
// in-process agents both hand their client this one Handler.
package command

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"github.com/gpunex/gpunex/agent/bench"
	"github.com/gpunex/gpunex/agent/client"
	"github.com/gpunex/gpunex/agent/job"
	"github.com/gpunex/gpunex/agent/job/watch"
	"github.com/gpunex/gpunex/agent/protocol"
)

// Handler carries out the server's commands: jobs handed to the
// watcher (which starts, follows, reports and ends each on a goroutine of
// its own, so a slow image pull holds no command back), benchmarks to the
// runner (which runs them on its own goroutine).
func Handler(jobs func() *watch.Watcher, runner func() *bench.Runner, logger *slog.Logger) client.Handler {
	return func(ctx context.Context, cmd client.Command) error {
		switch cmd.Kind {
		case protocol.CommandStartJob:
			var p protocol.StartJobPayload
			if err := json.Unmarshal(cmd.Payload, &p); err != nil {
				return fmt.Errorf("START_JOB payload: %w", err)
			}
			if p.JobID == "" {
				return errors.New("START_JOB payload: jobId is required")
			}
			// A bad spec is not refused here: the watcher reports it
			// FAILED (CUSTOMER), so the rental ends with the reason.
			if err := jobs().Start(job.SpecOf(p)); err != nil {
				return fmt.Errorf("START_JOB %s: %w", p.JobID, err)
			}
			logger.Info("agent: job starting", "job_id", p.JobID, "gpus", p.GpuUUIDs, "image", p.Image)
			return nil
		case protocol.CommandStopJob:
			var p protocol.StopJobPayload
			if err := json.Unmarshal(cmd.Payload, &p); err != nil {
				return fmt.Errorf("STOP_JOB payload: %w", err)
			}
			if p.JobID == "" {
				return errors.New("STOP_JOB payload: jobId is required")
			}
			if err := jobs().Stop(ctx, p.JobID); err != nil {
				return fmt.Errorf("STOP_JOB %s: %w", p.JobID, err)
			}
			logger.Info("agent: job stopping", "job_id", p.JobID)
			return nil
		case protocol.CommandRunBenchmark:
			return enqueueBenchmark(runner, cmd, logger)
		}
		return fmt.Errorf("unknown command kind %q; is the agent older than the server?", cmd.Kind)
	}
}

// enqueueBenchmark hands RUN_BENCHMARK to the runner and returns at once,
// so the command after it (a START_JOB, say) is not held up by the run. A
// run the runner already has, or one past its queue, is dropped with a log
// line: the server sees no result and may ask again.
func enqueueBenchmark(runner func() *bench.Runner, cmd client.Command, logger *slog.Logger) error {
	var p protocol.RunBenchmarkPayload
	if err := json.Unmarshal(cmd.Payload, &p); err != nil {
		return fmt.Errorf("RUN_BENCHMARK payload: %w", err)
	}
	r := runner()
	if r == nil {
		return errors.New("RUN_BENCHMARK: the benchmark runner is not ready")
	}
	err := r.Enqueue(p)
	switch {
	case errors.Is(err, bench.ErrDuplicateRun), errors.Is(err, bench.ErrQueueFull):
		logger.Warn("agent: RUN_BENCHMARK dropped", "command_id", cmd.ID, "run_id", p.RunID, "err", err)
		return nil
	case err != nil:
		return fmt.Errorf("RUN_BENCHMARK: %w", err)
	}
	logger.Info("agent: benchmark queued", "command_id", cmd.ID, "run_id", p.RunID, "reason", p.Reason, "gpus", p.GpuUUIDs)
	return nil
}
