package bus_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/bus/bustest"
	"github.com/gpunex/gpunex/internal/redistest"
)

// TestRedis runs the conformance suite against the shared test Redis
// server. It is not parallel: bustest.Exercise counts goroutines and runs
// its own cases in parallel.
func TestRedis(t *testing.T) {
	options, err := redis.ParseURL(redistest.SharedURL(t))
	require.NoError(t, err)

	newBus := func(t *testing.T, prefix string) bus.Bus {
		client := newClient(t, options)
		b := bus.NewRedis(client, nil, bus.WithPrefix(prefix))
		t.Cleanup(func() { require.NoError(t, b.Close()) })
		return b
	}
	bustest.Exercise(t,
		func(t *testing.T) bus.Bus { return newBus(t, randomPrefix()) },
		bustest.WithPeers(func(t *testing.T) (bus.Bus, bus.Bus) {
			prefix := randomPrefix()
			return newBus(t, prefix), newBus(t, prefix)
		}),
	)
}

// A restart loses what is published until the bus has subscribed again,
// so the restart ends every subscription early ([bus.Bus.Subscribe]'s
// promise for lost events) instead of keeping it open with a silent gap;
// once Redis is back a new subscription receives again.
func TestRedisEndsSubscriptionsWhenARestartLosesEvents(t *testing.T) {
	t.Parallel()
	server := startRedisServer(t, freePort(t))
	logs := &syncBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	b := bus.NewRedis(newClient(t, &redis.Options{Addr: server.addr}), logger)
	t.Cleanup(func() { require.NoError(t, b.Close()) })

	ch, err := b.Subscribe(t.Context(), "restart")
	require.NoError(t, err)
	require.NoError(t, b.Publish(t.Context(), "restart", []byte("before")))
	require.Equal(t, "before", string(receiveMessage(t, ch).Payload))

	server.stop(t)
	requireEnded(t, ch, "the subscription whose connection broke")
	require.Contains(t, logs.String(), "bus: subscriptions ended by the lost connection")

	t.Run("Subscribe fails instead of hanging while Redis is down", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), await.Patience(t))
		defer cancel()
		_, err := b.Subscribe(ctx, "while-down")
		require.Error(t, err)
		require.NoError(t, ctx.Err(), "Subscribe gave up on its own, not at the deadline")
	})

	startRedisServer(t, server.port) // the same port: the bus reconnects to it

	var again <-chan bus.Message
	await.True(t, func() bool {
		again, err = b.Subscribe(t.Context(), "restart")
		return err == nil
	}, "a subscription succeeds once Redis is back")
	require.NoError(t, b.Publish(t.Context(), "restart", []byte("after")))
	require.Equal(t, "after", string(receiveMessage(t, again).Payload))
	require.Contains(t, logs.String(), "bus: redis pub/sub connection lost")
	require.Contains(t, logs.String(), "bus: redis pub/sub reconnected")
	await.True(t, func() bool { return b.Ping(t.Context()) == nil })
}

// A consumer kept by bus.Listen reloads after a connection loss and hears
// what is published after that; a channel nobody subscribed again is
// released in Redis once the bus has reconnected.
func TestListenResyncsAfterTheConnectionIsLost(t *testing.T) {
	t.Parallel()
	server := startRedisServer(t, freePort(t))
	admin := newClient(t, &redis.Options{Addr: server.addr})
	b := bus.NewRedis(newClient(t, &redis.Options{Addr: server.addr}), nil)
	t.Cleanup(func() { require.NoError(t, b.Close()) })

	abandoned, err := b.Subscribe(t.Context(), "abandoned")
	require.NoError(t, err)
	resyncs := make(chan struct{}, 8)
	got := make(chan string, 8)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		bus.Listen(ctx, b, "revoked", slog.New(slog.DiscardHandler),
			func() { resyncs <- struct{}{} },
			func(m bus.Message) { got <- string(m.Payload) })
	}()
	t.Cleanup(func() { cancel(); <-done })
	receiveSignal(t, resyncs, "the first resync, after subscribing")

	killed, err := admin.ClientKillByFilter(t.Context(), "TYPE", "pubsub").Result()
	require.NoError(t, err)
	require.Equal(t, int64(1), killed, "the bus's one pub/sub connection")
	requireEnded(t, abandoned, "the subscription whose connection broke")
	receiveSignal(t, resyncs, "a resync after the connection was lost")

	// Listen resyncs only once its new subscription is confirmed, so this
	// reaches it.
	require.NoError(t, b.Publish(t.Context(), "revoked", []byte("token-7")))
	select {
	case p := <-got:
		require.Equal(t, "token-7", p)
	case <-await.Timeout(t):
		require.FailNow(t, "the listener missed what was published after its resync")
	}
	await.True(t, func() bool {
		channels, err := admin.PubSubChannels(t.Context(), "*").Result()
		return err == nil && len(channels) == 1 && channels[0] == bus.DefaultPrefix+"revoked"
	}, "Redis holds the listener's channel and no longer the abandoned one")
}

