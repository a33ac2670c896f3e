package job

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Labels the docker runtime puts on every container and network it creates.
// They are the agent's only memory of its jobs across restarts.
const (
	// LabelManaged marks GPUnex's own containers and networks ("true").
	LabelManaged = "io.gpunex.managed"
	// LabelJobID holds the job id.
	LabelJobID = "io.gpunex.job-id"
	// LabelGPUs holds the assigned GPU UUIDs, comma separated.
	LabelGPUs = "io.gpunex.gpus"
	// LabelDeadline holds the RFC 3339 time after which the job must be
	// stopped, when the spec has a Timeout.
	LabelDeadline = "io.gpunex.deadline"
)

// Errors a Runtime returns; test with errors.Is.
var (
	// ErrInvalidSpec wraps every validation failure of a Spec.
	ErrInvalidSpec = errors.New("job: invalid spec")
	// ErrNotFound means no job has that id.
	ErrNotFound = errors.New("job: not found")
	// ErrExists means a job with that id is already known to the runtime.
	ErrExists = errors.New("job: already exists")
	// ErrGPUInUse means an assigned GPU is held by another running job.
	ErrGPUInUse = errors.New("job: GPU already in use")
	// ErrImage means the job's image cannot be had: the registry does not
	// have it, refuses the pull, or the pull fails. It is the customer's
	// to fix.
	ErrImage = errors.New("job: image unavailable")
)

// Runtime starts, stops and reports customer jobs. Implementations are safe
// for concurrent use.
type Runtime interface {
	// Start validates spec, prepares what the job needs and starts it. On
	// any failure nothing of the job is left behind.
	Start(ctx context.Context, spec Spec) (Job, error)
	// Stop ends the job and removes everything it had (container, network,
	// process). Stopping a job that is already gone is not an error, so the
	// server may repeat a stop command safely.
	Stop(ctx context.Context, id string) error
	// Inspect reports one job; ErrNotFound if the runtime has none with id.
	Inspect(ctx context.Context, id string) (Job, error)
	// List reports every job the runtime has, running or finished but not
	// yet stopped.
	List(ctx context.Context) ([]Job, error)
	// Halt ends a running job as Stop does (SIGTERM, SIGKILL after the
	// grace period) but keeps what is known of it, its exit code and its
	// output, until Stop removes it; it returns the job as it ended. A job
	// that has already exited is returned as it is. ErrNotFound if the
	// runtime has none with id.
	Halt(ctx context.Context, id string) (Job, error)
	// Logs returns the end of the job's output (stdout and stderr
	// interleaved), at most maxBytes, as valid UTF-8 (see Tail).
	// ErrNotFound if the runtime has none with id.
	Logs(ctx context.Context, id string, maxBytes int) (string, error)
}

// Tail is the end of out as text of at most maxBytes: the last maxBytes
// bytes, less a character cut in two at the start, with every invalid
// UTF-8 sequence replaced by U+FFFD (a job's output is bytes; a report
// carries a GraphQL string). Replacements never push it past maxBytes.
func Tail(out []byte, maxBytes int) string {
	if maxBytes <= 0 {
		return ""
	}
	if len(out) > maxBytes {
		out = out[len(out)-maxBytes:]
		// Skip continuation bytes of a character the cut split.
		for i := 0; i < utf8.UTFMax && len(out) > 0 && !utf8.RuneStart(out[0]); i++ {
			out = out[1:]
		}
	}
	s := strings.ToValidUTF8(string(out), "\uFFFD")
	for len(s) > maxBytes {
		// Replacements (3 bytes for as little as 1) made it longer: drop
		// whole characters from the front.
		_, size := utf8.DecodeRuneInString(s)
		s = s[size:]
	}
	return s
}

// Spec is what the server asks to run.
type Spec struct {
	// ID is the server's job id; it names the container and network, so it
	// is limited to letters, digits, '_', '.' and '-' (at most 64).
	ID string `json:"id"`
	// Image is the container image reference (docker runtime; required
	// there, ignored by the process runtime).
	Image string `json:"image,omitempty"`
	// Command overrides the image's command (docker) or is the program and
	// its arguments (process runtime; required there).
	Command []string `json:"command,omitempty"`
	// Env is the job's environment, "KEY=value" entries.
	Env []string `json:"env,omitempty"`
	// GPUUUIDs are the GPUs assigned to the job; the job sees these and no
	// others. At least one.
	GPUUUIDs []string `json:"gpuUuids"`
	// MemoryBytes is the hard memory limit (swap included: no swap beyond
	// it). Required.
	MemoryBytes int64 `json:"memoryBytes"`
	// PidsLimit caps the number of processes and threads. Required.
	PidsLimit int64 `json:"pidsLimit"`
	// ShmBytes sizes /dev/shm (PyTorch data loaders need more than
	// Docker's 64 MiB); 0 keeps the engine's default.
	ShmBytes int64 `json:"shmBytes,omitempty"`
	// Timeout is the longest the job may run; 0 means until stopped.
	Timeout time.Duration `json:"timeout,omitempty"`
}

