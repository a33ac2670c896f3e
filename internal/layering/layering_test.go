package layering_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// module is this module's path; packages are named relative to it.
const module = "github.com/gpunex/gpunex"

// pkg is one package as go list describes it.
type pkg struct {
	ImportPath   string
	Standard     bool
	Imports      []string
	TestImports  []string
	XTestImports []string
	CgoFiles     []string
}

// rule is one dependency rule.
type rule struct {
	// desc states the rule; every violation repeats it.
	desc string
	// from selects the packages (module-relative paths) the rule constrains.
	from func(rel string) bool
	// tests extends the rule to the package's test imports.
	tests bool
	// forbids reports whether the import imp (a full import path) breaks
	// the rule; leaf says whether a module package imports no package of
	// the module.
	forbids func(imp string, leaf func(rel string) bool) bool
}

// shared are the server's packages the agent may import (rule 1): leaves
// both sides need, kept leaves by rule 2.
var shared = []string{"internal/clock", "internal/catalog", "internal/await"}

// protocol are the agent packages the server may import (rule 3).
var protocol = []string{"agent/protocol"}

// rules are the dependency rules (see doc.go for why each holds).
var rules = []rule{
	{
		desc:  "the agent imports nothing of the server's (only the shared leaves " + strings.Join(shared, ", ") + ")",
		from:  func(rel string) bool { return agentSide(rel) },
		tests: true,
		forbids: func(imp string, _ func(string) bool) bool {
			m, ok := rel(imp)
			return ok && serverSide(m) && !slices.Contains(shared, m)
		},
	},
	{
		desc: "a package the agent and the server share imports only the standard library",
		from: func(rel string) bool { return slices.Contains(shared, rel) },
		forbids: func(imp string, _ func(string) bool) bool {
			return !standard(imp)
		},
	},
	{
		desc: "the server imports from the agent tree only " + strings.Join(protocol, " or ") + " (internal/demo excepted)",
		from: func(rel string) bool { return serverSide(rel) && !under(rel, "internal/demo") },
		forbids: func(imp string, _ func(string) bool) bool {
			m, ok := rel(imp)
			return ok && under(m, "agent") && !slices.Contains(protocol, m)
		},
	},
	{
		desc: "only cmd/gpunex imports internal/demo (its in-process machines are agents)",
		from: func(rel string) bool { return rel != "cmd/gpunex" && !under(rel, "internal/demo") },
		forbids: func(imp string, _ func(string) bool) bool {
			m, ok := rel(imp)
			return ok && under(m, "internal/demo")
		},
	},
	{
		desc: "a domain package never imports the HTTP layer, the installer, resolvers, generated code or the assembly",
		from: domain,
		forbids: func(imp string, _ func(string) bool) bool {
			m, ok := rel(imp)
			return ok && under(m, "internal/api", "internal/installer", "resolvers", "graph", "internal/platform", "internal/demo")
		},
	},
	{
		desc: "models imports only leaf packages (standard library, bun, gqlgen's graphql, module packages that import none of the module)",
		from: func(rel string) bool { return under(rel, "models") },
		forbids: func(imp string, leaf func(string) bool) bool {
			if m, ok := rel(imp); ok {
				return !leaf(m)
			}
			return !standard(imp) && !under(imp, "github.com/uptrace/bun") && imp != "github.com/99designs/gqlgen/graphql"
		},
	},
}

// violation is one import that breaks a rule.
type violation struct {
	rule     string
	pkg, imp string
	test     bool
}

// edge names the import as "package → import", module paths relative.
func (v violation) edge() string {
	from := display(v.pkg)
	if v.test {
		from += " (test)"
	}
	return from + " → " + display(v.imp)
}

func (v violation) String() string { return v.rule + ": " + v.edge() }

// check applies rules to the module's packages in pkgs.
func check(pkgs []pkg, rules []rule) []violation {
	moduleImports := map[string]bool{}
	for _, p := range pkgs {
		if m, ok := rel(p.ImportPath); ok {
			moduleImports[m] = slices.ContainsFunc(p.Imports, func(imp string) bool { _, ok := rel(imp); return ok })
		}
	}
	leaf := func(m string) bool {
		imports, known := moduleImports[m]
		return known && !imports
	}
	var out []violation
	for _, p := range pkgs {
		from, ok := rel(p.ImportPath)
		if !ok {
			continue
		}
		for _, r := range rules {
			if !r.from(from) {
				continue
			}
			for _, imp := range p.Imports {
				if r.forbids(imp, leaf) {
					out = append(out, violation{rule: r.desc, pkg: p.ImportPath, imp: imp})
				}
			}
			if !r.tests {
				continue
			}
			for _, imp := range slices.Concat(p.TestImports, p.XTestImports) {
				if imp != p.ImportPath && r.forbids(imp, leaf) {
					out = append(out, violation{rule: r.desc, pkg: p.ImportPath, imp: imp, test: true})
				}
			}
		}
	}
	return out
}

