package watch_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/validator"

	"github.com/gpunex/gpunex/agent/client"
	"github.com/gpunex/gpunex/agent/gpu"
	"github.com/gpunex/gpunex/agent/job"
	"github.com/gpunex/gpunex/agent/job/process"
	"github.com/gpunex/gpunex/agent/job/watch"
	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/await"
)

const machineID = "machine-under-test"

// schema is the server's GraphQL schema: every report must fit it.
var schema = sync.OnceValues(func() (*ast.Schema, error) {
	files, err := filepath.Glob("../../../schema/*.graphqls")
	if err != nil {
		return nil, err
	}
	var sources []*ast.Source
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		sources = append(sources, &ast.Source{Name: f, Input: string(b)})
	}
	return gqlparser.LoadSchema(sources...)
})

// reportServer is a GraphQL endpoint on loopback that takes only
// ReportJobStatusMutation, checks it against the schema, decodes its input
// strictly, records it and answers as the test's answer func says.
type reportServer struct {
	t   *testing.T
	srv *httptest.Server

	mu      sync.Mutex
	reports []protocol.ReportJobStatusInput
	answer  func(in protocol.ReportJobStatusInput) protocol.ReportJobStatusAnswer
}

func (s *reportServer) serve(w http.ResponseWriter, r *http.Request) {
	var body struct {
		OperationName string         `json:"operationName"`
		Query         string         `json:"query"`
		Variables     map[string]any `json:"variables"`
	}
	raw, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(raw, &body); err != nil {
		s.t.Errorf("report server: body is not JSON: %v", err)
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	if body.OperationName != protocol.ReportJobStatusOperation || body.Query != protocol.ReportJobStatusMutation {
		s.t.Errorf("report server: operation %q, query %q; want the job report", body.OperationName, body.Query)
		http.Error(w, "unexpected operation", http.StatusBadRequest)
		return
	}
	sch, err := schema()
	require.NoError(s.t, err)
	doc, errs := gqlparser.LoadQueryWithRules(sch, body.Query, nil)
	require.Empty(s.t, errs)
	if _, err := validator.VariableValues(sch, doc.Operations.ForName(body.OperationName), body.Variables); err != nil {
		s.t.Errorf("report server: variables do not fit the schema: %v", err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var vars struct {
		Variables struct {
			Input json.RawMessage `json:"input"`
		} `json:"variables"`
	}
	require.NoError(s.t, json.Unmarshal(raw, &vars))
	var in protocol.ReportJobStatusInput
	dec := json.NewDecoder(bytes.NewReader(vars.Variables.Input))
	dec.DisallowUnknownFields()
	require.NoError(s.t, dec.Decode(&in))
	require.Equal(s.t, "Bearer agent-token", r.Header.Get("Authorization"))

	s.mu.Lock()
	s.reports = append(s.reports, in)
	answer := s.answer
	s.mu.Unlock()
	a := protocol.ReportJobStatusAnswer{Accepted: true, UserErrors: []protocol.UserError{}}
	if answer != nil {
		a = answer(in)
		if a.UserErrors == nil {
			a.UserErrors = []protocol.UserError{}
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{"reportJobStatus": a}})
}

// of returns the reports of one job so far.
func (s *reportServer) of(id string) []protocol.ReportJobStatusInput {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []protocol.ReportJobStatusInput
	for _, r := range s.reports {
		if r.JobID == id {
			out = append(out, r)
		}
	}
	return out
}

// bundle is a watcher over a process runtime on two simulated H100s,
// reporting through the real client to a reportServer.
type bundle struct {
	server  *reportServer
	runtime *process.Runtime
	sim     *gpu.Simulator
	watcher *watch.Watcher
	gpus    []string
}

func setup(t *testing.T) bundle {
	t.Helper()
	spec, err := gpu.ParseSimSpec("2xH100")
	require.NoError(t, err)
	sim := gpu.NewSimulator(spec, gpu.WithSeed("watch-test"))
	devices, err := sim.Inventory(context.Background())
	require.NoError(t, err)

	s := &reportServer{t: t}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	c, err := client.New(client.Options{Server: s.srv.URL, Token: "agent-token", MachineID: machineID, Detector: sim, DataDir: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })

	rt := process.New(sim, process.Options{StopGrace: 2 * time.Second, Dir: t.TempDir()})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), await.Patience(t))
		defer cancel()
		require.NoError(t, rt.Close(ctx))
	})
	w := newWatcher(rt, c)
	t.Cleanup(w.Close)
	return bundle{server: s, runtime: rt, sim: sim, watcher: w, gpus: []string{devices[0].UUID, devices[1].UUID}}
}

