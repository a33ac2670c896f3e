package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultPrefix is a GPUnex deployment's namespace on a Redis server that
// other software may share: the bus puts its channels directly under it,
// and presence its keys under DefaultPrefix + "presence:". It is the one
// definition of the default; --redis-prefix replaces it.
const DefaultPrefix = "gpunex:"

const (
	// confirmTimeout bounds how long Subscribe waits for Redis to
	// acknowledge a subscription.
	confirmTimeout = 10 * time.Second
	// healthInterval is how long the pub/sub connection may stay silent
	// before the receive loop pings Redis, so that a dead connection fails a
	// write and is replaced.
	healthInterval = 30 * time.Second
	// minBackoff and maxBackoff bound the pause between reconnection
	// attempts while Redis is unreachable.
	minBackoff = 50 * time.Millisecond
	maxBackoff = 2 * time.Second
)

// Redis is a [Bus] backed by Redis pub/sub, shared by every replica that
// talks to the same Redis server.
//
// It holds one pub/sub connection for all of its subscriptions: a Redis
// channel is subscribed when its first local subscriber arrives and
// unsubscribed when the last one leaves. One goroutine reads that
// connection and fans messages out; Close stops it. When the connection
// breaks, whatever was published until it is replaced is lost, so every
// local subscription ends early, as [Bus.Subscribe] promises for lost
// events: its consumer reloads and subscribes again (bus.Listen and Shared
// do). go-redis dials again, the loop backing off between attempts, and
// subscribes anew the channels it held; those nobody subscribed again by
// the time the new connection answers are then released. A connection that
// dies silently is noticed by the health ping after [healthInterval] of
// silence, or by TCP keepalive.
type Redis struct {
	client *redis.Client
	logger *slog.Logger
	prefix string
	pubsub *redis.PubSub

	life   context.Context // ends when Close is called
	stop   context.CancelFunc
	done   chan struct{} // closed when the receive loop has returned
	wake   chan struct{} // nudges an idle receive loop when a channel is subscribed
	tokens atomic.Uint64 // numbers the pings that confirm subscriptions

	mu     sync.Mutex
	closed bool
	topics topics
	// pongs holds one channel per confirmation ping in flight, keyed by
	// the ping's payload; the receive loop closes it when Redis answers.
	pongs map[string]chan struct{}
	// lost is closed, and replaced, whenever the connection breaks, telling
	// waiting confirmations that their ping may never be answered.
	lost chan struct{}
	// down is the error that broke the connection, nil while it is healthy.
	down error
	// confirmed are the channels whose SUBSCRIBE Redis has acknowledged on
	// the current connection: a later local subscriber of one needs no
	// round trip. conn numbers the connections; a loss clears confirmed.
	confirmed map[string]bool
	conn      uint64
	// orphans are the channels whose subscribers a loss ended: go-redis
	// subscribes them again on its next connection, and once that answers,
	// those still without a local subscriber are unsubscribed.
	orphans map[string]struct{}
}

var _ Bus = (*Redis)(nil)

// RedisOption adjusts a [Redis] bus built by [NewRedis].
type RedisOption func(*Redis)

// WithPrefix replaces the [DefaultPrefix] put in front of every channel
// name on the Redis server. Only buses with the same prefix see each
// other's events; tests use a random one so that runs sharing a server stay
// apart.
func WithPrefix(prefix string) RedisOption {
	return func(b *Redis) {
		b.prefix = prefix
	}
}

