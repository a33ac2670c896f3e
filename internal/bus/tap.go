package bus

import (
	"context"
	"sync"
	"sync/atomic"
)

// A Tap takes a follow of Shared out of the channel-and-goroutine model,
// for a transport that runs many subscriptions without a goroutine each
// and encodes an event once for every subscriber that sees it the same
// way. A follow made under a context carrying a Tap (WithTap) is used in
// one of two modes, whatever the service that calls Follow:
//
//   - As a sink (Deliver set): the follower's values go to Deliver as they
//     come, the current state first (sequence 0), then each event with its
//     sequence, a number the same at every follower of the replica and
//     never reused in the process, so a consumer can encode an event once
//     and reuse the bytes for every follower with the same view. Deliver
//     runs under the channel's lock: it must not block, and reports false
//     when the follower cannot take more (it fell behind). End runs once
//     when the follow ends, early (behind, or the channel's subscription
//     ended: the consumer resyncs) or because the consumer called Stop.
//     The context Follow gets serves the load only: a sink's follow lasts
//     until Stop, so it holds nothing of the operation that made it.
//     Follow returns a closed channel.
//   - As a feed (Deliver nil): Follow subscribes to nothing and loads
//     nothing; its channel yields what Push hands it. A transport uses it
//     to run the encoder of an operation on values a sink received.
//
// Used reports whether a follow took the Tap: a resolver that returned
// without following (an error, say) leaves it unused.
type Tap struct {
	Deliver func(seq uint64, v any) bool
	End     func()

	used    atomic.Bool
	mu      sync.Mutex
	push    func(any)
	stop    func()
	stopped bool
}

type tapKey struct{}

// WithTap returns ctx carrying t: the next Follow under it uses t.
func WithTap(ctx context.Context, t *Tap) context.Context {
	return context.WithValue(ctx, tapKey{}, t)
}

func tapFrom(ctx context.Context) *Tap {
	t, _ := ctx.Value(tapKey{}).(*Tap)
	return t
}

// Used reports whether a Follow took t.
func (t *Tap) Used() bool { return t.used.Load() }

// Push hands v to the feed's channel, whose reader must take it before the
// next Push; it reports false when no follow took t as a feed.
func (t *Tap) Push(v any) bool {
	t.mu.Lock()
	push := t.push
	t.mu.Unlock()
	if push == nil {
		return false
	}
	push(v)
	return true
}

// Stop ends a sink's follow (End runs, if it did not already).
func (t *Tap) Stop() {
	t.mu.Lock()
	stop := t.stop
	t.stop, t.stopped = nil, true
	t.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// stopWith records how a sink's follow ends; a Stop that came first ends
// it at once. Nil marks the follow ended: a later Stop does nothing.
func (t *Tap) stopWith(stop func()) {
	t.mu.Lock()
	if stop == nil {
		t.stop, t.stopped = nil, true
		t.mu.Unlock()
		return
	}
	if t.stopped {
		t.mu.Unlock()
		stop()
		return
	}
	t.stop = stop
	t.mu.Unlock()
}

// feed binds t as a feed of T values and returns its channel.
func feed[T any](t *Tap) <-chan T {
	ch := make(chan T, 1)
	t.mu.Lock()
	t.push = func(v any) { ch <- v.(T) }
	t.mu.Unlock()
	t.used.Store(true)
	return ch
}

// events numbers the events every Shared resolves, process-wide.
var events atomic.Uint64

// closedChannel returns a closed channel of T: a sink's follow hands its
// values to the sink, and a consumer of the channel sees the end at once.
func closedChannel[T any]() <-chan T {
	ch := make(chan T)
	close(ch)
	return ch
}
