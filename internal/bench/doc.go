// Package bench turns the agent's benchmark runs into a per-GPU
// performance score and a listing decision: a GPU under the thresholds is
// delisted automatically, its provider is told why and what to check, and
// a later passing run lists it again.
//
// # Runs
//
// A run is asked of a machine's agent as a RUN_BENCHMARK heartbeat command
// carrying a fresh random run id and a fresh random nonce (stored with the
// run): right after the machine first registers, after a registration that
// shows a driver or GPU change, every Every (default 24 h) at an offset
// within Jitter fixed per machine (so a fleet registered together does not
// run at once), once more at a random time in every period of Every (an
// unannounced run, asked as SCHEDULED; the time is uniform within the
// period and drawn from Deps.Random), again after RetryAfter for GPUs the
// agent postponed because a customer's job held them, and when the
// provider asks (requestBenchmark, once per Cooldown, default 10 min).
// Periodic and unannounced runs are dispatched by the one replica that
// leads, and only to online machines; a run not reported within RunTimeout
// expires.
//
// submitBenchmarkResult accepts a result once per run id, only for a run
// asked of that machine, and only whole: a GPU or a machine that is not the
// token's, a replayed run id, a NaN, negative or impossible figure (more
// than PhysicalMargin, 1.5×, the datasheet) or an oversize payload is
// refused with a userErrors entry naming the field, and nothing is stored.
//
// A well-formed result is then held to itself and to its run (trust.go):
// every metric its GPU's model supports, a checksum per GPU metric equal
// to the one the run's nonce and the reported launch give
// (protocol.ExpectedBenchChecksum), compute figures within what the
// reported SMs can do at the highest SM clock the run's evidence saw, and
// no expected figure from a GPU its evidence says was throttled most of
// the run. A result that fails is refused the same way and changes no
// figure or listing, but the refusal is recorded on the run (refused_at,
// refusal; the run closes as EXPIRED and answers nothing more), the
// provider gets a BENCHMARK_REFUSED notification and a warning is logged.
//
// # The score
//
// Each GPU metric is compared with the GPU's catalog model (its own, or for
// an unlisted product the closest catalog family named in its NVML name;
// with neither, the GPU is not scored and never refused for being unknown):
//
//	reference = the datasheet figure (FP32, FP16, dense FP16 tensor — also
//	            BF16's —, memory bandwidth)
//	expected  = reference × attainable, the share the suite's kernels reach
//	            on a healthy board (FP32 0.90, FP16 0.85, tensor 0.55 —
//	            mma.sync, not the vendor's wgmma libraries —, memory read and
//	            write 0.85, copy 0.80)
//	ratio     = measured / expected
//	score     = 100 × exp( Σ wᵢ · ln(min(ratioᵢ, 1)) / Σ wᵢ )
//
// a weighted geometric mean of the capped ratios, with weights FP32 0.20,
// FP16 0.10, tensor FP16 0.20, tensor BF16 0.15, memory read 0.10, write
// 0.10, copy 0.15. An unsupported metric (no tensor cores, an architecture
// the kernel does not cover) or one without a reference drops out of both
// sums: it never counts as zero. A geometric mean lets no metric hide
// another's collapse, and the cap at 1 keeps a fast metric from buying
// back a slow one.
//
// # Thresholds and listing
//
// The core metrics are thresholds: FP32, tensor FP16 and memory copy under
// 0.70 × expected delist the GPU. So do the machine's figures, against
// absolute minimums: download 50 Mbit/s, upload 20 Mbit/s, storage write
// 100 MB/s, read 200 MB/s, random 4 KiB reads 1,000 IOPS (latency is shown,
// not judged: it measures distance to the platform, not the host). A GPU
// whose run failed (a driver error) is delisted too. All are
// Config.Thresholds; DefaultThresholds are the values above.
//
// A GPU is PENDING until its first scored run, then LISTED or DELISTED by
// its latest one; a postponed part changes nothing. Each change to
// DELISTED, and each return to LISTED, sends the provider one in-app
// notification and one email per run, naming per GPU each metric under
// its minimum with the measured, expected and minimum figures, and the
// guidance drawn from the run's evidence: thermal or power throttling
// (NVML clock event reasons held the clocks down in more than 10 % of the
// samples), a PCIe link below the card's generation or width, uncorrectable
// memory errors counted during the run, a slow disk, a slow uplink, a driver
// error; or, with none of those, what to check on the hardware.
//
// # Consistency
//
// Each scored result stores its consistency: the score over the median of
// the GPU's previous (up to ten) scores, its own baseline. The gpu_benchmarks
// rows are that series, for the reliability score to read.
//
// # Live
//
// Every change of a machine's benchmarks (a run asked, reported or expired)
// is announced on provider.<id>.benchmarks; benchmarkUpdated resolves it
// once per replica for every dashboard of the provider (bus.Shared).
package bench
