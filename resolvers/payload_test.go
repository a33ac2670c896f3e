package resolvers

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/fault"
)

type testPayload struct{ UserErrors []*fault.Problem }

// Issue 25 point 4: a payload's userErrors are fault's Problem, its code a
// fault.ProblemCode, straight from the service's Validation.
func TestPayloadUserErrorsAreFaultsProblemsWithTypedCodes(t *testing.T) {
	t.Parallel()
	build := func(ue []*fault.Problem) *testPayload { return &testPayload{UserErrors: ue} }

	v := &fault.Validation{}
	v.Add("input.email", fault.Taken, "taken")
	v.Add("input.name", fault.TooLong, "too long")
	p, err := payload(v, build)
	require.NoError(t, err)
	require.Equal(t, []*fault.Problem{
		{Field: "input.email", Code: fault.Taken, Message: "taken"},
		{Field: "input.name", Code: fault.TooLong, Message: "too long"},
	}, p.UserErrors)

	p, err = payload(nil, build)
	require.NoError(t, err)
	require.NotNil(t, p.UserErrors)
	require.Empty(t, p.UserErrors)

	boom := errors.New("disk on fire")
	p, err = payload(boom, build)
	require.ErrorIs(t, err, boom)
	require.Nil(t, p)
}

// Issue 25 point 4: the agent's payloads carry protocol.UserError, the
// wire's copy; every code survives the trip into it and back to the
// schema's UserError.
func TestAgentPayloadUserErrorsKeepTheirCodeThroughTheWire(t *testing.T) {
	t.Parallel()
	var problems []*fault.Problem
	for _, c := range fault.ProblemCodes() {
		problems = append(problems, &fault.Problem{Field: "input.machineId", Code: c, Message: string(c)})
	}
	wire := wireUserErrors(problems)
	for i, u := range wire {
		require.Equal(t, string(problems[i].Code), u.Code)
	}
	require.Equal(t, problems, userErrorsOfWire(wire))
	require.NotNil(t, userErrorsOfWire(nil), "userErrors is a non-null list")
}

// Issue 25 point 4: the server's user error is fault.Problem; the wire's
// copy, protocol.UserError, is written and read only in payload.go (the
// decision in package fault's doc).
func TestOnlyPayloadGoUsesTheWiresUserError(t *testing.T) {
	t.Parallel()
	seen := 0
	for _, root := range []string{".", "../internal", "../graph", "../models", "../cmd"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			// Other packages' tests run meanwhile and may make and remove
			// files under these roots: a file gone mid-walk is no source.
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err != nil {
				return err
			}
			seen++
			ast.Inspect(f, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "UserError" {
					return true
				}
				if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "protocol" && filepath.Clean(path) != "payload.go" {
					t.Errorf("%s uses protocol.UserError; the server's user error is fault.Problem (resolvers/payload.go converts)", path)
				}
				return true
			})
			return nil
		})
		require.NoError(t, err)
	}
	require.NotZero(t, seen)
}