// A loss with no consumer that subscribes again still ends in a healthy
// bus: it reconnects on its own, so /readyz recovers, and releases the
// channels go-redis subscribed again for nobody.
func TestRedisRecoversFromALossNobodySubscribesAfter(t *testing.T) {
	t.Parallel()
	server := startRedisServer(t, freePort(t))
	admin := newClient(t, &redis.Options{Addr: server.addr})
	b := bus.NewRedis(newClient(t, &redis.Options{Addr: server.addr}), nil)
	t.Cleanup(func() { require.NoError(t, b.Close()) })

	ch, err := b.Subscribe(t.Context(), "left")
	require.NoError(t, err)
	_, err = admin.ClientKillByFilter(t.Context(), "TYPE", "pubsub").Result()
	require.NoError(t, err)
	requireEnded(t, ch, "the subscription whose connection broke")

	await.True(t, func() bool { return b.Ping(t.Context()) == nil }, "the bus reports itself healthy again")
	await.True(t, func() bool {
		channels, err := admin.PubSubChannels(t.Context(), "*").Result()
		return err == nil && len(channels) == 0
	}, "no channel is left subscribed for nobody")
}

// requireEnded waits for ch to be closed, ignoring what it still holds.
func requireEnded(t *testing.T, ch <-chan bus.Message, what string) {
	t.Helper()
	deadline := await.Timeout(t)
	for {
		select {
		case _, open := <-ch:
			if !open {
				return
			}
		case <-deadline:
			require.FailNow(t, what+" stayed open")
		}
	}
}

// receiveSignal waits for one signal on ch.
func receiveSignal(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-await.Timeout(t):
		require.FailNow(t, "never came: "+what)
	}
}

func TestRedisMultiplexesOnePubSubConnection(t *testing.T) {
	t.Parallel()
	server := startRedisServer(t, freePort(t))
	admin := newClient(t, &redis.Options{Addr: server.addr})
	b := bus.NewRedis(newClient(t, &redis.Options{Addr: server.addr}), nil)
	t.Cleanup(func() { require.NoError(t, b.Close()) })

	const channels = 50
	ctx, cancel := context.WithCancel(t.Context())
	var subs []<-chan bus.Message
	for i := range channels {
		// Two local subscribers per channel share one Redis subscription.
		for range 2 {
			ch, err := b.Subscribe(ctx, "machine:"+strconv.Itoa(i))
			require.NoError(t, err)
			subs = append(subs, ch)
		}
	}

	list, err := admin.Do(t.Context(), "CLIENT", "LIST", "TYPE", "pubsub").Text()
	require.NoError(t, err)
	require.Len(t, strings.Split(strings.TrimSpace(list), "\n"), 1, "pub/sub clients:\n%s", list)

	subscribed, err := admin.PubSubChannels(t.Context(), "*").Result()
	require.NoError(t, err)
	require.Len(t, subscribed, channels)
	for _, name := range subscribed {
		require.True(t, strings.HasPrefix(name, "gpunex:machine:"), "channel %q carries the default prefix", name)
	}
	counts, err := admin.PubSubNumSub(t.Context(), "gpunex:machine:0").Result()
	require.NoError(t, err)
	require.Equal(t, int64(1), counts["gpunex:machine:0"])

	cancel()
	for _, ch := range subs {
		for range ch {
		}
	}
	await.True(t, func() bool {
		subscribed, err := admin.PubSubChannels(t.Context(), "*").Result()
		return err == nil && len(subscribed) == 0
	}, "Redis unsubscribes each channel once its last local subscriber left")
}

