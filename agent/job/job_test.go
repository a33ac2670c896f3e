package job_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/job"
)

func validSpec() job.Spec {
	return job.Spec{
		ID:          "rental-1",
		Image:       "nvcr.io/nvidia/pytorch:24.05-py3",
		GPUUUIDs:    []string{"GPU-6f2a1c7e-0d4b-4b8e-9a51-2c3d4e5f6a7b"},
		MemoryBytes: 16 << 30,
		PidsLimit:   1024,
	}
}

func TestSpecValidateAcceptsAWellFormedSpec(t *testing.T) {
	t.Parallel()
	require.NoError(t, validSpec().Validate())
	s := validSpec()
	s.ID = "a.b_c-9"
	s.Env = []string{"A=1", "_B=", "PATH=/x:/y"}
	s.Timeout = time.Hour
	s.ShmBytes = 1 << 30
	require.NoError(t, s.Validate())
}

func TestSpecValidateNamesTheBadField(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc   string
		change func(*job.Spec)
		field  string
	}{
		{"empty id", func(s *job.Spec) { s.ID = "" }, "id"},
		{"id starting with a dot", func(s *job.Spec) { s.ID = ".hidden" }, "id"},
		{"id with a space", func(s *job.Spec) { s.ID = "a b" }, "id"},
		{"id of 65 characters", func(s *job.Spec) { s.ID = string(make([]byte, 65)) }, "id"},
		{"no GPU", func(s *job.Spec) { s.GPUUUIDs = nil }, "gpuUuids"},
		{"empty GPU UUID", func(s *job.Spec) { s.GPUUUIDs = []string{""} }, "gpuUuids"},
		{"repeated GPU", func(s *job.Spec) { s.GPUUUIDs = []string{"GPU-1", "GPU-1"} }, "gpuUuids"},
		{"two GPUs in one UUID", func(s *job.Spec) { s.GPUUUIDs = []string{"GPU-1,GPU-2"} }, "gpuUuids"},
		{"GPU UUID with a space", func(s *job.Spec) { s.GPUUUIDs = []string{"GPU-1 "} }, "gpuUuids"},
		{"no memory limit", func(s *job.Spec) { s.MemoryBytes = 0 }, "memoryBytes"},
		{"negative memory limit", func(s *job.Spec) { s.MemoryBytes = -1 }, "memoryBytes"},
		{"no pids limit", func(s *job.Spec) { s.PidsLimit = 0 }, "pidsLimit"},
		{"negative shm", func(s *job.Spec) { s.ShmBytes = -1 }, "shmBytes"},
		{"negative timeout", func(s *job.Spec) { s.Timeout = -time.Second }, "timeout"},
		{"env without =", func(s *job.Spec) { s.Env = []string{"EPOCHS"} }, "env"},
		{"env with a bad name", func(s *job.Spec) { s.Env = []string{"1X=2"} }, "env"},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			s := validSpec()
			tc.change(&s)
			err := s.Validate()
			require.ErrorIs(t, err, job.ErrInvalidSpec)
			require.ErrorContains(t, err, "job: invalid spec: "+tc.field+":")
		})
	}
}

func TestTailKeepsTheEndAsValidUTF8WithinTheLimit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc string
		in   string
		max  int
		want string
	}{
		{"short output is kept whole", "hello\n", 16, "hello\n"},
		{"the start is cut", "0123456789", 4, "6789"},
		{"a character cut in two is dropped", "aé" + "bc", 3, "bc"},
		{"invalid bytes become U+FFFD", "ok\xff\n", 16, "ok\uFFFD\n"},
		{"a replacement never passes the limit", "ab\xff", 3, "\uFFFD"},
		{"no room", "x", 0, ""},
	}
	for _, tc := range tests {
		got := job.Tail([]byte(tc.in), tc.max)
		require.Equal(t, tc.want, got, tc.desc)
		require.LessOrEqual(t, len(got), max(tc.max, 0), tc.desc)
	}
}
