package api

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/executor"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/stretchr/testify/require"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/graph"
	"github.com/gpunex/gpunex/models"
	"github.com/gpunex/gpunex/resolvers"
)

// heartbeatCapture records what each path handed the heartbeat resolver
// for one request; it travels in the request's context.
type heartbeatCapture struct {
	prepared, generic *protocol.HeartbeatInput
}

type heartbeatCaptureKey struct{}

func captureOf(ctx context.Context) *heartbeatCapture {
	c, _ := ctx.Value(heartbeatCaptureKey{}).(*heartbeatCapture)
	return c
}

// capturedPayload is what both paths' resolvers answer, so their
// responses can be compared byte for byte once decoded.
func capturedPayload() *protocol.HeartbeatPayload {
	online := protocol.MachineOnline
	return &protocol.HeartbeatPayload{Accepted: true, Status: &online, IntervalSeconds: 10,
		Commands: []protocol.AgentCommand{}, UserErrors: []protocol.UserError{}}
}

// captureRoot is the real resolver root with the heartbeat replaced by
// one that records its input: the generic executor's coercion is what is
// under test, not the fleet service.
type captureRoot struct{ *resolvers.Resolver }

func (r captureRoot) Mutation() graph.MutationResolver {
	return captureMutation{r.Resolver.Mutation()}
}

type captureMutation struct{ graph.MutationResolver }

func (captureMutation) Heartbeat(ctx context.Context, input protocol.HeartbeatInput) (*protocol.HeartbeatPayload, error) {
	if c := captureOf(ctx); c != nil {
		c.generic = &input
	}
	return capturedPayload(), nil
}

// bothPaths is the prepared heartbeat in front of gqlgen's POST transport,
// as New assembles it, and gqlgen's executor alone over the same schema.
type bothPaths struct {
	prepared preparedPOST
	generic  *executor.Executor
}

func newBothPaths(t testing.TB) bothPaths {
	t.Helper()
	es := graph.NewExecutableSchema(graph.Config{Resolvers: captureRoot{&resolvers.Resolver{}}})
	logger := slog.New(slog.DiscardHandler)
	cfg := Config{}
	cfg.defaults()
	m := newMetrics()
	op := Prepare(protocol.HeartbeatMutation, func(ctx context.Context, v protocol.HeartbeatVariables) (*protocol.HeartbeatPayload, error) {
		if c := captureOf(ctx); c != nil {
			c.prepared = &v.Input
		}
		return capturedPayload(), nil
	})
	generic := executor.New(es)
	generic.SetQueryCache(lru.New[*ast.QueryDocument](16))
	generic.SetErrorPresenter(presentError(logger, func(context.Context) {}))
	generic.SetRecoverFunc(recoverPanic(logger))
	return bothPaths{
		prepared: preparedPOST{ops: mustPrepare(es, cfg, []PreparedOperation{op}, m, logger), metrics: m,
			presenter: presentError(logger, func(context.Context) {}), recover: recoverPanic(logger)},
		generic: generic,
	}
}

// post sends body to one transport and returns what the resolvers saw
// and the response.
func (b bothPaths) post(body string, tr graphql.Transport) (*heartbeatCapture, *httptest.ResponseRecorder) {
	c := &heartbeatCapture{}
	req := httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	// As handler.Server does before it picks a transport.
	ctx := graphql.StartOperationTrace(context.WithValue(req.Context(), heartbeatCaptureKey{}, c))
	req = req.WithContext(ctx)
	rec := httptest.NewRecorder()
	tr.Do(rec, req, b.generic)
	return c, rec
}

// heartbeatBody is a POST body for the agent's heartbeat document with
// the given variables and whatever follows them (another member, say).
func heartbeatBody(variables, tail string) string {
	quoted, _ := json.Marshal(protocol.HeartbeatMutation)
	return `{"query":` + string(quoted) + `,"variables":` + variables + tail + `}`
}

// asTheServiceReadsIt is the input as the fleet service uses it: the
// sample time in UTC at the microseconds it is stored with (fleet's
// Heartbeat truncates it; the DateTime scalar has already).
func asTheServiceReadsIt(in protocol.HeartbeatInput) protocol.HeartbeatInput {
	if in.At != nil {
		at := in.At.UTC().Truncate(models.DateTimePrecision)
		in.At = &at
	}
	return in
}

