package main

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBuildsAsAStaticBinaryWithoutCgo builds gpunex the way a distroless
// image or a plain copy to any Linux host wants it: CGO_ENABLED=0, no
// dynamic loader, no shared library. (internal/layering checks the same
// from the dependency list in a second; this is the real build.)
func TestBuildsAsAStaticBinaryWithoutCgo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server (-short skips it)")
	}
	if runtime.GOOS != "linux" {
		t.Skip("reads the binary's ELF headers")
	}
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "gpunex")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "CGO_ENABLED=0 go build ./cmd/gpunex:\n%s", out)

	f, err := elf.Open(bin)
	require.NoError(t, err)
	defer f.Close()
	for _, p := range f.Progs {
		require.NotEqual(t, elf.PT_INTERP, p.Type, "the binary asks for a dynamic loader")
		require.NotEqual(t, elf.PT_DYNAMIC, p.Type, "the binary has a dynamic section")
	}
	libs, err := f.ImportedLibraries()
	require.NoError(t, err)
	require.Empty(t, libs, "the binary needs shared libraries")
}
