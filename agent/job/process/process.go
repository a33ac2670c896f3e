// Package process is the job.Runtime for --simulate: it runs a job's
// command as a local process and marks the job's simulated GPUs busy while
// it runs, so rentals work in the demo and the simulator's telemetry
// follows them.
//
// It isolates nothing (no container, no memory or pids limit) and forgets
// its jobs when the agent exits: it is for simulated machines only. Each job
// runs in its own process group, so Stop and timeouts end everything the
// job started, not just its first process.
package process

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gpunex/gpunex/agent/job"
	"github.com/gpunex/gpunex/internal/clock"
)

// GPUs is what the runtime tells about the GPUs its jobs hold;
// *gpu.Simulator satisfies it. SetBusy fails for a GPU it does not have.
type GPUs interface {
	SetBusy(uuid string, busy bool) error
}

// DefaultStopGrace is how long a job has to exit after SIGTERM before it is
// killed.
const DefaultStopGrace = 5 * time.Second

// Options tunes a Runtime; the zero value is usable.
type Options struct {
	// Clock stamps start, finish and deadline times; the system clock by
	// default. Timeouts themselves run on real time.
	Clock clock.Clock
	// StopGrace is the time between SIGTERM and SIGKILL; DefaultStopGrace
	// when zero.
	StopGrace time.Duration
	// Dir is the jobs' working directory; the system temp dir when empty.
	Dir string
}

// Runtime is the process job.Runtime.
type Runtime struct {
	gpus  GPUs
	clock clock.Clock
	grace time.Duration
	dir   string

	mu   sync.Mutex
	jobs map[string]*proc
}

var _ job.Runtime = (*Runtime)(nil)

// proc is one job's process and what is known about it; job is guarded by
// Runtime.mu.
type proc struct {
	job   job.Job
	pid   int
	done  chan struct{} // closed once the process has exited and been reaped
	timer *time.Timer   // the timeout, if any
}

// New returns a runtime whose jobs hold GPUs of gpus.
func New(gpus GPUs, opts Options) *Runtime {
	r := &Runtime{gpus: gpus, clock: opts.Clock, grace: opts.StopGrace, dir: opts.Dir, jobs: make(map[string]*proc)}
	if r.clock == nil {
		r.clock = clock.Real{}
	}
	if r.grace <= 0 {
		r.grace = DefaultStopGrace
	}
	if r.dir == "" {
		r.dir = os.TempDir()
	}
	return r
}

// Start runs spec.Command with the job's environment plus
// CUDA_VISIBLE_DEVICES and NVIDIA_VISIBLE_DEVICES set to its GPUs, and marks
// those GPUs busy until the process ends.
func (r *Runtime) Start(ctx context.Context, spec job.Spec) (job.Job, error) {
	if err := spec.Validate(); err != nil {
		return job.Job{}, err
	}
	if len(spec.Command) == 0 || spec.Command[0] == "" {
		return job.Job{}, fmt.Errorf("%w: command: required by the process runtime", job.ErrInvalidSpec)
	}
	if err := ctx.Err(); err != nil {
		return job.Job{}, err
	}

	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.jobs[spec.ID]; ok {
		return job.Job{}, fmt.Errorf("process: start %s: %w", spec.ID, job.ErrExists)
	}
	for _, p := range r.jobs {
		if p.job.State != job.StateRunning {
			continue
		}
		for _, u := range spec.GPUUUIDs {
			if slices.Contains(p.job.GPUUUIDs, u) {
				return job.Job{}, fmt.Errorf("process: start %s: %s is held by job %s: %w", spec.ID, u, p.job.ID, job.ErrGPUInUse)
			}
		}
	}
	if err := r.hold(spec.GPUUUIDs); err != nil {
		return job.Job{}, fmt.Errorf("%w: gpuUuids: %v", job.ErrInvalidSpec, err)
	}

	cmd := exec.Command(spec.Command[0], spec.Command[1:]...)
	cmd.Dir = r.dir
	cmd.Env = environment(spec)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its own group, to stop all of it
	if err := cmd.Start(); err != nil {
		r.release(spec.GPUUUIDs)
		return job.Job{}, fmt.Errorf("process: start %s: %w", spec.ID, err)
	}

	now := r.clock.Now()
	p := &proc{
		job: job.Job{
			ID:        spec.ID,
			State:     job.StateRunning,
			GPUUUIDs:  slices.Clone(spec.GPUUUIDs),
			RuntimeID: strconv.Itoa(cmd.Process.Pid),
			StartedAt: now,
		},
		pid:  cmd.Process.Pid,
		done: make(chan struct{}),
	}
	if spec.Timeout > 0 {
		p.job.Deadline = now.Add(spec.Timeout)
		p.timer = time.AfterFunc(spec.Timeout, func() { r.terminate(p, "timeout") })
	}
	r.jobs[spec.ID] = p
	go r.wait(p, cmd)
	return copyJob(p.job), nil
}

