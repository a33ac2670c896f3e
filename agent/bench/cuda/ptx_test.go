package cuda

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// These tests check the embedded PTX without a GPU: what the driver's JIT
// would refuse first (directives, parameter lists, undeclared registers,
// unbalanced braces, unknown labels), and that every kernel's parameters
// are the ones the launcher passes.

// stripComments removes // comments.
func stripComments(ptx string) string {
	var b strings.Builder
	for _, l := range strings.Split(ptx, "\n") {
		if i := strings.Index(l, "//"); i >= 0 {
			l = l[:i]
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

// entry is one .entry's parameter list and body.
type entry struct {
	params []string // ".type name"
	body   string
}

var entryRe = regexp.MustCompile(`(?s)\.visible \.entry (\w+)\(([^)]*)\)\s*\{`)

// entries splits a module into its kernels.
func entries(t *testing.T, ptx string) map[string]entry {
	t.Helper()
	out := map[string]entry{}
	for _, m := range entryRe.FindAllStringSubmatchIndex(ptx, -1) {
		name := ptx[m[2]:m[3]]
		var params []string
		for _, p := range strings.Split(ptx[m[4]:m[5]], ",") {
			if p = strings.TrimSpace(p); p != "" {
				params = append(params, p)
			}
		}
		// The body runs to the matching brace.
		depth, end := 0, -1
		for i := m[1] - 1; i < len(ptx); i++ {
			if ptx[i] == '{' {
				depth++
			} else if ptx[i] == '}' {
				depth--
				if depth == 0 {
					end = i
					break
				}
			}
		}
		require.Positive(t, end, "%s has no closing brace", name)
		out[name] = entry{params: params, body: ptx[m[1]:end]}
	}
	return out
}

func TestPTXModulesStateVersionTargetAndAddressSize(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		desc    string
		mod     module
		version string
		target  string
	}{
		{"core.ptx runs on every GPU since Pascal", coreModule, "6.0", "sm_60"},
		{"tensor.ptx needs sm_80 for m16n8k16 and .bf16 (PTX ISA 7.0)", tensorModule, "7.0", "sm_80"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			ptx := stripComments(tc.mod.ptx)
			require.Regexp(t, `(?m)^\.version `+regexp.QuoteMeta(tc.version)+`$`, ptx)
			require.Regexp(t, `(?m)^\.target `+tc.target+`$`, ptx)
			require.Regexp(t, `(?m)^\.address_size 64$`, ptx)
			require.Equal(t, strings.Count(ptx, "{"), strings.Count(ptx, "}"), "braces balance")
			require.Equal(t, strings.Count(ptx, "("), strings.Count(ptx, ")"), "parentheses balance")
			if tc.target != "sm_80" {
				require.NotContains(t, ptx, "mma.sync", "mma needs sm_80")
			}
		})
	}
}

func TestPTXEntriesTakeTheParametersTheLauncherPasses(t *testing.T) {
	t.Parallel()
	for _, k := range kernels {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			e, ok := entries(t, stripComments(k.module.ptx))[k.name]
			require.True(t, ok, "%s has no .visible .entry %s", k.module.file, k.name)
			var types []string
			names := map[string]bool{}
			for _, p := range e.params {
				f := strings.Fields(p)
				require.Len(t, f, 3, "parameter %q", p)
				require.Equal(t, ".param", f[0])
				types = append(types, f[1])
				names[f[2]] = true
			}
			require.Equal(t, k.params, types)
			// Every parameter is loaded, and only declared ones are.
			loaded := regexp.MustCompile(`ld\.param\.\w+\s+%\w+, \[(\w+)\];`).FindAllStringSubmatch(e.body, -1)
			seen := map[string]bool{}
			for _, l := range loaded {
				require.True(t, names[l[1]], "%s loads undeclared parameter %s", k.name, l[1])
				seen[l[1]] = true
			}
			require.Len(t, seen, len(names), "every parameter is loaded")
			// A launch encodes exactly these types.
			args := make([]any, len(k.params))
			for i, p := range k.params {
				switch p {
				case ".u64":
					args[i] = uint64(0)
				case ".f32":
					args[i] = float32(0)
				default:
					args[i] = uint32(0)
				}
			}
			_, err := k.encode(args...)
			require.NoError(t, err)
		})
	}
}

