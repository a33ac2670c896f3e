package process_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/gpu"
	"github.com/gpunex/gpunex/agent/job"
	"github.com/gpunex/gpunex/agent/job/process"
	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/clock"
)

var testNow = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

// bundle is a process runtime over a real simulator with two H100s.
type bundle struct {
	runtime *process.Runtime
	sim     *gpu.Simulator
	clock   *clock.Manual
	gpus    []string
	dir     string
}

func setup(t *testing.T) bundle {
	t.Helper()
	spec, err := gpu.ParseSimSpec("2xH100")
	require.NoError(t, err)
	clk := clock.NewManual(testNow)
	sim := gpu.NewSimulator(spec, gpu.WithSeed("process-test"), gpu.WithClock(clk))
	devices, err := sim.Inventory(context.Background())
	require.NoError(t, err)
	dir := t.TempDir()
	rt := process.New(sim, process.Options{Clock: clk, StopGrace: 300 * time.Millisecond, Dir: dir})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), await.Patience(t))
		defer cancel()
		require.NoError(t, rt.Close(ctx))
	})
	return bundle{runtime: rt, sim: sim, clock: clk, gpus: []string{devices[0].UUID, devices[1].UUID}, dir: dir}
}

// spec is a job on the first simulated GPU running command.
func (b bundle) spec(id string, command ...string) job.Spec {
	return job.Spec{ID: id, Command: command, GPUUUIDs: b.gpus[:1], MemoryBytes: 1 << 30, PidsLimit: 64}
}

// waitExited polls until the job has exited.
func (b bundle) waitExited(t *testing.T, id string) job.Job {
	t.Helper()
	var j job.Job
	await.True(t, func() bool {
		var err error
		j, err = b.runtime.Inspect(context.Background(), id)
		require.NoError(t, err)
		return j.State == job.StateExited
	})
	return j
}

// environ is the environment the job's process was given at exec: what
// /usr/bin/env would print as the job's first process, without a shell
// adding variables of its own. It returns the raw text and the variables
// by name, failing on a name given twice.
func environ(t *testing.T, j job.Job) (string, map[string]string) {
	t.Helper()
	path := "/proc/" + j.RuntimeID + "/environ"
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no /proc/<pid>/environ on this system: %v", err)
	}
	// Start returns once the exec has begun; the kernel shows the new
	// program's environment a moment later.
	var raw []byte
	await.True(t, func() bool {
		var err error
		raw, err = os.ReadFile(path)
		return err == nil && len(raw) > 0
	})
	env := map[string]string{}
	for e := range strings.SplitSeq(strings.TrimSuffix(string(raw), "\x00"), "\x00") {
		k, v, _ := strings.Cut(e, "=")
		require.NotContains(t, env, k, "%s given twice", k)
		env[k] = v
	}
	return string(raw), env
}

// jobDir is the directory the runtime made for job id.
func jobDir(t *testing.T, b bundle, id string) string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(b.dir, "job-"+id+"-*"))
	require.NoError(t, err)
	require.Len(t, dirs, 1)
	return dirs[0]
}

// alive reports whether pid is a live process; a zombie (killed, not yet
// reaped by init) counts as dead.
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil // no /proc: best effort
	}
	_, rest, _ := strings.Cut(string(stat), ") ")
	return !strings.HasPrefix(rest, "Z")
}

func TestProcessRunsAJobAndTheSimulatedLoadFollowsIt(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()

	j, err := b.runtime.Start(ctx, b.spec("rental-1", "sleep", "30"))
	require.NoError(t, err)
	require.Equal(t, job.StateRunning, j.State)
	require.Equal(t, testNow, j.StartedAt)
	pid, err := strconv.Atoi(j.RuntimeID)
	require.NoError(t, err)
	require.True(t, alive(pid))
	require.True(t, b.sim.Busy(b.gpus[0]), "the job's GPU is busy")
	require.False(t, b.sim.Busy(b.gpus[1]), "the other one is not")

	_, err = b.sim.Telemetry(ctx)
	require.NoError(t, err)
	b.clock.Advance(time.Minute)
	samples, err := b.sim.Telemetry(ctx)
	require.NoError(t, err)
	require.GreaterOrEqual(t, *samples[0].UtilizationPct, 90, "load follows the job")
	require.LessOrEqual(t, *samples[1].UtilizationPct, 5)

	listed, err := b.runtime.List(ctx)
	require.NoError(t, err)
	require.Equal(t, []job.Job{j}, listed)

	require.NoError(t, b.runtime.Stop(ctx, "rental-1"))
	require.False(t, alive(pid), "stop ends the process")
	require.False(t, b.sim.Busy(b.gpus[0]), "and frees its GPU")
	_, err = b.runtime.Inspect(ctx, "rental-1")
	require.ErrorIs(t, err, job.ErrNotFound)
	require.NoError(t, b.runtime.Stop(ctx, "rental-1"), "a repeated stop command is harmless")
}

