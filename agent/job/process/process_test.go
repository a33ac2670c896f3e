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
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
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
	require.Eventually(t, func() bool {
		var err error
		j, err = b.runtime.Inspect(context.Background(), id)
		require.NoError(t, err)
		return j.State == job.StateExited
	}, 10*time.Second, 10*time.Millisecond)
	return j
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
	require.Eventually(t, func() bool {
		data, err := os.ReadFile(pidFile)
		if err != nil || !strings.HasSuffix(string(data), "\n") {
			return false
		}
		child, err = strconv.Atoi(strings.TrimSpace(string(data)))
		return err == nil
	}, 10*time.Second, 10*time.Millisecond)

	started := time.Now()
	require.NoError(t, b.runtime.Stop(context.Background(), "rental-6"))
	require.GreaterOrEqual(t, time.Since(started), 300*time.Millisecond, "SIGKILL comes after the grace period")
	require.Eventually(t, func() bool { return !alive(child) }, 5*time.Second, 10*time.Millisecond,
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
