package api

import (
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// headerValue reads a name as it is: every name the package passes it is
// in canonical form, or the header would never be found.
func TestEveryHeaderNameReadWithoutGetIsCanonical(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	var names []string
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, 0)
		require.NoError(t, err)
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 2 {
				return true
			}
			if fn, ok := call.Fun.(*ast.Ident); !ok || fn.Name != "headerValue" {
				return true
			}
			switch arg := call.Args[1].(type) {
			case *ast.BasicLit:
				name, err := strconv.Unquote(arg.Value)
				require.NoError(t, err)
				names = append(names, name)
			case *ast.Ident:
				require.Equal(t, "csrfKey", arg.Name, "%s: a name headerValue reads is a literal or csrfKey", fset.Position(arg.Pos()))
			default:
				t.Errorf("%s: a name headerValue reads is a literal or csrfKey", fset.Position(arg.Pos()))
			}
			return true
		})
	}
	require.NotEmpty(t, names)
	for _, name := range append(names, csrfKey) {
		require.Equal(t, http.CanonicalHeaderKey(name), name)
	}
	r, err := http.NewRequest(http.MethodPost, "/graphql", nil)
	require.NoError(t, err)
	r.Header.Set(CSRFHeader, "1")
	require.Equal(t, "1", headerValue(r.Header, csrfKey))
}
