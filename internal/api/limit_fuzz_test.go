package api

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/stretchr/testify/require"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/graph"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/resolvers"
)

// expanded is an operation measured the slow, obvious way, as Config
// words its limits: every fragment spread expanded where it stands.
type expanded struct {
	cost, depth                 int
	fragments, spreads, aliases int
	// cyclic: a fragment reached spreads itself; exhausted: the walk
	// passed its budget (a document whose expansion is exponential), so
	// the numbers mean nothing.
	cyclic, exhausted bool
}

// expandBudget bounds the slow walk, so one execution stays well under a
// millisecond whatever the document.
const expandBudget = 20_000

// expand measures op with fragments expanded, and counts the fragments it
// reaches and the spreads and aliases written in it and in them (each
// fragment's body once).
func expand(op *ast.OperationDefinition, fragments ast.FragmentDefinitionList) expanded {
	var e expanded
	defs := map[string]*ast.FragmentDefinition{}
	for _, f := range fragments {
		if defs[f.Name] == nil {
			defs[f.Name] = f
		}
	}
	steps := 0
	onStack := map[string]bool{}
	var walk func(set ast.SelectionSet) (cost, depth int)
	walk = func(set ast.SelectionSet) (cost, depth int) {
		for _, sel := range set {
			if steps++; steps > expandBudget {
				e.exhausted = true
				return cost, depth
			}
			var c, d int
			switch s := sel.(type) {
			case *ast.Field:
				c, d = walk(s.SelectionSet)
				c, d = c+1, d+1
			case *ast.InlineFragment:
				c, d = walk(s.SelectionSet)
			case *ast.FragmentSpread:
				def := defs[s.Name]
				if def == nil {
					continue
				}
				if onStack[s.Name] {
					e.cyclic = true
					continue
				}
				onStack[s.Name] = true
				c, d = walk(def.SelectionSet)
				delete(onStack, s.Name)
			}
			cost, depth = min(cost+c, 1<<40), max(depth, d)
		}
		return cost, depth
	}
	e.cost, e.depth = walk(op.SelectionSet)

	// The shape as written: the operation, then each fragment reached.
	reached := map[string]bool{}
	queue := []ast.SelectionSet{op.SelectionSet}
	for len(queue) > 0 {
		set := queue[0]
		queue = queue[1:]
		eachSelection(set, func(sel ast.Selection) {
			switch s := sel.(type) {
			case *ast.Field:
				if s.Alias != "" && s.Alias != s.Name {
					e.aliases++
				}
			case *ast.FragmentSpread:
				e.spreads++
				if !reached[s.Name] {
					reached[s.Name] = true
					if def := defs[s.Name]; def != nil {
						queue = append(queue, def.SelectionSet)
					}
				}
			}
		})
	}
	e.fragments = len(reached)
	return e
}

// eachSelection calls fn for every selection written in set, spreads not
// followed.
func eachSelection(set ast.SelectionSet, fn func(ast.Selection)) {
	for _, sel := range set {
		fn(sel)
		switch s := sel.(type) {
		case *ast.Field:
			eachSelection(s.SelectionSet, fn)
		case *ast.InlineFragment:
			eachSelection(s.SelectionSet, fn)
		}
	}
}

// within reports whether e is within every limit.
func (e expanded) within(l operationLimits) bool {
	return !e.cyclic && e.cost <= l.Complexity && e.depth <= l.Depth && e.fragments <= l.Fragments &&
		e.spreads <= l.Spreads && e.aliases <= l.Aliases
}

// written counts what doc holds as written: its selections, fields,
// spreads and aliases, in every operation and fragment.
type written struct{ selections, fields, spreads, aliases int }

func countWritten(doc *ast.QueryDocument) written {
	var w written
	count := func(sel ast.Selection) {
		w.selections++
		switch s := sel.(type) {
		case *ast.Field:
			w.fields++
			if s.Alias != "" && s.Alias != s.Name {
				w.aliases++
			}
		case *ast.FragmentSpread:
			w.spreads++
		}
	}
	for _, op := range doc.Operations {
		eachSelection(op.SelectionSet, count)
	}
	for _, f := range doc.Fragments {
		eachSelection(f.SelectionSet, count)
	}
	return w
}

