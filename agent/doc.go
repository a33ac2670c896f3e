// Package agent is the library behind gpunex-agent: GPU detection with
// NVML, telemetry, the heartbeat client, benchmarks and the job container
// runtime. It is filled in by the agent issue (#4).
package agent

// Version is the agent's version, reported at registration.
const Version = "0.1.0-dev"