func TestProcessJobThatExitsReportsItsCodeAndFreesItsGPUs(t *testing.T) {
	t.Parallel()
	b := setup(t)
	spec := b.spec("rental-2", "sh", "-c", "exit 3")
	spec.GPUUUIDs = b.gpus

	_, err := b.runtime.Start(context.Background(), spec)
	require.NoError(t, err)
	j := b.waitExited(t, "rental-2")
	require.Equal(t, 3, *j.ExitCode)
	require.Empty(t, j.Reason, "it ended by itself")
	require.False(t, b.sim.Busy(b.gpus[0]))
	require.False(t, b.sim.Busy(b.gpus[1]))

	// A finished job holds no GPU: the next rental can start on them.
	_, err = b.runtime.Start(context.Background(), b.spec("rental-3", "true"))
	require.NoError(t, err)
}

func TestProcessJobGetsItsGPUsAndEnvironment(t *testing.T) {
	// Not parallel: it sets the agent's own environment.
	b := setup(t)
	out := filepath.Join(b.dir, "env.txt")
	spec := b.spec("rental-4", "sh", "-c", `printf '%s|%s|%s|%s' "$CUDA_VISIBLE_DEVICES" "$GPUNEX_JOB_ID" "$EPOCHS" "$GPUNEX_TOKEN" > "$OUT"`)
	spec.GPUUUIDs = b.gpus
	spec.Env = []string{"EPOCHS=3", "OUT=" + out}
	t.Setenv("GPUNEX_TOKEN", "secret-agent-token") // the agent's own environment must not leak

	_, err := b.runtime.Start(context.Background(), spec)
	require.NoError(t, err)
	require.Equal(t, 0, *b.waitExited(t, "rental-4").ExitCode)
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, strings.Join(b.gpus, ",")+"|rental-4|3|", string(got))
}

func TestProcessJobSeesOnlyItsOwnEnvironmentNotTheAgents(t *testing.T) {
	// Not parallel: it sets the agent's own environment.
	const token = "gpx_a_SECRETSECRETSECRETSECRETSECRETSECRETSEC"
	t.Setenv("GPUNEX_TOKEN", token)
	t.Setenv("GPUNEX_SERVER", "https://gpunex.example.com")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "the-providers-own-secret")
	t.Setenv("PATH", "/opt/agent-private/bin:"+os.Getenv("PATH"))
	b := setup(t)
	spec := b.spec("rental-4", "sleep", "30")
	spec.GPUUUIDs = b.gpus
	spec.Env = []string{"EPOCHS=3", "HF_HOME=/data/hf", "CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7"}

	j, err := b.runtime.Start(context.Background(), spec)
	require.NoError(t, err)
	raw, env := environ(t, j)
	for _, agentOnly := range []string{token, "GPUNEX_SERVER", "the-providers-own-secret", "/opt/agent-private"} {
		require.NotContains(t, raw, agentOnly)
	}
	home := env["HOME"]
	require.Equal(t, b.dir, filepath.Dir(home), "a directory of its own under the runtime's")
	gpus := strings.Join(b.gpus, ",")
	require.Equal(t, map[string]string{
		"PATH":                   process.DefaultPath,
		"HOME":                   home,
		"TMPDIR":                 filepath.Join(home, "tmp"),
		"EPOCHS":                 "3",
		"HF_HOME":                "/data/hf",
		"GPUNEX_JOB_ID":          "rental-4",
		"CUDA_VISIBLE_DEVICES":   gpus, // its own GPUs, whatever its spec claims
		"NVIDIA_VISIBLE_DEVICES": gpus,
	}, env, "its own variables and nothing of the agent's")
}

