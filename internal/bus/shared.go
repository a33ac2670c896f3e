package bus

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
)

// Shared is the subscription layer's one way to follow a channel, the
// plumbing of every GraphQL subscription: per channel and replica it holds
// one bus subscription and one goroutine, and resolves each event once
// (loading what it names, say) for every local follower, instead of once
// per follower. A follower still loads its own current state, and may
// keep only the values it may see (keep), which must be cheap: it runs
// under the channel's lock, never at the same time as the follower's
// load. The resolved values are shared by every follower: read-only.
//
// A follower receives its current state, then each resolved value, in
// order, until its context ends. Its channel closes early when it falls
// behind or the channel's bus subscription ends early (the bus closed it
// for falling behind): the consumer follows again and gets the current
// state again.
type Shared[T any] struct {
	bus     Bus
	logger  *slog.Logger
	resolve func(context.Context, Message) (T, bool)

	mu     sync.Mutex
	topics map[string]*sharedTopic[T]
}

// NewShared returns a Shared whose events are resolved by resolve, once
// each, with a context that lives as long as the channel has followers.
func NewShared[T any](b Bus, logger *slog.Logger, resolve func(context.Context, Message) (T, bool)) *Shared[T] {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Shared[T]{bus: b, logger: logger, resolve: resolve, topics: map[string]*sharedTopic[T]{}}
}

// maxPending bounds the events one follower may queue while it loads its
// current state; past it the follower is closed early (it resyncs).
const maxPending = bufferSize

type sharedTopic[T any] struct {
	channel string
	ctx     context.Context
	cancel  context.CancelFunc
	ready   chan struct{} // closed once the bus subscription is live (or failed)
	err     error         // set before ready closes

	mu        sync.Mutex
	followers map[*follower[T]]struct{}
}

type follower[T any] struct {
	keep    func(T) bool
	out     chan T
	sink    *Tap // a sink's follow: values go to sink.Deliver, not out
	pending []numbered[T]
	direct  bool // out (or sink) takes values: they go there, not to pending
	closed  bool
	stop    func() bool
}

// numbered is a value with the sequence of its event (0: current state).
type numbered[T any] struct {
	seq uint64
	v   T
}

// deliver hands v to f without blocking; the caller holds the topic's
// lock. It reports false when f must be dropped (it fell behind). While f
// loads its current state v waits in pending, unfiltered: keep may read
// what load fills in, so it runs only once load is done.
func (f *follower[T]) deliver(v T, seq uint64) bool {
	if !f.direct {
		f.pending = append(f.pending, numbered[T]{seq, v})
		return len(f.pending) <= maxPending
	}
	if f.keep != nil && !f.keep(v) {
		return true
	}
	if f.sink != nil {
		return f.sink.Deliver(seq, v)
	}
	select {
	case f.out <- v:
		return true
	default:
		return false
	}
}

// close ends f's channel once; the caller holds the topic's lock.
func (f *follower[T]) close() {
	if f.closed {
		return
	}
	f.closed = true
	if f.stop != nil {
		f.stop()
	}
	if f.out != nil {
		close(f.out)
	}
	if f.sink != nil {
		// The follower is gone already: a Stop from End (or later) has
		// nothing to leave, and must not take the topic's lock, held here.
		f.sink.stopWith(nil)
	}
	if f.sink != nil && f.direct && f.sink.End != nil {
		// Only a follow that got going ends at the sink; one that failed
		// to start returns its error from Follow.
		f.sink.End()
	}
}

