// Package agent is the library behind gpunex-agent: GPU detection
// (agent/gpu, with NVML in agent/gpu/nvmldetect), the heartbeat client
// (agent/client), the job runtimes (agent/job) and the messages it
// exchanges with the platform (agent/protocol, the only part the server
// links).
package agent

// Version is the agent's version, reported at registration.
const Version = "0.1.0-dev"