func TestProcessJobHasADirectoryOfItsOwnRemovedWhenStopped(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	// A job that leaves files behind, some of them in a directory it made
	// unreadable; "ready" is written to its working directory.
	_, err := b.runtime.Start(ctx, b.spec("rental-15", "sh", "-c",
		`echo x > "$TMPDIR/scratch" && mkdir -p "$HOME/locked/inner" && touch "$HOME/locked/inner/f" && chmod 000 "$HOME/locked" && touch ready && exec sleep 30`))
	require.NoError(t, err)
	second := b.spec("rental-16", "sh", "-c", `echo x > "$HOME/out"`)
	second.GPUUUIDs = b.gpus[1:]
	_, err = b.runtime.Start(ctx, second)
	require.NoError(t, err)

	first, other := jobDir(t, b, "rental-15"), jobDir(t, b, "rental-16")
	require.NotEqual(t, first, other)
	for _, dir := range []string{first, other} {
		st, err := os.Stat(dir)
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o700), st.Mode().Perm(), "only the agent's user may enter it")
	}
	await.True(t, func() bool {
		_, err := os.Stat(filepath.Join(first, "ready"))
		return err == nil
	}, "the job runs in its directory")
	require.FileExists(t, filepath.Join(first, "tmp", "scratch"), "TMPDIR is in it")

	b.waitExited(t, "rental-16")
	require.FileExists(t, filepath.Join(other, "out"), "a job that exited keeps its directory until it is stopped")

	require.NoError(t, b.runtime.Stop(ctx, "rental-15"))
	require.NoDirExists(t, first, "stopping a job removes its directory, unreadable parts too")
	require.DirExists(t, other, "and no other job's")
	require.NoError(t, b.runtime.Stop(ctx, "rental-16"))
	require.NoDirExists(t, other)
	entries, err := os.ReadDir(b.dir)
	require.NoError(t, err)
	require.Empty(t, entries)
}

func TestProcessLooksTheCommandUpInTheJobsPathNotTheAgents(t *testing.T) {
	// Not parallel: it sets the agent's own PATH.
	private := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(private, "agent-tool"), []byte("#!/bin/sh\nexit 0\n"), 0o755))
	t.Setenv("PATH", private+":"+os.Getenv("PATH"))
	b := setup(t)
	ctx := context.Background()

	_, err := b.runtime.Start(ctx, b.spec("rental-17", "agent-tool"))
	require.EqualError(t, err, `process: start rental-17: job: invalid spec: command: no executable "agent-tool" in the job's PATH (`+process.DefaultPath+`)`)
	require.ErrorIs(t, err, job.ErrInvalidSpec, "the customer's command")
	require.False(t, b.sim.Busy(b.gpus[0]), "a job that cannot start frees its GPU")
	entries, err := os.ReadDir(b.dir)
	require.NoError(t, err)
	require.Empty(t, entries, "and leaves no directory")

	spec := b.spec("rental-18", "agent-tool")
	spec.Env = []string{"PATH=" + private}
	_, err = b.runtime.Start(ctx, spec)
	require.NoError(t, err, "a PATH of the job's own is searched")
	require.Equal(t, 0, *b.waitExited(t, "rental-18").ExitCode)
}

func TestProcessTimeoutEndsTheJob(t *testing.T) {
	t.Parallel()
	b := setup(t)
	spec := b.spec("rental-5", "sleep", "30")
	spec.Timeout = 200 * time.Millisecond

	j, err := b.runtime.Start(context.Background(), spec)
	require.NoError(t, err)
	require.Equal(t, testNow.Add(200*time.Millisecond), j.Deadline)
	j = b.waitExited(t, "rental-5")
	require.Equal(t, "timeout", j.Reason)
	require.Equal(t, 128+int(syscall.SIGTERM), *j.ExitCode)
	require.False(t, b.sim.Busy(b.gpus[0]))
}

func TestProcessStopKillsTheWholeJobEvenIfItIgnoresSIGTERM(t *testing.T) {
	t.Parallel()
	b := setup(t)
	pidFile := filepath.Join(b.dir, "child.pid")
	// The shell and its background child both ignore SIGTERM.
	spec := b.spec("rental-6", "sh", "-c", `trap "" TERM; sleep 30 & echo $! > "$PIDFILE"; wait`)
	spec.Env = []string{"PIDFILE=" + pidFile}
	_, err := b.runtime.Start(context.Background(), spec)
	require.NoError(t, err)
	var child int
	await.True(t, func() bool {
		data, err := os.ReadFile(pidFile)
		if err != nil || !strings.HasSuffix(string(data), "\n") {
			return false
		}
		child, err = strconv.Atoi(strings.TrimSpace(string(data)))
		return err == nil
	})

	started := time.Now()
	require.NoError(t, b.runtime.Stop(context.Background(), "rental-6"))
	require.GreaterOrEqual(t, time.Since(started), 300*time.Millisecond, "SIGKILL comes after the grace period")
	await.True(t, func() bool { return !alive(child) },
		"the job's background child is killed with it")
	require.False(t, b.sim.Busy(b.gpus[0]))
}

