package bus_test

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/bus"
)

// numbers loads the current state as the strings given.
func numbers(current ...string) func(context.Context) ([]string, error) {
	return func(context.Context) ([]string, error) { return current, nil }
}

// payloads turns each message into its payload, skipping "skip".
func payloads(_ context.Context, m bus.Message) (string, bool) {
	return string(m.Payload), string(m.Payload) != "skip"
}

// receive reads n values from ch.
func receive(t *testing.T, ch <-chan string, n int) []string {
	t.Helper()
	var got []string
	for range n {
		select {
		case v, ok := <-ch:
			require.True(t, ok, "the stream ended early after %v", got)
			got = append(got, v)
		case <-await.Timeout(t):
			t.Fatalf("received only %v", got)
		}
	}
	return got
}

// requireClosed waits for ch to close, discarding what is left in it, and
// returns how many values that was.
func requireClosed(t *testing.T, ch <-chan string) int {
	t.Helper()
	n := 0
	deadline := await.Timeout(t)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return n
			}
			n++
		case <-deadline:
			t.Fatal("the stream was not closed")
		}
	}
}

func TestFollowSendsTheCurrentStateThenEachChange(t *testing.T) {
	t.Parallel()
	b := bus.NewMemory()
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()

	// More current values than the stream buffers: the rest wait for the
	// consumer, ahead of every change.
	current := make([]string, 40)
	for i := range current {
		current[i] = "current " + strconv.Itoa(i)
	}
	ch, err := bus.NewShared(b, nil, payloads).Follow(ctx, "things", numbers(current...), nil)
	require.NoError(t, err)
	for _, p := range []string{"one", "skip", "two"} {
		require.NoError(t, b.Publish(ctx, "things", []byte(p)))
	}
	require.NoError(t, b.Publish(ctx, "other things", []byte("not these")))
	require.Equal(t, append(current, "one", "two"), receive(t, ch, len(current)+2))

	cancel()
	require.Zero(t, requireClosed(t, ch), "nothing follows the end")
}

func TestFollowSeesChangesThatLandWhileTheStateLoads(t *testing.T) {
	t.Parallel()
	b := bus.NewMemory()
	t.Cleanup(func() { require.NoError(t, b.Close()) })

	load := func(ctx context.Context) ([]string, error) {
		// Already subscribed: a change made now is not lost.
		require.NoError(t, b.Publish(ctx, "things", []byte("during")))
		return []string{"before"}, nil
	}
	ch, err := bus.NewShared(b, nil, payloads).Follow(t.Context(), "things", load, nil)
	require.NoError(t, err)
	require.Equal(t, []string{"before", "during"}, receive(t, ch, 2))
}

func TestFollowReturnsALoadErrorAndReleasesTheSubscription(t *testing.T) {
	t.Parallel()
	b := &recordingBus{Bus: bus.NewMemory()}
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	boom := errors.New("boom")

	_, err := bus.NewShared(b, nil, payloads).Follow(t.Context(), "things", func(context.Context) ([]string, error) { return nil, boom }, nil)
	require.ErrorIs(t, err, boom)
	select {
	case <-b.subscribed.Done():
	case <-await.Timeout(t):
		t.Fatal("the subscription outlived the failed load")
	}
}

func TestFollowReportsAFailedSubscribe(t *testing.T) {
	t.Parallel()
	b := bus.NewMemory()
	require.NoError(t, b.Close())

	loaded := false
	load := func(context.Context) ([]string, error) { loaded = true; return nil, nil }
	_, err := bus.NewShared(b, nil, payloads).Follow(t.Context(), "things", load, nil)
	require.ErrorIs(t, err, bus.ErrClosed)
	require.False(t, loaded, "nothing is loaded without a subscription")
}

func TestFollowEndsWhenTheSubscriptionEndsEarly(t *testing.T) {
	t.Parallel()
	b := bus.NewMemory()
	t.Cleanup(func() { require.NoError(t, b.Close()) })

	ch, err := bus.NewShared(b, nil, payloads).Follow(t.Context(), "things", numbers(), nil)
	require.NoError(t, err)
	// Nobody reads while they are published: more than the stream's
	// buffer and the bus subscription's together (256 each), so one of
	// them overflows whatever the pace of the shared goroutine, and the
	// follower is dropped.
	const published = 1000
	for i := range published {
		require.NoError(t, b.Publish(t.Context(), "things", []byte(strconv.Itoa(i))))
	}
	require.Less(t, requireClosed(t, ch), published, "the stream closed with events lost, its context still alive")
}

// recordingBus keeps the context of its latest subscription.
type recordingBus struct {
	bus.Bus
	subscribed context.Context
}

func (b *recordingBus) Subscribe(ctx context.Context, channel string) (<-chan bus.Message, error) {
	b.subscribed = ctx
	return b.Bus.Subscribe(ctx, channel)
}
