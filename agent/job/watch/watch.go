// Package watch reports the agent's jobs to the platform
// (reportJobStatus): it starts each job the server sends on the job
// runtime, follows it, and tells the server where it is, with the end of
// its output, until it is over.
//
// A job's reports, in order:
//
//   - STARTING at once, before the runtime is asked (an image pull may
//     take minutes);
//   - RUNNING once the runtime says it runs, then RUNNING again with the
//     newer log tail whenever its output changed and LogEvery has passed
//     since the last report;
//   - one final report: COMPLETED when it exited with code 0, FAILED
//     otherwise, with a cause and a message. CUSTOMER: it exited non-zero,
//     was OOM-killed, its image cannot be pulled, its spec or command is
//     invalid. PROVIDER: one of its GPUs is held by another job, the
//     runtime or engine failed or does not answer, the job vanished from
//     the runtime.
//
// Every report carries the log tail: the last protocol.MaxLogTailBytes of
// the job's output, as valid UTF-8 (job.Tail).
//
// A job the agent ends (STOP_JOB, a report answered with stop: true, its
// timeout) is halted (SIGTERM, SIGKILL after the grace period) and
// reported with the state the runtime saw it end in: COMPLETED with its
// exit code, whatever that code is (143 after SIGTERM, 137 after SIGKILL),
// since ending on request is how a rental is meant to end and it is nobody's
// failure; the server ends a STOPPING rental as STOPPED on any final
// report. Only after the final report is delivered (or refused) is the job
// removed from the runtime (Runtime.Stop), so its output reaches the
// report; a job that exits by itself is removed the same way, which frees
// its GPUs and its network before the server's STOP_JOB arrives (a stop of
// a job already gone is a no-op).
//
// Containers outlive the agent: Resume, at start, reports again every job
// the runtime lists and watches it to its end.
package watch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/gpunex/gpunex/agent/job"
	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/clock"
)

// Reporter delivers one report; *client.Client satisfies it (its
// ReportJobStatus retries transient failures itself). An answer that
// refuses the input comes back with an error and the answer, as the
// client's do: the watcher does not send it again.
type Reporter interface {
	ReportJobStatus(ctx context.Context, in protocol.ReportJobStatusInput) (*protocol.ReportJobStatusAnswer, error)
}

// Defaults of Options.
const (
	// DefaultPoll is how often a job's state is read from the runtime.
	DefaultPoll = time.Second
	// DefaultLogEvery is the least time between two RUNNING reports that
	// only carry a newer log tail.
	DefaultLogEvery = 5 * time.Second
	// DefaultFinalRetry is the pause between two tries of a final report
	// the reporter could not deliver: it is the one report the server must
	// have, so it is tried until it is delivered or the agent stops.
	DefaultFinalRetry = 15 * time.Second
)

// maxMessageBytes bounds a report's message (an error can quote a long
// engine answer).
const maxMessageBytes = 1024

// Options tunes a Watcher. MachineID is required.
type Options struct {
	// MachineID is sent with every report.
	MachineID string
	// Clock stamps the reports; the system clock when nil.
	Clock clock.Clock
	// Poll, LogEvery and FinalRetry: DefaultPoll, DefaultLogEvery and
	// DefaultFinalRetry when zero.
	Poll       time.Duration
	LogEvery   time.Duration
	FinalRetry time.Duration
	// Logger receives the watcher's log; nothing is logged when nil.
	Logger *slog.Logger
}

// Watcher starts, follows, reports and ends the jobs of one runtime. Its
// methods are safe for concurrent use; Close ends its goroutines.
type Watcher struct {
	rt       job.Runtime
	reporter Reporter
	machine  string
	clock    clock.Clock
	poll     time.Duration
	logEvery time.Duration
	retry    time.Duration
	logger   *slog.Logger

	ctx    context.Context // ends with Close
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex
	jobs   map[string]*watched
	closed bool
}

// watched is one job the watcher follows.
type watched struct {
	stopOnce sync.Once
	stop     chan struct{} // closed when the job is to be ended
	done     chan struct{} // closed when the watcher is done with it
}

func (w *watched) requestStop() { w.stopOnce.Do(func() { close(w.stop) }) }

