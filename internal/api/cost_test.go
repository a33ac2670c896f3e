package api

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql/introspection"
	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/require"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/formatter"
	"github.com/vektah/gqlparser/v2/lexer"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/gpunex/gpunex/graph"
	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/resolvers"
)

// doubling is the document of point 1 of issue 9: n fragments, each
// spreading the next twice, so a walk that expands spreads visits 2^n
// fields.
func doubling(n int) string {
	var b strings.Builder
	b.WriteString("query { ...F0 }\n")
	for i := range n - 1 {
		fmt.Fprintf(&b, "fragment F%d on Query { health ...F%d ...F%d }\n", i, i+1, i+1)
	}
	fmt.Fprintf(&b, "fragment F%d on Query { health }\n", n-1)
	return b.String()
}

// tokens counts the document's tokens as the parser's limit does.
func tokens(t *testing.T, doc string) int {
	t.Helper()
	lex := lexer.New(&ast.Source{Input: doc})
	n := 0
	for {
		tok, err := lex.ReadToken()
		require.NoError(t, err)
		if tok.Kind == lexer.EOF {
			return n
		}
		n++
	}
}

// largestDoubling is the largest doubling document the parser takes.
func largestDoubling(t *testing.T) (int, string) {
	t.Helper()
	n := parserTokenLimit / 11 // tokens per fragment
	for tokens(t, doubling(n+1)) <= parserTokenLimit {
		n++
	}
	for tokens(t, doubling(n)) > parserTokenLimit {
		n--
	}
	return n, doubling(n)
}

// selections counts the selections written in the document, each once:
// the size a linear walk is held to.
func selections(doc *ast.QueryDocument) int {
	var count func(ast.SelectionSet) int
	count = func(set ast.SelectionSet) int {
		n := len(set)
		for _, sel := range set {
			switch s := sel.(type) {
			case *ast.Field:
				n += count(s.SelectionSet)
			case *ast.InlineFragment:
				n += count(s.SelectionSet)
			}
		}
		return n
	}
	n := 0
	for _, op := range doc.Operations {
		n += count(op.SelectionSet)
	}
	for _, f := range doc.Fragments {
		n += count(f.SelectionSet)
	}
	return n
}

func executableSchema() graph.Config {
	return resolvers.NewSchema(&resolvers.Resolver{})
}

func defaultLimits() operationLimits {
	var cfg Config
	cfg.defaults()
	return cfg.operationLimits()
}

// Point 1 of issue 9: the doubling document, at every size up to the
// parser's token limit, is refused after visiting each selection of the
// document at most once, whether the fragment cap or the complexity limit
// refuses it. The count of visits is the deterministic proxy for time.
func TestDoublingFragmentsAreMeasuredInLinearWork(t *testing.T) {
	t.Parallel()
	schema := graph.NewExecutableSchema(executableSchema()).Schema()
	largest, _ := largestDoubling(t)
	require.Greater(t, largest, 1000, "the token limit admits a long chain")
	uncapped := defaultLimits()
	uncapped.Fragments, uncapped.Spreads = 1<<30, 1<<30
	for _, tc := range []struct {
		desc   string
		limits operationLimits
	}{
		{desc: "default limits (the fragment cap or the complexity limit)", limits: defaultLimits()},
		{desc: "caps lifted (the complexity limit alone, through the memo)", limits: uncapped},
	} {
		for _, n := range []int{2, 10, 11, 25, 40, 100, 101, 500, largest} {
			doc, errs := gqlparser.LoadQueryWithRules(schema, doubling(n), nil)
			require.Empty(t, errs, "n=%d", n)
			visited, err := measureOperation(doc.Operations[0], doc.Fragments, tc.limits)
			require.LessOrEqual(t, visited, selections(doc), "%s, n=%d: more visits than selections", tc.desc, n)
			// Cost of F0 is 2^n - 1: n=10 is 1023, over the default 1000.
			if n < 10 {
				require.Nil(t, err, "%s, n=%d", tc.desc, n)
				continue
			}
			require.NotNil(t, err, "%s, n=%d", tc.desc, n)
			require.Equal(t, string(fault.ComplexityLimitExceeded), err.Extensions["code"], "%s, n=%d", tc.desc, n)
		}
	}
}

