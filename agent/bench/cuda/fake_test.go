package cuda_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// The fake driver (testdata/fakecuda.c), built once per test binary.
var fakeBuild struct {
	once sync.Once
	path string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if fakeBuild.path != "" {
		os.RemoveAll(filepath.Dir(fakeBuild.path))
	}
	os.Exit(code)
}

// fake is one test's instance of the fake driver: its own copy of the
// library, so its own state, configuration and log.
type fake struct {
	lib string
}

// testGPU is the device most tests measure.
const testGPU = "GPU-0123abcd-4567-89ef-0123-456789abcdef"

// newFake builds the fake (once) and installs a copy configured by conf
// (lines as testdata/fakecuda.c documents) in t's directory.
func newFake(t *testing.T, conf ...string) *fake {
	t.Helper()
	fakeBuild.once.Do(func() {
		gcc, err := exec.LookPath("gcc")
		if err != nil {
			fakeBuild.err = err
			return
		}
		dir, err := os.MkdirTemp("", "fakecuda")
		if err != nil {
			fakeBuild.err = err
			return
		}
		fakeBuild.path = filepath.Join(dir, "libcuda.so")
		out, err := exec.Command(gcc, "-shared", "-fPIC", "-O1", "-o", fakeBuild.path, "testdata/fakecuda.c", "-lm", "-lpthread", "-ldl").CombinedOutput()
		if err != nil {
			fakeBuild.err = fmt.Errorf("gcc: %v\n%s", err, out)
		}
	})
	if fakeBuild.err != nil && strings.Contains(fakeBuild.err.Error(), "executable file not found") {
		t.Skip("gcc is missing: the fake libcuda.so cannot be built")
	}
	require.NoError(t, fakeBuild.err)
	so, err := os.ReadFile(fakeBuild.path)
	require.NoError(t, err)
	lib := filepath.Join(t.TempDir(), "libcuda.so.1")
	require.NoError(t, os.WriteFile(lib, so, 0o755))
	require.NoError(t, os.WriteFile(lib+".conf", []byte(strings.Join(conf, "\n")+"\n"), 0o644))
	return &fake{lib: lib}
}

// log is the fake's call log.
func (f *fake) log(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(f.lib + ".log")
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// count is how many log lines start with word.
func (f *fake) count(t *testing.T, word string) int {
	t.Helper()
	n := 0
	for _, l := range f.log(t) {
		if strings.HasPrefix(l, word+" ") || l == word {
			n++
		}
	}
	return n
}

// requireReleased checks that every context, module, event and allocation
// the fake handed out came back, and that no call misused it.
func (f *fake) requireReleased(t *testing.T) {
	t.Helper()
	for _, pair := range [][2]string{{"ctx_create", "ctx_destroy"}, {"module_load", "module_unload"},
		{"event_create", "event_destroy"}, {"alloc", "free"}} {
		require.Equal(t, f.count(t, pair[0]), f.count(t, pair[1]), "%s against %s", pair[0], pair[1])
	}
	for _, bad := range []string{"noctx", "badfree", "badspan", "badlaunch", "nojitlog"} {
		require.Zero(t, f.count(t, bad), "the fake logged %s:\n%s", bad, strings.Join(f.log(t), "\n"))
	}
}

func strconvFormat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
