package cuda

/*
#include "shim.h"
*/
import "C"

import (
	"context"
	"fmt"

	"github.com/gpunex/gpunex/agent/protocol"
)

// bench is one metric's kernel: set up once, then launched at a scale
// (rounds or passes; the warm-up runs at 1) once per repetition, each
// launch verified before its figure counts.
type bench interface {
	// setup allocates what the launches need.
	setup(ctx context.Context, s *session) error
	// run prepares repetition rep (0 is the warm-up), launches it timed at
	// scale and returns its seconds on the GPU.
	run(ctx context.Context, s *session, scale, rep int) (float64, error)
	// verify checks repetition rep's result on the host and returns the
	// total of the outputs it checked (protocol.BenchChecksum.Add's).
	verify(ctx context.Context, s *session, scale, rep int) (uint64, error)
	// launch is the shape of the launches, scale aside: the grid, and the
	// buffers' size for a memory bench.
	launch(s *session) protocol.BenchLaunch
	// work is what a launch at scale does: flops, or bytes moved.
	work(scale int) float64
	// unit is the figure's unit in work per second (1e12: TFLOPS, 1e9: GB/s).
	unit() float64
	// teardown frees what setup allocated.
	teardown(s *session) error
}

// verifyError is a verification failure of the session's metric.
func verifyError(s *session, k kernel, rep int, format string, args ...any) error {
	return &Error{Name: NameVerifyFailed, Call: k.name, Metric: s.metric,
		Detail: fmt.Sprintf("repetition %d: ", rep) + fmt.Sprintf(format, args...)}
}

// poison fills output buffers before a launch, so a launch that did not run
// cannot leave the expected values behind.
const poison = 0xdeadbeef

// arith is an FMA or mma kernel: every thread runs rounds of dependent
// chains whose exact result it adds into its 64-bit slot of out.
type arith struct {
	k kernel
	// args are the kernel's parameters after out, without rounds.
	args []any
	// perThread is what one thread's slot holds after one round.
	perThread int64
	// flopsPerThread is one thread's flops in one round.
	flopsPerThread float64

	grid    int
	out     C.gpx_dptr
	results []int64
}

// newFMA is the FP32 (f16 false) or half2 (f16 true) FMA throughput
// bench. Each chain j starts at start+j and gains 1 (x·1 + 1) per FMA,
// fmaUnroll·n times a round, then steps back; every value is an integer
// well inside the format's exact range (±2048 for half). The starts come
// from the run's seeds (protocol.BenchSeeds keeps them in range); the two
// halves of a half2 chain start apart.
func newFMA(f16 bool, seeds protocol.BenchSeeds) *arith {
	const n = 256
	steps := float32(fmaUnroll * n)
	chains := func(start int64) int64 {
		return fmaChains*start + fmaChains*(fmaChains-1)/2 + fmaChains*int64(steps)
	}
	if !f16 {
		start := int64(seeds.FP32Start)
		return &arith{k: kernelFMAF32,
			args:           []any{float32(start), float32(1), float32(1), -steps, uint32(n)},
			perThread:      chains(start),
			flopsPerThread: 2 * fmaChains * float64(steps),
		}
	}
	lo, hi := int64(seeds.FP16Start[0]), int64(seeds.FP16Start[1])
	return &arith{k: kernelFMAF16x2,
		args: []any{halves(half(float32(lo)), half(float32(hi))), pair(half(1)), pair(half(1)), pair(half(-steps)), uint32(n)},
		// Two lanes per chain.
		perThread:      chains(lo) + chains(hi),
		flopsPerThread: 4 * fmaChains * float64(steps),
	}
}