// idPattern keeps ids usable in container and network names.
var idPattern = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,63}$`)

// envPattern is a KEY=value entry with a portable variable name.
var envPattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// Validate checks what every runtime needs and names the first bad field.
// The errors wrap ErrInvalidSpec.
func (s Spec) Validate() error {
	switch {
	case !idPattern.MatchString(s.ID):
		return invalid("id", "want 1-64 letters, digits, '_', '.' or '-', starting with a letter or digit; got %q", s.ID)
	case len(s.GPUUUIDs) == 0:
		return invalid("gpuUuids", "at least one GPU must be assigned")
	case s.MemoryBytes <= 0:
		return invalid("memoryBytes", "a memory limit is required; got %d", s.MemoryBytes)
	case s.PidsLimit <= 0:
		return invalid("pidsLimit", "a pids limit is required; got %d", s.PidsLimit)
	case s.ShmBytes < 0:
		return invalid("shmBytes", "must not be negative; got %d", s.ShmBytes)
	case s.Timeout < 0:
		return invalid("timeout", "must not be negative; got %s", s.Timeout)
	}
	seen := make(map[string]bool, len(s.GPUUUIDs))
	for _, u := range s.GPUUUIDs {
		if u == "" || seen[u] {
			return invalid("gpuUuids", "empty or repeated GPU UUID %q", u)
		}
		// Lists of GPUs are comma separated (LabelGPUs, the toolkit's
		// NVIDIA_VISIBLE_DEVICES): one "UUID" with a comma would be two
		// GPUs there, one of them unchecked.
		if strings.ContainsFunc(u, func(r rune) bool { return r == ',' || unicode.IsSpace(r) || unicode.IsControl(r) }) {
			return invalid("gpuUuids", "GPU UUID %q has a comma, space or control character", u)
		}
		seen[u] = true
	}
	for _, e := range s.Env {
		if !envPattern.MatchString(e) {
			return invalid("env", "want KEY=value; got %q", e)
		}
	}
	return nil
}

func invalid(field, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrInvalidSpec, field, fmt.Sprintf(format, args...))
}

// State is where a job is in its life.
type State string

// The states a job reports.
const (
	// StateCreated: prepared but not started yet.
	StateCreated State = "created"
	// StateRunning: running.
	StateRunning State = "running"
	// StateExited: finished by itself, failed, or was killed; ExitCode says
	// which where known.
	StateExited State = "exited"
	// StateUnknown: the runtime reports a state this package does not model
	// (paused, restarting, dead, …).
	StateUnknown State = "unknown"
)

// Job is what a runtime knows about one job.
type Job struct {
	// ID is the spec's id.
	ID string `json:"id"`
	// State is the job's current state.
	State State `json:"state"`
	// GPUUUIDs are the GPUs the job holds.
	GPUUUIDs []string `json:"gpuUuids"`
	// RuntimeID is the container id (docker) or process id (process).
	RuntimeID string `json:"runtimeId,omitempty"`
	// StartedAt and FinishedAt are zero until they happen (or where the
	// runtime does not report them, as docker's List does not).
	StartedAt  time.Time `json:"startedAt,omitzero"`
	FinishedAt time.Time `json:"finishedAt,omitzero"`
	// ExitCode is set once the job has exited and the runtime knows the
	// code.
	ExitCode *int `json:"exitCode,omitempty"`
	// Deadline is when the job must be stopped (zero: no timeout). The
	// process runtime enforces it itself; for docker jobs the agent's loop
	// stops jobs past it.
	Deadline time.Time `json:"deadline,omitzero"`
	// Reason explains an exit the job did not choose, e.g. "timeout",
	// "oom-killed", "stopped".
	Reason string `json:"reason,omitempty"`
}