// cgoDeps names the packages outside the standard library with cgo files
// that root depends on, each with the import path that reaches it.
func cgoDeps(deps []pkg, root string) []string {
	byPath := map[string]pkg{}
	for _, d := range deps {
		byPath[d.ImportPath] = d
	}
	// Breadth first from root, so each path shown is a shortest one.
	via := map[string]string{root: ""}
	queue := []string{root}
	var out []string
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		d := byPath[p]
		if !d.Standard && len(d.CgoFiles) > 0 {
			chain := []string{display(p)}
			for q := via[p]; q != ""; q = via[q] {
				chain = append(chain, display(q))
			}
			slices.Reverse(chain)
			out = append(out, fmt.Sprintf("%s has cgo files (%s): %s", display(p), strings.Join(d.CgoFiles, ", "), strings.Join(chain, " → ")))
		}
		for _, imp := range d.Imports {
			if _, seen := via[imp]; !seen {
				via[imp] = p
				queue = append(queue, imp)
			}
		}
	}
	slices.Sort(out)
	return out
}

func TestDependencyRules(t *testing.T) {
	t.Parallel()
	pkgs := goList(t, nil, "-e", "-json=ImportPath,Imports,TestImports,XTestImports", module+"/...")
	require.NotEmpty(t, pkgs)

	var broken []string
	for _, v := range check(pkgs, rules) {
		broken = append(broken, v.String())
	}
	if len(broken) > 0 {
		t.Errorf("forbidden imports (the rules are explained in internal/layering/doc.go):\n\t%s", strings.Join(broken, "\n\t"))
	}
}

func TestServerBuildsWithoutCgo(t *testing.T) {
	t.Parallel()
	// CGO_ENABLED=1 so that go list reports cgo files instead of leaving
	// them out.
	deps := goList(t, []string{"CGO_ENABLED=1"}, "-deps", "-json=ImportPath,Standard,Imports,CgoFiles", module+"/cmd/gpunex")
	if found := cgoDeps(deps, module+"/cmd/gpunex"); len(found) > 0 {
		t.Errorf("gpunex must build with CGO_ENABLED=0 as a static binary, but it links cgo:\n\t%s", strings.Join(found, "\n\t"))
	}
}

