package bench_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/bench"
	"github.com/gpunex/gpunex/agent/protocol"
)

func TestStorageMeasuresTheDiskAndRemovesItsFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := &bench.Storage{Dir: dir, Bytes: 4 << 20, RandomReadFor: 30 * time.Millisecond, Margin: 1 << 20}

	sec := s.Measure(context.Background())
	require.Equal(t, protocol.BenchCompleted, sec.Outcome, "%v", sec.Error)
	require.Len(t, sec.Measurements, 3)
	for i, metric := range protocol.StorageMetrics {
		require.Equal(t, metric, sec.Measurements[i].Metric)
		require.Positive(t, *sec.Measurements[i].Median)
	}
	entries, err := os.ReadDir(filepath.Join(dir, "bench"))
	require.NoError(t, err)
	require.Empty(t, entries, "the test file is removed")
}

func TestStorageRefusesWhenTheDiskIsShortOfSpace(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc string
		free func(string) (uint64, error)
		want string
	}{
		{"too little room", func(string) (uint64, error) { return 100 << 20, nil },
			"INSUFFICIENT_SPACE: need 512.0 MiB, free 100.0 MiB"},
		{"statfs fails", func(string) (uint64, error) { return 0, errors.New("no statfs") }, "free space"},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			sec := (&bench.Storage{Dir: dir, FreeSpace: tc.free}).Measure(context.Background())
			require.Equal(t, protocol.BenchFailed, sec.Outcome)
			require.Contains(t, *sec.Error, tc.want)
			entries, _ := os.ReadDir(filepath.Join(dir, "bench"))
			require.Empty(t, entries, "nothing was written")
		})
	}
}

func TestCleanLeftoversRemovesTestFilesACrashLeft(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, bench.CleanLeftovers(dir), "no bench folder yet is fine")
	benchDir := filepath.Join(dir, "bench")
	require.NoError(t, os.MkdirAll(benchDir, 0o700))
	leftover := filepath.Join(benchDir, "storage-4242.tmp")
	other := filepath.Join(benchDir, "notes.txt")
	require.NoError(t, os.WriteFile(leftover, make([]byte, 4096), 0o600))
	require.NoError(t, os.WriteFile(other, nil, 0o600))

	require.NoError(t, bench.CleanLeftovers(dir))
	require.NoFileExists(t, leftover)
	require.FileExists(t, other, "only the suite's own files go")
}
