package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/stretchr/testify/require"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/graph"
	"github.com/gpunex/gpunex/internal/api"
	"github.com/gpunex/gpunex/resolvers"
)

// reordered selects the same members in another order.
type reordered struct {
	Status          *string `json:"status"`
	Accepted        bool    `json:"accepted"`
	IntervalSeconds int     `json:"intervalSeconds"`
	Commands        []struct {
		ID      string `json:"id"`
		Kind    string `json:"kind"`
		Payload string `json:"payload"`
	} `json:"commands"`
	UserErrors []struct {
		Field   string `json:"field"`
		Message string `json:"message"`
		Code    string `json:"code"`
	} `json:"userErrors"`
}

// shortCommands lacks the commands' payload.
type shortCommands struct {
	Accepted        bool    `json:"accepted"`
	Status          *string `json:"status"`
	IntervalSeconds int     `json:"intervalSeconds"`
	Commands        []struct {
		ID   string `json:"id"`
		Kind string `json:"kind"`
	} `json:"commands"`
	UserErrors []struct {
		Field   string `json:"field"`
		Message string `json:"message"`
		Code    string `json:"code"`
	} `json:"userErrors"`
}

func schema() *graph.Config {
	cfg := resolvers.NewSchema(&resolvers.Resolver{})
	return &cfg
}

// A prepared document is checked against the schema and the limits when
// the server is built: one that does not fit stops the server there, not
// at the first request.
// refusal is why api.New refuses the prepared documents ("" when it
// takes them).
func refusal(es graphql.ExecutableSchema, cfg api.Config, prepared ...api.PreparedOperation) (msg string) {
	defer func() {
		if p := recover(); p != nil {
			msg = fmt.Sprint(p)
		}
	}()
	api.New(cfg, api.Deps{Schema: es, Logger: slog.New(slog.DiscardHandler), Prepared: prepared})
	return ""
}

// preparedAs prepares doc with a resolver whose payload type is Out.
func preparedAs[Out any](doc string) api.PreparedOperation {
	return api.Prepare(doc, func(context.Context, protocol.HeartbeatVariables) (Out, error) {
		var out Out
		return out, nil
	})
}

func TestPreparedDocumentsAreCheckedAtStartup(t *testing.T) {
	es := graph.NewExecutableSchema(*schema())
	for name, tc := range map[string]struct {
		doc     string
		cfg     api.Config
		prepare func(doc string) api.PreparedOperation
		want    string
	}{
		"not valid":                {doc: `mutation Heartbeat($input: HeartbeatInput!) { heartbeat(input: $input) { nope } }`, want: "not valid"},
		"anonymous":                {doc: `mutation($input: HeartbeatInput!) { heartbeat(input: $input) { accepted } }`, want: "one named operation"},
		"two root fields":          {doc: `mutation Two($input: HeartbeatInput!) { a: heartbeat(input: $input) { accepted } b: heartbeat(input: $input) { accepted } }`, want: "one root field"},
		"two operations":           {doc: `mutation A($input: HeartbeatInput!) { heartbeat(input: $input) { accepted } } mutation B($input: HeartbeatInput!) { heartbeat(input: $input) { accepted } }`, want: "one named operation"},
		"over complexity":          {doc: protocol.HeartbeatMutation, cfg: api.Config{ComplexityLimit: 2}, want: "complexity"},
		"over depth":               {doc: protocol.HeartbeatMutation, cfg: api.Config{DepthLimit: 2}, want: "depth"},
		"a skipped field":          {doc: `mutation Heartbeat($input: HeartbeatInput!) { heartbeat(input: $input) @skip(if: true) { accepted } }`, want: "directive (field heartbeat)"},
		"a skipped leaf":           {doc: `mutation Heartbeat($input: HeartbeatInput!) { heartbeat(input: $input) { accepted @include(if: false) } }`, want: "directive (field accepted)"},
		"with fragments":           {doc: `mutation Heartbeat($input: HeartbeatInput!) { heartbeat(input: $input) { ...P } } fragment P on HeartbeatPayload { accepted }`, want: "no fragments"},
		"payload in another order": {doc: protocol.HeartbeatMutation, prepare: preparedAs[reordered], want: `member 0 is "status", the selection has "accepted"`},
		"payload missing a member": {doc: protocol.HeartbeatMutation, prepare: preparedAs[shortCommands], want: "heartbeat.commands: 2 members for 3 selected fields"},
		"no payload":               {doc: protocol.HeartbeatMutation, prepare: preparedAs[string], want: "is not a struct"},
	} {
		t.Run(name, func(t *testing.T) {
			prepare := tc.prepare
			if prepare == nil {
				prepare = preparedAs[*protocol.HeartbeatPayload]
			}
			require.Contains(t, refusal(es, tc.cfg, prepare(tc.doc)), tc.want)
		})
	}
	ok := preparedAs[*protocol.HeartbeatPayload](protocol.HeartbeatMutation)
	require.Empty(t, refusal(es, api.Config{}, ok), "the agent's heartbeat is prepared")
	require.Contains(t, refusal(es, api.Config{}, ok, ok), "prepared twice")
}

