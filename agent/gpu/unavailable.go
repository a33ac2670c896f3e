package gpu

import (
	"context"
	"errors"
	"fmt"
)

// ErrNoNVML is wrapped by every error that means this host's GPUs cannot be
// read at all: no NVIDIA driver, no permission, a driver mismatch. The
// wrapping error says what to do about it.
var ErrNoNVML = errors.New("gpu: NVIDIA GPUs cannot be read on this host")

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