// NewRedis returns a bus that publishes through client and starts the
// goroutine that receives its subscriptions. The client stays the caller's:
// Close does not close it. A nil logger discards the reconnection log.
func NewRedis(client *redis.Client, logger *slog.Logger, opts ...RedisOption) *Redis {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	life, stop := context.WithCancel(context.Background())
	b := &Redis{
		client: client,
		logger: logger,
		prefix: DefaultPrefix,
		// Without channels go-redis does not connect yet; the first
		// Subscribe does.
		pubsub: client.Subscribe(life),
		life:   life,
		stop:   stop,
		done:   make(chan struct{}),
		wake:   make(chan struct{}, 1),
		topics: make(topics),
		pongs:  make(map[string]chan struct{}),
		lost:   make(chan struct{}),

		confirmed: make(map[string]bool),
		orphans:   make(map[string]struct{}),
	}
	for _, opt := range opts {
		opt(b)
	}
	go b.receive()
	return b
}

// Publish sends payload to every subscriber of channel in every process
// using the same Redis server and prefix.
func (b *Redis) Publish(ctx context.Context, channel string, payload []byte) error {
	if b.life.Err() != nil {
		return ErrClosed
	}
	if err := b.client.Publish(ctx, b.prefix+channel, payload).Err(); err != nil {
		return fmt.Errorf("bus: publish %q: %w", channel, err)
	}
	return nil
}

// Subscribe implements [Bus.Subscribe]. It returns once Redis has
// acknowledged the subscription, so a message published by any process
// after Subscribe returns is delivered. It fails when Redis is unreachable.
// A channel this bus already follows, acknowledged on the current
// connection, costs no round trip: a thousand dashboards on one channel
// send one SUBSCRIBE and one PING between them.
func (b *Redis) Subscribe(ctx context.Context, channel string) (<-chan Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("bus: subscribe %q: %w", channel, err)
	}
	s := newSubscriber()
	confirmed, err := b.register(ctx, channel, s)
	if err == nil && !confirmed {
		var conn uint64
		if conn, err = b.confirm(ctx); err != nil {
			b.drop(channel, s)
		} else {
			b.markConfirmed(channel, conn, s)
		}
	}
	switch {
	case errors.Is(err, ErrClosed):
		return nil, ErrClosed
	case err != nil:
		return nil, fmt.Errorf("bus: subscribe %q: %w", channel, err)
	}
	return s.ch, nil
}

// Ping reports whether Redis answers and the pub/sub connection is not
// known to be broken.
func (b *Redis) Ping(ctx context.Context) error {
	if b.life.Err() != nil {
		return ErrClosed
	}
	if err := b.client.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("bus: ping redis: %w", err)
	}
	b.mu.Lock()
	down := b.down
	b.mu.Unlock()
	if down != nil {
		return fmt.Errorf("bus: redis pub/sub connection is down: %w", down)
	}
	return nil
}

// Close closes every subscription, the pub/sub connection and the receive
// loop, and waits for the loop to return. Closing twice is harmless.
func (b *Redis) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	b.topics.closeAll()
	b.mu.Unlock()

	// Cancel first so that a reconnection dial in the loop gives up and
	// releases the pub/sub lock that Close needs.
	b.stop()
	err := b.pubsub.Close()
	<-b.done
	if err != nil {
		return fmt.Errorf("bus: close redis pub/sub: %w", err)
	}
	return nil
}

// register adds s to channel and, for the channel's first local
// subscriber, sends SUBSCRIBE; it reports whether Redis has acknowledged
// the channel on the current connection already. Sending under b.mu keeps
// SUBSCRIBE and UNSUBSCRIBE of one channel in the same order as the
// reference count changes that cause them.
func (b *Redis) register(ctx context.Context, channel string, s *subscriber) (confirmed bool, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return false, ErrClosed
	}
	if b.topics.add(channel, s) {
		delete(b.orphans, channel)
		if err := b.pubsub.Subscribe(ctx, b.prefix+channel); err != nil {
			if ctx.Err() == nil {
				// go-redis replaced (or failed to replace) the connection
				// while writing: what it carried meanwhile is lost.
				b.connectionLostLocked(err)
			}
			b.removeLocked(channel, s)
			return false, fmt.Errorf("redis subscribe: %w", err)
		}
		select {
		case b.wake <- struct{}{}:
		default:
		}
	}
	s.stop = context.AfterFunc(ctx, func() { b.drop(channel, s) })
	return b.confirmed[channel], nil
}

