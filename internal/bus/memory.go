package bus

import (
	"bytes"
	"context"
	"fmt"
	"sync"
)

// Memory is a [Bus] that delivers within one process. It starts no
// goroutine: Publish hands messages to subscribers directly.
type Memory struct {
	mu     sync.Mutex
	closed bool
	topics topics
}

var _ Bus = (*Memory)(nil)

// NewMemory returns an empty in-process bus.
func NewMemory() *Memory {
	return &Memory{topics: make(topics)}
}

// Publish delivers a copy of payload to every current subscriber of
// channel, so the caller may reuse payload afterwards.
func (m *Memory) Publish(ctx context.Context, channel string, payload []byte) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("bus: publish %q: %w", channel, err)
	}
	msg := Message{Channel: channel, Payload: bytes.Clone(payload)}

	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	m.topics.deliver(msg)
	return nil
}

// Subscribe implements [Bus.Subscribe].
func (m *Memory) Subscribe(ctx context.Context, channel string) (<-chan Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("bus: subscribe %q: %w", channel, err)
	}
	s := newSubscriber()

	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrClosed
	}
	m.topics.add(channel, s)
	s.stop = context.AfterFunc(ctx, func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		m.topics.remove(channel, s)
	})
	return s.ch, nil
}

// Ping reports whether the bus is still open.
func (m *Memory) Ping(context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	return nil
}

// Close closes every subscription. Closing twice is harmless.
func (m *Memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil
	}
	m.closed = true
	m.topics.closeAll()
	return nil
}