// FuzzPreparedVariables: for any variables, the prepared heartbeat
// takes them only if gqlgen's generic executor takes them too and hands
// the resolver the same input; its answer is then the generic one. (When
// the generic path refuses, the prepared path has refused: the same
// statement read backwards.)
func FuzzPreparedVariables(f *testing.F) {
	gpu := `{"uuid":"GPU-1","utilizationPct":71.5,"memoryUsedBytes":6.1e10,"temperatureC":64.5,"powerDrawW":512.25,` +
		`"smClockMHz":1980,"throttleReasons":["sw_power_cap"],"eccCorrected":0,"eccUncorrected":0,"recentUtilizationPct":[40,55.5,71]}`
	for _, seed := range [][2]string{
		{`{"input":{"machineId":"m-0000001","gpus":[` + gpu + `,` + gpu + `]}}`, ``},
		{`{"input":{"machineId":"m-0000001","gpus":[]}}`, `,"operationName":"Heartbeat"`},
		{`{"input":{"machineId":"m-0000001","gpus":[]}}`, `,"operationName":"Other"`},
		{`{"input":{"machineId":"m-0000001","gpus":[]}}`, `,"extensions":{}`},
		{`{"input":{"machineId":"m-0000001","gpus":[]}}`, `,"Variables":{}`},
		{`{"input":{"machineId":"m-0000001","gpus":[],"at":"2026-11-29T22:34:37.123456789+02:00","goingOffline":true}}`, ``},
		{`{"input":{"machineId":"m-0000001","gpus":[],"at":"2026-11-29t22:34:37z"}}`, ``},
		{`{"input":{"machineId":"m-0000001","gpus":[],"at":null}}`, ``},
		// Times the DateTime scalar reads and the strict decoder does not
		// (a comma before the fraction, an offset of 24 hours or 60
		// minutes), and more digits than the microseconds kept.
		{`{"input":{"machineId":"m-0000001","gpus":[],"at":"2026-11-29T22:34:37,5Z"}}`, ``},
		{`{"input":{"machineId":"m-0000001","gpus":[],"at":"2026-11-29T22:34:37+24:00"}}`, ``},
		{`{"input":{"machineId":"m-0000001","gpus":[],"at":"2026-11-29T22:34:37+00:60"}}`, ``},
		{`{"input":{"machineId":"m-0000001","gpus":[],"at":"2026-11-29T22:34:37.1234567891-00:00"}}`, ``},
		{`{"input":{"machineId":null,"gpus":[]}}`, ``},
		{`{"input":{"machineId":"m","gpus":[{"uuid":"null","smClockMHz":9007199254740993,"throttleReasons":[]}]}}`, ``},
		{`{"input":{"machineId":"m","gpus":[{"uuid":"u","smClockMHz":-2147483649}]}}`, ``},
		{`{"input":{"machineId":"m","gpus":[{"uuid":"u","utilizationPct":1e400}]}}`, ``},
		{`{"input":{"machineId":"m","gpus":[{"uuid":"u","recentUtilizationPct":[1,null]}]}}`, ``},
		{`{"input":{"machineId":"m","gpus":[{"uuid":"u","throttleReasons":"x"}]}}`, ``},
		{`{"input":{"machineId":"\u00e9\ud800","gpus":[]}}`, ``},
		{`{"input":{"machin\u0065Id":"m","gpus":[]}}`, ``},
		{`{"input":{"machineId":"a","machineId":"b","gpus":[]}}`, ``},
		{`{"input":{"machineId":"m","gpus":[]}} `, `,"variables":{}`},
		{`null`, ``},
	} {
		f.Add(seed[0], seed[1])
	}
	paths := newBothPaths(f)
	// The harness itself: a plain beat is served by the prepared path and
	// a coerced one by the generic path, or the property would hold
	// vacuously.
	c, _ := paths.post(heartbeatBody(`{"input":{"machineId":"m-0000001","gpus":[`+gpu+`]}}`, ``), paths.prepared)
	require.NotNil(f, c.prepared, "a plain beat takes the prepared path")
	c, _ = paths.post(heartbeatBody(`{"input":{"machineId":"m-0000001","gpus":{"uuid":"GPU-1"}}}`, ``), paths.prepared)
	require.True(f, c.prepared == nil && c.generic != nil, "a coerced beat takes the generic path")
	f.Fuzz(func(t *testing.T, variables, tail string) {
		body := heartbeatBody(variables, tail)
		prepared, preparedRec := paths.post(body, paths.prepared)
		if prepared.prepared == nil {
			return // declined: the generic executor answered, as it does below
		}
		generic, genericRec := paths.post(body, transport.POST{})
		require.NotNil(t, generic.generic, "the prepared path took variables the generic executor refuses:\n%s\ngeneric answer: %s",
			body, genericRec.Body)
		require.Equal(t, asTheServiceReadsIt(*generic.generic), asTheServiceReadsIt(*prepared.prepared),
			"the paths read the variables differently:\n%s", body)
		require.Equal(t, genericRec.Code, preparedRec.Code)
		require.Equal(t, genericRec.Header().Get("Content-Type"), preparedRec.Header().Get("Content-Type"))
		want, _ := io.ReadAll(genericRec.Body)
		got, _ := io.ReadAll(preparedRec.Body)
		require.JSONEq(t, string(want), string(got))
	})
}
