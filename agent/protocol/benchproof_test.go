package protocol_test

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
)

// The seeds are a function of the nonce alone, differ between nonces, and
// stay where the kernels' arithmetic is exact.
func TestBenchSeedsAreTheNoncesAndStayInTheirRanges(t *testing.T) {
	t.Parallel()
	require.Equal(t, protocol.BenchSeedsFor("n"), protocol.BenchSeedsFor("n"))
	require.NotEqual(t, protocol.BenchSeedsFor("n"), protocol.BenchSeedsFor("m"))
	fp32 := map[int32]bool{}
	for i := range 5000 {
		s := protocol.BenchSeedsFor(fmt.Sprint(i))
		fp32[s.FP32Start] = true
		require.True(t, s.FP32Start >= 1 && s.FP32Start <= 1<<20)
		require.True(t, s.TensorFP16Start >= 1 && s.TensorFP16Start <= 1<<16)
		require.True(t, s.TensorBF16Start >= 1 && s.TensorBF16Start <= 1<<16)
		for _, h := range s.FP16Start {
			require.True(t, h >= -2048 && h <= -8, "%d", h)
		}
		require.Equal(t, uint32(1), s.MemFill&1)
		require.NotEqual(t, uint32(0xdeadbeef), s.MemFill)
		require.Equal(t, s.MemWrite+4, s.BenchWriteValue(2))
	}
	require.Greater(t, len(fp32), 4900, "5,000 nonces give almost as many starts")
}

// The checksum is FNV-1a over the launches' totals, warm-up first; the
// totals are threads × rounds × what a thread gains per round for the
// arithmetic kernels, words × value (× passes for a read) mod 2^32 for the
// memory ones.
func TestExpectedBenchChecksumFoldsEachLaunchsTotal(t *testing.T) {
	t.Parallel()
	s := protocol.BenchSeeds{FP32Start: 5, FP16Start: [2]int16{-100, -200}, TensorFP16Start: 3, TensorBF16Start: 4, MemFill: 7, MemWrite: 9}
	fnv64 := func(totals ...uint64) string {
		h := fnv.New64a()
		for _, v := range totals {
			_ = binary.Write(h, binary.LittleEndian, v)
		}
		return fmt.Sprintf("%016x", h.Sum64())
	}
	perRound := int64(8*5 + 28 + 8*2048)
	require.Equal(t, perRound, protocol.BenchThreadRound(protocol.MetricFP32, s))
	require.Equal(t, int64(8*-100+28+8*2048)+int64(8*-200+28+8*2048), protocol.BenchThreadRound(protocol.MetricFP16, s))
	require.Equal(t, int64(4*(8*3+28+8*4096)), protocol.BenchThreadRound(protocol.MetricTensorFP16, s))
	require.Zero(t, protocol.BenchThreadRound(protocol.MetricMemoryRead, s))

	threads := uint64(2 * 256)
	got, err := protocol.ExpectedBenchChecksum(protocol.MetricFP32, s, protocol.BenchLaunch{SmCount: 1, Grid: 2, Scale: 3}, 2)
	require.NoError(t, err)
	require.Equal(t, fnv64(threads*uint64(perRound), threads*3*uint64(perRound), threads*3*uint64(perRound)), got)

	bytes := 64.0 // 16 words
	mem := protocol.BenchLaunch{SmCount: 1, Grid: 1, Scale: 5, BufferBytes: &bytes}
	for _, tc := range []struct {
		metric protocol.BenchMetric
		want   string
	}{
		{protocol.MetricMemoryRead, fnv64(16*7, 5*16*7)},
		{protocol.MetricMemoryWrite, fnv64(16*9, 16*11)},
		{protocol.MetricMemoryCopy, fnv64(16*7, 16*7)},
	} {
		got, err := protocol.ExpectedBenchChecksum(tc.metric, s, mem, 1)
		require.NoError(t, err)
		require.Equal(t, tc.want, got, tc.metric)
	}
	_, err = protocol.ExpectedBenchChecksum(protocol.MetricMemoryRead, s, protocol.BenchLaunch{Grid: 1, Scale: 1}, 1)
	require.ErrorContains(t, err, "buffer size")
	_, err = protocol.ExpectedBenchChecksum(protocol.MetricStorageRead, s, mem, 1)
	require.Error(t, err)

	var c protocol.BenchChecksum
	c.Add(1)
	c.Add(2)
	require.Equal(t, 2, c.Launches())
	require.Equal(t, fnv64(1, 2), c.String())
}
