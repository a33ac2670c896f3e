package gpu

import "github.com/gpunex/gpunex/internal/clock"

// Option tunes a detector: the Simulator here, or the NVML detector in
// nvmldetect.
type Option func(*Options)

// Options is what the Option functions set. A detector built in another
// package (nvmldetect) reads its settings with NewOptions.
type Options struct {
	// Seed is what simulated GPU UUIDs are derived from.
	Seed string
	// Clock stamps samples and, in simulation, drives how telemetry moves.
	Clock clock.Clock
}

// DefaultSeed is the simulated-UUID seed used when WithSeed is not given.
const DefaultSeed = "gpunex-simulated"

// WithSeed sets what simulated GPU UUIDs are derived from; pass the
// machine id so the same machine keeps the same GPUs across restarts while
// two simulated machines never share one.
func WithSeed(seed string) Option {
	return func(o *Options) { o.Seed = seed }
}

// WithClock sets the clock that stamps samples and, in simulation, drives
// how telemetry moves. The default is the system clock.
func WithClock(c clock.Clock) Option {
	return func(o *Options) { o.Clock = c }
}

// NewOptions applies opts over the defaults (DefaultSeed, the system
// clock); an empty seed or a nil clock keeps the default.
func NewOptions(opts ...Option) Options {
	o := Options{Seed: DefaultSeed, Clock: clock.Real{}}
	for _, opt := range opts {
		opt(&o)
	}
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.Seed == "" {
		o.Seed = DefaultSeed
	}
	return o
}