// A panic in a prepared operation is what a panic in a resolver is: an
// INTERNAL error at the field's path, logged, and the server serves on.
func TestAPanicInAPreparedOperationIsAnInternalError(t *testing.T) {
	var logs bytes.Buffer
	panics := true
	srv := api.New(api.Config{}, api.Deps{
		Schema: graph.NewExecutableSchema(*schema()),
		Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		Prepared: []api.PreparedOperation{api.Prepare(protocol.HeartbeatMutation,
			func(context.Context, protocol.HeartbeatVariables) (*protocol.HeartbeatPayload, error) {
				if panics {
					panic("boom")
				}
				online := protocol.MachineOnline
				return &protocol.HeartbeatPayload{Accepted: true, Status: &online, IntervalSeconds: 10,
					Commands: []protocol.AgentCommand{}, UserErrors: []protocol.UserError{}}, nil
			})},
	})
	post := func() (int, map[string]any) {
		quoted, _ := json.Marshal(protocol.HeartbeatMutation)
		req := httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader(`{"query":`+string(quoted)+`,"variables":{"input":{"machineId":"m-00000001","gpus":[]}}}`))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		body, _ := io.ReadAll(rec.Body)
		var out map[string]any
		require.NoError(t, json.Unmarshal(body, &out), "%s", body)
		return rec.Code, out
	}
	code, out := post()
	require.Equal(t, http.StatusOK, code)
	require.Nil(t, out["data"])
	e := out["errors"].([]any)[0].(map[string]any)
	require.Equal(t, "internal error", e["message"])
	require.Equal(t, "INTERNAL", e["extensions"].(map[string]any)["code"])
	require.Equal(t, []any{"heartbeat"}, e["path"])
	require.Contains(t, logs.String(), "boom")

	panics = false
	code, out = post()
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, map[string]any{"heartbeat": map[string]any{"accepted": true, "status": "ONLINE", "intervalSeconds": 10.0, "commands": []any{}, "userErrors": []any{}}}, out["data"])
}

// withSchema is the executable schema over another parsed schema, so a
// test can put a directive where the real schema has none.
type withSchema struct {
	graphql.ExecutableSchema
	schema *ast.Schema
}

func (w withSchema) Schema() *ast.Schema { return w.schema }

// A directive in the schema would be run by the generic executor and
// skipped by a prepared operation, so a document that reaches one is
// refused at startup: on the root field, its argument, or an input field.
func TestAPreparedDocumentReachingASchemaDirectiveIsRefused(t *testing.T) {
	files, err := filepath.Glob("../../schema/*.graphqls")
	require.NoError(t, err)
	es := graph.NewExecutableSchema(*schema())
	for name, edit := range map[string][2]string{
		"on the root field":  {"heartbeat(input: HeartbeatInput!): HeartbeatPayload!", "heartbeat(input: HeartbeatInput!): HeartbeatPayload! @guard"},
		"on the argument":    {"heartbeat(input: HeartbeatInput!)", "heartbeat(input: HeartbeatInput! @guard)"},
		"on an input field":  {"input GpuTelemetryInput {\n  uuid: String!", "input GpuTelemetryInput {\n  uuid: String! @guard"},
		"on a payload field": {"type HeartbeatPayload {\n  accepted: Boolean!", "type HeartbeatPayload {\n  accepted: Boolean! @guard"},
	} {
		t.Run(name, func(t *testing.T) {
			sources := []*ast.Source{{Name: "guard.graphqls", Input: "directive @guard on FIELD_DEFINITION | ARGUMENT_DEFINITION | INPUT_FIELD_DEFINITION"}}
			edited := false
			for _, f := range files {
				b, err := os.ReadFile(f)
				require.NoError(t, err)
				text := string(b)
				if strings.Contains(text, edit[0]) {
					text, edited = strings.Replace(text, edit[0], edit[1], 1), true
				}
				sources = append(sources, &ast.Source{Name: f, Input: text})
			}
			require.True(t, edited, "the schema has %q", edit[0])
			s, gqlErr := gqlparser.LoadSchema(sources...)
			require.NoError(t, gqlErr)
			require.Contains(t, refusal(withSchema{es, s}, api.Config{},
				preparedAs[*protocol.HeartbeatPayload](protocol.HeartbeatMutation)), "reaches a directive")
		})
	}
}
