package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	goast "go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/stretchr/testify/require"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/gpunex/gpunex/graph"
	"github.com/gpunex/gpunex/internal/api"
	"github.com/gpunex/gpunex/internal/fault"
)

// loadSchema parses the GraphQL schema the server is generated from.
func loadSchema(t *testing.T) *ast.Schema {
	t.Helper()
	files, err := filepath.Glob("../../schema/*.graphqls")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	var sources []*ast.Source
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		sources = append(sources, &ast.Source{Name: f, Input: string(b)})
	}
	s, err := gqlparser.LoadSchema(sources...)
	require.NoError(t, err)
	return s
}

// enumValues lists the values of the schema's enum name.
func enumValues(t *testing.T, s *ast.Schema, name string) []string {
	t.Helper()
	def := s.Types[name]
	require.NotNil(t, def, "enum %s is not in the schema", name)
	require.Equal(t, ast.Enum, def.Kind)
	var out []string
	for _, v := range def.EnumValues {
		require.NotEmpty(t, strings.TrimSpace(v.Description), "%s.%s has no description", name, v.Name)
		out = append(out, v.Name)
	}
	return out
}

func stringsOf[T ~string](in []T) []string {
	out := make([]string, len(in))
	for i, v := range in {
		out[i] = string(v)
	}
	return out
}

// Point 2 of issue 8: the codes are GraphQL enums, each value documented,
// holding exactly fault's codes.
func TestErrorCodeEnumsHoldFaultCodes(t *testing.T) {
	t.Parallel()
	s := loadSchema(t)
	require.ElementsMatch(t, stringsOf(fault.Codes()), enumValues(t, s, "ErrorCode"))
	require.ElementsMatch(t, stringsOf(fault.ProblemCodes()), enumValues(t, s, "UserErrorCode"))
	require.Equal(t, "UserErrorCode", s.Types["UserError"].Fields.ForName("code").Type.Name())
	require.True(t, s.Types["UserError"].Fields.ForName("code").Type.NonNull)
}

