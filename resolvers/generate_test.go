package resolvers_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestGeneratedCodeIsFresh regenerates the gqlgen output in a copy of the
// module and fails when it differs from what is committed: run
// `make generate` after changing schema/ or gqlgen.yml.
func TestGeneratedCodeIsFresh(t *testing.T) {
	if testing.Short() {
		t.Skip("regenerating takes a while; not in -short")
	}
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	tmp := t.TempDir()
	skip := map[string]bool{".git": true, "node_modules": true, "bin": true, "data": true, "artifacts": true, "frontend": true}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() && skip[d.Name()] && rel != "." {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(tmp, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(tmp, rel), b, 0o644)
	})
	require.NoError(t, err)
	// The frontend package only embeds dist/; give the copy an empty one.
	require.NoError(t, os.MkdirAll(filepath.Join(tmp, "frontend", "dist"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(tmp, "frontend", "dist", ".gitkeep"), nil, 0o644))
	src, err := os.ReadFile(filepath.Join(root, "frontend", "embed.go"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(tmp, "frontend", "embed.go"), src, 0o644))

	cmd := exec.Command("go", "tool", "gqlgen", "generate")
	cmd.Dir = tmp
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "gqlgen generate: %s", out)

	var generated []string
	for _, pattern := range []string{"graph/*.go", "graph/model/*.go", "resolvers/*.resolvers.go"} {
		m, _ := filepath.Glob(filepath.Join(tmp, pattern))
		generated = append(generated, m...)
	}
	require.NotEmpty(t, generated)
	for _, f := range generated {
		rel, _ := filepath.Rel(tmp, f)
		want, err := os.ReadFile(f)
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(root, rel))
		require.NoError(t, err, "%s is generated but not committed: run make generate", rel)
		require.True(t, string(want) == string(got),
			"%s is stale: run `make generate` and commit the result (first difference near %q)", rel, firstDiff(string(want), string(got)))
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return al[i]
		}
	}
	return "(length differs)"
}
