package protocol

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
)

// A benchmark run's proof of work. The server issues each run a random
// nonce (RunBenchmarkPayload.Nonce); the nonce fixes the values the
// suite's kernels start from (BenchSeedsFor); the agent returns, per GPU
// and metric, how the kernels were launched (BenchLaunch) and a checksum
// of the outputs it read back and verified (BenchChecksum); the server
// recomputes the checksum from the nonce and the launch
// (ExpectedBenchChecksum) and refuses a mismatch.
//
// The outputs are a deterministic function of the nonce and the launch
// shape: a matching checksum shows that the result was made for this run
// (an earlier run's result, made under another nonce, does not match) by
// a program that computed what the kernels compute. It does not show that
// a GPU computed it: a program that knows the kernels can compute it on a
// CPU. The server's checks of the figures against their own evidence, and
// runs asked at random times, are what make a made-up result costly.

// The kernels' shape, as agent/bench/cuda's PTX is written. The server
// needs it to know what the outputs of a launch add up to; agent/bench/cuda
// checks its own constants against these in its tests.
const (
	// BenchBlockSize is the threads per block of every kernel.
	BenchBlockSize = 256
	// benchFMAChains chains per thread, each gaining 1 per FMA, and
	// benchFMASteps FMAs per chain per round (8 per inner iteration, 256
	// iterations).
	benchFMAChains = 8
	benchFMASteps  = 8 * 256
	// benchMMAChains accumulators per warp, each element gaining 16 per
	// mma.sync (A = 0.5, B = 2, k = 16), benchMMASteps per round (4 mma
	// per inner iteration, 64 iterations), and the four elements of every
	// accumulator a thread holds.
	benchMMAChains   = 8
	benchMMASteps    = 16 * 4 * 64
	benchMMAElements = 4
	// BenchMaxScale bounds a launch's rounds or passes (a 32-bit kernel
	// parameter; the suite plans at most 2^20).
	BenchMaxScale = 1 << 20
	// BenchMaxBlocksPerSM is the most blocks of BenchBlockSize threads one
	// SM holds (2,048 threads on sm_80 and sm_90; fewer elsewhere).
	BenchMaxBlocksPerSM = 8
)

// BenchSeeds are the values a run's kernels start from, fixed by the run's
// nonce. Each stays inside the range where every value its kernel computes
// is an exact integer of the kernel's format, so the outputs are exact.
type BenchSeeds struct {
	// FP32Start is chain 0's start of fma_f32, in [1, 2^20] (float32 is
	// exact to 2^24; a chain reaches start + 7 + 2,048).
	FP32Start int32
	// FP16Start is chain 0's start of fma_f16x2 in each half of the pair
	// (low, high), in [-2048, -8] (half is exact to ±2,048; a chain
	// reaches start + 7 + 2,048).
	FP16Start [2]int16
	// TensorFP16Start and TensorBF16Start are accumulator 0's start of
	// mma_f16 and mma_bf16, in [1, 2^16]: well inside the FP32
	// accumulator's exact range, whatever precision the tensor cores keep
	// while they add (an accumulator reaches start + 7 + 4,096).
	TensorFP16Start int32
	TensorBF16Start int32
	// MemFill is the word the source buffer is filled with, and MemWrite
	// the first word mem_write writes (repetition r writes MemWrite + 2r).
	// Both are odd, so a total over a buffer changes whenever words are
	// missing or stale; MemFill is never 0xdeadbeef, the poison outputs
	// are filled with before a launch.
	MemFill  uint32
	MemWrite uint32
}

// benchPoison is the value agent/bench/cuda fills outputs with before a
// launch; a fill value equal to it could not tell a copy that ran from
// one that did not.
const benchPoison = 0xdeadbeef

// BenchSeedsFor derives a run's seeds from its nonce (SHA-256 of it, so
// every nonce gives unrelated seeds). An empty nonce (a run asked by a
// server that issues none, or --bench-once) has seeds too.
func BenchSeedsFor(nonce string) BenchSeeds {
	h := sha256.Sum256([]byte("gpunex bench seeds\x00" + nonce))
	u := func(i int) uint32 { return binary.LittleEndian.Uint32(h[4*i:]) }
	half := func(v uint32) int16 { return int16(-2048 + int32(v%2041)) } // -2048 … -8
	s := BenchSeeds{
		FP32Start:       1 + int32(u(0)%(1<<20)),
		FP16Start:       [2]int16{half(u(1)), half(u(2))},
		TensorFP16Start: 1 + int32(u(3)%(1<<16)),
		TensorBF16Start: 1 + int32(u(4)%(1<<16)),
		MemFill:         u(5) | 1,
		MemWrite:        u(6) | 1,
	}
	if s.MemFill == benchPoison {
		s.MemFill += 2
	}
	return s
}

// BenchWriteValue is the word mem_write writes in repetition rep (0 is the
// warm-up): a new one each time, so a repetition that wrote nothing leaves
// the previous one's behind.
func (s BenchSeeds) BenchWriteValue(rep int) uint32 { return s.MemWrite + 2*uint32(rep) }

