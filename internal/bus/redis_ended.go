package bus

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/redis/go-redis/v9"
)

// EndedIsOutage is a go-redis hook, added once to the client every
// Redis-backed store shares (the bus, presence, sign-in limits), that
// tells a connection Redis closed before answering from the end of
// anything. go-redis reports it as a bare io.EOF (a restarting Redis
// closes its clients so, with a command in flight); fault.IsOutage does
// not count a bare io.EOF, which is too common elsewhere, so a heartbeat
// caught that way was answered INTERNAL. The hook makes it
// io.ErrUnexpectedEOF, on the command and on what the call returns, so the
// caller answers UNAVAILABLE with a retry hint.
type EndedIsOutage struct{}

// DialHook implements redis.Hook.
func (EndedIsOutage) DialHook(next redis.DialHook) redis.DialHook { return next }

// ProcessHook implements redis.Hook.
func (EndedIsOutage) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		return ended(next(ctx, cmd), cmd)
	}
}

// ProcessPipelineHook implements redis.Hook (pipelines and MULTI/EXEC).
func (EndedIsOutage) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		for _, cmd := range cmds {
			_ = ended(cmd.Err(), cmd)
		}
		return ended(err, nil)
	}
}

// ended makes a bare io.EOF io.ErrUnexpectedEOF, on cmd too when given.
func ended(err error, cmd redis.Cmder) error {
	if err == nil || !errors.Is(err, io.EOF) {
		return err
	}
	err = fmt.Errorf("redis closed the connection before answering: %w (%w)", io.ErrUnexpectedEOF, err)
	if cmd != nil {
		cmd.SetErr(err)
	}
	return err
}