// sent is what a test request got back: its HTTP status and the code of
// its first error.
func sent(t *testing.T, srv http.Handler, header http.Header, body string) string {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header[k] = v
	}
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	var resp struct {
		Errors []struct {
			Message    string         `json:"message"`
			Extensions map[string]any `json:"extensions"`
		} `json:"errors"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &resp), rec.Body.String())
	require.NotEmpty(t, resp.Errors, rec.Body.String())
	code, ok := resp.Errors[0].Extensions["code"].(string)
	require.True(t, ok, "no string extensions.code in %s", rec.Body.String())
	return code
}

// Point 2 of issue 8: every extensions.code the server can send is an
// ErrorCode, and every ErrorCode is sent by some error. Requests refused
// by the HTTP layer or gqlgen go through a real server; domain errors
// through the presenter, which maps codes outside the enum to INTERNAL
// (a domain error) or BAD_REQUEST (a gqlgen error).
func TestEveryCodeSentIsAnErrorCodeAndViceVersa(t *testing.T) {
	t.Parallel()
	enum := enumValues(t, loadSchema(t), "ErrorCode")
	es := graph.NewExecutableSchema(graph.Config{})
	newServer := func(cfg api.Config) http.Handler {
		return api.New(cfg, api.Deps{Schema: es, Logger: slog.New(slog.DiscardHandler)})
	}
	plain := newServer(api.Config{})
	seen := map[string]bool{}

	overHTTP := []struct {
		desc   string
		srv    http.Handler
		header http.Header
		body   string
		want   fault.Code
	}{
		{desc: "a document that does not parse", srv: plain, body: `{"query":"{"}`, want: fault.ParseFailed},
		{desc: "a field the schema lacks", srv: plain, body: `{"query":"{ nope }"}`, want: fault.ValidationFailed},
		{desc: "an operation name the document lacks", srv: plain, body: `{"query":"query A { health }","operationName":"B"}`, want: fault.ValidationFailed},
		{desc: "an undecodable body", srv: plain, body: `{"query":`, want: fault.BadRequest},
		{desc: "a persisted query the server does not hold", srv: plain,
			body: `{"extensions":{"persistedQuery":{"version":1,"sha256Hash":"` + strings.Repeat("0", 64) + `"}}}`, want: fault.PersistedQueryNotFound},
		{desc: "a persisted query of an unknown version", srv: plain,
			body: `{"extensions":{"persistedQuery":{"version":2,"sha256Hash":"x"}}}`, want: fault.BadRequest},
		{desc: "too complex", srv: newServer(api.Config{ComplexityLimit: 1}), body: `{"query":"{ a: health b: health }"}`, want: fault.ComplexityLimitExceeded},
		{desc: "too deep", srv: newServer(api.Config{DepthLimit: 1}), body: `{"query":"{ me { id } }"}`, want: fault.DepthLimitExceeded},
		{desc: "a body over the limit", srv: newServer(api.Config{MaxBodyBytes: 16}), body: `{"query":"{ health health }"}`, want: fault.Invalid},
		{desc: "an Authorization header that is not Bearer", srv: plain, header: http.Header{"Authorization": {"Basic eDp5"}},
			body: `{"query":"{ health }"}`, want: fault.Unauthenticated},
	}
	for _, tc := range overHTTP {
		got := sent(t, tc.srv, tc.header, tc.body)
		require.Equal(t, string(tc.want), got, tc.desc)
		seen[got] = true
	}

	gqlgenError := func(code string) error {
		err := gqlerror.Errorf("made by gqlgen")
		if code != "" {
			err.Extensions = map[string]any{"code": code}
		}
		return err
	}
	presented := []struct {
		desc string
		err  error
		want fault.Code
	}{
		{desc: "a validation", err: &fault.Validation{Problems: []fault.Problem{{Field: "input.email", Code: fault.Required}}}, want: fault.Invalid},
		{desc: "a plain error", err: errors.New("disk on fire"), want: fault.Internal},
		{desc: "a domain error with a code outside the enum", err: fault.E("TEAPOT", "short and stout"), want: fault.Internal},
		{desc: "a gqlgen error with a code outside the enum", err: gqlgenError("TEAPOT"), want: fault.BadRequest},
		{desc: "a gqlgen error without a code", err: gqlgenError(""), want: fault.BadRequest},
		{desc: "a gqlgen error wrapping a cause", err: &gqlerror.Error{Message: "x", Err: errors.New("cause")}, want: fault.Internal},
	}
	for _, c := range fault.Codes() {
		presented = append(presented, struct {
			desc string
			err  error
			want fault.Code
		}{desc: fmt.Sprintf("a domain error coded %s", c), err: fmt.Errorf("wrapped: %w", fault.E(c, "public")), want: c})
	}
	present := api.PresentError(slog.New(slog.DiscardHandler), func(context.Context) {})
	ctx := graphql.WithResponseContext(context.Background(), graphql.DefaultErrorPresenter, graphql.DefaultRecover)
	for _, tc := range presented {
		got := present(ctx, tc.err)
		code, ok := got.Extensions["code"].(string)
		require.True(t, ok, tc.desc)
		require.Equal(t, string(tc.want), code, tc.desc)
		seen[code] = true
	}

	var sentCodes []string
	for c := range seen {
		sentCodes = append(sentCodes, c)
	}
	require.ElementsMatch(t, enum, sentCodes, "codes sent (right) and the ErrorCode enum (left) differ")
}

// The internal-error presentation leaks neither the cause nor its message.
func TestInternalErrorsLeakNothing(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	present := api.PresentError(slog.New(slog.NewTextHandler(&logs, nil)), func(context.Context) {})
	ctx := graphql.WithResponseContext(context.Background(), graphql.DefaultErrorPresenter, graphql.DefaultRecover)
	got := present(ctx, fault.E("TEAPOT", "secret detail"))
	require.Equal(t, "internal error", got.Message)
	require.Nil(t, got.Err)
	require.Contains(t, logs.String(), "secret detail")
}

// A request whose client went away (its context canceled) is not an
// internal error of the server's: it is not logged at ERROR. The same error
// in a live request is.
func TestACanceledRequestIsNotLoggedAsAnInternalError(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	present := api.PresentError(slog.New(slog.NewTextHandler(&logs, nil)), func(context.Context) {})
	ctx, cancel := context.WithCancel(graphql.WithResponseContext(context.Background(), graphql.DefaultErrorPresenter, graphql.DefaultRecover))
	cancel()
	got := present(ctx, fmt.Errorf("billing: unable to read earnings: %w", context.Canceled))
	require.Equal(t, "internal error", got.Message)
	require.NotContains(t, logs.String(), "level=ERROR")

	live := graphql.WithResponseContext(context.Background(), graphql.DefaultErrorPresenter, graphql.DefaultRecover)
	require.Equal(t, "internal error", present(live, fmt.Errorf("billing: unable to read earnings: %w", context.Canceled)).Message)
	require.Contains(t, logs.String(), "level=ERROR")
}

// Point 2 of issue 8: the problem codes are defined once, as fault's
// constants (the UserErrorCode enum's Go side). A code a service or
// resolver writes as a literal (fault.Problem{Code: "…"}, a UserError's
// Code, v.Add(field, "…", msg)) compiles as a ProblemCode all the same, so
// this test refuses every literal, naming its place, and says whether it
// is at least a known code.
func TestProblemCodesAreWrittenOnlyAsFaultsConstants(t *testing.T) {
	t.Parallel()
	known := map[string]bool{}
	for _, c := range fault.ProblemCodes() {
		known[string(c)] = true
	}
	constants := 0
	check := func(fset *token.FileSet, e goast.Expr) {
		if sel, ok := e.(*goast.SelectorExpr); ok {
			if pkg, ok := sel.X.(*goast.Ident); ok && pkg.Name == "fault" {
				constants++
			}
			return
		}
		b, ok := e.(*goast.BasicLit)
		if !ok || b.Kind != token.STRING {
			return
		}
		s, err := strconv.Unquote(b.Value)
		require.NoError(t, err)
		t.Errorf("%s: the problem code %q is a literal; use fault's constant (known code: %v)", fset.Position(b.Pos()), s, known[s])
	}
	for _, root := range []string{"../../internal", "../../resolvers"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			goast.Inspect(f, func(n goast.Node) bool {
				switch n := n.(type) {
				case *goast.CompositeLit:
					codeOf := func(lit *goast.CompositeLit) {
						for _, e := range lit.Elts {
							if kv, ok := e.(*goast.KeyValueExpr); ok {
								if k, ok := kv.Key.(*goast.Ident); ok && k.Name == "Code" {
									check(fset, kv.Value)
								}
							}
						}
					}
					isProblem := func(t goast.Expr) bool {
						if star, ok := t.(*goast.StarExpr); ok {
							t = star.X
						}
						sel, ok := t.(*goast.SelectorExpr)
						return ok && (sel.Sel.Name == "Problem" || sel.Sel.Name == "UserError")
					}
					if isProblem(n.Type) {
						codeOf(n)
					}
					// []fault.Problem{{Code: …}}: the elements' type is elided.
					if list, ok := n.Type.(*goast.ArrayType); ok && isProblem(list.Elt) {
						for _, e := range n.Elts {
							if lit, ok := e.(*goast.CompositeLit); ok && lit.Type == nil {
								codeOf(lit)
							}
						}
					}
				case *goast.CallExpr:
					if sel, ok := n.Fun.(*goast.SelectorExpr); ok && sel.Sel.Name == "Add" && len(n.Args) == 3 {
						check(fset, n.Args[1])
					}
				}
				return true
			})
			return nil
		})
		require.NoError(t, err)
	}
	require.NotZero(t, constants, "the scan found no code at all: is it still looking in the right places?")
}

// Point 7 of issue 9: an argument gqlgen cannot read as its type (a
// scalar's or an enum's unmarshal function failing, an Int out of range),
// inline or in a variable, is BAD_USER_INPUT naming the argument as
// userErrors do, with the field's response path, and is not logged at
// ERROR. The resolvers are never reached: gqlgen reads arguments first, so
// a schema without resolvers shows it. (An Int out of range and an enum
// outside its values, inline or in a variable, are refused before this by
// gqlparser's validation, GRAPHQL_VALIDATION_FAILED; DateTime is the
// schema's one input scalar it cannot check.)
func TestIssue9Point7ArgumentsThatDoNotCoerceAreBadUserInputNamingTheField(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	srv := api.New(api.Config{}, api.Deps{
		Schema: graph.NewExecutableSchema(graph.Config{}),
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	const heartbeat = `mutation($input: HeartbeatInput!) { heartbeat(input: $input) { accepted } }`
	cases := []struct {
		desc   string
		query  string
		vars   map[string]any
		path   []any
		field  string
		reason string
	}{
		{desc: "an inline DateTime that does not parse",
			query: `mutation { heartbeat(input: {machineId: "rig-0001", at: "garbage", gpus: []}) { accepted } }`,
			path:  []any{"heartbeat"}, field: "input.at", reason: `"garbage" is not an RFC 3339 time`},
		{desc: "a DateTime variable that does not parse",
			query: heartbeat, vars: map[string]any{"input": map[string]any{"machineId": "rig-0001", "at": "garbage", "gpus": []any{}}},
			path: []any{"heartbeat"}, field: "input.at", reason: `"garbage" is not an RFC 3339 time`},
		{desc: "a DateTime variable that is a number",
			query: heartbeat, vars: map[string]any{"input": map[string]any{"machineId": "rig-0001", "at": 12, "gpus": []any{}}},
			path: []any{"heartbeat"}, field: "input.at", reason: "DateTime must be an RFC 3339 string"},
		{desc: "an aliased field",
			query: `mutation { hb: heartbeat(input: {machineId: "rig-0001", at: "2026-13-01T00:00:00Z", gpus: []}) { accepted } }`,
			path:  []any{"hb"}, field: "input.at", reason: "is not an RFC 3339 time"},
	}
	for _, tc := range cases {
		body, err := json.Marshal(map[string]any{"query": tc.query, "variables": tc.vars})
		require.NoError(t, err)
		req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		var resp struct {
			Errors []struct {
				Message    string         `json:"message"`
				Path       []any          `json:"path"`
				Extensions map[string]any `json:"extensions"`
			} `json:"errors"`
		}
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &resp), rec.Body.String())
		require.Len(t, resp.Errors, 1, "%s: %s", tc.desc, rec.Body.String())
		got := resp.Errors[0]
		require.Equal(t, map[string]any{"code": string(fault.Invalid), "field": tc.field}, got.Extensions, tc.desc)
		require.Equal(t, tc.path, got.Path, tc.desc)
		require.True(t, strings.HasPrefix(got.Message, tc.field+": "), "%s: %q names the field first", tc.desc, got.Message)
		require.Contains(t, got.Message, tc.reason, tc.desc)
		require.NotContains(t, got.Message, "strconv", tc.desc)
		require.NotContains(t, got.Message, "interface", tc.desc)
	}
	require.NotContains(t, logs.String(), "level=ERROR", logs.String())
	require.Contains(t, logs.String(), "level=DEBUG", "refusals are logged at DEBUG")
}

// Point 7 of issue 9: what an unmarshal function says is shown only when
// it is meant for clients; the argument is named to its list index. The
// errors are made as gqlgen's generated code makes them (variables of a
// wrong type or an Int out of 32 bits are refused earlier, by gqlparser's
// validation, so a request cannot reach these).
func TestArgumentErrorsShowOnlyPublicReasons(t *testing.T) {
	t.Parallel()
	present := api.PresentError(slog.New(slog.DiscardHandler), func(context.Context) {})
	ctx := graphql.WithResponseContext(context.Background(), graphql.DefaultErrorPresenter, graphql.DefaultRecover)
	ctx = graphql.WithFieldContext(ctx, &graphql.FieldContext{Field: graphql.CollectedField{Field: &ast.Field{Alias: "hb", Name: "heartbeat"}}})
	arg := ctx
	for _, p := range []*graphql.PathContext{graphql.NewPathWithField("input"), graphql.NewPathWithField("gpus"), graphql.NewPathWithIndex(3), graphql.NewPathWithField("smClockMHz")} {
		arg = graphql.WithPathContext(arg, p)
	}
	for _, tc := range []struct {
		desc string
		err  error
		want string
	}{
		{desc: "gqlgen's integer overflow", err: &graphql.NumberOverflowError{Value: int64(1 << 40), IntegerError: &graphql.IntegerError{Message: "1099511627776 overflows signed 32-bit integer"}},
			want: "input.gpus.3.smClockMHz: 1099511627776 overflows signed 32-bit integer"},
		{desc: "a project scalar's coded reason", err: fault.E(fault.Invalid, `"x" is not a valid USDC amount`),
			want: `input.gpus.3.smClockMHz: "x" is not a valid USDC amount`},
		{desc: "a coded error that is not the client's is not shown", err: fault.E(fault.Internal, "pool exhausted"),
			want: "input.gpus.3.smClockMHz: is not a valid value for its type"},
		{desc: "a Go type name is not shown", err: fmt.Errorf("%T is not an int", map[string]any{}),
			want: "input.gpus.3.smClockMHz: is not a valid value for its type"},
		{desc: "strconv's wording is not shown", err: &strconv.NumError{Func: "ParseInt", Num: "1e99", Err: strconv.ErrRange},
			want: "input.gpus.3.smClockMHz: is out of range"},
	} {
		got := present(ctx, graphql.ErrorOnPath(arg, tc.err))
		require.Equal(t, tc.want, got.Message, tc.desc)
		require.Equal(t, map[string]any{"code": string(fault.Invalid), "field": "input.gpus.3.smClockMHz"}, got.Extensions, tc.desc)
		require.Equal(t, ast.Path{ast.PathName("hb")}, got.Path, tc.desc)
		require.NoError(t, got.Unwrap(), "%s: the cause does not travel on", tc.desc)
	}
}

// A resolver's own error keeps the field's path and stays what it was:
// the argument check above does not take every error that has a cause.
func TestResolverErrorsAreNotTakenForArguments(t *testing.T) {
	t.Parallel()
	present := api.PresentError(slog.New(slog.DiscardHandler), func(context.Context) {})
	ctx := graphql.WithResponseContext(context.Background(), graphql.DefaultErrorPresenter, graphql.DefaultRecover)
	ctx = graphql.WithFieldContext(ctx, &graphql.FieldContext{Field: graphql.CollectedField{Field: &ast.Field{Alias: "me", Name: "me"}}})
	for _, tc := range []struct {
		desc string
		err  error
		want fault.Code
	}{
		{desc: "a plain error", err: errors.New("disk on fire"), want: fault.Internal},
		{desc: "a coded error", err: fault.E(fault.NotFound, "no such user"), want: fault.NotFound},
		{desc: "an invalid-input error from a resolver, without a field", err: fault.E(fault.Invalid, "bad"), want: fault.Invalid},
	} {
		got := present(ctx, graphql.ErrorOnPath(ctx, tc.err))
		require.Equal(t, string(tc.want), got.Extensions["code"], tc.desc)
		require.NotContains(t, got.Extensions, "field", tc.desc)
		require.Equal(t, ast.Path{ast.PathName("me")}, got.Path, tc.desc)
	}
}
