// Package bustest is the conformance suite every [bus.Bus] implementation
// passes. Each implementation's tests call [Exercise] with a factory for
// fresh buses, so that the behaviour GraphQL subscriptions rely on is
// written down once and checked against every backend.
package bustest

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/bus"
)

const (
	// wait bounds every wait for something that must happen.
	wait = 5 * time.Second
	// quiet is how long the suite listens to conclude that nothing arrives.
	quiet = 100 * time.Millisecond
	// buffer is the subscription buffer size that [bus.Bus] documents.
	buffer = 256
)

// Option adjusts what [Exercise] covers.
type Option func(*config)

type config struct {
	newPeers func(t *testing.T) (bus.Bus, bus.Bus)
}

// WithPeers lets Exercise check delivery between processes. newPeers
// returns two distinct buses sharing one backend, as two replicas would
// (for Redis: two clients of the same server with the same prefix), and
// registers their cleanup with t. Without it, the cross-instance cases are
// skipped, which suits a backend that only delivers within one bus.
func WithPeers(newPeers func(t *testing.T) (bus.Bus, bus.Bus)) Option {
	return func(c *config) {
		c.newPeers = newPeers
	}
}

// Exercise runs the conformance suite. newBus returns a fresh, empty bus
// and registers its cleanup (Close, and closing any client it made) with
// the t it is given; the suite may Close the bus itself as well.
//
// One case counts goroutines, so Exercise must not be called from a
// parallel test; its other cases run in parallel with each other.
func Exercise(t *testing.T, newBus func(t *testing.T) bus.Bus, opts ...Option) {
	t.Helper()
	var cfg config
	for _, opt := range opts {
		opt(&cfg)
	}

	// It runs alone, before the parallel cases start.
	t.Run("leaves no goroutine behind once subscribers and the bus are gone", func(t *testing.T) {
		testNoLeak(t, newBus)
	})

	cases := []struct {
		name string
		run  func(t *testing.T, b bus.Bus)
	}{
		{"delivers to every subscriber of a channel", testFanOut},
		{"does not deliver to other channels", testIsolation},
		{"keeps publish order on a channel", testOrder},
		{"closes the subscription when its context ends", testUnsubscribe},
		{"keeps delivering to the others when one subscriber leaves", testOneLeaves},
		{"delivers again when a channel is subscribed after its last subscriber left", testResubscribe},
		{"closes a subscriber that falls 256 messages behind", testSlowConsumer},
		{"rejects a context that has already ended", testDoneContext},
		{"lets the publisher reuse its payload buffer", testPayloadCopy},
		{"reports a reachable backend", testPing},
		{"closes every subscription on Close and then refuses work", testClose},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, newBus(t))
		})
	}

	peerCases := []struct {
		name string
		run  func(t *testing.T, a, b bus.Bus)
	}{
		{"delivers between peers in both directions", testPeers},
		{"delivers a peer's publish made right after Subscribe returns", testPeerRightAfterSubscribe},
	}
	for _, tc := range peerCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if cfg.newPeers == nil {
				t.Skip("this backend has no peer buses (no WithPeers option): cross-instance delivery does not apply")
			}
			a, b := cfg.newPeers(t)
			tc.run(t, a, b)
		})
	}
}

func testNoLeak(t *testing.T, newBus func(t *testing.T) bus.Bus) {
	atStart := goleak.IgnoreCurrent()
	// Cleanups run last-in first-out: this one runs after the factory's
	// cleanups have closed the bus and its clients.
	t.Cleanup(func() { goleak.VerifyNone(t, atStart) })

	b := newBus(t)
	// A first round trip lets the backend start what it keeps for the
	// bus's whole life (connections, the receive loop).
	roundTrip(t, b, "warm-up")
	withBus := goleak.IgnoreCurrent()

	const channels, perChannel = 4, 5
	var cancels []context.CancelFunc
	var subs []<-chan bus.Message
	for i := range channels * perChannel {
		ctx, cancel := context.WithCancel(t.Context())
		cancels = append(cancels, cancel)
		ch, err := b.Subscribe(ctx, "leak-"+strconv.Itoa(i%channels))
		require.NoError(t, err)
		subs = append(subs, ch)
	}
	for i := range channels {
		require.NoError(t, b.Publish(t.Context(), "leak-"+strconv.Itoa(i), []byte("hello")))
	}
	for _, ch := range subs {
		require.Equal(t, "hello", string(receive(t, ch).Payload))
	}
	for _, cancel := range cancels {
		cancel()
	}
	for _, ch := range subs {
		requireClosed(t, ch)
	}
	for i := range channels {
		ctx, cancel := context.WithTimeout(t.Context(), wait)
		require.NoError(t, b.Publish(ctx, "leak-"+strconv.Itoa(i), []byte("nobody listens")))
		cancel()
	}
	goleak.VerifyNone(t, withBus)
}

