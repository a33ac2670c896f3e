package cuda

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
)

func TestPlanSizesLaunchesToTheShare(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	for _, tc := range []struct {
		desc        string
		share, warm time.Duration
		scale, reps int
	}{
		{"a generous share: five launches of 50 ms", 7 * time.Second, ms, 50, 5},
		{"a share for five launches of 20 ms", 101 * ms, ms, 20, 5},
		{"a small share: fewer launches of 10 ms", 31 * ms, ms, 10, 3},
		{"a tiny share: one launch of what is left", 5 * ms, ms, 4, 1},
		{"a share below the warm-up: one launch at its size", 2 * ms, 3 * ms, 1, 1},
		{"a warm-up longer than a launch: scale 1", 7 * time.Second, 80 * ms, 1, 5},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			scale, reps := plan(tc.share, tc.warm, 5)
			require.Equal(t, tc.scale, scale)
			require.Equal(t, tc.reps, reps)
		})
	}
}

func TestMemoryBytesIsMuchLargerThanL2AndFitsFreeMemory(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		desc          string
		cfg, l2, free int64
		want          int64
	}{
		{"512 MiB when 8×L2 is less", 0, 50 << 20, 80 << 30, 512 << 20},
		{"8×L2 when it is more", 0, 96 << 20, 80 << 30, 768 << 20},
		{"capped at an eighth of free memory (two buffers, a quarter)", 0, 6 << 20, 2 << 30, 256 << 20},
		{"the configured size, in whole vectors", 1<<20 + 7, 96 << 20, 80 << 30, 1 << 20},
		{"a small configured size stays in 16-byte vectors", 1000, 0, 0, 992},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, memoryBytes(tc.cfg, tc.l2, tc.free))
		})
	}
}

func TestSummarizeTakesTheMedian(t *testing.T) {
	t.Parallel()
	m := summarize("X", []float64{3, 1, 2, 10})
	require.InDelta(t, 2.5, *m.Median, 0)
	require.InDelta(t, 1.0, *m.Min, 0)
	require.InDelta(t, 10.0, *m.Max, 0)
	require.Equal(t, 4, m.Repetitions)
	require.True(t, m.Supported)
}

func TestFormatUUIDIsNVMLs(t *testing.T) {
	t.Parallel()
	b := [16]byte{0x01, 0x23, 0xab, 0xcd, 0x45, 0x67, 0x89, 0xef, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef}
	require.Equal(t, "GPU-0123abcd-4567-89ef-0123-456789abcdef", formatUUID(b))
}

func TestHalfAndBFloat16EncodeTheKernelsOperands(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		v    float32
		half uint16
	}{{1, 0x3c00}, {0.5, 0x3800}, {2, 0x4000}, {-1024, 0xe400}, {-2048, 0xe800}, {0, 0}} {
		require.Equal(t, tc.half, half(tc.v), "%g", tc.v)
	}
	require.Equal(t, uint16(0x3f00), bfloat16(0.5))
	require.Equal(t, uint16(0x4000), bfloat16(2))
	require.Panics(t, func() { half(1.0 / 3) })
	require.Panics(t, func() { half(65536) })
	require.Equal(t, uint32(0x3c003c00), pair(0x3c00))
}

// Whatever the run's nonce, every value the kernels compute stays exact:
// a half chain's largest value (start + 7 + steps) is an integer within
// ±2048, where binary16 is exact, and FP32 and mma values stay far below
// 2^24. And what one thread gains per round is what the server expects
// (protocol.BenchThreadRound), so the kernels' constants here and the
// checksum's there cannot drift apart.
func TestTheArithmeticStaysExactAndAgreesWithTheProtocol(t *testing.T) {
	t.Parallel()
	for i := range 2000 {
		seeds := protocol.BenchSeedsFor(fmt.Sprintf("nonce-%d", i))
		for _, lane := range seeds.FP16Start {
			require.GreaterOrEqual(t, int64(lane), int64(-2048))
			require.LessOrEqual(t, int64(lane)+7+fmaUnroll*256, int64(2048))
		}
		require.Positive(t, seeds.FP32Start)
		require.Less(t, int64(seeds.FP32Start)+7+fmaUnroll*256, int64(1<<24))
		for _, start := range []int32{seeds.TensorFP16Start, seeds.TensorBF16Start} {
			require.Positive(t, start)
			require.Less(t, int64(start)+7+16*mmaUnroll*64, int64(1<<17))
		}
		require.NotEqual(t, uint32(poison), seeds.MemFill)
		require.Equal(t, uint32(1), seeds.MemFill&1)
		require.Equal(t, uint32(1), seeds.MemWrite&1)
		for metric, a := range map[protocol.BenchMetric]*arith{
			protocol.MetricFP32: newFMA(false, seeds), protocol.MetricFP16: newFMA(true, seeds),
			protocol.MetricTensorFP16: newMMA(false, seeds), protocol.MetricTensorBF16: newMMA(true, seeds),
		} {
			require.Equal(t, protocol.BenchThreadRound(metric, seeds), a.perThread, "%s, nonce %d", metric, i)
		}
	}
	require.Equal(t, blockSize, protocol.BenchBlockSize)
	f16 := newFMA(true, protocol.BenchSeeds{FP16Start: [2]int16{-1024, -2048}})
	require.Equal(t, (8*-1024+28+8*2048)+(8*-2048+28+8*2048), int(f16.perThread))
	require.Equal(t, uint32(0xe800e400), f16.args[0], "the low half starts at -1024, the high one at -2048")
}

func TestEncodeRefusesArgumentsThatDoNotMatchThePTX(t *testing.T) {
	t.Parallel()
	_, err := kernelMemRead.encode(uint64(1), uint64(2), uint64(3))
	require.ErrorContains(t, err, "takes 4 parameters")
	_, err = kernelMemRead.encode(uint64(1), uint64(2), uint32(3), uint32(4))
	require.ErrorContains(t, err, "parameter 2 is .u64")
	b, err := kernelFMAF32.encode(uint64(1), float32(1), float32(1), float32(1), float32(-1), uint32(2), uint32(3))
	require.NoError(t, err)
	require.Equal(t, []int{0, 8, 12, 16, 20, 24, 28}, b.offsets)
	require.Len(t, b.data, 32)
}