// graphqlServer serves New over loopback with the real schema.
func graphqlServer(t *testing.T, cfg Config) *httptest.Server {
	t.Helper()
	es := graph.NewExecutableSchema(executableSchema())
	srv := httptest.NewServer(New(cfg, Deps{Schema: es, Logger: slog.New(slog.DiscardHandler)}))
	t.Cleanup(srv.Close)
	return srv
}

// answer is a GraphQL response's errors.
type answer struct {
	Data   json.RawMessage `json:"data"`
	Errors []struct {
		Message    string         `json:"message"`
		Extensions map[string]any `json:"extensions"`
	} `json:"errors"`
}

func (a answer) code() string {
	if len(a.Errors) == 0 {
		return ""
	}
	code, _ := a.Errors[0].Extensions["code"].(string)
	return code
}

// post sends query over POST (or GET with get) and decodes the answer. It
// waits as long as the test may, so a regression fails rather than hangs
// and a busy machine does not; the tests' assertions are on the answer.
func post(t *testing.T, srv *httptest.Server, query string, get bool) answer {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), await.Patience(t))
	defer cancel()
	var req *http.Request
	var err error
	if get {
		req, err = http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/graphql?query="+url.QueryEscape(query), nil)
	} else {
		body, _ := json.Marshal(map[string]string{"query": query})
		req, err = http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/graphql", strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/json")
	}
	require.NoError(t, err)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer func() { _ = res.Body.Close() }()
	var a answer
	require.NoError(t, json.NewDecoder(res.Body).Decode(&a))
	return a
}

// subscribe sends query as a graphql-transport-ws subscribe and returns
// the first answer: the payload of an error message, or of next.
func subscribe(t *testing.T, srv *httptest.Server, query string) answer {
	t.Helper()
	d := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}, HandshakeTimeout: 5 * time.Second}
	conn, res, err := d.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+"/graphql", nil)
	require.NoError(t, err)
	_ = res.Body.Close()
	defer func() { _ = conn.Close() }()
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(await.Patience(t))))
	require.NoError(t, conn.WriteJSON(map[string]any{"type": "connection_init"}))
	var msg struct {
		Type    string          `json:"type"`
		Payload json.RawMessage `json:"payload"`
	}
	require.NoError(t, conn.ReadJSON(&msg))
	require.Equal(t, "connection_ack", msg.Type)
	require.NoError(t, conn.WriteJSON(map[string]any{"type": "subscribe", "id": "1", "payload": map[string]any{"query": query}}))
	for {
		require.NoError(t, conn.ReadJSON(&msg))
		switch msg.Type {
		case "error":
			var a answer
			require.NoError(t, json.Unmarshal(msg.Payload, &a.Errors), string(msg.Payload))
			return a
		case "next":
			var a answer
			require.NoError(t, json.Unmarshal(msg.Payload, &a), string(msg.Payload))
			return a
		}
	}
}

// Point 1 of issue 9, end to end: the doubling document at the issue's
// size and at the parser's token limit is refused over POST, GET and a
// WebSocket subscribe, and a plain query still answers.
func TestDoublingFragmentsAreRefusedOverEveryTransport(t *testing.T) {
	t.Parallel()
	srv := graphqlServer(t, Config{})
	_, largest := largestDoubling(t)
	require.Equal(t, "", post(t, srv, "{ health }", false).code())
	for _, tc := range []struct {
		desc  string
		query string
	}{
		{desc: "25 fragments (the issue's 1.2 KB document)", query: doubling(25)},
		{desc: "as many fragments as the token limit admits", query: largest},
		{desc: "12 fragments (the complexity limit, under the fragment cap)", query: doubling(12)},
	} {
		for transport, send := range map[string]func() answer{
			"POST":      func() answer { return post(t, srv, tc.query, false) },
			"GET":       func() answer { return post(t, srv, tc.query, true) },
			"WebSocket": func() answer { return subscribe(t, srv, tc.query) },
		} {
			a := send()
			require.Equal(t, string(fault.ComplexityLimitExceeded), a.code(), "%s over %s: %+v", tc.desc, transport, a.Errors)
		}
	}
}

