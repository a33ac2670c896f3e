package presence

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gpunex/gpunex/internal/bus"
)

// keySpace is where presence keys live within a deployment's Redis
// namespace, apart from the bus's channels.
const keySpace = "presence:"

// DefaultPrefix is put in front of every key: keySpace within the
// deployment's default namespace, which the bus defines (the namespace is
// one, shared by events and presence).
const DefaultPrefix = bus.DefaultPrefix + keySpace

// Redis is a [Store] of Redis keys with a time to live, shared by every
// replica. Redis expires the keys itself.
type Redis struct {
	client *redis.Client
	prefix string
	closed atomic.Bool
}

var _ Store = (*Redis)(nil)

// RedisOption adjusts a [Redis] store built by [NewRedis].
type RedisOption func(*Redis)

// WithPrefix replaces the [DefaultPrefix] put in front of every key. Tests
// use a random one so that runs sharing a server stay apart.
func WithPrefix(prefix string) RedisOption {
	return func(r *Redis) {
		r.prefix = prefix
	}
}

// WithNamespace puts the keys in a deployment's Redis namespace (the
// --redis-prefix the bus uses too), under namespace + "presence:".
func WithNamespace(namespace string) RedisOption {
	return WithPrefix(namespace + keySpace)
}

// NewRedis returns a store that keeps its keys through client. The client
// stays the caller's: Close does not close it.
func NewRedis(client *redis.Client, opts ...RedisOption) *Redis {
	r := &Redis{client: client, prefix: DefaultPrefix}
	for _, opt := range opts {
		opt(r)
	}
	return r
}

// Touch implements [Store.Touch] in one round trip: EXISTS and SET … PX run
// inside MULTI/EXEC, so racing Touches see each other and the previous
// value is not sent back, as SET … GET would.
func (r *Redis) Touch(ctx context.Context, key string, value []byte, ttl time.Duration) (bool, error) {
	if ttl <= 0 {
		return false, fmt.Errorf("presence: touch %q: ttl %s is not positive", key, ttl)
	}
	if r.closed.Load() {
		return false, ErrClosed
	}
	// Redis counts in milliseconds; go-redis would log a warning for less.
	ttl = max(ttl, time.Millisecond)
	var exists *redis.IntCmd
	_, err := r.client.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
		exists = pipe.Exists(ctx, r.prefix+key)
		pipe.Set(ctx, r.prefix+key, value, ttl)
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("presence: touch %q: %w", key, err)
	}
	return exists.Val() == 0, nil
}

// Get implements [Store.Get].
func (r *Redis) Get(ctx context.Context, key string) ([]byte, bool, error) {
	if r.closed.Load() {
		return nil, false, ErrClosed
	}
	value, err := r.client.Get(ctx, r.prefix+key).Bytes()
	switch {
	case errors.Is(err, redis.Nil):
		return nil, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("presence: get %q: %w", key, err)
	}
	return value, true, nil
}

// GetMany implements [Store.GetMany] with one MGET.
func (r *Redis) GetMany(ctx context.Context, keys []string) (map[string][]byte, error) {
	if r.closed.Load() {
		return nil, ErrClosed
	}
	values := make(map[string][]byte, len(keys))
	if len(keys) == 0 {
		return values, nil
	}
	prefixed := make([]string, len(keys))
	for i, key := range keys {
		prefixed[i] = r.prefix + key
	}
	replies, err := r.client.MGet(ctx, prefixed...).Result()
	if err != nil {
		return nil, fmt.Errorf("presence: get %d keys: %w", len(keys), err)
	}
	for i, reply := range replies {
		if value, ok := reply.(string); ok {
			values[keys[i]] = []byte(value)
		}
	}
	return values, nil
}

// Remove implements [Store.Remove].
func (r *Redis) Remove(ctx context.Context, key string) (bool, error) {
	if r.closed.Load() {
		return false, ErrClosed
	}
	n, err := r.client.Del(ctx, r.prefix+key).Result()
	if err != nil {
		return false, fmt.Errorf("presence: remove %q: %w", key, err)
	}
	return n > 0, nil
}

// Ping reports whether Redis answers.
func (r *Redis) Ping(ctx context.Context) error {
	if r.closed.Load() {
		return ErrClosed
	}
	if err := r.client.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("presence: ping redis: %w", err)
	}
	return nil
}

// Close makes every later call fail; it leaves the client open for its
// other users. Closing twice is harmless.
func (r *Redis) Close() error {
	r.closed.Store(true)
	return nil
}
