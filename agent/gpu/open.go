package gpu

import (
	"context"
	"errors"
	"fmt"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/gpunex/gpunex/internal/clock"
)

// Option tunes a detector built by Open, NewNVML or NewSimulator.
type Option func(*options)

type options struct {
	seed  string
	clock clock.Clock
}

// DefaultSeed is the simulated-UUID seed used when WithSeed is not given.
const DefaultSeed = "gpunex-simulated"

// WithSeed sets what simulated GPU UUIDs are derived from; pass the
// machine id so the same machine keeps the same GPUs across restarts while
// two simulated machines never share one.
func WithSeed(seed string) Option {
	return func(o *options) { o.seed = seed }
}

// WithClock sets the clock that stamps samples and, in simulation, drives
// how telemetry moves. The default is the system clock.
func WithClock(c clock.Clock) Option {
	return func(o *options) { o.clock = c }
}

func newOptions(opts []Option) options {
	o := options{seed: DefaultSeed, clock: clock.Real{}}
	for _, opt := range opts {
		opt(&o)
	}
	if o.clock == nil {
		o.clock = clock.Real{}
	}
	if o.seed == "" {
		o.seed = DefaultSeed
	}
	return o
}

// Open returns the detector the agent runs with: a Simulator when spec (the
// --simulate flag) is not empty, else NVML over lib.
//
// A bad spec is an error and no detector. When NVML cannot start, Open
// returns the error (it wraps ErrNoNVML and names the fix) together with an
// Unavailable detector that repeats it: a caller that must have GPUs exits
// with the error, one that keeps running to tell the server why it has none
// uses the detector.
//
// To mark simulated GPUs busy while jobs run, type-assert the result to
// *Simulator.
func Open(spec string, lib nvml.Interface, opts ...Option) (Detector, error) {
	if spec != "" {
		s, err := ParseSimSpec(spec)
		if err != nil {
			return nil, err
		}
		return NewSimulator(s, opts...), nil
	}
	n, err := NewNVML(lib, opts...)
	if err != nil {
		return Unavailable{Err: err}, err
	}
	return n, nil
}

// Unavailable is the null Detector for a host whose GPUs cannot be read:
// every call returns Err. It lets the agent stay up and report the reason
// instead of crashing in a restart loop.
type Unavailable struct {
	// Err says why and what to do; it should wrap ErrNoNVML.
	Err error
}

var _ Detector = Unavailable{}

// Inventory returns the reason there are no GPUs.
func (u Unavailable) Inventory(context.Context) ([]Device, error) { return nil, u.err() }

// Telemetry returns the reason there are no GPUs.
func (u Unavailable) Telemetry(context.Context) ([]Sample, error) { return nil, u.err() }

// Close does nothing.
func (Unavailable) Close() error { return nil }

func (u Unavailable) err() error {
	if u.Err == nil {
		return fmt.Errorf("%w: reason unknown", ErrNoNVML)
	}
	return u.Err
}

// IsUnavailable reports whether err means the host's GPUs cannot be read at
// all (as opposed to one GPU or one field failing).
func IsUnavailable(err error) bool { return errors.Is(err, ErrNoNVML) }
