package presence_test

import (
	"context"
	"crypto/rand"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/presence"
	"github.com/gpunex/gpunex/internal/presence/presencetest"
	"github.com/gpunex/gpunex/internal/redistest"
)

func TestRedis(t *testing.T) {
	t.Parallel()
	options := redisOptions(t)
	presencetest.Exercise(t,
		func(t *testing.T) presence.Store {
			s := presence.NewRedis(newClient(t, options), presence.WithPrefix(randomPrefix()))
			t.Cleanup(func() { require.NoError(t, s.Close()) })
			return s
		},
		// Redis keeps time itself: let it pass.
		func(_ *testing.T, d time.Duration) { time.Sleep(d) },
	)
}

func TestRedisKeepsKeysUnderTheDefaultPrefixWithAMillisecondTTL(t *testing.T) {
	t.Parallel()
	client := newClient(t, redisOptions(t))
	s := presence.NewRedis(client)
	key := "test-" + rand.Text()
	t.Cleanup(func() { client.Del(context.Background(), "gpunex:presence:"+key) })

	_, err := s.Touch(t.Context(), key, []byte("up"), 1500*time.Millisecond)
	require.NoError(t, err)
	ttl, err := client.PTTL(t.Context(), "gpunex:presence:"+key).Result()
	require.NoError(t, err)
	require.Greater(t, ttl, time.Second, "a ttl of 1.5s is not rounded down to whole seconds")
	require.LessOrEqual(t, ttl, 1500*time.Millisecond)
}

func TestRedisRoundTrips(t *testing.T) {
	t.Parallel()
	client := newClient(t, redisOptions(t))
	s := presence.NewRedis(client, presence.WithPrefix(randomPrefix()))
	// The first commands also set connections up (HELLO, CLIENT SETINFO);
	// count only what follows.
	require.NoError(t, s.Ping(t.Context()))
	_, err := s.Touch(t.Context(), "warm-up", nil, time.Minute)
	require.NoError(t, err)
	counter := &roundTripCounter{}
	client.AddHook(counter)

	tests := []struct {
		name string
		call func(ctx context.Context) error
	}{
		{"Touch of an absent key", func(ctx context.Context) error {
			_, err := s.Touch(ctx, "machine-1", []byte("up"), time.Minute)
			return err
		}},
		{"Touch of a present key", func(ctx context.Context) error {
			_, err := s.Touch(ctx, "machine-1", []byte("up"), time.Minute)
			return err
		}},
		{"GetMany of 100 keys", func(ctx context.Context) error {
			keys := make([]string, 100)
			for i := range keys {
				keys[i] = "machine-" + rand.Text()
			}
			_, err := s.GetMany(ctx, keys)
			return err
		}},
	}
	for _, tc := range tests {
		counter.n.Store(0)
		require.NoError(t, tc.call(t.Context()), tc.name)
		require.Equal(t, int64(1), counter.n.Load(), "%s takes one round trip", tc.name)
	}
}

// roundTripCounter counts what go-redis sends: one command, or one
// pipeline (MULTI/EXEC included), is one round trip.
type roundTripCounter struct{ n atomic.Int64 }

func (c *roundTripCounter) DialHook(next redis.DialHook) redis.DialHook { return next }

func (c *roundTripCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmd)
	}
}

func (c *roundTripCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmds)
	}
}

// redisOptions connects to the shared test Redis server, skipping the
// test without one.
func redisOptions(t *testing.T) *redis.Options {
	t.Helper()
	options, err := redis.ParseURL(redistest.SharedURL(t))
	require.NoError(t, err)
	return options
}

func newClient(t *testing.T, options *redis.Options) *redis.Client {
	t.Helper()
	client := redis.NewClient(options)
	t.Cleanup(func() { require.NoError(t, client.Close()) })
	return client
}

// randomPrefix keeps tests that share a Redis server apart.
func randomPrefix() string {
	return "gpunex-test:presence:" + rand.Text() + ":"
}
