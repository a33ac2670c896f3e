// Package cuda is the agent's GPU benchmark: FP32 and half2 FMA throughput,
// tensor-core throughput (FP16 and BF16 inputs, FP32 accumulate) and device
// memory read, write and copy bandwidth, per GPU, as the metrics of
// agent/protocol (protocol.GPUMetrics) define them.
//
// # Nothing but the driver
//
// A provider's host has the NVIDIA driver and no CUDA toolkit, and the
// agent must start on a host without even the driver. So the package links
// nothing of CUDA: [Open] loads libcuda.so.1 with dlopen and resolves each
// driver entry point with dlsym (the _v2 names where the ABI has them:
// cuCtxCreate_v2, cuMemAlloc_v2, cuMemFree_v2, cuMemsetD32_v2,
// cuMemcpyDtoH_v2, cuMemGetInfo_v2, cuEventDestroy_v2, cuDeviceGetUuid_v2
// falling back to cuDeviceGetUuid); shim.c calls each through its function
// pointer. The kernels are hand-written PTX embedded in the binary
// (core.ptx, tensor.ptx) and JIT-compiled by the driver with
// cuModuleLoadDataEx, whose error log becomes part of a JIT failure's error.
// core.ptx targets sm_60 (PTX ISA 6.0) so every GPU since Pascal runs it;
// tensor.ptx needs sm_80 (PTX ISA 7.0) for mma m16n8k16 and .bf16 and is
// loaded only on GPUs of compute capability 8.0 or more. Below that the
// tensor metrics are Supported false with no figures, never zero.
//
// # The kernels, and how each result is verified
//
// No figure counts unless the launch it timed computed what the host
// expects, so a kernel the JIT mangled, a launch that did not run or a
// faulty GPU gives an error ([NameVerifyFailed], naming the metric), not a
// number. Every output buffer is filled with a poison value before a launch.
//
//   - fma_f32 and fma_f16x2: every thread runs 8 independent chains of
//     x = x·mul + inc (mul = 1, inc = 1, passed as parameters so ptxas cannot
//     fold them), chain j starting at start+j so no two chains are one. After
//     each round of 8·n FMAs per chain the chains are added, as integers, to
//     the thread's 64-bit sum and stepped back by x = x·mul + back, so every
//     round depends on the last. All values are integers in the format's
//     exact range (±2048 for half), so each thread's sum is exactly
//     rounds·(a known constant), which the host checks for every thread. An
//     FMA counts 2 flops, a half2 FMA 4.
//   - mma_f16 and mma_bf16: every element of A is 0.5 and of B is 2 (packed
//     pairs from parameters), so each mma.sync m16n8k16 adds 16 to every
//     accumulator element whatever the fragment layout, and a kernel that
//     lost A or B would not. 8 accumulators per warp, chained, checked the
//     same way as the FMA chains; an mma counts 2·16·8·16 flops per warp.
//   - mem_read, mem_write and mem_copy stream over buffers of
//     max(8×L2, 512 MiB) (capped so that the two take at most a quarter of
//     free memory; Config.MemoryBytes overrides it) with 16-byte vector
//     loads and stores and a grid-stride loop, passes times. mem_read leaves
//     a per-thread 32-bit sum; the host adds them and compares with the
//     buffer's known contents (cuMemsetD32 of an odd value, so any number of
//     missing words changes the total). After each write or copy the host
//     runs mem_read over the destination (untimed) and checks the total the
//     same way; each write repetition writes a new value, and each copy's
//     destination is poisoned first. A copy counts bytes read plus written.
//
// Grids are SMs × the blocks of 256 threads one SM holds
// (cuOccupancyMaxActiveBlocksPerMultiprocessor), so every launch is one
// full wave; the work per launch is scaled by rounds or passes.
//
// # Seeded by the run, sealed by a checksum
//
// The start values (the chains' and accumulators' starts, the words the
// memory benches fill and write) are not constants: [Driver.Measure] reads
// the run's nonce from its context (protocol.WithBenchNonce) and takes them
// from protocol.BenchSeedsFor, which keeps each in the range where the
// arithmetic above stays exact. They are kernel parameters, so the PTX is
// the same for every run. Each measurement carries its launch (SMs, grid,
// scale, buffer size) and the checksum (protocol.BenchChecksum) of the
// totals of the outputs the host read back and verified, warm-up first;
// the server computes the same checksum from the nonce and the launch.
//
// # Timing and budget
//
// Each metric runs a verified warm-up at scale 1, timed with CUDA events,
// which calibrates the timed launches to about 50 ms each; then
// Config.Repetitions (5) timed, verified repetitions; the measurement is
// their median, min and max. [Driver.Measure] keeps to its budget (50 s by
// default): each metric gets an even share of what is left, counted as the
// larger of wall time and GPU time, and a small share means fewer
// repetitions (of 10 ms), then shorter launches; one always runs. Its
// context is checked before every launch.
//
// # Errors and resources
//
// A driver error ends the GPU's run as an [*Error] whose ErrorName is the
// driver's name from cuGetErrorName (CUDA_ERROR_OUT_OF_MEMORY,
// CUDA_ERROR_LAUNCH_FAILED, CUDA_ERROR_ECC_UNCORRECTABLE, ...) and whose
// Error names the failing call; the orchestrator reports ErrorName. The
// measurements finished before it are returned with it. Allocations,
// modules, events and the context are released on every path.
//
// # Concurrency
//
// The orchestrator measures all GPUs of a machine at once, one goroutine
// per GPU. A CUDA context is current on an OS thread, so each Measure locks
// its goroutine to its thread and creates its own context there
// (cuCtxCreate_v2, not the shared primary context, so that a sticky error
// such as a launch failure on one run cannot leak into another); the entry
// point table is read-only after Open, and Close waits for running
// measurements.
//
// # What only the fake has checked
//
// The tests run the real binding, real planning and real verification
// against a fake libcuda.so (testdata/fakecuda.c, built with gcc by the
// tests) that emulates each kernel on the host from its parameters and
// reports simulated times, so the figures are exactly predictable. The PTX
// itself is checked only statically (directives, parameter lists against
// the launcher's, register declarations, labels); its JIT compilation, the
// kernels' results and speed on real GPUs, and the real driver's behaviour
// (cuCtxCreate_v2 on CUDA 13 drivers, JIT log contents) need a GPU.
package cuda
