package bus_test

import (
	"context"
	"regexp"
	"strconv"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/bus"
)

// commandCalls is how many times Redis has run cmd, from INFO commandstats.
func commandCalls(t *testing.T, admin *redis.Client, cmd string) int {
	t.Helper()
	info, err := admin.Info(t.Context(), "commandstats").Result()
	require.NoError(t, err)
	m := regexp.MustCompile(`cmdstat_` + cmd + `:calls=(\d+)`).FindStringSubmatch(info)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// Issue 10 point 4: a channel the replica already follows costs no round
// trip per subscribe. A hundred local subscribers of one channel send one
// SUBSCRIBE and one confirming PING between them, and each receives what
// is published right after its Subscribe returns; once the channel is
// left and joined again, or the connection was lost, the next subscriber
// proves the subscription again.
func TestRedisSubscribesAChannelItFollowsWithoutARoundTrip(t *testing.T) {
	t.Parallel()
	server := startRedisServer(t, freePort(t))
	admin := newClient(t, &redis.Options{Addr: server.addr})
	b := bus.NewRedis(newClient(t, &redis.Options{Addr: server.addr}), nil)
	t.Cleanup(func() { require.NoError(t, b.Close()) })

	pings, subscribes := commandCalls(t, admin, "ping"), commandCalls(t, admin, "subscribe")
	ctx, cancel := context.WithCancel(t.Context())
	var subs []<-chan bus.Message
	for i := range 100 {
		ch, err := b.Subscribe(ctx, "machines")
		require.NoError(t, err)
		subs = append(subs, ch)
		require.NoError(t, b.Publish(t.Context(), "machines", []byte(strconv.Itoa(i))))
	}
	require.Equal(t, 1, commandCalls(t, admin, "subscribe")-subscribes, "one SUBSCRIBE")
	require.Equal(t, 1, commandCalls(t, admin, "ping")-pings, "one confirming PING for 100 subscribers")
	for i, ch := range subs {
		// Subscriber i sees, in order, every message from the one
		// published right after it joined (an earlier one may come first:
		// it was still on its way when the subscriber joined).
		got := -1
		for got < i {
			got, _ = strconv.Atoi(string(receiveMessage(t, ch).Payload))
		}
		require.Equal(t, i, got, "subscriber %d missed the message published right after it joined", i)
		for want := i + 1; want < 100; want++ {
			require.Equal(t, strconv.Itoa(want), string(receiveMessage(t, ch).Payload), "subscriber %d", i)
		}
	}

	cancel()
	for _, ch := range subs {
		for range ch {
		}
	}
	await.True(t, func() bool {
		n, err := admin.PubSubNumSub(t.Context(), "gpunex:machines").Result()
		return err == nil && n["gpunex:machines"] == 0
	})
	pings = commandCalls(t, admin, "ping")
	ch, err := b.Subscribe(t.Context(), "machines")
	require.NoError(t, err)
	require.Equal(t, 1, commandCalls(t, admin, "ping")-pings, "a channel joined again is proven again")

	// A lost connection ends the subscriber (what was published until the
	// bus reconnects is lost); the next subscriber of the channel proves
	// the subscription on the new connection.
	_, err = admin.ClientKillByFilter(t.Context(), "TYPE", "pubsub").Result()
	require.NoError(t, err)
	requireEnded(t, ch, "the subscriber whose connection broke")
	pings = commandCalls(t, admin, "ping")
	again, err := b.Subscribe(t.Context(), "machines")
	require.NoError(t, err)
	require.GreaterOrEqual(t, commandCalls(t, admin, "ping")-pings, 1, "after a reconnection the channel is proven again")
	require.NoError(t, b.Publish(t.Context(), "machines", []byte("after")))
	require.Equal(t, "after", string(receiveMessage(t, again).Payload))
}