func TestProcessRefusesWhatItCannotRun(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	_, err := b.runtime.Start(ctx, b.spec("rental-7", "sleep", "30"))
	require.NoError(t, err)

	tests := []struct {
		desc string
		spec job.Spec
		is   error
		msg  string
	}{
		{"same id twice", b.spec("rental-7", "true"), job.ErrExists, "rental-7"},
		{"a GPU another job holds", b.spec("rental-8", "true"), job.ErrGPUInUse, "held by job rental-7"},
		{"no command", b.spec("rental-9"), job.ErrInvalidSpec, "command:"},
		{"a GPU the machine does not have", job.Spec{ID: "rental-10", Command: []string{"true"},
			GPUUUIDs: []string{"GPU-nope"}, MemoryBytes: 1, PidsLimit: 1}, job.ErrInvalidSpec, `no simulated GPU "GPU-nope"`},
		{"no memory limit", job.Spec{ID: "rental-11", Command: []string{"true"}, GPUUUIDs: b.gpus[1:], PidsLimit: 1},
			job.ErrInvalidSpec, "memoryBytes:"},
	}
	for _, tc := range tests {
		_, err := b.runtime.Start(ctx, tc.spec)
		require.ErrorIs(t, err, tc.is, tc.desc)
		require.ErrorContains(t, err, tc.msg, tc.desc)
	}
	jobs, err := b.runtime.List(ctx)
	require.NoError(t, err)
	require.Len(t, jobs, 1, "nothing was started")
	require.False(t, b.sim.Busy(b.gpus[1]), "a refused job holds no GPU")

	_, err = b.runtime.Start(ctx, job.Spec{ID: "rental-12", Command: []string{"/nonexistent/binary"},
		GPUUUIDs: b.gpus[1:], MemoryBytes: 1, PidsLimit: 1})
	require.ErrorContains(t, err, "/nonexistent/binary")
	require.False(t, b.sim.Busy(b.gpus[1]), "a job that cannot start frees its GPU")
}

func TestProcessCloseStopsEveryJob(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	first, err := b.runtime.Start(ctx, b.spec("rental-13", "sleep", "30"))
	require.NoError(t, err)
	spec := b.spec("rental-14", "sleep", "30")
	spec.GPUUUIDs = b.gpus[1:]
	second, err := b.runtime.Start(ctx, spec)
	require.NoError(t, err)

	require.NoError(t, b.runtime.Close(ctx))
	for _, j := range []job.Job{first, second} {
		pid, _ := strconv.Atoi(j.RuntimeID)
		require.False(t, alive(pid))
	}
	jobs, err := b.runtime.List(ctx)
	require.NoError(t, err)
	require.Empty(t, jobs)
}

func TestProcessHaltKeepsTheEndedJobAndItsOutputUntilStop(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	_, err := b.runtime.Start(ctx, b.spec("rental-halt", "sh", "-c", "echo out; echo err >&2; exec sleep 30"))
	require.NoError(t, err)
	await.True(t, func() bool {
		logs, err := b.runtime.Logs(ctx, "rental-halt", 1024)
		return err == nil && logs == "out\nerr\n"
	}, "stdout and stderr go to one output")

	j, err := b.runtime.Halt(ctx, "rental-halt")
	require.NoError(t, err)
	require.Equal(t, job.StateExited, j.State)
	require.Equal(t, 143, *j.ExitCode, "ended by SIGTERM")
	require.Equal(t, "stopped", j.Reason)
	require.False(t, b.sim.Busy(b.gpus[0]))
	logs, err := b.runtime.Logs(ctx, "rental-halt", 4)
	require.NoError(t, err)
	require.Equal(t, "err\n", logs, "the output outlives the process, bounded to what was asked")

	require.NoError(t, b.runtime.Stop(ctx, "rental-halt"))
	_, err = b.runtime.Logs(ctx, "rental-halt", 1024)
	require.ErrorIs(t, err, job.ErrNotFound)
	_, err = b.runtime.Halt(ctx, "rental-halt")
	require.ErrorIs(t, err, job.ErrNotFound)
}