func newWatcher(rt job.Runtime, r watch.Reporter) *watch.Watcher {
	return watch.New(rt, r, watch.Options{MachineID: machineID, Poll: 20 * time.Millisecond,
		LogEvery: 100 * time.Millisecond, FinalRetry: 50 * time.Millisecond})
}

func (b bundle) spec(id string, command ...string) job.Spec {
	return job.Spec{ID: id, Command: command, GPUUUIDs: b.gpus[:1], MemoryBytes: 1 << 30, PidsLimit: 64}
}

// finished waits for the watcher to be done with id and returns its
// reports.
func (b bundle) finished(t *testing.T, id string) []protocol.ReportJobStatusInput {
	t.Helper()
	select {
	case <-b.watcher.Done(id):
	case <-await.Timeout(t):
		t.Fatalf("job %s: no final report after 20 s; reports so far: %+v", id, b.server.of(id))
	}
	return b.server.of(id)
}

// states is the sequence of states reported, repeats of RUNNING merged.
func states(reports []protocol.ReportJobStatusInput) []protocol.JobState {
	var out []protocol.JobState
	for _, r := range reports {
		if len(out) > 0 && out[len(out)-1] == r.State {
			continue
		}
		out = append(out, r.State)
	}
	return out
}

func requireReportBasics(t *testing.T, reports []protocol.ReportJobStatusInput) {
	t.Helper()
	for _, r := range reports {
		require.Equal(t, machineID, r.MachineID)
		require.False(t, r.At.IsZero(), "every report says when")
		require.NotNil(t, r.LogTail, "every report carries the log tail")
		require.LessOrEqual(t, len(*r.LogTail), protocol.MaxLogTailBytes)
		require.True(t, utf8.ValidString(*r.LogTail))
	}
}

func TestWatchSuccessReportsStartingRunningCompletedWithTheOutput(t *testing.T) {
	t.Parallel()
	b := setup(t)
	require.NoError(t, b.watcher.Start(b.spec("rental-ok", "sh", "-c", "echo line1; sleep 0.5; echo line2")))

	reports := b.finished(t, "rental-ok")
	requireReportBasics(t, reports)
	require.Equal(t, []protocol.JobState{protocol.JobStarting, protocol.JobRunning, protocol.JobCompleted}, states(reports))
	last := reports[len(reports)-1]
	require.Nil(t, last.Cause)
	require.Equal(t, 0, *last.ExitCode)
	require.Equal(t, "line1\nline2\n", *last.LogTail)
	require.Contains(t, *reports[1].LogTail+*reports[len(reports)-2].LogTail, "line1", "a RUNNING report carried the output so far")

	require.False(t, b.sim.Busy(b.gpus[0]), "the GPU is free again")
	jobs, err := b.runtime.List(context.Background())
	require.NoError(t, err)
	require.Empty(t, jobs, "a finished job is removed once reported")
}

