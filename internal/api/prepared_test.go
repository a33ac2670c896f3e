package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/wire"
	"github.com/gpunex/gpunex/graph"
	"github.com/gpunex/gpunex/internal/api"
	"github.com/gpunex/gpunex/resolvers"
)

func schema() *graph.Config {
	cfg := resolvers.NewSchema(&resolvers.Resolver{})
	return &cfg
}

// A prepared document is checked against the schema and the limits when
// the server is built: one that does not fit stops the server there, not
// at the first request.
func TestPreparedDocumentsAreCheckedAtStartup(t *testing.T) {
	es := graph.NewExecutableSchema(*schema())
	run := func(context.Context, []byte) ([]byte, bool, error) { return nil, false, nil }
	for name, tc := range map[string]struct {
		doc string
		cfg api.Config
	}{
		"not valid":       {doc: `mutation Heartbeat($input: HeartbeatInput!) { heartbeat(input: $input) { nope } }`},
		"anonymous":       {doc: `mutation($input: HeartbeatInput!) { heartbeat(input: $input) { accepted } }`},
		"two root fields": {doc: `mutation Two($input: HeartbeatInput!) { a: heartbeat(input: $input) { accepted } b: heartbeat(input: $input) { accepted } }`},
		"two operations":  {doc: `mutation A($input: HeartbeatInput!) { heartbeat(input: $input) { accepted } } mutation B($input: HeartbeatInput!) { heartbeat(input: $input) { accepted } }`},
		"over complexity": {doc: wire.HeartbeatMutation, cfg: api.Config{ComplexityLimit: 2}},
		"over depth":      {doc: wire.HeartbeatMutation, cfg: api.Config{DepthLimit: 2}},
		"a skipped field": {doc: `mutation Heartbeat($input: HeartbeatInput!) { heartbeat(input: $input) @skip(if: true) { accepted } }`},
		"with fragments":  {doc: `mutation Heartbeat($input: HeartbeatInput!) { heartbeat(input: $input) { ...P } } fragment P on HeartbeatPayload { accepted }`},
	} {
		t.Run(name, func(t *testing.T) {
			require.Panics(t, func() {
				api.New(tc.cfg, api.Deps{Schema: es, Logger: slog.New(slog.DiscardHandler), Prepared: []api.Prepared{{Document: tc.doc, Run: run}}})
			})
		})
	}
	require.NotPanics(t, func() {
		api.New(api.Config{}, api.Deps{Schema: es, Logger: slog.New(slog.DiscardHandler), Prepared: []api.Prepared{{Document: wire.HeartbeatMutation, Run: run}}})
	})
}

// A panic in a prepared operation is what a panic in a resolver is: an
// INTERNAL error at the field's path, logged, and the server serves on.
func TestAPanicInAPreparedOperationIsAnInternalError(t *testing.T) {
	var logs bytes.Buffer
	panics := true
	srv := api.New(api.Config{}, api.Deps{
		Schema: graph.NewExecutableSchema(*schema()),
		Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		Prepared: []api.Prepared{{Document: wire.HeartbeatMutation, Run: func(context.Context, []byte) ([]byte, bool, error) {
			if panics {
				panic("boom")
			}
			return []byte(`{"accepted":true,"status":"ONLINE","intervalSeconds":10,"commands":[],"userErrors":[]}`), true, nil
		}}},
	})
	post := func() (int, map[string]any) {
		quoted, _ := json.Marshal(wire.HeartbeatMutation)
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