// aliased repeats selection n times, each under its own alias.
func aliased(n int, selection string) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		fmt.Fprintf(&b, " a%d: %s", i, selection)
	}
	b.WriteString(" }")
	return b.String()
}

// chain is n fragments, each spreading the next once.
func chain(n int) string {
	var b strings.Builder
	b.WriteString("query { ...F0 }\n")
	for i := range n - 1 {
		fmt.Fprintf(&b, "fragment F%d on Query { health ...F%d }\n", i, i+1)
	}
	fmt.Fprintf(&b, "fragment F%d on Query { health }\n", n-1)
	return b.String()
}

// Points 1 and 6 of issue 9: the caps on fragments, spreads and aliases,
// each at its limit and one past it, over a real server; and
// introspection fields are counted in the cost.
func TestOperationCaps(t *testing.T) {
	t.Parallel()
	srv := graphqlServer(t, Config{Introspection: true})
	deepSchema := "__schema { types { name kind description fields { name description type { name kind ofType { name kind } } } } }"
	for _, tc := range []struct {
		desc, query string
		message     string // "" when the operation is answered
	}{
		{desc: "100 fragments", query: chain(100)},
		{desc: "101 fragments", query: chain(101), message: "the operation uses more than 100 fragments"},
		{desc: "500 spreads", query: "{ " + strings.Repeat("...F ", 500) + "} fragment F on Query { health }"},
		{desc: "501 spreads", query: "{ " + strings.Repeat("...F ", 501) + "} fragment F on Query { health }",
			message: "the operation has more than 500 fragment spreads"},
		{desc: "100 aliases", query: aliased(100, "health")},
		{desc: "101 aliases", query: aliased(101, "health"), message: "the operation has more than 100 aliases"},
		{desc: "an alias equal to its name is no alias", query: "{ " + strings.Repeat("health: health ", 101) + "}"},
		{desc: "introspection is counted (99 aliases of a 14-field __schema)", query: aliased(99, deepSchema),
			message: "operation has complexity over the limit of 1000"},
		{desc: "introspection: the issue's 500 aliases of __schema", query: aliased(500, deepSchema),
			message: "operation has complexity over the limit of 1000"},
		{desc: "introspection: 101 aliases of a cheap __schema", query: aliased(101, "__schema { queryType { name } }"),
			message: "the operation has more than 100 aliases"},
		{desc: "one introspection query", query: "{ " + deepSchema + " }"},
		// Before validation, whose OverlappingFieldsCanBeMerged compares
		// same-named fields pairwise (seconds for this document without
		// the check): more fields written than the complexity limit.
		{desc: "5000 fields written", query: "{" + strings.Repeat(" health", 5000) + " }",
			message: "operation has complexity over the limit of 1000"},
	} {
		a := post(t, srv, tc.query, false)
		if tc.message == "" {
			require.Empty(t, a.Errors, tc.desc)
			continue
		}
		require.NotEmpty(t, a.Errors, tc.desc)
		require.Equal(t, string(fault.ComplexityLimitExceeded), a.code(), tc.desc)
		require.Equal(t, tc.message, a.Errors[0].Message, tc.desc)
	}
}

