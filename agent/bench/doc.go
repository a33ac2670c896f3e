// Package bench is the agent's benchmark suite: what RUN_BENCHMARK runs
// and what submitBenchmarkResult reports (protocol.BenchmarkResultInput).
//
// # The parts of a run
//
// [Suite.Run] measures three things and never fails as a whole; each part
// says in its Outcome and Error how it ended:
//
//   - The GPUs, through a [GPUMeasurer]: FP32, FP16 and tensor-core FLOPS
//     and device-memory bandwidth (agent/bench/cuda runs PTX kernels with
//     the CUDA driver; [SimulatedMeasurer] models figures for --simulate).
//     All GPUs are measured at once, one goroutine each: the metrics are
//     device-local, so a GPU measured beside others shows the figures it
//     would show alone, and one at a time would make an 8-GPU machine's run
//     8 times as long. Each GPU has a budget (DefaultGPUBudget).
//   - The network ([Network]): the median round trip of small requests to
//     the platform, then download and upload throughput over its bench
//     endpoints (protocol.BenchPingPath and the others), with the agent
//     token and the machine id.
//   - The storage ([Storage]): sequential write with fsync, sequential read
//     and random 4 KiB reads (direct I/O where the filesystem allows) on a
//     test file in the data directory, refused when the disk lacks room.
//
// The network and storage sections run one after the other, beside the
// GPUs.
//
// # Never during a customer's job
//
// A GPU a job holds ([BusyFunc], [JobsOn] over the job runtime) is not
// measured: it is POSTPONED with "GPU_BUSY: job <id>". The jobs are listed
// again every second during the run, and a GPU a job starts on meanwhile
// has its measurement cancelled and is postponed too. When the jobs cannot
// be listed at all, every GPU is postponed (JOBS_UNKNOWN): the suite will
// not guess that a customer is not there.
//
// # Evidence
//
// While GPUs are measured one sampler reads NVML (the gpu.Detector's
// Telemetry, and the PCIe links where the detector is a gpu.LinkReader)
// every DefaultSampleEvery, once for all GPUs, and each GPU's samples
// become its protocol.GpuBenchEvidence: temperatures, clocks, power, the
// clock event reasons seen and the share of samples held back by heat or
// power, ECC errors counted during the run, the PCIe link. The server reads
// a low figure against it: a throttled board needs cooling, not a refund.
//
// # The run's nonce and the checksums
//
// RUN_BENCHMARK carries a nonce the server drew for the run. [Suite.Run]
// puts it in the measurers' context (protocol.WithBenchNonce); the CUDA
// measurer starts its kernels from the values it fixes
// (protocol.BenchSeedsFor) and returns, per metric, the launch and the
// checksum of the outputs it verified (protocol.BenchChecksum), which the
// server recomputes. The checksum shows the result was made for this run
// by something that computed the kernels' function; the server's other
// checks are what make a made-up one costly (see internal/bench).
//
// # Simulation
//
// With --simulate, the GPU figures are the catalogue's datasheet figures
// times the share the suite's kernels reach on real boards, changed by the
// GPU's profiles (gpu.Profile: throttled, power-capped, ecc-errors,
// failing…) with a ±2% jitter fixed by the GPU and the run; each carries
// the launch a real run on the model would have had and its checksum under
// the run's nonce, computed on the CPU. The network and
// the storage are measured for real (loopback, the real disk, a small
// file) unless a machine profile (slow-disk, slow-network) replaces them.
// Results are flagged Simulated.
//
// # One run at a time
//
// [Runner] runs the suite on a goroutine of its own, one run after the
// other, so the command handler is free for START_JOB at once; see its
// documentation for what happens to a RUN_BENCHMARK that arrives during a
// run. [CleanLeftovers] removes a test file a crash left behind.
package bench
