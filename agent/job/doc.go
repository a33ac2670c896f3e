// Package job runs customer jobs on the provider's host: the Runtime
// interface the agent drives from the server's start and stop commands,
// the job Spec it is given, and what it reports back (Job).
//
// Two implementations, one per technology:
//
//   - docker runs each job as a container through the Docker Engine API,
//     isolated as the provider guide promises: only the assigned GPUs, no
//     host mounts, not privileged, every capability dropped,
//     no-new-privileges, pids and memory limits, and a network of its own
//     on a /24 of docker.SubnetPool, which the host firewall the installer
//     writes keeps off the provider's LAN, the host and cloud metadata.
//     Containers carry labels (LabelManaged, LabelJobID, …), so an agent
//     that restarts finds its jobs again with List.
//   - process runs each job's command as a local process, for --simulate:
//     the demo can rent out simulated GPUs and the simulator's load follows
//     the jobs.
//
// Package watch (agent/job/watch) drives a Runtime for the agent: it
// starts the server's jobs, reports their states and log tails
// (reportJobStatus) and ends them.
//
// Both validate a Spec the same way (Spec.Validate) before touching
// anything, so a bad spec changes nothing, and both refuse a job whose GPUs
// another running job holds (ErrGPUInUse), naming the GPU and that job.
package job