// BenchLaunch is how one metric's kernel was launched
// (BenchmarkLaunchInput): enough, with the run's nonce, for the server to
// know what its outputs add up to.
type BenchLaunch struct {
	// SmCount is the GPU's multiprocessors (the CUDA driver's count), which
	// the grid fills.
	SmCount int `json:"smCount"`
	// Grid is the blocks of BenchBlockSize threads of every launch: SmCount
	// times the blocks one SM holds.
	Grid int `json:"grid"`
	// Scale is the rounds (arithmetic) or passes (memory) of each timed
	// repetition; the warm-up ran at 1.
	Scale int `json:"scale"`
	// BufferBytes is the size of each memory buffer (memory metrics only):
	// a multiple of 16.
	BufferBytes *float64 `json:"bufferBytes,omitempty"`
}

// BenchChecksum folds the totals of a metric's verified launches, in
// order (the warm-up, then each timed repetition), into the checksum a
// measurement carries: FNV-1a (64 bits) over each total's 8 bytes, little
// endian, written as 16 hexadecimal digits. The zero value is ready.
type BenchChecksum struct {
	totals []uint64
}

// Add appends one launch's total: for fma and mma, the sum (mod 2^64) of
// every thread's 64-bit output; for mem_read, mem_write and mem_copy, the
// sum (mod 2^32) of the per-thread 32-bit sums mem_read left over the
// buffer read (for a write or a copy, the destination, read once after).
func (c *BenchChecksum) Add(total uint64) { c.totals = append(c.totals, total) }

// Launches is how many totals were added.
func (c *BenchChecksum) Launches() int { return len(c.totals) }

// String is the checksum.
func (c *BenchChecksum) String() string {
	h := fnv.New64a()
	var b [8]byte
	for _, t := range c.totals {
		binary.LittleEndian.PutUint64(b[:], t)
		_, _ = h.Write(b[:])
	}
	return fmt.Sprintf("%016x", h.Sum64())
}

// BenchThreadRound is what one thread's output of metric's arithmetic
// kernel gains per round under seeds (zero for a memory metric): the sum
// over its chains (accumulator elements for mma) of the integer each
// reaches at the end of the round.
func BenchThreadRound(metric BenchMetric, s BenchSeeds) int64 {
	chains := func(start int64, steps int64, n int64) int64 {
		// Chain j starts at start+j and ends the round steps higher.
		return n*start + n*(n-1)/2 + n*steps
	}
	switch metric {
	case MetricFP32:
		return chains(int64(s.FP32Start), benchFMASteps, benchFMAChains)
	case MetricFP16:
		return chains(int64(s.FP16Start[0]), benchFMASteps, benchFMAChains) + chains(int64(s.FP16Start[1]), benchFMASteps, benchFMAChains)
	case MetricTensorFP16:
		return benchMMAElements * chains(int64(s.TensorFP16Start), benchMMASteps, benchMMAChains)
	case MetricTensorBF16:
		return benchMMAElements * chains(int64(s.TensorBF16Start), benchMMASteps, benchMMAChains)
	}
	return 0
}

// BenchLaunchTotal is what the outputs of launch number rep (0 is the
// warm-up, at scale 1; the others at l.Scale) of metric's kernel add up
// to under seeds: the value BenchChecksum.Add is given for it.
func BenchLaunchTotal(metric BenchMetric, s BenchSeeds, l BenchLaunch, rep int) (uint64, error) {
	scale := l.Scale
	if rep == 0 {
		scale = 1
	}
	switch metric {
	case MetricFP32, MetricFP16, MetricTensorFP16, MetricTensorBF16:
		threads := uint64(l.Grid) * BenchBlockSize
		return threads * uint64(int64(scale)*BenchThreadRound(metric, s)), nil
	case MetricMemoryRead, MetricMemoryWrite, MetricMemoryCopy:
		if l.BufferBytes == nil {
			return 0, errors.New("a memory metric's launch has its buffer size")
		}
		words := uint32(uint64(*l.BufferBytes) / 16 * 4)
		switch metric {
		case MetricMemoryRead:
			return uint64(uint32(scale) * words * s.MemFill), nil
		case MetricMemoryWrite:
			// The destination is read once after the write.
			return uint64(words * s.BenchWriteValue(rep)), nil
		default:
			return uint64(words * s.MemFill), nil
		}
	}
	return 0, fmt.Errorf("%s is not measured by a kernel", metric)
}

// ExpectedBenchChecksum is the checksum of a measurement of metric under
// the nonce's seeds, launched as l, with repetitions timed repetitions
// after the warm-up.
func ExpectedBenchChecksum(metric BenchMetric, s BenchSeeds, l BenchLaunch, repetitions int) (string, error) {
	var c BenchChecksum
	for rep := 0; rep <= repetitions; rep++ {
		total, err := BenchLaunchTotal(metric, s, l, rep)
		if err != nil {
			return "", err
		}
		c.Add(total)
	}
	return c.String(), nil
}

// benchNonceKey carries a run's nonce to the GPU measurers.
type benchNonceKey struct{}

// WithBenchNonce returns ctx carrying the run's nonce: the suite passes it
// so to its GPU measurer, whose Measure takes no run.
func WithBenchNonce(ctx context.Context, nonce string) context.Context {
	return context.WithValue(ctx, benchNonceKey{}, nonce)
}

// BenchNonceFrom is the nonce WithBenchNonce put in ctx, or "".
func BenchNonceFrom(ctx context.Context) string {
	n, _ := ctx.Value(benchNonceKey{}).(string)
	return n
}