// New returns a watcher of rt's jobs reporting to reporter.
func New(rt job.Runtime, reporter Reporter, opts Options) *Watcher {
	ctx, cancel := context.WithCancel(context.Background())
	w := &Watcher{
		rt: rt, reporter: reporter, machine: opts.MachineID, clock: opts.Clock,
		poll: opts.Poll, logEvery: opts.LogEvery, retry: opts.FinalRetry, logger: opts.Logger,
		ctx: ctx, cancel: cancel, jobs: make(map[string]*watched),
	}
	if w.clock == nil {
		w.clock = clock.Real{}
	}
	if w.poll <= 0 {
		w.poll = DefaultPoll
	}
	if w.logEvery <= 0 {
		w.logEvery = DefaultLogEvery
	}
	if w.retry <= 0 {
		w.retry = DefaultFinalRetry
	}
	if w.logger == nil {
		w.logger = slog.New(slog.DiscardHandler)
	}
	return w
}

// ErrClosed is returned by Start and Resume after Close.
var ErrClosed = errors.New("watch: closed")

// Start reports spec's job STARTING, starts it on the runtime and follows
// it, all on a goroutine of the job's own: it returns at once, so a slow
// image pull holds no other command back. A job already watched (a START_JOB
// sent again) is left as it is.
func (w *Watcher) Start(spec job.Spec) error {
	wj, ok, err := w.add(spec.ID)
	if err != nil || !ok {
		return err
	}
	go w.follow(wj, spec.ID, &spec)
	return nil
}

// Stop ends a watched job: it is halted, reported with how it ended and
// removed, on its goroutine (Done says when). A job the watcher does not
// follow is stopped on the runtime at once, so leftovers go too; stopping
// a job that is gone is not an error.
func (w *Watcher) Stop(ctx context.Context, id string) error {
	w.mu.Lock()
	wj, ok := w.jobs[id]
	w.mu.Unlock()
	if ok {
		wj.requestStop()
		return nil
	}
	if err := w.rt.Stop(ctx, id); err != nil {
		return fmt.Errorf("watch: stop %s: %w", id, err)
	}
	return nil
}

// Done returns a channel closed once the watcher is done with job id (its
// final report made and the job removed, or the watcher closed); an
// already closed channel if it does not follow id.
func (w *Watcher) Done(id string) <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	if wj, ok := w.jobs[id]; ok {
		return wj.done
	}
	c := make(chan struct{})
	close(c)
	return c
}

// Resume follows every job the runtime has that the watcher does not,
// reporting each again: the jobs an earlier agent started, found after a
// restart (containers outlive the agent). It returns how many it took up.
func (w *Watcher) Resume(ctx context.Context) (int, error) {
	jobs, err := w.rt.List(ctx)
	if err != nil {
		return 0, fmt.Errorf("watch: resume: %w", err)
	}
	n := 0
	for _, j := range jobs {
		if j.ID == "" {
			continue
		}
		wj, ok, err := w.add(j.ID)
		if err != nil {
			return n, err
		}
		if ok {
			n++
			w.logger.Info("watch: job found running at start; reporting and following it", "job_id", j.ID, "state", j.State)
			go w.follow(wj, j.ID, nil)
		}
	}
	return n, nil
}

// Close ends every job's goroutine (the jobs themselves are left to the
// runtime: containers keep running and a restarted agent resumes them)
// and waits for them.
func (w *Watcher) Close() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	w.cancel()
	w.wg.Wait()
}

// add registers id as watched; ok is false if it already is.
func (w *Watcher) add(id string) (*watched, bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil, false, ErrClosed
	}
	if _, ok := w.jobs[id]; ok {
		w.logger.Info("watch: job already followed; start ignored", "job_id", id)
		return nil, false, nil
	}
	wj := &watched{stop: make(chan struct{}), done: make(chan struct{})}
	w.jobs[id] = wj
	w.wg.Add(1)
	return wj, true, nil
}

// follow is one job's goroutine: it starts the job when spec is given,
// then reads its state every poll until it is over.
func (w *Watcher) follow(wj *watched, id string, spec *job.Spec) {
	defer w.wg.Done()
	defer func() {
		w.mu.Lock()
		delete(w.jobs, id)
		w.mu.Unlock()
		close(wj.done)
	}()
	ctx := w.ctx
	f := &follower{w: w, id: id}

	if spec != nil {
		f.report(ctx, protocol.JobStarting, w.clock.Now(), nil, "")
		_, err := w.rt.Start(ctx, *spec)
		if errors.Is(err, job.ErrExists) {
			err = nil // started by an earlier agent; follow it
		}
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			cause, msg := startFailure(err)
			w.logger.Warn("watch: job could not start", "job_id", id, "cause", cause, "err", err)
			f.final(ctx, protocol.JobFailed, w.clock.Now(), &cause, msg, nil, "")
			return
		}
	}

	t := time.NewTicker(w.poll)
	defer t.Stop()
	for {
		if f.step(ctx, wj) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-wj.stop:
			f.halting = true
		case <-t.C:
		}
	}
}

