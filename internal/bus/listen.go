package bus

import (
	"context"
	"log/slog"
	"time"
)

// Listen delivers channel's messages to handle until ctx ends, subscribing
// again (after a pause) whenever the subscription ends early — the bus
// closes a subscriber that fell behind, and a subscribe can fail while the
// backend is down. resync runs after every successful subscribe, so the
// caller can reload what it may have missed; it may be nil.
func Listen(ctx context.Context, b Bus, channel string, logger *slog.Logger, resync func(), handle func(Message)) {
	const pause = time.Second
	for ctx.Err() == nil {
		msgs, err := b.Subscribe(ctx, channel)
		if err != nil {
			logger.WarnContext(ctx, "bus: unable to subscribe; retrying", "channel", channel, "err", err)
		} else {
			if resync != nil {
				resync()
			}
			for m := range msgs {
				handle(m)
			}
			if ctx.Err() == nil {
				logger.WarnContext(ctx, "bus: subscription ended early; subscribing again", "channel", channel)
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(pause):
		}
	}
}
