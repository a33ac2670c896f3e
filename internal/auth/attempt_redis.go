package auth

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisAttempts is the AttemptStore replicas share: each count is one key
// under the deployment's prefix, INCR'd and given its expiry atomically.
type RedisAttempts struct {
	rdb    *redis.Client
	prefix string
}

var _ AttemptStore = (*RedisAttempts)(nil)

// incr adds ARGV[2] and, on the first increment, sets the expiry in the
// same step, so a crash between the two cannot leave a count that never
// ends.
var incr = redis.NewScript(`
local n = redis.call('INCRBY', KEYS[1], ARGV[2])
if n == tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n`)

// NewRedisAttempts returns a store keeping its counts under prefix
// (bus.DefaultPrefix for a deployment that sets none).
func NewRedisAttempts(rdb *redis.Client, prefix string) *RedisAttempts {
	return &RedisAttempts{rdb: rdb, prefix: prefix}
}

// Incr implements AttemptStore.
func (r *RedisAttempts) Incr(ctx context.Context, key string, n int64, ttl time.Duration) (int64, error) {
	n, err := incr.Run(ctx, r.rdb, []string{r.prefix + key}, ttl.Milliseconds(), max(n, 1)).Int64()
	if err != nil {
		return 0, errorf("unable to count an attempt", err)
	}
	return n, nil
}

// Block implements AttemptStore.
func (r *RedisAttempts) Block(ctx context.Context, key string, d time.Duration) error {
	if err := r.rdb.Set(ctx, r.prefix+key, 1, d).Err(); err != nil {
		return errorf("unable to lock out", err)
	}
	return nil
}

// Blocked implements AttemptStore.
func (r *RedisAttempts) Blocked(ctx context.Context, key string) (time.Duration, error) {
	d, err := r.rdb.PTTL(ctx, r.prefix+key).Result()
	if err != nil {
		return 0, errorf("unable to read a lockout", err)
	}
	return max(d, 0), nil // -2: no key; -1: none without expiry is ever set
}

// Reset implements AttemptStore.
func (r *RedisAttempts) Reset(ctx context.Context, keys ...string) error {
	full := make([]string, len(keys))
	for i, k := range keys {
		full[i] = r.prefix + k
	}
	if err := r.rdb.Del(ctx, full...).Err(); err != nil {
		return errorf("unable to reset attempts", err)
	}
	return nil
}