// newMMA is the tensor-core bench, FP16 or BF16 inputs. Every A element is
// 0.5 and every B element 2, so an m16n8k16 adds 16 to every accumulator
// element whatever the fragment layout (and a kernel that ignored A or B
// would not); accumulator j starts at start+j, start from the run's seeds.
func newMMA(bf16 bool, seeds protocol.BenchSeeds) *arith {
	const n = 64
	start := int64(seeds.TensorFP16Start)
	steps := int64(16 * mmaUnroll * n)
	k, a, b := kernelMMAF16, pair(half(0.5)), pair(half(2))
	if bf16 {
		k, a, b = kernelMMABF16, pair(bfloat16(0.5)), pair(bfloat16(2))
		start = int64(seeds.TensorBF16Start)
	}
	return &arith{k: k,
		args: []any{a, b, float32(start), float32(1), float32(-steps), uint32(n)},
		// Each thread holds four elements of every accumulator.
		perThread:      4 * (mmaChains*start + mmaChains*(mmaChains-1)/2 + mmaChains*steps),
		flopsPerThread: mmaChains * mmaUnroll * n * mmaFlops / warpSize,
	}
}

func (a *arith) setup(_ context.Context, s *session) error {
	var err error
	if a.grid, err = s.grid(a.k); err != nil {
		return err
	}
	threads := a.grid * blockSize
	a.results = make([]int64, threads)
	a.out, err = s.alloc(int64(8 * threads))
	return err
}

func (a *arith) run(ctx context.Context, s *session, scale, _ int) (float64, error) {
	if err := s.memset(a.out, poison, int64(2*len(a.results))); err != nil {
		return 0, err
	}
	args := append([]any{uint64(a.out)}, a.args...)
	return s.timed(ctx, a.k, a.grid, append(args, uint32(scale))...)
}

func (a *arith) verify(_ context.Context, s *session, scale, rep int) (uint64, error) {
	if err := s.copyOut64(a.results, a.out); err != nil {
		return 0, err
	}
	want := int64(scale) * a.perThread
	var total uint64
	for t, got := range a.results {
		if got != want {
			return 0, verifyError(s, a.k, rep, "thread %d of %d summed %d, the host expects %d", t, len(a.results), got, want)
		}
		total += uint64(got)
	}
	return total, nil
}

func (a *arith) launch(s *session) protocol.BenchLaunch {
	return protocol.BenchLaunch{SmCount: s.sms, Grid: a.grid}
}

func (a *arith) work(scale int) float64 {
	return float64(a.grid*blockSize) * float64(scale) * a.flopsPerThread
}

func (a *arith) unit() float64 { return 1e12 }

func (a *arith) teardown(s *session) error { return s.free(a.out) }

// The values the memory benches fill and write are the run's seeds
// (protocol.BenchSeeds.MemFill and BenchWriteValue): odd, so that a total
// over the buffer (mod 2^32) changes whenever any number of words below
// 2^32 is missing or stale.

// memory is the device memory the three memory benches share: src filled
// with the seeds' MemFill, dst, and the checksum kernel's per-thread sums.
type memory struct {
	bytes    int64
	src, dst C.gpx_dptr
	grid     int
	out      C.gpx_dptr
	sums     []uint32
}

// vectors is the buffers' length in 16-byte vectors.
func (m *memory) vectors() uint64 { return uint64(m.bytes / 16) }

// buffers allocates the memory on first use.
func (s *session) buffers(cfg int64) (*memory, error) {
	if s.mem != nil {
		return s.mem, nil
	}
	free, err := s.freeMemory()
	if err != nil {
		return nil, err
	}
	m := &memory{bytes: memoryBytes(cfg, s.l2Bytes, free)}
	if m.bytes < 16 {
		return nil, &Error{Name: "CUDA_ERROR_OUT_OF_MEMORY", Call: "cuMemGetInfo_v2", Metric: s.metric,
			Detail: fmt.Sprintf("%d bytes free leave no room for the memory buffers", free)}
	}
	if m.grid, err = s.grid(kernelMemRead); err != nil {
		return nil, err
	}
	m.sums = make([]uint32, m.grid*blockSize)
	if m.out, err = s.alloc(int64(4 * len(m.sums))); err != nil {
		return nil, err
	}
	if m.src, err = s.alloc(m.bytes); err != nil {
		return nil, err
	}
	if m.dst, err = s.alloc(m.bytes); err != nil {
		return nil, err
	}
	if err := s.memset(m.src, s.seeds.MemFill, m.bytes/4); err != nil {
		return nil, err
	}
	s.mem = m
	return m, nil
}

