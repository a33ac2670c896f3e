package bus_test

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/redistest"
)

// eachBus runs fn on the memory bus and on a Redis bus.
func eachBus(t *testing.T, fn func(t *testing.T, b bus.Bus)) {
	t.Run("memory", func(t *testing.T) {
		b := bus.NewMemory()
		t.Cleanup(func() { _ = b.Close() })
		fn(t, b)
	})
	t.Run("redis", func(t *testing.T) {
		opts, err := redis.ParseURL(redistest.SharedURL(t))
		require.NoError(t, err)
		b := bus.NewRedis(newClient(t, opts), nil, bus.WithPrefix(randomPrefix()))
		t.Cleanup(func() { _ = b.Close() })
		fn(t, b)
	})
}

// Issue 10 point 1: a hundred local followers of one channel cost one
// bus subscription and one resolve per event between them; each gets its
// own current state first, then every event in order.
func TestSharedResolvesEachEventOnceForEveryFollower(t *testing.T) {
	t.Parallel()
	eachBus(t, func(t *testing.T, b bus.Bus) {
		var resolves atomic.Int64
		shared := bus.NewShared(b, nil, func(ctx context.Context, m bus.Message) (string, bool) {
			resolves.Add(1)
			return payloads(ctx, m)
		})
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		var streams []<-chan string
		for i := range 100 {
			ch, err := shared.Follow(ctx, "machines", numbers("current-"+strconv.Itoa(i)), nil)
			require.NoError(t, err)
			streams = append(streams, ch)
		}
		for _, p := range []string{"a", "skip", "b", "c"} {
			require.NoError(t, b.Publish(t.Context(), "machines", []byte(p)))
		}
		for i, ch := range streams {
			require.Equal(t, []string{"current-" + strconv.Itoa(i), "a", "b", "c"}, receive(t, ch, 4), "follower %d", i)
		}
		require.Equal(t, int64(4), resolves.Load(), "each event resolved once for 100 followers")
	})
}

// Each follower keeps only what it may see, and one that stops reading is
// closed early (it resyncs by following again) without delaying the rest.
func TestSharedFollowersFilterAndFallBehindAlone(t *testing.T) {
	t.Parallel()
	eachBus(t, func(t *testing.T, b bus.Bus) {
		shared := bus.NewShared(b, nil, payloads)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		odd, err := shared.Follow(ctx, "n", numbers(), func(v string) bool { n, _ := strconv.Atoi(v); return n%2 == 1 })
		require.NoError(t, err)
		stalled, err := shared.Follow(ctx, "n", numbers(), nil)
		require.NoError(t, err)
		all, err := shared.Follow(ctx, "n", numbers(), nil)
		require.NoError(t, err)

		const events = 1000
		got, gotOdd := make(chan []string, 1), make(chan []string, 1)
		go func() { got <- receive(t, all, events) }()
		go func() { gotOdd <- receive(t, odd, events/2) }()
		var wantOdd []string
		for i := range events {
			require.NoError(t, b.Publish(t.Context(), "n", []byte(strconv.Itoa(i))))
			if i%100 == 99 {
				// Events come at a pace in life; a burst of a thousand
				// at once would overflow the channel's own subscription
				// (256), which resyncs every follower (another test).
				time.Sleep(20 * time.Millisecond)
			}
			if i%2 == 1 {
				wantOdd = append(wantOdd, strconv.Itoa(i))
			}
		}
		for _, c := range []chan []string{got, gotOdd} {
			select {
			case g := <-c:
				if c == gotOdd {
					require.Equal(t, wantOdd, g, "a filtering follower gets only what it keeps")
				} else {
					require.Len(t, g, events, "a reading follower gets every event")
				}
			case <-await.Timeout(t):
				t.Fatal("a reading follower was held up")
			}
		}
		// The stalled one holds a buffer's worth and was then closed.
		n := 0
		for range stalled {
			n++
		}
		require.Less(t, n, events, "the stalled follower was closed early")
	})
}

// When its last follower leaves, a channel's subscription and goroutine
// end (the package's goleak check), and following it again starts anew.
func TestSharedChannelEndsWithItsLastFollower(t *testing.T) {
	t.Parallel()
	eachBus(t, func(t *testing.T, b bus.Bus) {
		shared := bus.NewShared(b, nil, payloads)
		for round := range 3 {
			ctx, cancel := context.WithCancel(t.Context())
			ch, err := shared.Follow(ctx, "again", numbers("now"), nil)
			require.NoError(t, err)
			require.Equal(t, []string{"now"}, receive(t, ch, 1))
			require.NoError(t, b.Publish(t.Context(), "again", []byte("round-"+strconv.Itoa(round))))
			require.Equal(t, []string{"round-" + strconv.Itoa(round)}, receive(t, ch, 1))
			cancel()
			for range ch {
			}
		}
		_, err := shared.Follow(t.Context(), "failing", func(context.Context) ([]string, error) { return nil, context.DeadlineExceeded }, nil)
		require.ErrorIs(t, err, context.DeadlineExceeded, "an error of load is returned as it is")
	})
}