// markConfirmed records that channel's SUBSCRIBE took effect on
// connection conn, unless that connection has been lost since, or s (whose
// confirmation it is) has been closed meanwhile: a loss closes it, and the
// channel may have been released and subscribed anew since, so its pong
// proves nothing about the current subscription.
func (b *Redis) markConfirmed(channel string, conn uint64, s *subscriber) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.topics[channel]; ok && b.conn == conn && !b.closed && !s.closed {
		b.confirmed[channel] = true
	}
}

// confirm returns once every SUBSCRIBE sent so far has taken effect. Redis
// answers commands on a connection in order, so the answer to a PING sent
// after SUBSCRIBE proves the subscription; after a reconnection go-redis
// subscribes every channel again before sending anything else, so a PING
// answered on the new connection proves it too. It returns the number of
// the connection that answered.
func (b *Redis) confirm(ctx context.Context) (uint64, error) {
	timer := time.NewTimer(confirmTimeout)
	defer timer.Stop()
	for {
		token := "gpunex-bus-confirm-" + strconv.FormatUint(b.tokens.Add(1), 10)
		pong := make(chan struct{})
		b.mu.Lock()
		if b.closed {
			b.mu.Unlock()
			return 0, ErrClosed
		}
		b.pongs[token] = pong
		lost, conn := b.lost, b.conn
		b.mu.Unlock()

		err := b.pubsub.Ping(ctx, token)
		if err != nil {
			if ctx.Err() == nil && b.life.Err() == nil {
				b.connectionLost(err)
			}
			err = fmt.Errorf("redis ping: %w", err)
		} else {
			select {
			case <-pong:
				return conn, nil
			case <-lost:
				// The connection broke before the answer came; ask
				// again on its replacement.
			case <-ctx.Done():
				err = ctx.Err()
			case <-b.life.Done():
				err = ErrClosed
			case <-timer.C:
				err = fmt.Errorf("redis did not confirm the subscription within %s", confirmTimeout)
			}
		}

		b.mu.Lock()
		delete(b.pongs, token)
		b.mu.Unlock()
		if err != nil && b.life.Err() != nil {
			return 0, ErrClosed
		}
		if err != nil {
			return 0, err
		}
	}
}

// drop closes s and releases channel in Redis if s was its last local
// subscriber.
func (b *Redis) drop(channel string, s *subscriber) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.removeLocked(channel, s)
}

func (b *Redis) removeLocked(channel string, s *subscriber) {
	if b.topics.remove(channel, s) && !b.closed {
		b.unsubscribeLocked(channel)
	}
}

// unsubscribeLocked releases channel in Redis. go-redis forgets the
// channel even when the command cannot be sent, and a broken connection
// takes the subscription with it; but a failed write means go-redis
// replaced (or failed to replace) the connection, and what it carried for
// the other channels meanwhile is lost. It reports whether the command
// went out.
func (b *Redis) unsubscribeLocked(channel string) bool {
	delete(b.confirmed, channel)
	if err := b.pubsub.Unsubscribe(b.life, b.prefix+channel); err != nil {
		b.logger.Debug("bus: redis unsubscribe failed", "channel", channel, "error", err)
		if b.life.Err() == nil {
			b.connectionLostLocked(err)
		}
		return false
	}
	return true
}

// receive is the one goroutine that reads the pub/sub connection, for the
// whole life of the bus.
func (b *Redis) receive() {
	defer close(b.done)
	backoff := minBackoff
	for b.waitActive() {
		msg, err := b.pubsub.ReceiveTimeout(b.life, healthInterval)
		if b.life.Err() != nil {
			return
		}
		if isTimeout(err) {
			// Nothing arrived for a while. A ping that cannot be written
			// makes go-redis replace the connection.
			if err = b.pubsub.Ping(b.life); err == nil {
				continue
			}
		}
		if err != nil {
			// Also an error reply (a SUBSCRIBE refused by an ACL, say):
			// its subscriber would otherwise wait for nothing, silently.
			b.connectionLost(err)
			if !b.sleep(backoff) {
				return
			}
			backoff = min(2*backoff, maxBackoff)
			continue
		}
		backoff = minBackoff
		b.connectionWorks()
		b.handle(msg)
	}
}

