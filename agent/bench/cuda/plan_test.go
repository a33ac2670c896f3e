package cuda

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
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

func TestTheArithmeticStaysExact(t *testing.T) {
	t.Parallel()
	// A half chain's largest value (start + 7 + steps) is an integer within
	// ±2048, where binary16 is exact; FP32 and mma values stay below 2^24.
	f16 := newFMA(true)
	require.LessOrEqual(t, int64(-1024+7+fmaUnroll*256), int64(2048))
	require.Less(t, int64(1+7+16*mmaUnroll*64), int64(1<<24))
	require.Equal(t, 2*(8*-1024+28+8*2048), int(f16.perThread))
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
