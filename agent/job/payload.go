package job

import (
	"time"

	"github.com/gpunex/gpunex/agent/protocol"
)

// Limits a START_JOB gets when its payload does not set them: Spec
// requires both, and a job without limits could take the host down.
const (
	DefaultMemoryPerGPU = 16 << 30
	DefaultPidsLimit    = 4096
)

// SpecOf turns a START_JOB payload into a spec, with the default limits
// where the platform set none.
func SpecOf(p protocol.StartJobPayload) Spec {
	s := Spec{
		ID: p.JobID, Image: p.Image, Command: p.Command, Env: p.Env, GPUUUIDs: p.GpuUUIDs,
		MemoryBytes: p.MemoryBytes, PidsLimit: p.PidsLimit, ShmBytes: p.ShmBytes,
		Timeout: time.Duration(p.TimeoutSeconds) * time.Second,
	}
	if s.MemoryBytes == 0 {
		s.MemoryBytes = int64(max(len(p.GpuUUIDs), 1)) * DefaultMemoryPerGPU
	}
	if s.PidsLimit == 0 {
		s.PidsLimit = DefaultPidsLimit
	}
	return s
}