// waitActive blocks while the bus has nothing to receive, so that an idle
// bus neither holds a connection busy nor retries against an unreachable
// Redis. It reports false once the bus is closed.
func (b *Redis) waitActive() bool {
	for {
		b.mu.Lock()
		// Orphans keep it going until a new connection has released them.
		active := len(b.topics) > 0 || len(b.pongs) > 0 || len(b.orphans) > 0
		b.mu.Unlock()
		if active {
			return true
		}
		select {
		case <-b.wake:
		case <-b.life.Done():
			return false
		}
	}
}

// connectionLost records that the pub/sub connection broke and ends every
// subscription it carried.
func (b *Redis) connectionLost(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.connectionLostLocked(err)
}

func (b *Redis) connectionLostLocked(err error) {
	if b.closed {
		return
	}
	if b.down == nil {
		b.logger.Warn("bus: redis pub/sub connection lost; reconnecting", "error", err)
	} else {
		b.logger.Debug("bus: redis pub/sub reconnection failed", "error", err)
	}
	b.down = err
	close(b.lost)
	b.lost = make(chan struct{})
	// The next connection must prove each channel again.
	b.conn++
	clear(b.confirmed)
	// What was published meanwhile is gone: end every subscription, so
	// that its consumer reloads instead of missing it silently. Its
	// channel stays in go-redis's set (unsubscribing now would dial an
	// unreachable Redis under b.mu) until the new connection answers.
	ended := 0
	for channel, subs := range b.topics {
		ended += len(subs)
		b.orphans[channel] = struct{}{}
	}
	if ended > 0 {
		b.logger.Warn("bus: subscriptions ended by the lost connection; their consumers resynchronise", "subscriptions", ended)
	}
	b.topics.closeAll()
}

func (b *Redis) connectionWorks() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.down != nil {
		b.logger.Info("bus: redis pub/sub reconnected", "channels", len(b.topics))
		b.down = nil
	}
	if b.closed {
		return
	}
	// Runs after every message: nothing to do, nothing allocated.
	for channel := range b.orphans {
		if _, ok := b.topics[channel]; !ok && !b.unsubscribeLocked(channel) {
			return // lost again: the next connection releases the rest
		}
		delete(b.orphans, channel)
	}
}

// sleep waits d or until the bus closes, reporting false in the latter case.
func (b *Redis) sleep(d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-b.life.Done():
		return false
	}
}

// handle acts on one thing read from the pub/sub connection.
func (b *Redis) handle(msg any) {
	switch msg := msg.(type) {
	case *redis.Message:
		channel, ok := strings.CutPrefix(msg.Channel, b.prefix)
		if !ok {
			return
		}
		b.mu.Lock()
		defer b.mu.Unlock()
		if _, ok := b.topics[channel]; !ok {
			return
		}
		dropped, emptied := b.topics.deliver(Message{Channel: channel, Payload: []byte(msg.Payload)})
		if dropped > 0 {
			b.logger.Warn("bus: subscriber fell behind; closed its channel", "channel", channel, "subscribers", dropped)
		}
		if emptied && !b.closed {
			b.unsubscribeLocked(channel)
		}
	case *redis.Pong:
		b.mu.Lock()
		defer b.mu.Unlock()
		if pong, ok := b.pongs[msg.Payload]; ok {
			close(pong)
			delete(b.pongs, msg.Payload)
		}
	}
}

func isTimeout(err error) bool {
	var netErr net.Error
	return errors.As(err, &netErr) && netErr.Timeout()
}