func TestWatchNonZeroExitIsTheCustomersFailure(t *testing.T) {
	t.Parallel()
	b := setup(t)
	require.NoError(t, b.watcher.Start(b.spec("rental-bad", "sh", "-c", "echo oops >&2; sleep 0.1; exit 3")))

	reports := b.finished(t, "rental-bad")
	requireReportBasics(t, reports)
	require.Equal(t, []protocol.JobState{protocol.JobStarting, protocol.JobRunning, protocol.JobFailed}, states(reports))
	last := reports[len(reports)-1]
	require.Equal(t, protocol.CauseCustomer, *last.Cause)
	require.Equal(t, 3, *last.ExitCode)
	require.Contains(t, *last.Message, "exited with code 3")
	require.Equal(t, "oops\n", *last.LogTail)
}

// A SIGKILL nobody asked for is, on a job host, the OOM killer: the engine
// can lose its flag (Docker on a busy host), so the watcher reads the job a
// second time and, still without a reason, says what most likely happened.
func TestWatchUnaskedSIGKILLIsReportedAsMostLikelyOutOfMemory(t *testing.T) {
	t.Parallel()
	b := setup(t)
	require.NoError(t, b.watcher.Start(b.spec("rental-killed", "sh", "-c", "echo eating; kill -9 $$")))

	reports := b.finished(t, "rental-killed")
	requireReportBasics(t, reports)
	last := reports[len(reports)-1]
	require.Equal(t, protocol.JobFailed, last.State)
	require.Equal(t, protocol.CauseCustomer, *last.Cause)
	require.Equal(t, 137, *last.ExitCode)
	require.Contains(t, *last.Message, "SIGKILL")
	require.Contains(t, *last.Message, "memory limit")
}

func TestWatchBusyGPUIsTheProvidersFailureAndAStopCompletesTheHolder(t *testing.T) {
	t.Parallel()
	b := setup(t)
	require.NoError(t, b.watcher.Start(b.spec("rental-holder", "sleep", "30")))
	await.True(t, func() bool { return len(states(b.server.of("rental-holder"))) == 2 })

	require.NoError(t, b.watcher.Start(b.spec("rental-late", "sleep", "30")))
	late := b.finished(t, "rental-late")
	requireReportBasics(t, late)
	require.Equal(t, []protocol.JobState{protocol.JobStarting, protocol.JobFailed}, states(late))
	last := late[len(late)-1]
	require.Equal(t, protocol.CauseProvider, *last.Cause)
	require.Contains(t, *last.Message, "held by job rental-holder")
	require.Nil(t, last.ExitCode)
	require.True(t, b.sim.Busy(b.gpus[0]), "the holder still runs")

	// STOP_JOB: the holder ends on SIGTERM (143) and reports COMPLETED.
	require.NoError(t, b.watcher.Stop(context.Background(), "rental-holder"))
	holder := b.finished(t, "rental-holder")
	requireReportBasics(t, holder)
	require.Equal(t, []protocol.JobState{protocol.JobStarting, protocol.JobRunning, protocol.JobCompleted}, states(holder))
	require.Equal(t, 143, *holder[len(holder)-1].ExitCode)
	require.Nil(t, holder[len(holder)-1].Cause)
	require.False(t, b.sim.Busy(b.gpus[0]))
}

func TestWatchStopAnswerEndsTheJob(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.server.answer = func(in protocol.ReportJobStatusInput) protocol.ReportJobStatusAnswer {
		// The rental ended once the job had said something.
		return protocol.ReportJobStatusAnswer{Accepted: true, Stop: in.State == protocol.JobRunning && strings.Contains(*in.LogTail, "started")}
	}
	require.NoError(t, b.watcher.Start(b.spec("rental-unwanted", "sh", "-c", "echo started; exec sleep 30")))

	reports := b.finished(t, "rental-unwanted")
	requireReportBasics(t, reports)
	require.Equal(t, []protocol.JobState{protocol.JobStarting, protocol.JobRunning, protocol.JobCompleted}, states(reports))
	last := reports[len(reports)-1]
	require.Equal(t, 143, *last.ExitCode, "ended by SIGTERM")
	require.Equal(t, "started\n", *last.LogTail)
	require.False(t, b.sim.Busy(b.gpus[0]))
}

