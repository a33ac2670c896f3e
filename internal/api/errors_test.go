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
	present := api.PresentError(slog.New(slog.DiscardHandler))
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
	present := api.PresentError(slog.New(slog.NewTextHandler(&logs, nil)))
	ctx := graphql.WithResponseContext(context.Background(), graphql.DefaultErrorPresenter, graphql.DefaultRecover)
	got := present(ctx, fault.E("TEAPOT", "secret detail"))
	require.Equal(t, "internal error", got.Message)
	require.Nil(t, got.Err)
	require.Contains(t, logs.String(), "secret detail")
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
