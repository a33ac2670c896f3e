package client_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/validator"

	"github.com/gpunex/gpunex/agent/client"
	"github.com/gpunex/gpunex/agent/gpu"
	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/clock"
)

// t0 is when every test's manual clock starts.
var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

// schema is the server's real GraphQL schema, loaded from schema/: the
// fake server validates every request against it, so these tests break
// when the client and the contract drift apart.
var schema = sync.OnceValues(func() (*ast.Schema, error) {
	files, err := filepath.Glob("../../schema/*.graphqls")
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

// request is one GraphQL request the fake server received.
type request struct {
	Operation string
	Query     string
	Header    http.Header
	// ClockAt is the manual clock's time when the request arrived.
	ClockAt time.Time
	// Input is variables.input as sent.
	Input json.RawMessage
	// Status is the HTTP status the server answered.
	Status int
	// N counts requests of the same operation, from 1.
	N int
}

// heartbeat decodes the request's input strictly into the protocol type.
func (r request) heartbeat(t *testing.T) protocol.HeartbeatInput {
	t.Helper()
	var in protocol.HeartbeatInput
	dec := json.NewDecoder(bytes.NewReader(r.Input))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&in))
	return in
}

func (r request) at(t *testing.T) time.Time {
	t.Helper()
	at := r.heartbeat(t).At
	require.NotNil(t, at, "every heartbeat says when it was sampled")
	return *at
}

func (r request) goingOffline(t *testing.T) bool {
	in := r.heartbeat(t)
	return in.GoingOffline != nil && *in.GoingOffline
}

// reply is what a test's hook answers instead of the default.
type reply struct {
	Status int
	Header map[string]string
	// Body is encoded as JSON unless it is a string.
	Body any
	// Block holds the request until it is cancelled.
	Block bool
}

// fakeServer is a GraphQL endpoint on loopback that validates each request
// against the real schema, records it, and answers like the server would
// (or as the test's hook says).
type fakeServer struct {
	t     *testing.T
	srv   *httptest.Server
	clock *clock.Manual

	mu       sync.Mutex
	requests []request
	counts   map[string]int
	hook     func(r request) *reply
	interval int
}

func newFakeServer(t *testing.T, clk *clock.Manual) *fakeServer {
	s := &fakeServer{t: t, clock: clk, counts: map[string]int{}, interval: 10}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

// setHook replaces how the server answers; a nil reply means the default.
func (s *fakeServer) setHook(h func(r request) *reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hook = h
}

func (s *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/graphql" {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	var body struct {
		OperationName string         `json:"operationName"`
		Query         string         `json:"query"`
		Variables     map[string]any `json:"variables"`
	}
	raw, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(raw, &body); err != nil {
		s.t.Errorf("fake server: body is not JSON: %v", err)
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	if err := validate(body.Query, body.OperationName, body.Variables); err != nil {
		s.t.Errorf("fake server: request does not fit the schema: %v", err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var vars struct {
		Variables struct {
			Input json.RawMessage `json:"input"`
		} `json:"variables"`
	}
	if err := json.Unmarshal(raw, &vars); err != nil {
		s.t.Errorf("fake server: variables: %v", err)
	}

	s.mu.Lock()
	s.counts[body.OperationName]++
	req := request{Operation: body.OperationName, Query: body.Query, Header: r.Header.Clone(), ClockAt: s.clock.Now(),
		Input: vars.Variables.Input, N: s.counts[body.OperationName]}
	hook := s.hook
	s.mu.Unlock()

	var rep *reply
	if hook != nil {
		rep = hook(req)
	}
	if rep == nil {
		rep = s.defaultReply(req)
	}
	if rep.Block {
		<-r.Context().Done()
		rep = &reply{Status: http.StatusServiceUnavailable, Body: "gone"}
	}
	if rep.Status == 0 {
		rep.Status = http.StatusOK
	}
	req.Status = rep.Status
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.mu.Unlock()

	for k, v := range rep.Header {
		w.Header().Set(k, v)
	}
	if text, ok := rep.Body.(string); ok {
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "text/plain")
		}
		w.WriteHeader(rep.Status)
		_, _ = io.WriteString(w, text)
		return
	}
	w.Header().Set("Content-Type", "application/graphql-response+json")
	w.WriteHeader(rep.Status)
	_ = json.NewEncoder(w).Encode(rep.Body)
}

func (s *fakeServer) defaultReply(r request) *reply {
	switch r.Operation {
	case "RegisterMachine":
		return registered(s.interval)
	default:
		return heartbeatOK(s.interval)
	}
}

func registered(interval int) *reply {
	return &reply{Body: map[string]any{"data": map[string]any{"registerMachine": map[string]any{
		"machine":                  map[string]any{"id": "42", "machineId": "ignored", "status": "ONLINE"},
		"heartbeatIntervalSeconds": interval,
		"userErrors":               []any{},
	}}}}
}

func heartbeatOK(interval int, commands ...map[string]any) *reply {
	if commands == nil {
		commands = []map[string]any{}
	}
	return &reply{Body: map[string]any{"data": map[string]any{"heartbeat": map[string]any{
		"accepted": true, "status": "ONLINE", "intervalSeconds": interval, "commands": commands, "userErrors": []any{},
	}}}}
}

func gqlError(status int, code, message string) *reply {
	return &reply{Status: status, Body: map[string]any{"errors": []any{map[string]any{
		"message": message, "extensions": map[string]any{"code": code},
	}}}}
}

func command(id string, kind protocol.CommandKind, payload string) map[string]any {
	return map[string]any{"id": id, "kind": string(kind), "payload": payload}
}

// validate checks a request against the schema the server serves.
func validate(query, operation string, vars map[string]any) error {
	s, err := schema()
	if err != nil {
		return err
	}
	doc, errs := gqlparser.LoadQueryWithRules(s, query, nil)
	if len(errs) > 0 {
		return errs
	}
	op := doc.Operations.ForName(operation)
	if op == nil {
		return &json.UnsupportedValueError{Str: "no operation " + operation}
	}
	_, err = validator.VariableValues(s, op, vars)
	return err
}

// all returns the requests so far.
func (s *fakeServer) all() []request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]request(nil), s.requests...)
}

