package bus_test

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/redistest"
)

// A command in flight when Redis closes the connection (as a restart
// does) is an outage, answered UNAVAILABLE, not INTERNAL: the soak's Redis
// restart found a heartbeat answered INTERNAL for "presence: touch: EOF".
// Each case blocks a command in Redis (BLPOP), has Redis close every
// client connection, and reads what the call returned.
func TestACommandRedisClosedBeforeAnsweringIsAnOutage(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, 0)
	ctx := context.Background()
	admin := redis.NewClient(&redis.Options{Addr: srv.Addr})
	t.Cleanup(func() { _ = admin.Close() })
	for name, call := range map[string]func(*redis.Client) error{
		"a command": func(c *redis.Client) error { return c.BLPop(ctx, 0, "never").Err() },
		"a pipeline's command": func(c *redis.Client) error {
			var pop *redis.StringSliceCmd
			_, _ = c.Pipelined(ctx, func(p redis.Pipeliner) error { pop = p.BLPop(ctx, 0, "never"); return nil })
			return pop.Err()
		},
		"a pipeline": func(c *redis.Client) error {
			_, err := c.Pipelined(ctx, func(p redis.Pipeliner) error { p.BLPop(ctx, 0, "never"); return nil })
			return err
		},
	} {
		t.Run(name, func(t *testing.T) {
			// No retries: a retried command would wait again on a new
			// connection, and the platform's heartbeat does not wait.
			c := redis.NewClient(&redis.Options{Addr: srv.Addr, MaxRetries: -1})
			t.Cleanup(func() { _ = c.Close() })
			c.AddHook(bus.EndedIsOutage{})
			done := make(chan error, 1)
			go func() { done <- call(c) }()
			await.True(t, func() bool { return strings.Contains(admin.ClientList(ctx).Val(), "cmd=blpop") }, "BLPOP never blocked")
			require.NoError(t, admin.ClientKillByFilter(ctx, "TYPE", "normal", "SKIPME", "yes").Err())
			err := <-done
			require.ErrorIs(t, err, io.EOF, "go-redis's own report stays in the chain")
			require.True(t, fault.IsOutage(err), "%v", err)
		})
	}
}