// TestRulesNameTheForbiddenImport feeds the rules made-up packages, one
// forbidden import per rule among allowed ones, and checks what they say.
func TestRulesNameTheForbiddenImport(t *testing.T) {
	t.Parallel()
	m := func(rel string) string { return module + "/" + rel }
	pkgs := []pkg{
		{ImportPath: m("agent/client"), Imports: []string{"context", m("agent/gpu"), m("agent/protocol"), m("internal/clock"), m("internal/fleet")}},
		{ImportPath: m("agent/gpu"), XTestImports: []string{m("agent/gpu"), m("internal/catalog"), m("internal/platform/platformtest")}},
		{ImportPath: m("internal/clock"), Imports: []string{"time", m("internal/fault")}},
		{ImportPath: m("internal/catalog"), Imports: []string{"embed", "encoding/json"}},
		{ImportPath: m("internal/fault"), Imports: []string{"errors", "fmt"}},
		{ImportPath: m("internal/fleet"), Imports: []string{m("agent/protocol"), m("agent/client"), m("internal/api"), m("internal/fault"), m("models")}},
		{ImportPath: m("internal/onboarding"), Imports: []string{m("internal/installer"), m("internal/auth")}},
		{ImportPath: m("internal/auth"), Imports: []string{m("graph/model")}},
		{ImportPath: m("internal/api"), Imports: []string{m("graph"), m("internal/installer")}},
		{ImportPath: m("internal/platform"), Imports: []string{m("internal/api"), m("internal/installer"), m("resolvers"), m("internal/demo")}},
		{ImportPath: m("internal/demo"), Imports: []string{m("agent/client"), m("agent/gpu"), m("internal/platform")}},
		{ImportPath: m("internal/store/storetest"), Imports: []string{m("internal/platform"), m("internal/demo")}},
		{ImportPath: m("cmd/gpunex"), Imports: []string{m("internal/demo"), m("internal/platform")}},
		{ImportPath: m("cmd/gpunex-agent"), Imports: []string{m("agent/gpu/nvmldetect"), m("resolvers")}},
		{ImportPath: m("models"), Imports: []string{"time", "github.com/uptrace/bun", "github.com/99designs/gqlgen/graphql", m("internal/fault"), m("internal/auth"), "github.com/redis/go-redis/v9"}},
		{ImportPath: "net/http", Imports: []string{m("internal/api")}}, // not the module's: not checked
	}
	var got []string
	for _, v := range check(pkgs, rules) {
		got = append(got, v.String())
	}
	require.ElementsMatch(t, []string{
		rules[0].desc + ": agent/client → internal/fleet",
		rules[0].desc + ": agent/gpu (test) → internal/platform/platformtest",
		rules[0].desc + ": cmd/gpunex-agent → resolvers",
		rules[1].desc + ": internal/clock → internal/fault",
		rules[2].desc + ": internal/fleet → agent/client",
		rules[3].desc + ": internal/platform → internal/demo",
		rules[3].desc + ": internal/store/storetest → internal/demo",
		rules[4].desc + ": internal/fleet → internal/api",
		rules[4].desc + ": internal/onboarding → internal/installer",
		rules[4].desc + ": internal/auth → graph/model",
		rules[5].desc + ": models → internal/auth",
		rules[5].desc + ": models → github.com/redis/go-redis/v9",
	}, got)
	require.Equal(t,
		"the agent imports nothing of the server's (only the shared leaves internal/clock, internal/catalog, internal/await): agent/client → internal/fleet",
		check(pkgs[:1], rules)[0].String())

	t.Run("cgo", func(t *testing.T) {
		t.Parallel()
		deps := []pkg{
			{ImportPath: m("cmd/gpunex"), Imports: []string{"net", m("internal/demo")}},
			{ImportPath: "net", Standard: true, CgoFiles: []string{"cgo_unix.go"}},
			{ImportPath: m("internal/demo"), Imports: []string{m("agent/gpu")}},
			{ImportPath: m("agent/gpu"), Imports: []string{"github.com/NVIDIA/go-nvml/pkg/nvml"}},
			{ImportPath: "github.com/NVIDIA/go-nvml/pkg/nvml", CgoFiles: []string{"nvml.go"}},
		}
		require.Equal(t, []string{
			"github.com/NVIDIA/go-nvml/pkg/nvml has cgo files (nvml.go): cmd/gpunex → internal/demo → agent/gpu → github.com/NVIDIA/go-nvml/pkg/nvml",
		}, cgoDeps(deps, m("cmd/gpunex")))
	})
}

// goList runs go list with args (and env added to the environment) and
// decodes the packages it prints.
func goList(t *testing.T, env []string, args ...string) []pkg {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go list %s: %s", strings.Join(args, " "), stderr.String())
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		err := dec.Decode(&p)
		if errors.Is(err, io.EOF) {
			return pkgs
		}
		require.NoError(t, err)
		pkgs = append(pkgs, p)
	}
}

// rel returns a module package's path relative to the module.
func rel(path string) (string, bool) {
	if path == module {
		return ".", true
	}
	r, ok := strings.CutPrefix(path, module+"/")
	return r, ok
}

// display names a package relative to the module when it is the module's.
func display(path string) string {
	if r, ok := rel(path); ok {
		return r
	}
	return path
}

// standard reports whether path is in the standard library (its first
// element has no dot), or cgo's "C".
func standard(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// under reports whether path is one of roots or inside one.
func under(path string, roots ...string) bool {
	for _, r := range roots {
		if path == r || strings.HasPrefix(path, r+"/") {
			return true
		}
	}
	return false
}

// agentSide: the agent library and its binary.
func agentSide(rel string) bool { return under(rel, "agent", "cmd/gpunex-agent") }

// serverSide: everything the server binary is made of.
func serverSide(rel string) bool {
	return under(rel, "internal", "resolvers", "graph", "models", "frontend", "cmd/gpunex")
}

// domain: internal packages with one concern each, as opposed to the HTTP
// layer, the assembly, the installer, the end-to-end tests, this test and
// the test helpers (storetest, redistest, …).
func domain(rel string) bool {
	if !under(rel, "internal") || under(rel, "internal/api", "internal/platform", "internal/demo", "internal/installer", "internal/e2e", "internal/layering") {
		return false
	}
	last := rel[strings.LastIndex(rel, "/")+1:]
	return !strings.HasSuffix(last, "test")
}