func testFanOut(t *testing.T, b bus.Bus) {
	subs := make([]<-chan bus.Message, 3)
	for i := range subs {
		subs[i] = subscribe(t, b, "fan-out")
	}
	require.NoError(t, b.Publish(t.Context(), "fan-out", []byte("hello")))
	for _, ch := range subs {
		msg := receive(t, ch)
		require.Equal(t, bus.Message{Channel: "fan-out", Payload: []byte("hello")}, msg)
	}
}

func testIsolation(t *testing.T, b bus.Bus) {
	a := subscribe(t, b, "isolation-a")
	other := subscribe(t, b, "isolation-b")
	require.NoError(t, b.Publish(t.Context(), "isolation-a", []byte("for a")))
	require.NoError(t, b.Publish(t.Context(), "isolation-b", []byte("for b")))

	require.Equal(t, "for a", string(receive(t, a).Payload))
	// Had "for a" leaked to the other channel it would come first.
	require.Equal(t, "for b", string(receive(t, other).Payload))
	requireNothing(t, a)
	requireNothing(t, other)
}

func testOrder(t *testing.T, b bus.Bus) {
	const n = 1000
	ch := subscribe(t, b, "order")

	// The publisher stays less than a buffer ahead of the reader, so that
	// a slow test machine does not turn this into the slow-consumer case.
	var received atomic.Int64
	errs := make(chan error, 1)
	go func() {
		defer close(errs)
		for i := range n {
			for int64(i)-received.Load() >= buffer/2 {
				time.Sleep(time.Millisecond)
			}
			if err := b.Publish(context.Background(), "order", []byte(strconv.Itoa(i))); err != nil {
				errs <- err
				return
			}
		}
	}()
	for i := range n {
		msg := receive(t, ch)
		require.Equal(t, strconv.Itoa(i), string(msg.Payload))
		received.Add(1)
	}
	require.NoError(t, <-errs)
}

func testUnsubscribe(t *testing.T, b bus.Bus) {
	ctx, cancel := context.WithCancel(t.Context())
	ch, err := b.Subscribe(ctx, "unsubscribe")
	require.NoError(t, err)
	cancel()
	requireClosed(t, ch)

	// Nobody listens any more: publishing neither blocks nor fails.
	for range 2 * buffer {
		publishCtx, cancel := context.WithTimeout(t.Context(), wait)
		require.NoError(t, b.Publish(publishCtx, "unsubscribe", []byte("late")))
		cancel()
	}
}

func testOneLeaves(t *testing.T, b bus.Bus) {
	ctx, cancel := context.WithCancel(t.Context())
	leaving, err := b.Subscribe(ctx, "one-leaves")
	require.NoError(t, err)
	staying := subscribe(t, b, "one-leaves")

	cancel()
	requireClosed(t, leaving)
	require.NoError(t, b.Publish(t.Context(), "one-leaves", []byte("still here")))
	require.Equal(t, "still here", string(receive(t, staying).Payload))
}

func testResubscribe(t *testing.T, b bus.Bus) {
	for round := range 3 {
		ctx, cancel := context.WithCancel(t.Context())
		ch, err := b.Subscribe(ctx, "resubscribe")
		require.NoError(t, err)
		payload := "round " + strconv.Itoa(round)
		require.NoError(t, b.Publish(t.Context(), "resubscribe", []byte(payload)))
		// Messages of an earlier round may trail in; this round's
		// message must arrive.
		for msg := receive(t, ch); string(msg.Payload) != payload; msg = receive(t, ch) {
		}
		cancel()
		requireClosed(t, ch)
	}
}

func testSlowConsumer(t *testing.T, b bus.Bus) {
	slow := subscribe(t, b, "slow")
	// A probe that keeps up tells when the bus has handled a message, since
	// a message is handed to every subscriber of its channel at once.
	probe := subscribe(t, b, "slow")
	publish := func(payload string) {
		t.Helper()
		// Publish must not wait for the slow subscriber's reader.
		ctx, cancel := context.WithTimeout(t.Context(), wait)
		defer cancel()
		require.NoError(t, b.Publish(ctx, "slow", []byte(payload)))
		require.Equal(t, payload, string(receive(t, probe).Payload))
	}

	for i := range buffer {
		publish(strconv.Itoa(i))
	}
	publish("overflow")

	for i := range buffer {
		msg, ok := <-slow
		require.True(t, ok, "buffered message %d is still delivered", i)
		require.Equal(t, strconv.Itoa(i), string(msg.Payload))
	}
	select {
	case msg, ok := <-slow:
		require.False(t, ok, "got %q after the buffer overflowed; want the channel closed", msg.Payload)
	case <-await.Timeout(t):
		require.FailNow(t, "the slow subscriber's channel was not closed")
	}
	requireNothing(t, probe)
}