// heartbeats returns the Heartbeat requests answered with status (0: all).
func (s *fakeServer) heartbeats(status int) []request {
	var out []request
	for _, r := range s.all() {
		if r.Operation == "Heartbeat" && (status == 0 || r.Status == status) {
			out = append(out, r)
		}
	}
	return out
}

// waitFor polls until cond holds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	await.True(t, cond, "waiting for %s", what)
}

// lockedBuffer collects log output from several goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// bundle is one test's world: a fake server, a manual clock, a simulated
// detector and a client wired to them.
type bundle struct {
	server   *fakeServer
	clock    *clock.Manual
	token    string
	dataDir  string
	detector *gpu.Simulator
	logs     *lockedBuffer
	opts     client.Options

	mu     sync.Mutex
	sleeps []time.Duration
}

func newToken(t *testing.T) string {
	b := make([]byte, 32)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return "gpx_a_" + base64.RawURLEncoding.EncodeToString(b)
}

func setup(t *testing.T) *bundle {
	t.Helper()
	clk := clock.NewManual(t0)
	spec, err := gpu.ParseSimSpec("1xH100,1xL4")
	require.NoError(t, err)
	b := &bundle{
		clock:    clk,
		server:   newFakeServer(t, clk),
		token:    newToken(t),
		dataDir:  t.TempDir(),
		detector: gpu.NewSimulator(spec, gpu.WithSeed("machine-under-test"), gpu.WithClock(clk)),
		logs:     &lockedBuffer{},
	}
	logger := slog.New(slog.NewJSONHandler(b.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	b.opts = client.Options{
		Server:         b.server.srv.URL,
		Token:          b.token,
		MachineID:      "machine-under-test",
		Hostname:       "rig-01",
		AgentVersion:   "9.9.9-test",
		Detector:       b.detector,
		DataDir:        b.dataDir,
		Backoff:        client.Backoff{Rand: func() float64 { return 0.5 }},
		Clock:          clk,
		Sleep:          b.sleep,
		Logger:         logger,
		OfflineTimeout: 2 * time.Second,
	}
	// Whatever the test does, the token never reaches the log.
	t.Cleanup(func() {
		require.NotContains(t, b.logs.String(), b.token, "the token leaked into the log")
	})
	return b
}

// sleep is the client's Sleep: it records the wait, moves the manual clock
// by it and yields for a moment of real time.
func (b *bundle) sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b.mu.Lock()
	b.sleeps = append(b.sleeps, d)
	b.mu.Unlock()
	if d > 0 {
		b.clock.Advance(d)
	}
	t := time.NewTimer(200 * time.Microsecond)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (b *bundle) recordedSleeps() []time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]time.Duration(nil), b.sleeps...)
}

// running is a Run in progress.
type running struct {
	client *client.Client
	cancel context.CancelFunc
	done   chan error
}

// start builds a client from the bundle's options and runs it.
func (b *bundle) start(t *testing.T) *running {
	t.Helper()
	c, err := client.New(b.opts)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{client: c, cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- c.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-r.done:
			_ = err // a test that cares about Run's error stops it itself (stop)
		case <-await.Timeout(t):
			t.Error("Run did not return")
		}
		_ = c.Close()
	})
	return r
}

// stop cancels Run (SIGTERM) and returns its result.
func (r *running) stop(t *testing.T) error {
	t.Helper()
	r.cancel()
	return r.wait(t)
}

func (r *running) wait(t *testing.T) error {
	t.Helper()
	select {
	case err := <-r.done:
		r.done <- err // for the cleanup
		return err
	case <-await.Timeout(t):
		t.Fatal("Run did not return")
		return nil
	}
}

// ats returns the `at` of each request.
func ats(t *testing.T, rs []request) []time.Time {
	out := make([]time.Time, len(rs))
	for i, r := range rs {
		out[i] = r.at(t)
	}
	return out
}

// live drops the going-offline heartbeats.
func live(t *testing.T, rs []request) []request {
	var out []request
	for _, r := range rs {
		if !r.goingOffline(t) {
			out = append(out, r)
		}
	}
	return out
}

// every returns n instants from start, step apart.
func every(start time.Time, step time.Duration, n int) []time.Time {
	out := make([]time.Time, n)
	for i := range out {
		out[i] = start.Add(time.Duration(i) * step)
	}
	return out
}

func gaps(ts []time.Time) []time.Duration {
	var out []time.Duration
	for i := 1; i < len(ts); i++ {
		out = append(out, ts[i].Sub(ts[i-1]))
	}
	return out
}
