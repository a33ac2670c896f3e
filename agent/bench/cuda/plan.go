package cuda

import (
	"slices"
	"time"

	"github.com/gpunex/gpunex/agent/protocol"
)

// The length of one timed launch: long enough that launch overhead and
// event resolution do not matter, short enough that five fit in a small
// share of the budget.
const (
	maxLaunch = 50 * time.Millisecond
	minLaunch = 10 * time.Millisecond
	// maxScale bounds rounds and passes (32-bit kernel parameters).
	maxScale = 1 << 20
)

// plan sizes a metric's timed launches from its share of the budget and
// the warm-up, which ran at scale 1 and took warm: the scale (rounds or
// passes) that makes a launch about maxLaunch, and at most reps
// repetitions. When the share is small the repetitions shrink first (to
// launches of minLaunch), then the launches (down to the warm-up's size);
// at least one repetition always runs.
func plan(share, warm time.Duration, reps int) (scale, n int) {
	warm = max(warm, time.Microsecond)
	avail := share - warm
	if avail <= 0 {
		return 1, 1
	}
	n = reps
	target := min(maxLaunch, avail/time.Duration(n))
	if target < minLaunch {
		n = min(reps, max(1, int(avail/minLaunch)))
		target = min(minLaunch, avail/time.Duration(n))
	}
	return min(maxScale, max(1, int(target/warm))), n
}

// memoryBytes is the size of each memory buffer: cfg if set, otherwise
// max(8×L2, 512 MiB) capped so that two buffers take at most a quarter of
// free. It is a multiple of 64 KiB (a whole number of 16-byte vectors).
func memoryBytes(cfg, l2, free int64) int64 {
	b := cfg
	if b <= 0 {
		b = min(max(8*l2, 512<<20), free/8)
	}
	if b >= 64<<10 {
		return b &^ (64<<10 - 1)
	}
	return b &^ 15
}

// summarize is a metric's measurement from its repetitions' figures.
func summarize(metric protocol.BenchMetric, figures []float64) protocol.BenchMeasurement {
	s := slices.Clone(figures)
	slices.Sort(s)
	median := s[len(s)/2]
	if len(s)%2 == 0 {
		median = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	lo, hi := s[0], s[len(s)-1]
	return protocol.BenchMeasurement{Metric: metric, Supported: true, Median: &median, Min: &lo, Max: &hi, Repetitions: len(s)}
}
