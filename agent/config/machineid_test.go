package config_test

import (
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/config"
)

func TestLoadMachineID_CreatedOnceThenReused(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "var", "lib", "gpunex-agent")
	id, created, err := config.LoadMachineID(dir)
	require.NoError(t, err)
	require.True(t, created)
	require.Regexp(t, regexp.MustCompile(`^[0-9a-f]{32}$`), id)

	st, err := os.Stat(filepath.Join(dir, config.MachineIDFile))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	st, err = os.Stat(dir)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), st.Mode().Perm())

	again, created, err := config.LoadMachineID(dir)
	require.NoError(t, err)
	require.False(t, created)
	require.Equal(t, id, again, "the same machine after a restart")

	other, _, err := config.LoadMachineID(t.TempDir())
	require.NoError(t, err)
	require.NotEqual(t, id, other, "another data directory is another machine")
}

func TestLoadMachineID_KeepsAnExistingID(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, config.MachineIDFile), []byte("rig-01_from-backup\n"), 0o600))
	id, created, err := config.LoadMachineID(dir)
	require.NoError(t, err)
	require.False(t, created)
	require.Equal(t, "rig-01_from-backup", id)
}

func TestLoadMachineID_CorruptFileNamesTheFix(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, config.MachineIDFile)
	require.NoError(t, os.WriteFile(path, []byte("no/good"), 0o600))
	_, _, err := config.LoadMachineID(dir)
	require.ErrorContains(t, err, path)
	require.ErrorContains(t, err, "delete it to register the host as a new machine")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "no/good", string(data), "a bad file is never overwritten")
}

func TestLoadMachineID_ConcurrentStartsAgree(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ids := make([]string, 8)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Go(func() {
			id, _, err := config.LoadMachineID(dir)
			require.NoError(t, err)
			ids[i] = id
		})
	}
	wg.Wait()
	for _, id := range ids {
		require.Equal(t, ids[0], id)
	}
	left, err := filepath.Glob(filepath.Join(dir, ".machine-id-*"))
	require.NoError(t, err)
	require.Empty(t, left, "no temporary files are left behind")
}

func TestLoadMachineID_UnwritableDirectory(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("root writes anywhere")
	}
	parent := t.TempDir()
	require.NoError(t, os.Chmod(parent, 0o500))
	t.Cleanup(func() { _ = os.Chmod(parent, 0o700) })
	_, _, err := config.LoadMachineID(filepath.Join(parent, "data"))
	require.ErrorContains(t, err, "--data-dir (GPUNEX_DATA_DIR)")
}
