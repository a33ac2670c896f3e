package client

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func entry(i int) []byte { return fmt.Appendf(nil, `{"n":%d}`, i) }

// drainAll pops every entry and returns them in order.
func drainAll(t *testing.T, s *spool) []string {
	t.Helper()
	var out []string
	for s.Len() > 0 {
		e, err := s.Peek()
		require.NoError(t, err)
		out = append(out, string(e))
		require.NoError(t, s.Pop())
	}
	_, err := s.Peek()
	require.ErrorIs(t, err, io.EOF)
	return out
}

func entries(from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, string(entry(i)))
	}
	return out
}

func TestSpool_FIFOAcrossReopen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := openSpool(dir, 100)
	require.NoError(t, err)
	for i := 1; i <= 5; i++ {
		_, err := s.Append(entry(i))
		require.NoError(t, err)
	}
	// Deliver two, then "crash".
	for range 2 {
		_, err := s.Peek()
		require.NoError(t, err)
		require.NoError(t, s.Pop())
	}
	require.NoError(t, s.Close())

	s, err = openSpool(dir, 100)
	require.NoError(t, err)
	defer s.Close()
	require.Equal(t, 3, s.Len())
	_, err = s.Append(entry(6))
	require.NoError(t, err)
	require.Equal(t, entries(3, 6), drainAll(t, s))
	data, err := os.ReadFile(filepath.Join(dir, BufferFile))
	require.NoError(t, err)
	require.Empty(t, data, "an empty buffer leaves an empty file")
}

func TestSpool_BoundedDropsTheOldest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := openSpool(dir, 3)
	require.NoError(t, err)
	var dropped int
	for i := 1; i <= 5; i++ {
		d, err := s.Append(entry(i))
		require.NoError(t, err)
		if d {
			dropped++
		}
	}
	require.Equal(t, 2, dropped)
	require.Equal(t, 3, s.Len())
	require.NoError(t, s.Close())

	// A smaller limit on the next start drops more, oldest first.
	s, err = openSpool(dir, 2)
	require.NoError(t, err)
	defer s.Close()
	require.Equal(t, entries(4, 5), drainAll(t, s))
}

func TestSpool_CutsAHalfWrittenLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, BufferFile), []byte(`{"n":1}`+"\n"+`{"n":2}`+"\n"+`{"n":3`), 0o600))
	s, err := openSpool(dir, 10)
	require.NoError(t, err)
	defer s.Close()
	require.Equal(t, 2, s.Len())
	_, err = s.Append(entry(4))
	require.NoError(t, err)
	require.Equal(t, []string{`{"n":1}`, `{"n":2}`, `{"n":4}`}, drainAll(t, s))
}

func TestSpool_BadOffsetReplaysRatherThanLoses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		desc, offset string
	}{
		{"past the end", "99999"},
		{"mid-line", "3"},
		{"garbage", "x"},
		{"negative", "-5"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, BufferFile), []byte(`{"n":1}`+"\n"+`{"n":2}`+"\n"), 0o600))
			require.NoError(t, os.WriteFile(filepath.Join(dir, BufferOffsetFile), []byte(tc.offset), 0o600))
			s, err := openSpool(dir, 10)
			require.NoError(t, err)
			defer s.Close()
			require.Equal(t, entries(1, 2), drainAll(t, s))
		})
	}
}

func TestSpool_CompactionKeepsOrder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := openSpool(dir, 100_000)
	require.NoError(t, err)
	pad := strings.Repeat("x", 1000)
	big := func(i int) []byte { return fmt.Appendf(nil, `{"n":%d,"pad":%q}`, i, pad) }
	for i := range 3000 {
		_, err := s.Append(big(i))
		require.NoError(t, err)
	}
	// Deliver most of it: the front passes the compaction threshold.
	for i := range 2500 {
		e, err := s.Peek()
		require.NoError(t, err)
		require.Equal(t, string(big(i)), string(e))
		require.NoError(t, s.Pop())
	}
	st, err := os.Stat(filepath.Join(dir, BufferFile))
	require.NoError(t, err)
	require.Less(t, st.Size(), int64(2000*1000), "the delivered front was compacted away")
	for i := 3000; i < 3010; i++ {
		_, err := s.Append(big(i))
		require.NoError(t, err)
	}
	require.NoError(t, s.Close())

	s, err = openSpool(dir, 100_000)
	require.NoError(t, err)
	defer s.Close()
	got := drainAll(t, s)
	require.Len(t, got, 510)
	for i, e := range got {
		require.Equal(t, string(big(2500+i)), e)
	}
}

func TestSpool_RefusesMultiLineEntries(t *testing.T) {
	t.Parallel()
	s, err := openSpool(t.TempDir(), 10)
	require.NoError(t, err)
	defer s.Close()
	_, err = s.Append([]byte("{\n}"))
	require.Error(t, err)
	require.Zero(t, s.Len())
}

func TestSpool_FilesArePrivate(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	s, err := openSpool(dir, 10)
	require.NoError(t, err)
	defer s.Close()
	_, err = s.Append(entry(1))
	require.NoError(t, err)
	for _, name := range []string{BufferFile, BufferOffsetFile} {
		st, err := os.Stat(filepath.Join(dir, name))
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o600), st.Mode().Perm(), name)
	}
	st, err := os.Stat(dir)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), st.Mode().Perm())
}

func TestSpool_PopWritesTheOffsetOncePerFlush(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := openSpool(dir, 100)
	require.NoError(t, err)
	defer s.Close()
	for i := 1; i <= 5; i++ {
		_, err := s.Append(entry(i))
		require.NoError(t, err)
	}
	stored := func() string {
		b, err := os.ReadFile(filepath.Join(dir, BufferOffsetFile))
		require.NoError(t, err)
		return strings.TrimLeft(strings.TrimSpace(string(b)), "0")
	}
	before := stored()
	for range 3 {
		_, err := s.Peek()
		require.NoError(t, err)
		require.NoError(t, s.Pop())
	}
	require.Equal(t, before, stored(), "Pop leaves the offset file alone")
	require.NoError(t, s.Flush())
	want := fmt.Sprint(3 * len(fmt.Sprintf("%s\n", entry(1))))
	require.Equal(t, want, stored(), "Flush writes the offset of the oldest undelivered entry")
	require.NoError(t, s.Flush(), "a second Flush has nothing to do")

	// A crash before Flush repeats delivered entries rather than losing any.
	_, err = s.Peek()
	require.NoError(t, err)
	require.NoError(t, s.Pop())
	again, err := openSpool(dir, 100)
	require.NoError(t, err)
	defer again.Close()
	require.Equal(t, entries(4, 5), drainAll(t, again))
}