// Follow streams channel for one follower: what load returns, then each
// resolved event that keep (nil: all) lets through, until ctx ends. Events
// published after Follow returns are never missed; one that lands in the
// current state and as an event is seen twice, which keep may filter out.
// An error from load is returned as it is. Under a Tap (WithTap) the
// follow is the Tap's: see Tap.
func (s *Shared[T]) Follow(ctx context.Context, channel string, load func(context.Context) ([]T, error), keep func(T) bool) (<-chan T, error) {
	tap := tapFrom(ctx)
	if tap != nil && tap.Deliver == nil {
		return feed[T](tap), nil
	}
	f := &follower[T]{keep: keep, sink: tap}
	t := s.join(channel, f)
	select {
	case <-t.ready:
	case <-ctx.Done():
		s.leave(t, f)
		return nil, fmt.Errorf("bus: unable to follow %s: %w", channel, ctx.Err())
	}
	if t.err != nil {
		s.leave(t, f)
		return nil, fmt.Errorf("bus: unable to follow %s: %w", channel, t.err)
	}
	current, err := load(ctx)
	if err != nil {
		s.leave(t, f)
		return nil, err
	}
	if tap != nil {
		return s.sinkFollow(t, f, current), nil
	}
	t.mu.Lock()
	out := make(chan T, len(current)+len(f.pending)+bufferSize)
	for _, v := range current {
		out <- v
	}
	for _, p := range f.pending {
		if f.keep == nil || f.keep(p.v) {
			out <- p.v
		}
	}
	f.pending, f.out, f.direct = nil, out, true
	if f.closed {
		// Dropped while loading (behind, or the channel ended): the
		// current state, then the early close that asks for a resync.
		close(out)
	} else {
		f.stop = context.AfterFunc(ctx, func() { s.leave(t, f) })
	}
	t.mu.Unlock()
	return out, nil
}

// sinkFollow hands f's current state and the events it queued while
// loading to its sink, then lets events through as they come.
func (s *Shared[T]) sinkFollow(t *sharedTopic[T], f *follower[T], current []T) <-chan T {
	f.sink.used.Store(true)
	t.mu.Lock()
	pending := f.pending
	f.pending, f.direct = nil, true
	if f.closed {
		t.mu.Unlock()
		// Dropped while loading: the sink resyncs at once.
		if f.sink.End != nil {
			f.sink.End()
		}
		return closedChannel[T]()
	}
	ok := true
	for _, v := range current {
		// The current state as loaded: keep filters events only.
		if ok = f.sink.Deliver(0, v); !ok {
			break
		}
	}
	for _, p := range pending {
		if !ok {
			break
		}
		ok = f.deliver(p.v, p.seq)
	}
	if !ok {
		delete(t.followers, f)
		f.close()
		t.mu.Unlock()
		return closedChannel[T]()
	}
	stop := func() { s.leave(t, f) }
	t.mu.Unlock()
	f.sink.stopWith(stop)
	return closedChannel[T]()
}

// join adds f to channel's topic, starting the topic if it has none.
func (s *Shared[T]) join(channel string, f *follower[T]) *sharedTopic[T] {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.topics[channel]
	if !ok {
		ctx, cancel := context.WithCancel(context.Background())
		t = &sharedTopic[T]{channel: channel, ctx: ctx, cancel: cancel, ready: make(chan struct{}),
			followers: map[*follower[T]]struct{}{}}
		s.topics[channel] = t
		go s.run(t)
	}
	t.mu.Lock()
	t.followers[f] = struct{}{}
	t.mu.Unlock()
	return t
}

// leave removes f, closing its channel, and ends the topic with its last
// follower.
func (s *Shared[T]) leave(t *sharedTopic[T], f *follower[T]) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t.mu.Lock()
	delete(t.followers, f)
	f.close()
	empty := len(t.followers) == 0
	t.mu.Unlock()
	if empty && s.topics[t.channel] == t {
		delete(s.topics, t.channel)
		t.cancel()
	}
}

// run is the topic's one goroutine: it subscribes, then resolves each
// message once and hands the value to every follower.
func (s *Shared[T]) run(t *sharedTopic[T]) {
	msgs, err := s.bus.Subscribe(t.ctx, t.channel)
	t.err = err
	close(t.ready)
	if err != nil {
		s.end(t)
		return
	}
	for msg := range msgs {
		v, ok := s.resolve(t.ctx, msg)
		if !ok {
			continue
		}
		seq := events.Add(1)
		t.mu.Lock()
		for f := range t.followers {
			if !f.deliver(v, seq) {
				delete(t.followers, f)
				f.close()
			}
		}
		t.mu.Unlock()
	}
	if t.ctx.Err() == nil {
		s.logger.Warn("bus: shared subscription ended early; its followers resync", "channel", t.channel)
	}
	s.end(t)
}

// end retires t: later followers start a new topic, and every follower of
// t is closed (early, when t ended before its last follower left).
func (s *Shared[T]) end(t *sharedTopic[T]) {
	s.mu.Lock()
	if s.topics[t.channel] == t {
		delete(s.topics, t.channel)
	}
	s.mu.Unlock()
	t.mu.Lock()
	for f := range t.followers {
		delete(t.followers, f)
		f.close()
	}
	t.mu.Unlock()
	t.cancel()
}