// FuzzOperationLimits: any document the parser reads is measured without
// a panic, in one visit per selection written (so in time linear in the
// document), and the operation check (measureOperation) accepts exactly
// the operations whose fully expanded cost, depth, fragments, spreads and
// aliases are within the limits; the check before validation
// (measureDocument) accepts only documents whose written shape is.
func FuzzOperationLimits(f *testing.F) {
	for _, seed := range []string{
		`query { me { id email } }`,
		`query Q { a: me { id } b: me { id } }`,
		`query { ...F } fragment F on Query { me { ...G } } fragment G on User { id }`,
		`query { ...A } fragment A on Query { ...B ...B } fragment B on Query { ...C ...C } fragment C on Query { me { id } }`,
		`query { ...A } fragment A on Query { ...A }`,
		`query { ...A } fragment A on Query { ...B } fragment B on Query { ...A }`,
		`query { ...Missing }`,
		`query { a { b { c { d { e { f { g { h } } } } } } } }`,
		`query { ... on Query { ... { me { id } } } }`,
		`query { __schema { types { name fields { name } } } }`,
		`{ x } { y } fragment F on Q { z } fragment F on Q { w { v } }`,
		protocol.HeartbeatMutation,
		`subscription { events { id } }`,
	} {
		f.Add(seed, uint8(30), uint8(6), uint8(4), uint8(8), uint8(3))
	}
	f.Add(`query { me { id } }`, uint8(0), uint8(0), uint8(0), uint8(0), uint8(0))
	f.Fuzz(func(t *testing.T, query string, complexity, depth, fragments, spreads, aliases uint8) {
		doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: query}, parserTokenLimit)
		if err != nil {
			return
		}
		limits := operationLimits{Complexity: int(complexity), Depth: int(depth), Fragments: int(fragments),
			Spreads: int(spreads), Aliases: int(aliases)}
		w := countWritten(doc)
		if measureDocument(doc, limits) == nil {
			require.LessOrEqual(t, len(doc.Fragments), limits.Fragments, "fragments defined")
			require.LessOrEqual(t, w.fields, limits.Complexity, "fields written")
			require.LessOrEqual(t, w.spreads, limits.Spreads, "spreads written")
			require.LessOrEqual(t, w.aliases, limits.Aliases, "aliases written")
		}
		for _, op := range doc.Operations {
			visited, gqlErr := measureOperation(op, doc.Fragments, limits)
			require.LessOrEqual(t, visited, w.selections, "each selection written is visited at most once")
			e := expand(op, doc.Fragments)
			if gqlErr != nil {
				code, _ := gqlErr.Extensions["code"].(string)
				require.Contains(t, []string{string(fault.ComplexityLimitExceeded), string(fault.DepthLimitExceeded)}, code, gqlErr.Message)
				require.False(t, !e.exhausted && e.within(limits), "refused an operation within the limits (%+v): %s", e, gqlErr.Message)
				continue
			}
			require.False(t, e.cyclic, "accepted an operation whose fragments spread themselves")
			if !e.exhausted {
				require.True(t, e.within(limits), "accepted an operation over the limits %+v: %+v", limits, e)
			}
		}
	})
}

// executed records the operation the server was about to execute; it
// travels in the request's context.
type executed struct{ ops []*graphql.OperationContext }

type executedKey struct{}

// recordingSchema is the real schema with execution replaced: an
// operation that reaches Exec has passed every check before execution,
// which is what is under test, and no resolver runs.
type recordingSchema struct{ graphql.ExecutableSchema }

func (recordingSchema) Exec(ctx context.Context) graphql.ResponseHandler {
	if e, ok := ctx.Value(executedKey{}).(*executed); ok {
		e.ops = append(e.ops, graphql.GetOperationContext(ctx))
	}
	return graphql.OneShot(&graphql.Response{Data: json.RawMessage(`null`)})
}

// fuzzLimits are small, so that short documents reach them.
var fuzzLimits = Config{ComplexityLimit: 30, DepthLimit: 6, FragmentLimit: 4, SpreadLimit: 8, AliasLimit: 3, MaxBodyBytes: 64 << 10}