// The cost model is gqlgen's default (one per field plus its children,
// fragments expanded) with introspection counted, and the depth counts
// through fragments and inline fragments.
func TestMeasureOperation(t *testing.T) {
	t.Parallel()
	schema := graph.NewExecutableSchema(executableSchema()).Schema()
	for _, tc := range []struct {
		desc, query string
		limits      func(*operationLimits)
		code        fault.Code // "" when within the limits
	}{
		{desc: "cost at the limit", query: "{ health me { id email } }", limits: func(l *operationLimits) { l.Complexity = 4 }},
		{desc: "cost over the limit", query: "{ health me { id email } }", limits: func(l *operationLimits) { l.Complexity = 3 }, code: fault.ComplexityLimitExceeded},
		{desc: "a fragment costs where spread", query: "{ me { ...U } a: me { ...U } } fragment U on User { id email }",
			limits: func(l *operationLimits) { l.Complexity = 5 }, code: fault.ComplexityLimitExceeded},
		{desc: "a fragment spread twice costs twice", query: "{ me { ...U } a: me { ...U } } fragment U on User { id email }",
			limits: func(l *operationLimits) { l.Complexity = 6 }},
		{desc: "__typename and introspection fields count", query: "{ __typename __type(name: \"User\") { name } }",
			limits: func(l *operationLimits) { l.Complexity = 2 }, code: fault.ComplexityLimitExceeded},
		{desc: "depth at the limit through fragments", query: "{ me { ... on User { ...U } } } fragment U on User { id }",
			limits: func(l *operationLimits) { l.Depth = 2 }},
		{desc: "depth over the limit through fragments", query: "{ me { ... on User { ...U } } } fragment U on User { id }",
			limits: func(l *operationLimits) { l.Depth = 1 }, code: fault.DepthLimitExceeded},
		{desc: "depth of a memoised fragment at a deeper spread", query: "{ ...Q me { ...U } } fragment Q on Query { health } fragment U on User { id email }",
			limits: func(l *operationLimits) { l.Depth = 1 }, code: fault.DepthLimitExceeded},
	} {
		doc, errs := gqlparser.LoadQueryWithRules(schema, tc.query, nil)
		require.Empty(t, errs, tc.desc)
		limits := defaultLimits()
		tc.limits(&limits)
		_, err := measureOperation(doc.Operations[0], doc.Fragments, limits)
		if tc.code == "" {
			require.Nil(t, err, tc.desc)
			continue
		}
		require.NotNil(t, err, tc.desc)
		require.Equal(t, string(tc.code), err.Extensions["code"], tc.desc)
	}
}

// standardIntrospection reads a standard introspection query from
// testdata/introspection (graphql-js getIntrospectionQuery's output).
func standardIntrospection(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "introspection", name))
	require.NoError(t, err)
	return string(b)
}

// widened is query with its first root field (__schema) repeated n times
// under aliases, its fragments kept.
func widened(t *testing.T, query string, n int) string {
	t.Helper()
	doc, err := parser.ParseQuery(&ast.Source{Input: query})
	require.NoError(t, err)
	op := doc.Operations[0]
	root, ok := op.SelectionSet[0].(*ast.Field)
	require.True(t, ok)
	op.SelectionSet = nil
	for i := range n {
		f := *root
		f.Alias = fmt.Sprintf("a%d", i)
		op.SelectionSet = append(op.SelectionSet, &f)
	}
	var b strings.Builder
	formatter.NewFormatter(&b).FormatQueryDocument(doc)
	return b.String()
}

// Point 13 of issue 11: the standard introspection query, the one GraphiQL
// sends for its docs (graphql-js getIntrospectionQuery, its TypeRef
// fragment nesting ofType nine times, depth 15 counted plainly), is
// answered under the default limits, over HTTP and a WebSocket, with
// every option too, as is gqlgen's own copy of it.
func TestStandardIntrospectionQueryIsAnswered(t *testing.T) {
	t.Parallel()
	srv := graphqlServer(t, Config{Introspection: true})
	for _, tc := range []struct{ desc, query string }{
		{desc: "getIntrospectionQuery()", query: standardIntrospection(t, "standard.graphql")},
		{desc: "getIntrospectionQuery() with every option", query: standardIntrospection(t, "every-option.graphql")},
		{desc: "gqlgen's introspection.Query", query: introspection.Query},
	} {
		for transport, send := range map[string]func() answer{
			"POST":      func() answer { return post(t, srv, tc.query, false) },
			"WebSocket": func() answer { return subscribe(t, srv, tc.query) },
		} {
			a := send()
			require.Empty(t, a.Errors, "%s over %s", tc.desc, transport)
			var data struct {
				Schema struct {
					Types []struct{ Name string }
				} `json:"__schema"`
			}
			require.NoError(t, json.Unmarshal(a.Data, &data), "%s over %s", tc.desc, transport)
			var names []string
			for _, ty := range data.Schema.Types {
				names = append(names, ty.Name)
			}
			require.Contains(t, names, "Machine", "%s over %s: the schema's own types", tc.desc, transport)
		}
	}
}

