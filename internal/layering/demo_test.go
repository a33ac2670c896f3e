package layering_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDomainPackagesDeclareNothingForTheDemo keeps the demo world's
// seeding out of the services (issue 25): a domain package holds rules,
// and the demo world (internal/demo) writes its past through their public
// operations and narrow import operations (billing.ImportPast,
// market.ImportUsage, reliability.ImportPast, bench.ImportResults), so no
// domain package declares a name that mentions the demo, nor writes a
// label of the demo's ("demo payout …"). Only the packages' own files are
// read (go/parser, no type-checking): tests may name what they like.
// Prose may mention the demo (a message on simulated GPUs, the reserved
// .demo domain): only string literals that start with the word are
// labels.
func TestDomainPackagesDeclareNothingForTheDemo(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("go", "list", "-e", "-json=ImportPath,Dir,GoFiles", module+"/internal/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go list: %s", stderr.String())
	var found []string
	checked := 0
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath, Dir string
			GoFiles         []string
		}
		err := dec.Decode(&p)
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		if r, ok := rel(p.ImportPath); !ok || !domain(r) {
			continue
		}
		checked++
		for _, f := range p.GoFiles {
			names, err := demoNames(filepath.Join(p.Dir, f))
			require.NoError(t, err)
			found = append(found, names...)
		}
	}
	require.Greater(t, checked, 10, "the domain packages were read")
	require.Empty(t, found, "a domain package declares a name for the demo world: move it to internal/demo")
}

// The checker finds a demo name where there is one (and only there).
func TestTheDemoNameCheckerFindsADeclaration(t *testing.T) {
	t.Parallel()
	names, err := demoNames("testdata/demoseed/seed.go")
	require.NoError(t, err)
	require.Equal(t, []string{
		"testdata/demoseed/seed.go:6: SeedDemo",
		"testdata/demoseed/seed.go:9: demoWallet",
		"testdata/demoseed/seed.go:13: DemoHistory",
		"testdata/demoseed/seed.go:18: \"demo payout \"",
	}, names)
}

// demoLabel is a string that starts with the word demo.
var demoLabel = regexp.MustCompile(`(?i)^demo\b`)

// demoNames lists the identifiers the Go file at path declares (types,
// functions, methods, variables, constants, struct fields) whose name
// contains "demo" in any case, and its string literals that start with
// the word "demo" (a label a seed writes into rows), as "file:line: name".
func demoNames(path string) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []string
	check := func(id *ast.Ident) {
		if id != nil && strings.Contains(strings.ToLower(id.Name), "demo") {
			out = append(out, fmt.Sprintf("%s:%d: %s", path, fset.Position(id.Pos()).Line, id.Name))
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch d := n.(type) {
		case *ast.FuncDecl:
			check(d.Name)
		case *ast.TypeSpec:
			check(d.Name)
		case *ast.ValueSpec:
			for _, id := range d.Names {
				check(id)
			}
		case *ast.Field:
			for _, id := range d.Names {
				check(id)
			}
		case *ast.BasicLit:
			if v, err := strconv.Unquote(d.Value); d.Kind == token.STRING && err == nil && demoLabel.MatchString(v) {
				out = append(out, fmt.Sprintf("%s:%d: %s", path, fset.Position(d.Pos()).Line, d.Value))
			}
		}
		return true
	})
	return out, nil
}
