package presence

import (
	"context"
	"errors"
	"time"
)

// Store remembers which keys (for example machine ids) are present, each
// with a value (latest telemetry) and a time to live.
type Store interface {
	// Touch sets key to value with ttl and reports whether the key was
	// absent before (a transition to present). Of several Touch calls
	// racing on an absent key, exactly one reports appeared.
	Touch(ctx context.Context, key string, value []byte, ttl time.Duration) (appeared bool, err error)
	// Get returns the value of key and whether the key is present.
	Get(ctx context.Context, key string) (value []byte, ok bool, err error)
	// GetMany returns the values of the present keys among keys (absent
	// keys are missing from the map).
	GetMany(ctx context.Context, keys []string) (map[string][]byte, error)
	// Remove deletes key and reports whether it was present.
	Remove(ctx context.Context, key string) (existed bool, err error)
	// Ping reports whether the backend is reachable (used by /readyz).
	Ping(ctx context.Context) error
	// Close releases the store; every later call but Close fails.
	Close() error
}

// ErrClosed is returned by every method of a store that has been closed,
// except Close itself, which may be called again safely.
var ErrClosed = errors.New("presence: closed")