func testDoneContext(t *testing.T, b bus.Bus) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := b.Subscribe(ctx, "done")
	require.ErrorIs(t, err, context.Canceled)
}

func testPayloadCopy(t *testing.T, b bus.Bus) {
	ch := subscribe(t, b, "payload")
	payload := []byte("first")
	require.NoError(t, b.Publish(t.Context(), "payload", payload))
	copy(payload, "XXXXX")
	require.Equal(t, "first", string(receive(t, ch).Payload))
}

func testPing(t *testing.T, b bus.Bus) {
	require.NoError(t, b.Ping(t.Context()))
}

func testClose(t *testing.T, b bus.Bus) {
	chs := []<-chan bus.Message{subscribe(t, b, "close-a"), subscribe(t, b, "close-a"), subscribe(t, b, "close-b")}
	require.NoError(t, b.Close())
	for _, ch := range chs {
		requireClosed(t, ch)
	}
	require.NoError(t, b.Close(), "closing twice is harmless")
	require.ErrorIs(t, b.Publish(t.Context(), "close-a", []byte("late")), bus.ErrClosed)
	_, err := b.Subscribe(t.Context(), "close-a")
	require.ErrorIs(t, err, bus.ErrClosed)
	require.ErrorIs(t, b.Ping(t.Context()), bus.ErrClosed)
}

func testPeers(t *testing.T, a, b bus.Bus) {
	tests := []struct {
		name     string
		from, to bus.Bus
	}{
		{"first to second", a, b},
		{"second to first", b, a},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ch := subscribe(t, tc.to, "peers")
			require.NoError(t, tc.from.Publish(t.Context(), "peers", []byte(tc.name)))
			require.Equal(t, tc.name, string(receive(t, ch).Payload))
		})
	}
}

func testPeerRightAfterSubscribe(t *testing.T, a, b bus.Bus) {
	// Each round uses a fresh channel so that every Subscribe is a first
	// subscription that the backend has to set up; subscriptions race in
	// parallel to shake out ordering bugs.
	const rounds = 20
	var wg sync.WaitGroup
	errs := make(chan error, rounds)
	for i := range rounds {
		wg.Go(func() {
			channel := "right-after-" + strconv.Itoa(i)
			ch, err := a.Subscribe(t.Context(), channel)
			if err != nil {
				errs <- err
				return
			}
			if err := b.Publish(t.Context(), channel, []byte("once")); err != nil {
				errs <- err
				return
			}
			select {
			case msg := <-ch:
				if string(msg.Payload) != "once" {
					errs <- fmt.Errorf("%s: got %q", channel, msg.Payload)
				}
			case <-await.Timeout(t):
				errs <- fmt.Errorf("%s: a message published once right after Subscribe returned never arrived", channel)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

// subscribe subscribes for the rest of the test.
func subscribe(t *testing.T, b bus.Bus, channel string) <-chan bus.Message {
	t.Helper()
	ch, err := b.Subscribe(t.Context(), channel)
	require.NoError(t, err)
	return ch
}

// roundTrip subscribes to channel, publishes one message, receives it and
// unsubscribes.
func roundTrip(t *testing.T, b bus.Bus, channel string) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	ch, err := b.Subscribe(ctx, channel)
	require.NoError(t, err)
	require.NoError(t, b.Publish(t.Context(), channel, []byte("ping")))
	receive(t, ch)
	cancel()
	requireClosed(t, ch)
}

func receive(t *testing.T, ch <-chan bus.Message) bus.Message {
	t.Helper()
	select {
	case msg, ok := <-ch:
		require.True(t, ok, "subscription closed while a message was expected")
		return msg
	case <-await.Timeout(t):
		require.FailNow(t, "no message arrived", "waited %s", await.Patience(t))
		return bus.Message{}
	}
}

func requireNothing(t *testing.T, ch <-chan bus.Message) {
	t.Helper()
	select {
	case msg, ok := <-ch:
		require.False(t, ok, "unexpected message %q on %q", msg.Payload, msg.Channel)
		require.FailNow(t, "subscription closed unexpectedly")
	case <-time.After(quiet):
	}
}

// requireClosed waits for ch to be closed, accepting messages still in its
// buffer.
func requireClosed(t *testing.T, ch <-chan bus.Message) {
	t.Helper()
	deadline := time.After(wait)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-deadline:
			require.FailNow(t, "subscription was not closed", "waited %s", wait)
		}
	}
}