var (
	regDeclRe = regexp.MustCompile(`\.reg \.(\w+)\s+%([A-Za-z_]+)<(\d+)>;`)
	regUseRe  = regexp.MustCompile(`%([A-Za-z_]+)(\d*)(\.[xyz])?`)
	labelRe   = regexp.MustCompile(`(?m)^(\$?\w+):`)
	braRe     = regexp.MustCompile(`bra(?:\.uni)?\s+(\$?\w+);`)
)

// special are the special registers the kernels read.
var special = map[string]bool{"tid": true, "ntid": true, "ctaid": true, "nctaid": true}

func TestPTXRegistersAreDeclaredAndLabelsDefined(t *testing.T) {
	t.Parallel()
	for _, mod := range []module{coreModule, tensorModule} {
		for name, e := range entries(t, stripComments(mod.ptx)) {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				declared := map[string]int{}
				for _, d := range regDeclRe.FindAllStringSubmatch(e.body, -1) {
					_, dup := declared[d[2]]
					require.False(t, dup, "%%%s is declared twice", d[2])
					n, err := strconv.Atoi(d[3])
					require.NoError(t, err)
					declared[d[2]] = n
				}
				for _, u := range regUseRe.FindAllStringSubmatch(regDeclRe.ReplaceAllString(e.body, ""), -1) {
					if special[u[1]] {
						require.NotEmpty(t, u[3], "%%%s needs .x", u[1])
						continue
					}
					n, ok := declared[u[1]]
					require.True(t, ok, "%%%s%s is used but %%%s is not declared", u[1], u[2], u[1])
					require.NotEmpty(t, u[2], "%%%s is a register family, used without an index", u[1])
					i, err := strconv.Atoi(u[2])
					require.NoError(t, err)
					require.Less(t, i, n, "%%%s%s is beyond %%%s<%d>", u[1], u[2], u[1], n)
				}
				labels := map[string]bool{}
				for _, l := range labelRe.FindAllStringSubmatch(e.body, -1) {
					require.False(t, labels[l[1]], "label %s twice", l[1])
					labels[l[1]] = true
				}
				for _, b := range braRe.FindAllStringSubmatch(e.body, -1) {
					require.True(t, labels[b[1]], "bra to undefined label %s", b[1])
				}
				// Every statement ends with a semicolon.
				for _, l := range strings.Split(e.body, "\n") {
					l = strings.TrimSpace(l)
					if l == "" || labelRe.MatchString(l) {
						continue
					}
					require.True(t, strings.HasSuffix(l, ";"), "statement without ';': %q", l)
				}
				require.Contains(t, e.body, "ret;")
			})
		}
	}
}

func TestPTXRunsEveryKernelOfItsModule(t *testing.T) {
	t.Parallel()
	for _, mod := range []module{coreModule, tensorModule} {
		var want []string
		for _, k := range kernels {
			if k.module.file == mod.file {
				want = append(want, k.name)
			}
		}
		var got []string
		for name := range entries(t, stripComments(mod.ptx)) {
			got = append(got, name)
		}
		require.ElementsMatch(t, want, got, mod.file)
	}
}

func TestPTXMMAUsesTheFragmentShapesOfM16N8K16(t *testing.T) {
	t.Parallel()
	re := regexp.MustCompile(`mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.(f16|bf16)\.(f16|bf16)\.f32\s+\{([^}]*)\}, \{([^}]*)\}, \{([^}]*)\}, \{([^}]*)\};`)
	ms := re.FindAllStringSubmatch(tensorModule.ptx, -1)
	require.Len(t, ms, 2*mmaChains*mmaUnroll)
	for _, m := range ms {
		require.Equal(t, m[1], m[2])
		require.Len(t, strings.Split(m[3], ","), 4, "D: four .f32")
		require.Len(t, strings.Split(m[4], ","), 4, "A: four .b32")
		require.Len(t, strings.Split(m[5], ","), 2, "B: two .b32")
		require.Equal(t, m[3], m[6], "C is D: the chain accumulates")
	}
	require.Len(t, regexp.MustCompile(`fma\.rn\.f32 `).FindAllString(coreModule.ptx, -1), fmaChains*fmaUnroll+2*fmaChains-1)
	require.Len(t, regexp.MustCompile(`fma\.rn\.f16x2 `).FindAllString(coreModule.ptx, -1), fmaChains*fmaUnroll+2*fmaChains-1)
}
