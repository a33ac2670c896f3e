// Package process is the job.Runtime for --simulate: it runs a job's
// command as a local process and marks the job's simulated GPUs busy while
// it runs, so rentals work in the demo and the simulator's telemetry
// follows them.
//
// It isolates nothing (no container, no memory or pids limit, the agent's
// own user) and forgets its jobs when the agent exits: it is for simulated
// machines only. Each job runs in its own process group, so Stop and
// timeouts end everything the job started, not just its first process.
//
// A job does not inherit the agent's environment, which holds the agent
// token (GPUNEX_TOKEN) and whatever else the agent was started with. It
// gets DefaultPath, HOME and TMPDIR in a working directory of its own
// (created under Options.Dir when it starts, removed when it is stopped),
// its spec's variables, and its id and GPUs. This keeps the agent's
// secrets out of the job's environment, its children and whatever they
// log; it is not a security boundary, since the job runs as the agent's
// user.
//
// The job's stdout and stderr go to one file in its directory (OutputFile),
// which Logs reads the end of. It is not bounded: a simulated job's output
// is the demo's, and it goes with the directory when the job is stopped.
package process

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

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

// DefaultPath is the PATH a job gets unless its spec sets one: Docker's
// default for containers, not the agent's own PATH, which may name the
// agent's private directories.
const DefaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// OutputFile is the file in a job's directory that holds its stdout and
// stderr.
const OutputFile = ".gpunex-output.log"