// FuzzRequestDecoder: whatever a POST body or a GET query string holds,
// the server answers without a panic and without a server error, every
// GraphQL error it returns carries a code of the ErrorCode enum, and an
// operation it goes on to execute is within the configured limits.
func FuzzRequestDecoder(f *testing.F) {
	quoted, _ := json.Marshal(protocol.HeartbeatMutation)
	for _, seed := range []struct {
		get         bool
		contentType string
		payload     string
	}{
		{false, "application/json", `{"query":"query { me { id email } }"}`},
		{false, "application/json", `{"query":"query Q($n: Int) { me { id } }","variables":{"n":1},"operationName":"Q"}`},
		{false, "application/json", `{"query":"query { ...A } fragment A on Query { ...B ...B } fragment B on Query { me { id } }"}`},
		{false, "application/json", `{"query":"{ a: me { id } b: me { id } c: me { id } d: me { id } }"}`},
		{false, "application/json", `{"query":"{ me { id } }","extensions":{"persistedQuery":{"version":1,"sha256Hash":"00"}}}`},
		{false, "application/json", `{"query":` + string(quoted) + `,"variables":{"input":{"machineId":"m-0000001","gpus":[]}}}`},
		{false, "application/json", `{"query":` + string(quoted) + `,"variables":{"input":{"machineId":"m-0000001","gpus":{"uuid":"x"}}}}`},
		{false, "application/json", `{"Query":"{ me { id } }","QUERY":"{ x }"}`},
		{false, "application/json; charset=utf-8", `[{"query":"{ me { id } }"}]`},
		{false, "application/graphql-response+json", `{"query":"mutation { logOut }"}`},
		{false, "text/plain", `{"query":"{ me { id } }"}`},
		{false, "application/json", `{"query":"{ me { id } }"} trailing`},
		{false, "application/json", `{"query":"{"}`},
		{true, "", `query=%7B+me+%7B+id+%7D+%7D`},
		{true, "", `query=query+Q%28%24a%3A+String%29+%7B+me+%7B+id+%7D+%7D&variables=%7B%22a%22%3A1%7D&operationName=Q`},
		{true, "", `query=mutation+%7B+logOut+%7D`},
		{true, "", `query=%7B&extensions=%7B`},
		{true, "", `%zz`},
	} {
		f.Add(seed.get, seed.contentType, seed.payload)
	}
	es := recordingSchema{graph.NewExecutableSchema(graph.Config{Resolvers: &resolvers.Resolver{}})}
	srv := New(fuzzLimits, Deps{Schema: es, Logger: slog.New(slog.DiscardHandler),
		Prepared: []PreparedOperation{Prepare(protocol.HeartbeatMutation, func(context.Context, protocol.HeartbeatVariables) (*protocol.HeartbeatPayload, error) {
			return capturedPayload(), nil
		})}})
	limits := fuzzLimits
	limits.defaults()
	f.Fuzz(func(t *testing.T, get bool, contentType, payload string) {
		var req *http.Request
		if get {
			req = httptest.NewRequest(http.MethodGet, "/graphql", nil)
			req.URL.RawQuery = payload
		} else {
			req = httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader(payload))
			req.Header.Set("Content-Type", contentType)
		}
		ex := &executed{}
		req = req.WithContext(context.WithValue(req.Context(), executedKey{}, ex))
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)

		require.Less(t, rec.Code, 500, "a server error for a client's request: %s", rec.Body)
		if rec.Code >= 400 {
			require.Contains(t, rec.Header().Get("Content-Type"), "json", "every refusal is JSON: %d %s", rec.Code, rec.Body)
		}
		if strings.Contains(rec.Header().Get("Content-Type"), "json") {
			var out struct {
				Errors []struct {
					Message    string         `json:"message"`
					Extensions map[string]any `json:"extensions"`
				} `json:"errors"`
			}
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out), "the answer is JSON: %s", rec.Body)
			for _, e := range out.Errors {
				code, _ := e.Extensions["code"].(string)
				require.True(t, fault.Code(code).Known(), "error %q has no code of the enum", e.Message)
				require.NotEqual(t, string(fault.Internal), code, e.Message)
			}
		}
		for _, oc := range ex.ops {
			e := expand(oc.Operation, oc.Doc.Fragments)
			require.False(t, e.cyclic, "executed an operation whose fragments spread themselves")
			if !e.exhausted {
				require.True(t, e.within(limits.operationLimits()), "executed an operation over the limits: %+v\n%s", e, oc.RawQuery)
			}
		}
	})
}
