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

func TestRedisReconnectsAfterServerRestart(t *testing.T) {
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

	t.Run("Subscribe fails instead of hanging while Redis is down", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), await.Patience(t))
		defer cancel()
		_, err := b.Subscribe(ctx, "while-down")
		require.Error(t, err)
		require.NoError(t, ctx.Err(), "Subscribe gave up on its own, not at the deadline")
	})

	startRedisServer(t, server.port) // the same port: the bus reconnects to it

	// Messages published before the bus has subscribed again are lost, so
	// publish until one arrives.
	deadline := await.Timeout(t)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for received := false; !received; {
		select {
		case <-tick.C:
			_ = b.Publish(t.Context(), "restart", []byte("after"))
		case msg, ok := <-ch:
			require.True(t, ok, "the existing subscription was closed by the restart")
			received = string(msg.Payload) == "after"
		case <-deadline:
			require.FailNow(t, "no message reached the existing subscriber after the restart", "log:\n%s", logs)
		}
	}
	require.Contains(t, logs.String(), "bus: redis pub/sub connection lost")
	require.Contains(t, logs.String(), "bus: redis pub/sub reconnected")
	await.True(t, func() bool { return b.Ping(t.Context()) == nil })
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
