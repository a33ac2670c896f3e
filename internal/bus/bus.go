package bus

import (
	"context"
	"errors"
)

// Message is one event delivered on a channel.
type Message struct {
	// Channel is the name the message was published on, without any
	// backend prefix.
	Channel string
	// Payload is the published data. It is shared by every subscriber of
	// the channel, so receivers must treat it as read-only.
	Payload []byte
}

// Bus publishes events on named channels and delivers them to every
// subscriber of that channel, in this process and (for Redis) in every other
// process.
type Bus interface {
	// Publish sends payload to every current subscriber of channel. It
	// never waits for subscribers to read.
	Publish(ctx context.Context, channel string, payload []byte) error
	// Subscribe delivers, in publish order, every message published on
	// channel after Subscribe returns, until ctx ends; then the returned
	// channel is closed and every resource is released. If the subscriber
	// falls too far behind (buffer of 256 full), its channel is closed
	// early so the consumer can resynchronise (it must treat an early close
	// as "lost events").
	Subscribe(ctx context.Context, channel string) (<-chan Message, error)
	// Ping reports whether the backend is reachable (used by /readyz).
	Ping(ctx context.Context) error
	// Close stops the bus and closes every subscription.
	Close() error
}

// ErrClosed is returned by every method of a bus that has been closed,
// except Close itself, which may be called again safely.
var ErrClosed = errors.New("bus: closed")
