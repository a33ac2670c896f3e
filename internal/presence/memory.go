package presence

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/gpunex/gpunex/internal/clock"
)

// sweepInterval is how often, by the store's clock, a Touch also deletes
// every expired entry, so that keys which never come back do not pile up.
// Sweeping from Touch instead of a timer keeps the store free of goroutines
// and lets an injected clock drive it.
const sweepInterval = time.Minute

// Memory is a [Store] held in this process, for tests and single-replica
// deployments.
type Memory struct {
	clock clock.Clock

	mu        sync.Mutex
	closed    bool
	entries   map[string]entry
	lastSweep time.Time
}

var _ Store = (*Memory)(nil)

type entry struct {
	value   []byte
	expires time.Time
}

func (e entry) liveAt(now time.Time) bool {
	return now.Before(e.expires)
}

// NewMemory returns an empty store that tells time by clk, so expiry is
// testable without sleeping; a nil clk means [clock.Real].
func NewMemory(clk clock.Clock) *Memory {
	if clk == nil {
		clk = clock.Real{}
	}
	return &Memory{
		clock:     clk,
		entries:   make(map[string]entry),
		lastSweep: clk.Now(),
	}
}

// Touch implements [Store.Touch]. It keeps a copy of value.
func (m *Memory) Touch(_ context.Context, key string, value []byte, ttl time.Duration) (bool, error) {
	if ttl <= 0 {
		return false, fmt.Errorf("presence: touch %q: ttl %s is not positive", key, ttl)
	}
	stored := append([]byte{}, value...)
	now := m.clock.Now()

	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return false, ErrClosed
	}
	old, ok := m.entries[key]
	m.entries[key] = entry{value: stored, expires: now.Add(ttl)}
	if now.Sub(m.lastSweep) >= sweepInterval {
		m.sweepLocked(now)
	}
	return !ok || !old.liveAt(now), nil
}

// Get implements [Store.Get]. The caller owns the returned slice.
func (m *Memory) Get(_ context.Context, key string) ([]byte, bool, error) {
	now := m.clock.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, false, ErrClosed
	}
	e, ok := m.live(key, now)
	if !ok {
		return nil, false, nil
	}
	return bytes.Clone(e.value), true, nil
}

// GetMany implements [Store.GetMany]. The caller owns the returned slices.
func (m *Memory) GetMany(_ context.Context, keys []string) (map[string][]byte, error) {
	now := m.clock.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrClosed
	}
	values := make(map[string][]byte, len(keys))
	for _, key := range keys {
		if e, ok := m.live(key, now); ok {
			values[key] = bytes.Clone(e.value)
		}
	}
	return values, nil
}

// Remove implements [Store.Remove].
func (m *Memory) Remove(_ context.Context, key string) (bool, error) {
	now := m.clock.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return false, ErrClosed
	}
	_, existed := m.live(key, now)
	delete(m.entries, key)
	return existed, nil
}

// Ping reports whether the store is still open.
func (m *Memory) Ping(context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	return nil
}

// Close forgets every entry. Closing twice is harmless.
func (m *Memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	m.entries = nil
	return nil
}

// live returns key's entry if it has not expired at now, deleting it if it
// has.
func (m *Memory) live(key string, now time.Time) (entry, bool) {
	e, ok := m.entries[key]
	if !ok {
		return entry{}, false
	}
	if !e.liveAt(now) {
		delete(m.entries, key)
		return entry{}, false
	}
	return e, true
}

func (m *Memory) sweepLocked(now time.Time) {
	for key, e := range m.entries {
		if !e.liveAt(now) {
			delete(m.entries, key)
		}
	}
	m.lastSweep = now
}
