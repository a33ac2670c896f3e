package host_test

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/host"
)

const x86cpuinfo = `processor	: 0
vendor_id	: AuthenticAMD
model name	:   AMD EPYC 9654   96-Core Processor
cpu cores	: 96

processor	: 1
model name	: AMD EPYC 9654 96-Core Processor
`

const meminfo = `MemTotal:       1584999992 kB
MemFree:        1200000000 kB
`

func fakeProc(cpuinfo, meminfo string) fstest.MapFS {
	return fstest.MapFS{
		"cpuinfo": {Data: []byte(cpuinfo)},
		"meminfo": {Data: []byte(meminfo)},
	}
}

func TestFactsReadTheCPUMemoryAndDataDirectoryDisk(t *testing.T) {
	t.Parallel()
	var asked string
	r := host.Reader{
		Proc: fakeProc(x86cpuinfo, meminfo), DataDir: "/var/lib/gpunex-agent",
		NumCPU: func() int { return 192 },
		Statfs: func(path string) (uint64, uint64, error) {
			asked = path
			return 7_680_000_000_000, 6_100_000_000_000, nil
		},
	}
	h := r.Facts()
	require.Equal(t, "AMD EPYC 9654 96-Core Processor", *h.CPUModel, "spaces collapsed")
	require.Equal(t, 192, *h.CPUCores)
	require.InDelta(t, 1584999992.0*1024, *h.RAMBytes, 0, "kB in meminfo are KiB")
	require.Equal(t, "/var/lib/gpunex-agent", asked, "the data directory's filesystem")
	require.InDelta(t, 7.68e12, *h.DiskBytes, 0)
	require.InDelta(t, 6.1e12, *h.DiskFreeBytes, 0)
}

func TestFactsLeaveOutWhatCannotBeRead(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc  string
		r     host.Reader
		check func(t *testing.T, r host.Reader)
	}{
		{
			desc: "no /proc files, no CPU count, statfs failing",
			r: host.Reader{Proc: fstest.MapFS{}, DataDir: "/data", NumCPU: func() int { return 0 },
				Statfs: func(string) (uint64, uint64, error) { return 0, 0, errors.New("EACCES") }},
			check: func(t *testing.T, r host.Reader) {
				h := r.Facts()
				require.Nil(t, h.CPUModel)
				require.Nil(t, h.CPUCores)
				require.Nil(t, h.RAMBytes)
				require.Nil(t, h.DiskBytes)
				require.Nil(t, h.DiskFreeBytes)
			},
		},
		{
			desc: "an ARM server's cpuinfo without a model name, meminfo without MemTotal",
			r:    host.Reader{Proc: fakeProc("processor\t: 0\nBogoMIPS\t: 50.00\n", "MemFree: 1 kB\n"), NumCPU: func() int { return 4 }},
			check: func(t *testing.T, r host.Reader) {
				h := r.Facts()
				require.Nil(t, h.CPUModel)
				require.Equal(t, 4, *h.CPUCores)
				require.Nil(t, h.RAMBytes)
				require.Nil(t, h.DiskBytes, "no data directory, no disk")
			},
		},
		{
			desc: "a model name longer than the server takes is cut",
			r:    host.Reader{Proc: fakeProc("model name\t: "+strings.Repeat("x", 300)+"\n", meminfo), NumCPU: func() int { return 1 }},
			check: func(t *testing.T, r host.Reader) {
				require.Len(t, *r.Facts().CPUModel, 128)
			},
		},
		{
			desc: "free space beyond the size is capped at it",
			r: host.Reader{Proc: fstest.MapFS{}, DataDir: "/data", NumCPU: func() int { return 1 },
				Statfs: func(string) (uint64, uint64, error) { return 100, 200, nil }},
			check: func(t *testing.T, r host.Reader) {
				h := r.Facts()
				require.InDelta(t, 100.0, *h.DiskFreeBytes, 0)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			tt.check(t, tt.r)
		})
	}
}

// The operating system's statfs on a real directory reports a size and
// free space within it.
func TestFactsReadTheRealFilesystemOfADirectory(t *testing.T) {
	t.Parallel()
	h := host.Reader{Proc: fstest.MapFS{}, DataDir: t.TempDir()}.Facts()
	require.NotNil(t, h.CPUCores, "runtime.NumCPU by default")
	if h.DiskBytes == nil {
		t.Skip("statfs is read on Linux only")
	}
	require.Positive(t, *h.DiskBytes)
	require.LessOrEqual(t, *h.DiskFreeBytes, *h.DiskBytes)
}
