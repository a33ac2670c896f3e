package bus

import (
	"context"
	"fmt"
)

// followBuffer is how many values a Follow channel holds before its
// goroutine waits for the consumer.
const followBuffer = 16

// Follow streams a state and its changes, the plumbing of a GraphQL
// subscription: it subscribes to channel, loads the current state with
// load, and returns a channel that carries that state, then the value next
// makes of each message (skipping those it rejects), until ctx ends.
//
// Subscribing before loading means no change falls in between; one that
// lands in both is seen twice, which next may filter out. load runs before
// Follow returns and next runs on one goroutine afterwards, so they may
// share state without locking. Both get a context that ends with the
// stream.
//
// The channel closes when ctx ends, or early when the subscription ends
// (the consumer fell behind): following again sends the current state
// again. An error from load is returned as it is, after the subscription
// is released.
func Follow[T any](ctx context.Context, b Bus, channel string, load func(context.Context) ([]T, error), next func(context.Context, Message) (T, bool)) (<-chan T, error) {
	ctx, cancel := context.WithCancel(ctx)
	msgs, err := b.Subscribe(ctx, channel)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("bus: unable to follow %s: %w", channel, err)
	}
	current, err := load(ctx)
	if err != nil {
		cancel()
		return nil, err
	}
	out := make(chan T, followBuffer)
	go func() {
		defer cancel()
		defer close(out)
		send := func(v T) bool {
			select {
			case out <- v:
				return true
			case <-ctx.Done():
				return false
			}
		}
		for _, v := range current {
			if !send(v) {
				return
			}
		}
		for {
			select {
			case <-ctx.Done():
				return
			case msg, ok := <-msgs:
				if !ok {
					return
				}
				if v, ok := next(ctx, msg); ok && !send(v) {
					return
				}
			}
		}
	}()
	return out, nil
}
