package job_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/job"
	"github.com/gpunex/gpunex/agent/protocol"
)

func TestSpecOfAStartJobPayloadGetsTheDefaultLimitsItLacks(t *testing.T) {
	t.Parallel()
	bare := job.SpecOf(protocol.StartJobPayload{JobID: "r1", Image: "busybox", GpuUUIDs: []string{"GPU-a", "GPU-b"}, TimeoutSeconds: 90})
	require.Equal(t, int64(2*job.DefaultMemoryPerGPU), bare.MemoryBytes, "memory per GPU held")
	require.Equal(t, int64(job.DefaultPidsLimit), bare.PidsLimit)
	require.Equal(t, 90*time.Second, bare.Timeout)
	require.NoError(t, bare.Validate(), "a payload without limits still makes a spec every runtime accepts")

	set := job.SpecOf(protocol.StartJobPayload{JobID: "r2", Image: "busybox", GpuUUIDs: []string{"GPU-a"}, MemoryBytes: 1 << 30, PidsLimit: 64})
	require.Equal(t, int64(1<<30), set.MemoryBytes, "the platform's limits are kept")
	require.Equal(t, int64(64), set.PidsLimit)
	require.Zero(t, set.Timeout, "no timeout: until stopped")
}