// Point 13 of issue 11: introspection stays within the limits. Depth still
// counts every field but __Type.ofType, introspection's lists nest at most
// three deep, each ofType costs one, and copies of the standard query
// count against the complexity limit: each refused whole, with the code
// of the limit it passes.
func TestAbusiveIntrospectionIsRefused(t *testing.T) {
	t.Parallel()
	srv := graphqlServer(t, Config{Introspection: true})
	standard := standardIntrospection(t, "standard.graphql")
	schema := graph.NewExecutableSchema(executableSchema()).Schema()
	doc, errs := gqlparser.LoadQueryWithRules(schema, standard, nil)
	require.Empty(t, errs)
	_, err := measureOperation(doc.Operations[0], doc.Fragments, operationLimits{Complexity: 1 << 30, Depth: 6, Fragments: 4, Spreads: 1 << 30, Aliases: 0})
	require.Nil(t, err, "the standard query is depth 6 and 4 fragments when ofType adds no depth")
	cost := 0
	for c := 1; ; c *= 2 { // the standard query's cost: the least limit it passes
		if _, err := measureOperation(doc.Operations[0], doc.Fragments, operationLimits{Complexity: c, Depth: 6, Fragments: 4, Spreads: 1 << 30}); err == nil {
			for cost = c / 2; ; cost++ {
				if _, err := measureOperation(doc.Operations[0], doc.Fragments, operationLimits{Complexity: cost, Depth: 6, Fragments: 4, Spreads: 1 << 30}); err == nil {
					break
				}
			}
			break
		}
	}
	copies := 1000/cost + 1 // the fewest copies over the default limit of 1000
	t.Logf("the standard introspection query costs %d; %d copies pass the limit of 1000", cost, copies)
	require.Empty(t, post(t, srv, widened(t, standard, copies-1), false).Errors, "as many copies as fit in the limit")

	// ofTypes is two chains of n ofType each (the parser takes at most
	// 1000 levels of nesting).
	ofTypes := func(n int) string {
		chain := `__type(name: "Machine") { ` + strings.Repeat("ofType { ", n) + "name" + strings.Repeat(" }", n) + " }"
		return "{ a: " + chain + " b: " + chain + " }"
	}
	for _, tc := range []struct {
		desc, query string
		code        fault.Code
		message     string
	}{
		{desc: "five nested lists, two of them fields (within graphql-js's MaxIntrospectionDepth)",
			query: "{ __schema { types { fields { args { type { fields { args { name } } } } } } } }",
			code:  fault.DepthLimitExceeded, message: "operation nests introspection lists more than 3 deep"},
		{desc: "four nested lists, within the depth limit (types × fields × fields × args)",
			query: "{ __schema { types { fields { type { fields { args { name } } } } } } }",
			code:  fault.DepthLimitExceeded, message: "operation nests introspection lists more than 3 deep"},
		{desc: "four nested lists behind ofType",
			query: "{ __schema { types { fields { type { ofType { fields { type { ofType { enumValues { name } } } } } } } } } }",
			code:  fault.DepthLimitExceeded, message: "operation nests introspection lists more than 3 deep"},
		{desc: "four nested lists through a fragment",
			query: "{ __schema { types { ...T } } } fragment T on __Type { fields { type { fields { args { name } } } } }",
			code:  fault.DepthLimitExceeded, message: "operation nests introspection lists more than 3 deep"},
		{desc: "an ofType chain costs one a level (two of 500)",
			query: ofTypes(500), code: fault.ComplexityLimitExceeded, message: "operation has complexity over the limit of 1000"},
		{desc: "copies of the standard query past the complexity limit",
			query: widened(t, standard, copies), code: fault.ComplexityLimitExceeded, message: "operation has complexity over the limit of 1000"},
	} {
		a := post(t, srv, tc.query, false)
		require.NotEmpty(t, a.Errors, tc.desc)
		require.Equal(t, string(tc.code), a.code(), "%s: %+v", tc.desc, a.Errors)
		require.Equal(t, tc.message, a.Errors[0].Message, tc.desc)
		require.Contains(t, []string{"", "null"}, string(a.Data), "%s: refused whole", tc.desc)
	}
	require.Empty(t, post(t, srv, ofTypes(20), false).Errors, "a long ofType chain adds no depth")
	require.Empty(t, post(t, srv, "{ __schema { types { fields { type { fields { name } } } } } }", false).Errors, "three nested lists")
}