// follower is what one job's goroutine knows of its job.
type follower struct {
	w       *Watcher
	id      string
	running bool      // RUNNING reported (and answered)
	tail    string    // the log tail last reported
	sentAt  time.Time // when the last RUNNING report went
	halting bool      // the job is to be ended
	why     string    // why the agent ends it
	// rechecked: an unasked SIGKILL was read once more (see step).
	rechecked bool
}

// step reads the job once and acts: reports, halts, finishes. It returns
// true when the job is over for the watcher.
func (f *follower) step(ctx context.Context, wj *watched) bool {
	w := f.w
	select {
	case <-wj.stop:
		f.halting = true
	default:
	}
	if f.halting {
		return f.halt(ctx, "stopped by the platform")
	}
	j, err := w.rt.Inspect(ctx, f.id)
	switch {
	case ctx.Err() != nil:
		return true
	case errors.Is(err, job.ErrNotFound):
		cause := protocol.CauseProvider
		f.final(ctx, protocol.JobFailed, w.clock.Now(), &cause, "the job is gone from the host's runtime (removed outside the agent?)", nil, f.tail)
		return true
	case err != nil:
		w.logger.Warn("watch: reading the job's state", "job_id", f.id, "err", err)
		return false
	}
	switch j.State {
	case job.StateExited:
		if killedUnasked(j) && f.why == "" && !f.rechecked {
			// The engine may learn of an OOM kill after the exit itself
			// (two events from the kernel; a busy host orders them
			// either way): read the job once more, a poll later, before
			// saying why it died.
			f.rechecked = true
			return false
		}
		return f.finish(ctx, j)
	case job.StateRunning:
		if !j.Deadline.IsZero() && !w.clock.Now().Before(j.Deadline) {
			return f.halt(ctx, "stopped at its timeout")
		}
		tail := f.logs(ctx)
		now := w.clock.Now()
		if f.running && (tail == f.tail || now.Sub(f.sentAt) < w.logEvery) {
			return false
		}
		at := j.StartedAt
		if at.IsZero() {
			at = now
		}
		f.sentAt = now
		a := f.report(ctx, protocol.JobRunning, at, nil, tail)
		if a != nil {
			f.running, f.tail = true, tail
			if a.Stop {
				w.logger.Info("watch: the platform no longer wants the job; stopping it", "job_id", f.id)
				return f.halt(ctx, "stopped by the platform")
			}
		}
	}
	// created (a start under way or interrupted) and states the runtime
	// does not model (paused, restarting) are waited out.
	return false
}

// halt ends the job and finishes it; on a runtime failure it is tried
// again at the next step.
func (f *follower) halt(ctx context.Context, why string) bool {
	f.halting = true
	if f.why == "" {
		f.why = why
	}
	j, err := f.w.rt.Halt(ctx, f.id)
	switch {
	case ctx.Err() != nil:
		return true
	case errors.Is(err, job.ErrNotFound):
		// Gone already (removed outside the agent): ended as asked, its
		// exit code unknown.
		f.final(ctx, protocol.JobCompleted, f.w.clock.Now(), nil, "", nil, f.tail)
		return true
	case err != nil:
		f.w.logger.Warn("watch: ending the job failed; trying again", "job_id", f.id, "err", err)
		return false
	}
	f.w.logger.Info("watch: job ended", "job_id", f.id, "why", f.why, "exit_code", j.ExitCode)
	return f.finish(ctx, j)
}

// finish sends an exited job's final report, then removes it from the
// runtime.
func (f *follower) finish(ctx context.Context, j job.Job) bool {
	state, cause, msg := f.outcome(j)
	if !f.running && !j.StartedAt.IsZero() {
		// It ran, if only for a moment between two reads: the server
		// learns when (metering starts there) before it learns the end.
		if a := f.report(ctx, protocol.JobRunning, j.StartedAt, nil, f.logs(ctx)); a != nil {
			f.running = true
		}
	}
	at := j.FinishedAt
	if at.IsZero() {
		at = f.w.clock.Now()
	}
	if !f.final(ctx, state, at, cause, msg, j.ExitCode, f.logs(ctx)) {
		return true // the agent stops; the job is reported again after it restarts
	}
	if err := f.w.rt.Stop(ctx, f.id); err != nil && ctx.Err() == nil {
		f.w.logger.Warn("watch: removing a finished job", "job_id", f.id, "err", err)
	}
	return true
}

// killedUnasked reports whether an exited job died of SIGKILL (exit code
// 137) with no reason from the runtime.
func killedUnasked(j job.Job) bool {
	return j.ExitCode != nil && *j.ExitCode == 137 && j.Reason == ""
}