func TestRedisSubscribeReturnsOnlyOnceRedisConfirmed(t *testing.T) {
	t.Parallel()
	server := startRedisServer(t, freePort(t))
	// The subscriber's commands reach Redis late; a bus that returned from
	// Subscribe as soon as SUBSCRIBE was written would miss the message
	// published right after it through a direct connection.
	slow := startDelayProxy(t, server.addr, 100*time.Millisecond)
	subscriber := bus.NewRedis(newClient(t, &redis.Options{Addr: slow}), nil)
	t.Cleanup(func() { require.NoError(t, subscriber.Close()) })
	publisher := bus.NewRedis(newClient(t, &redis.Options{Addr: server.addr}), nil)
	t.Cleanup(func() { require.NoError(t, publisher.Close()) })

	for i := range 3 {
		channel := "confirmed-" + strconv.Itoa(i)
		ch, err := subscriber.Subscribe(t.Context(), channel)
		require.NoError(t, err)
		require.NoError(t, publisher.Publish(t.Context(), channel, []byte("once")))
		require.Equal(t, "once", string(receiveMessage(t, ch).Payload))
	}
}

// startDelayProxy forwards TCP connections to upstream, holding back what
// the client sends by delay. It returns the address to dial.
func startDelayProxy(t *testing.T, upstream string, delay time.Duration) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		conns []net.Conn
	)
	track := func(c net.Conn) {
		mu.Lock()
		defer mu.Unlock()
		conns = append(conns, c)
	}
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})

	type chunk struct {
		data []byte
		due  time.Time
	}
	wg.Go(func() {
		for {
			client, err := l.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial("tcp", upstream)
			if err != nil {
				client.Close()
				continue
			}
			track(client)
			track(server)
			chunks := make(chan chunk, 1024)
			wg.Go(func() { // client → chunks
				defer close(chunks)
				for {
					buf := make([]byte, 32<<10)
					n, err := client.Read(buf)
					if n > 0 {
						chunks <- chunk{data: buf[:n], due: time.Now().Add(delay)}
					}
					if err != nil {
						return
					}
				}
			})
			wg.Go(func() { // chunks → server, late
				defer server.Close()
				for c := range chunks {
					time.Sleep(time.Until(c.due))
					if _, err := server.Write(c.data); err != nil {
						return
					}
				}
			})
			wg.Go(func() { // server → client
				defer client.Close()
				_, _ = io.Copy(client, server)
			})
		}
	})
	return l.Addr().String()
}

// redisServer is a private redis-server process (see redistest).
type redisServer struct {
	*redistest.Server
	port int
	addr string
}

// startRedisServer starts redis-server on port without persistence and
// stops it when the test ends.
func startRedisServer(t *testing.T, port int) *redisServer {
	t.Helper()
	s := redistest.Start(t, port)
	return &redisServer{Server: s, port: s.Port, addr: s.Addr}
}

// stop kills the server and waits for it to exit; stopping twice is harmless.
func (s *redisServer) stop(t *testing.T) { s.Stop(t) }

// freePort returns a loopback TCP port that was free a moment ago.
func freePort(t *testing.T) int { return redistest.FreePort(t) }

func newClient(t *testing.T, options *redis.Options) *redis.Client {
	t.Helper()
	client := redis.NewClient(options)
	t.Cleanup(func() { require.NoError(t, client.Close()) })
	return client
}

// randomPrefix keeps tests that share a Redis server apart.
func randomPrefix() string {
	return "gpunex-test:" + rand.Text() + ":"
}

// receiveMessage waits for the next message on ch, as long as the test
// may: on a busy machine it comes late, never not at all.
func receiveMessage(t *testing.T, ch <-chan bus.Message) bus.Message {
	t.Helper()
	select {
	case m, open := <-ch:
		require.True(t, open, "subscription closed while a message was expected")
		return m
	case <-await.Timeout(t):
		require.FailNow(t, "no message arrived")
	}
	return bus.Message{}
}

// syncBuffer collects log output written from several goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