func TestWatchInvalidCommandIsTheCustomersFailure(t *testing.T) {
	t.Parallel()
	b := setup(t)
	require.NoError(t, b.watcher.Start(b.spec("rental-typo", "no-such-program-here")))
	reports := b.finished(t, "rental-typo")
	requireReportBasics(t, reports)
	require.Equal(t, []protocol.JobState{protocol.JobStarting, protocol.JobFailed}, states(reports))
	require.Equal(t, protocol.CauseCustomer, *reports[len(reports)-1].Cause)
	require.Contains(t, *reports[len(reports)-1].Message, "no-such-program-here")
}

func TestWatchSendsNewerLogTailsWhileRunningBoundedToTheLimit(t *testing.T) {
	t.Parallel()
	b := setup(t)
	// 40 lines of 1 KiB with a multi-byte character, 20 ms apart: more
	// than the 16 KiB a report carries.
	script := `i=0; while [ $i -lt 40 ]; do i=$((i+1)); printf 'line %02d é%01000d\n' $i 0; sleep 0.02; done`
	require.NoError(t, b.watcher.Start(b.spec("rental-chatty", "sh", "-c", script)))

	reports := b.finished(t, "rental-chatty")
	requireReportBasics(t, reports)
	var running []string
	for _, r := range reports {
		if r.State == protocol.JobRunning {
			running = append(running, *r.LogTail)
		}
	}
	require.GreaterOrEqual(t, len(running), 2, "the tail is sent again as it grows")
	for i := 1; i < len(running); i++ {
		require.NotEqual(t, running[i-1], running[i], "a RUNNING report is repeated only for a newer tail")
	}
	last := *reports[len(reports)-1].LogTail
	require.GreaterOrEqual(t, len(last), protocol.MaxLogTailBytes-1, "the last 16 KiB, less a character cut in two")
	require.True(t, strings.HasSuffix(last, "0\n"))
	require.Contains(t, last, "line 40 é")
	require.NotContains(t, last, "line 01 ", "the start is cut off")
}

func TestWatchTimeoutEndsTheJobAsCompleted(t *testing.T) {
	t.Parallel()
	b := setup(t)
	spec := b.spec("rental-timed", "sleep", "30")
	spec.Timeout = 300 * time.Millisecond
	require.NoError(t, b.watcher.Start(spec))
	reports := b.finished(t, "rental-timed")
	require.Equal(t, []protocol.JobState{protocol.JobStarting, protocol.JobRunning, protocol.JobCompleted}, states(reports))
	require.Equal(t, 143, *reports[len(reports)-1].ExitCode)
}

func TestWatchResumeReportsJobsAnEarlierAgentStarted(t *testing.T) {
	t.Parallel()
	b := setup(t)
	// A job the runtime has but no watcher follows: as after a restart.
	_, err := b.runtime.Start(context.Background(), b.spec("rental-old", "sh", "-c", "echo before the restart; exec sleep 30"))
	require.NoError(t, err)
	b.watcher.Close()

	c, err := client.New(client.Options{Server: b.server.srv.URL, Token: "agent-token", MachineID: machineID, Detector: b.sim, DataDir: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	w := newWatcher(b.runtime, c)
	t.Cleanup(w.Close)
	n, err := w.Resume(context.Background())
	require.NoError(t, err)
	require.Equal(t, 1, n)
	await.True(t, func() bool {
		r := b.server.of("rental-old")
		return len(r) > 0 && r[len(r)-1].State == protocol.JobRunning && *r[len(r)-1].LogTail == "before the restart\n"
	})

	require.NoError(t, w.Stop(context.Background(), "rental-old"))
	<-w.Done("rental-old")
	reports := b.server.of("rental-old")
	require.Equal(t, []protocol.JobState{protocol.JobRunning, protocol.JobCompleted}, states(reports))
	jobs, err := b.runtime.List(context.Background())
	require.NoError(t, err)
	require.Empty(t, jobs)
}