// outcome is the final state of an exited job.
func (f *follower) outcome(j job.Job) (protocol.JobState, *protocol.JobCause, string) {
	customer := protocol.CauseCustomer
	switch {
	case f.why != "" || j.Reason == "timeout":
		// Ended on request or at its time: not a failure, whatever the
		// code the signal left.
		return protocol.JobCompleted, nil, ""
	case j.ExitCode == nil:
		provider := protocol.CauseProvider
		return protocol.JobFailed, &provider, "the job ended and the runtime reports no exit code"
	case j.Reason == "oom-killed":
		return protocol.JobFailed, &customer, fmt.Sprintf("the job ran out of its memory limit and was killed (exit code %d)", *j.ExitCode)
	case *j.ExitCode == 0:
		return protocol.JobCompleted, nil, ""
	case killedUnasked(j):
		// SIGKILL that neither the agent nor its timeout sent, and no OOM
		// flag from the engine even after a second read: on a job host
		// that is almost always the kernel's OOM killer (the flag is lost
		// when the container's cgroup goes first).
		return protocol.JobFailed, &customer, fmt.Sprintf("the job was killed (SIGKILL, exit code %d), most likely for running out of its memory limit", *j.ExitCode)
	default:
		return protocol.JobFailed, &customer, fmt.Sprintf("the job exited with code %d", *j.ExitCode)
	}
}

// logs reads the job's log tail; on failure the last one known.
func (f *follower) logs(ctx context.Context) string {
	tail, err := f.w.rt.Logs(ctx, f.id, protocol.MaxLogTailBytes)
	if err != nil {
		if ctx.Err() == nil && !errors.Is(err, job.ErrNotFound) {
			f.w.logger.Debug("watch: reading the job's output", "job_id", f.id, "err", err)
		}
		return f.tail
	}
	return tail
}

// report sends one report; nil when it was not delivered.
func (f *follower) report(ctx context.Context, state protocol.JobState, at time.Time, cause *protocol.JobCause, tail string) *protocol.ReportJobStatusAnswer {
	a, err := f.w.reporter.ReportJobStatus(ctx, f.input(state, at, cause, "", nil, tail))
	if err != nil {
		if ctx.Err() == nil {
			f.w.logger.Warn("watch: job report not delivered", "job_id", f.id, "state", state, "err", err)
		}
		return nil
	}
	return a
}

// final sends the job's last report, trying again every FinalRetry until
// it is delivered or refused (userErrors: trying again cannot help). It
// returns false if the watcher closed first.
func (f *follower) final(ctx context.Context, state protocol.JobState, at time.Time, cause *protocol.JobCause, msg string, exit *int, tail string) bool {
	in := f.input(state, at, cause, msg, exit, tail)
	for {
		a, err := f.w.reporter.ReportJobStatus(ctx, in)
		if ctx.Err() != nil {
			return false
		}
		if a != nil {
			// Delivered; an answer with userErrors (err set) is a refusal
			// of the input, which no retry changes.
			if err != nil {
				f.w.logger.Error("watch: the server refused the job's final report", "job_id", f.id, "state", state, "err", err)
			}
			f.tail = tail
			return true
		}
		f.w.logger.Warn("watch: final job report not delivered; trying again", "job_id", f.id, "state", state, "retry_in", f.w.retry, "err", err)
		t := time.NewTimer(f.w.retry)
		select {
		case <-ctx.Done():
			t.Stop()
			return false
		case <-t.C:
		}
	}
}

func (f *follower) input(state protocol.JobState, at time.Time, cause *protocol.JobCause, msg string, exit *int, tail string) protocol.ReportJobStatusInput {
	in := protocol.ReportJobStatusInput{
		MachineID: f.w.machine, JobID: f.id, State: state, At: at.UTC(),
		Cause: cause, ExitCode: exit, LogTail: &tail,
	}
	if msg != "" {
		if len(msg) > maxMessageBytes {
			msg = strings.ToValidUTF8(msg[:maxMessageBytes-len("…")], "") + "…"
		}
		in.Message = &msg
	}
	return in
}

// startFailure says whose failure a refused start is.
func startFailure(err error) (protocol.JobCause, string) {
	switch {
	case errors.Is(err, job.ErrInvalidSpec):
		return protocol.CauseCustomer, "the job cannot run as given: " + err.Error()
	case errors.Is(err, job.ErrImage):
		return protocol.CauseCustomer, "the job's image cannot be pulled: " + err.Error()
	case errors.Is(err, job.ErrGPUInUse):
		return protocol.CauseProvider, "a GPU of the job is busy with another job on the host: " + err.Error()
	default:
		return protocol.CauseProvider, "the host could not start the job: " + err.Error()
	}
}