// checksum compares the total of mem_read's per-thread sums in m.out with
// every word of the buffer being value, passes times, and returns it. With
// p set it first runs mem_read once over p (untimed); with p zero it
// checks the sums the timed read left.
func (s *session) checksum(ctx context.Context, m *memory, p C.gpx_dptr, passes int, value uint32, what kernel, rep int) (uint64, error) {
	if p != 0 {
		if err := s.memset(m.out, poison, int64(len(m.sums))); err != nil {
			return 0, err
		}
		if err := s.launch(ctx, kernelMemRead, m.grid, uint64(m.out), uint64(p), m.vectors(), uint32(passes)); err != nil {
			return 0, err
		}
	}
	if err := s.copyOut32(m.sums, m.out); err != nil {
		return 0, err
	}
	var got uint32
	for _, v := range m.sums {
		got += v
	}
	want := uint32(passes) * uint32(4*m.vectors()) * value
	if got != want {
		return 0, verifyError(s, what, rep, "the buffer's checksum is %#x, the host expects %#x (%d words of %#x, %d passes)", got, want, 4*m.vectors(), value, passes)
	}
	return uint64(got), nil
}

// memBench is the read, write or copy bandwidth bench; the scale is the
// number of passes over the buffer.
type memBench struct {
	k   kernel
	cfg int64
	m   *memory
}

func (b *memBench) setup(_ context.Context, s *session) error {
	var err error
	b.m, err = s.buffers(b.cfg)
	return err
}

func (b *memBench) run(ctx context.Context, s *session, scale, rep int) (float64, error) {
	m := b.m
	switch b.k.name {
	case kernelMemRead.name:
		if err := s.memset(m.out, poison, int64(len(m.sums))); err != nil {
			return 0, err
		}
		return s.timed(ctx, b.k, m.grid, uint64(m.out), uint64(m.src), m.vectors(), uint32(scale))
	case kernelMemWrite.name:
		return s.timed(ctx, b.k, m.grid, uint64(m.dst), m.vectors(), s.seeds.BenchWriteValue(rep), uint32(scale))
	default:
		if err := s.memset(m.dst, poison, m.bytes/4); err != nil {
			return 0, err
		}
		return s.timed(ctx, b.k, m.grid, uint64(m.dst), uint64(m.src), m.vectors(), uint32(scale))
	}
}

func (b *memBench) verify(ctx context.Context, s *session, scale, rep int) (uint64, error) {
	m := b.m
	switch b.k.name {
	case kernelMemRead.name:
		// The timed launch left its sums in out.
		return s.checksum(ctx, m, 0, scale, s.seeds.MemFill, b.k, rep)
	case kernelMemWrite.name:
		// Each repetition writes a new value (BenchWriteValue), so one that
		// wrote nothing leaves the previous one's behind.
		return s.checksum(ctx, m, m.dst, 1, s.seeds.BenchWriteValue(rep), b.k, rep)
	default:
		return s.checksum(ctx, m, m.dst, 1, s.seeds.MemFill, b.k, rep)
	}
}

func (b *memBench) launch(s *session) protocol.BenchLaunch {
	bytes := float64(b.m.bytes)
	return protocol.BenchLaunch{SmCount: s.sms, Grid: b.m.grid, BufferBytes: &bytes}
}

func (b *memBench) work(scale int) float64 {
	bytes := float64(scale) * float64(b.m.bytes)
	if b.k.name == kernelMemCopy.name {
		return 2 * bytes
	}
	return bytes
}

func (b *memBench) unit() float64 { return 1e9 }

// teardown leaves the shared buffers to the session's close.
func (b *memBench) teardown(*session) error { return nil }