// environment is what the job's process sees: a PATH to find its command,
// its id and GPUs, and its own variables, nothing else of the agent's.
func environment(spec job.Spec) []string {
	gpus := strings.Join(spec.GPUUUIDs, ",")
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"GPUNEX_JOB_ID=" + spec.ID,
		"CUDA_VISIBLE_DEVICES=" + gpus,
		"NVIDIA_VISIBLE_DEVICES=" + gpus,
	}
	return append(env, spec.Env...)
}

// hold marks gpus busy, undoing the ones already marked if one fails.
func (r *Runtime) hold(gpus []string) error {
	for i, u := range gpus {
		if err := r.gpus.SetBusy(u, true); err != nil {
			r.release(gpus[:i])
			return err
		}
	}
	return nil
}

func (r *Runtime) release(gpus []string) {
	for _, u := range gpus {
		_ = r.gpus.SetBusy(u, false)
	}
}

// wait reaps the process, records how it ended, kills whatever it left in
// its group, and frees its GPUs.
func (r *Runtime) wait(p *proc, cmd *exec.Cmd) {
	_ = cmd.Wait()
	_ = syscall.Kill(-p.pid, syscall.SIGKILL) // leftovers in the job's group
	if p.timer != nil {
		p.timer.Stop()
	}
	code := exitCode(cmd.ProcessState)

	r.mu.Lock()
	p.job.State = job.StateExited
	p.job.ExitCode = &code
	p.job.FinishedAt = r.clock.Now()
	r.release(p.job.GPUUUIDs)
	r.mu.Unlock()
	close(p.done)
}

// exitCode is the process's exit status, or 128+signal for a process killed
// by a signal, as shells and Docker report it.
func exitCode(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// terminate sends the job's group SIGTERM, then SIGKILL after the grace
// period, and returns once the process is gone. reason is recorded unless
// the job had already exited.
func (r *Runtime) terminate(p *proc, reason string) {
	r.mu.Lock()
	if p.job.State != job.StateRunning {
		r.mu.Unlock()
		return
	}
	if p.job.Reason == "" {
		p.job.Reason = reason
	}
	r.mu.Unlock()

	_ = syscall.Kill(-p.pid, syscall.SIGTERM)
	grace := time.NewTimer(r.grace)
	defer grace.Stop()
	select {
	case <-p.done:
	case <-grace.C:
		_ = syscall.Kill(-p.pid, syscall.SIGKILL)
		<-p.done
	}
}

// Stop ends the job (SIGTERM, SIGKILL after the grace period) and forgets
// it. A job the runtime does not have is not an error.
func (r *Runtime) Stop(ctx context.Context, id string) error {
	r.mu.Lock()
	p, ok := r.jobs[id]
	r.mu.Unlock()
	if !ok {
		return nil
	}
	stopped := make(chan struct{})
	go func() {
		r.terminate(p, "stopped")
		close(stopped)
	}()
	select {
	case <-stopped:
	case <-ctx.Done():
		return fmt.Errorf("process: stop %s: %w", id, ctx.Err())
	}
	r.mu.Lock()
	if r.jobs[id] == p {
		delete(r.jobs, id)
	}
	r.mu.Unlock()
	return nil
}

// Inspect reports one job.
func (r *Runtime) Inspect(_ context.Context, id string) (job.Job, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, ok := r.jobs[id]
	if !ok {
		return job.Job{}, fmt.Errorf("process: job %s: %w", id, job.ErrNotFound)
	}
	return copyJob(p.job), nil
}

// List reports every job not yet stopped, by id.
func (r *Runtime) List(context.Context) ([]job.Job, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]job.Job, 0, len(r.jobs))
	for _, p := range r.jobs {
		out = append(out, copyJob(p.job))
	}
	slices.SortFunc(out, func(a, b job.Job) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// Close stops every job, for the agent's shutdown.
func (r *Runtime) Close(ctx context.Context) error {
	jobs, _ := r.List(ctx)
	var errs []error
	for _, j := range jobs {
		errs = append(errs, r.Stop(ctx, j.ID))
	}
	return errors.Join(errs...)
}

func copyJob(j job.Job) job.Job {
	j.GPUUUIDs = slices.Clone(j.GPUUUIDs)
	if j.ExitCode != nil {
		j.ExitCode = new(*j.ExitCode)
	}
	return j
}