// Options tunes a Runtime; the zero value is usable.
type Options struct {
	// Clock stamps start, finish and deadline times; the system clock by
	// default. Timeouts themselves run on real time.
	Clock clock.Clock
	// StopGrace is the time between SIGTERM and SIGKILL; DefaultStopGrace
	// when zero.
	StopGrace time.Duration
	// Dir holds the jobs' working directories, one per job (mode 700,
	// random suffix), created when it starts and removed when it is
	// stopped; the system temp dir when empty. main passes
	// <data-dir>/jobs.
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
	dir   string        // its working directory, HOME and TMPDIR
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

// Start runs spec.Command in a new working directory of the job's own, with
// the environment described in the package comment, CUDA_VISIBLE_DEVICES
// and NVIDIA_VISIBLE_DEVICES set to its GPUs, and marks those GPUs busy
// until the process ends. The command is looked up in the job's PATH.
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

	dir, err := r.makeDir(spec.ID)
	if err != nil {
		r.release(spec.GPUUUIDs)
		return job.Job{}, fmt.Errorf("process: start %s: %w", spec.ID, err)
	}
	cmd, err := command(spec, dir)
	if err != nil {
		r.release(spec.GPUUUIDs)
		_ = removeDir(dir)
		return job.Job{}, fmt.Errorf("process: start %s: %w", spec.ID, err)
	}
	out, err := os.OpenFile(filepath.Join(dir, OutputFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err == nil {
		cmd.Stdout, cmd.Stderr = out, out
		err = cmd.Start()
		// The child has its own descriptor now; ours is not needed.
		_ = out.Close()
		if err != nil {
			// The program could not be executed: the customer's command
			// (a missing file, no execute permission, not a program).
			err = fmt.Errorf("%w: command: %w", job.ErrInvalidSpec, err)
		}
	}
	if err != nil {
		r.release(spec.GPUUUIDs)
		_ = removeDir(dir)
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
		dir:  dir,
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

// makeDir creates the job's working directory with its tmp directory. The
// random suffix keeps a directory left by an agent that was killed, or made
// by another user of a shared temp dir, from being taken for this job's.
func (r *Runtime) makeDir(id string) (string, error) {
	if err := os.MkdirAll(r.dir, 0o700); err != nil {
		return "", fmt.Errorf("jobs directory: %w", err)
	}
	dir, err := os.MkdirTemp(r.dir, "job-"+id+"-")
	if err != nil {
		return "", fmt.Errorf("job directory: %w", err)
	}
	if err := os.Mkdir(filepath.Join(dir, "tmp"), 0o700); err != nil {
		_ = removeDir(dir)
		return "", fmt.Errorf("job directory: %w", err)
	}
	return dir, nil
}

// removeDir removes a job's directory. A job may have left directories it
// made unreadable (chmod 000), which stop os.RemoveAll unless the agent
// runs as root; they are the agent's user's, so they are opened up and
// removed on a second pass. WalkDir does not follow symbolic links.
func removeDir(dir string) error {
	if os.RemoveAll(dir) == nil {
		return nil
	}
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if d != nil && d.IsDir() {
			_ = os.Chmod(path, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}

// command is the job's process: its program found in the job's PATH, run
// in dir, with the job's environment and in a process group of its own, so
// Stop ends all of it.
func command(spec job.Spec, dir string) (*exec.Cmd, error) {
	env := environment(spec, dir)
	path, err := lookPath(spec.Command[0], lastValue(env, "PATH"))
	if err != nil {
		return nil, fmt.Errorf("%w: command: %w", job.ErrInvalidSpec, err)
	}
	cmd := exec.Command(path, spec.Command[1:]...)
	cmd.Args[0] = spec.Command[0]
	cmd.Dir = dir
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd, nil
}

// environment is everything the job's process sees: DefaultPath, HOME and
// TMPDIR in its directory, then its spec's variables (which may override
// those three, as a container's may override its image's), then its id and
// GPUs, last so that a job cannot claim other GPUs. Nothing comes from the
// agent's environment. Where a name repeats, the process gets the last
// value (os/exec removes the earlier ones).
func environment(spec job.Spec, dir string) []string {
	gpus := strings.Join(spec.GPUUUIDs, ",")
	env := make([]string, 0, len(spec.Env)+6)
	env = append(env, "PATH="+DefaultPath, "HOME="+dir, "TMPDIR="+filepath.Join(dir, "tmp"))
	env = append(env, spec.Env...)
	return append(env, "GPUNEX_JOB_ID="+spec.ID, "CUDA_VISIBLE_DEVICES="+gpus, "NVIDIA_VISIBLE_DEVICES="+gpus)
}

// lastValue is the value the process gets for key in env.
func lastValue(env []string, key string) string {
	for _, e := range slices.Backward(env) {
		if v, ok := strings.CutPrefix(e, key+"="); ok {
			return v
		}
	}
	return ""
}

// lookPath finds file as exec.LookPath does, but in the job's PATH rather
// than the agent's. A name with a slash is used as it is (relative to the
// job's directory); relative PATH entries are skipped, as a job's
// directory is no place to look for commands by name.
func lookPath(file, path string) (string, error) {
	if strings.Contains(file, "/") {
		return file, nil
	}
	for _, d := range filepath.SplitList(path) {
		if !filepath.IsAbs(d) {
			continue
		}
		p := filepath.Join(d, file)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("no executable %q in the job's PATH (%s)", file, path)
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

// Stop ends the job (SIGTERM, SIGKILL after the grace period), removes its
// directory and forgets it. A job the runtime does not have is not an
// error.
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
	forget := r.jobs[id] == p
	if forget {
		delete(r.jobs, id)
	}
	r.mu.Unlock()
	if !forget {
		return nil // a concurrent Stop has it
	}
	if err := removeDir(p.dir); err != nil {
		return fmt.Errorf("process: stop %s: remove its directory: %w", id, err)
	}
	return nil
}

// Halt ends the job as Stop does but keeps it, its exit code and its
// output until Stop; it returns the job as it ended.
func (r *Runtime) Halt(ctx context.Context, id string) (job.Job, error) {
	r.mu.Lock()
	p, ok := r.jobs[id]
	r.mu.Unlock()
	if !ok {
		return job.Job{}, fmt.Errorf("process: job %s: %w", id, job.ErrNotFound)
	}
	halted := make(chan struct{})
	go func() {
		r.terminate(p, "stopped")
		close(halted)
	}()
	select {
	case <-halted:
	case <-ctx.Done():
		return job.Job{}, fmt.Errorf("process: halt %s: %w", id, ctx.Err())
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return copyJob(p.job), nil
}

// Logs returns the end of the job's output file, at most maxBytes.
func (r *Runtime) Logs(_ context.Context, id string, maxBytes int) (string, error) {
	r.mu.Lock()
	p, ok := r.jobs[id]
	r.mu.Unlock()
	if !ok {
		return "", fmt.Errorf("process: job %s: %w", id, job.ErrNotFound)
	}
	f, err := os.Open(filepath.Join(p.dir, OutputFile))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil // the job removed it
	}
	if err != nil {
		return "", fmt.Errorf("process: logs of %s: %w", id, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("process: logs of %s: %w", id, err)
	}
	// A few bytes more than asked, so Tail can drop a character cut in two.
	want := int64(maxBytes + utf8.UTFMax)
	off := max(st.Size()-want, 0)
	buf := make([]byte, st.Size()-off)
	n, err := f.ReadAt(buf, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("process: logs of %s: %w", id, err)
	}
	return job.Tail(buf[:n], maxBytes), nil
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
