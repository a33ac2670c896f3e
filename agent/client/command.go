package client

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"

	"github.com/gpunex/gpunex/agent/protocol"
)

// Command is work the server asks of the agent, from a heartbeat answer.
type Command struct {
	// ID is the server's command id.
	ID string `json:"id"`
	// Kind says what to do. The client handles
	// protocol.CommandSetInterval ({"seconds": N}) itself and hands the
	// handler every other kind.
	Kind protocol.CommandKind `json:"kind"`
	// Payload is the command's JSON arguments.
	Payload json.RawMessage `json:"payload"`
}

// Handler carries out a command. It runs on the client's command
// goroutine, one command at a time in the order the server sent them, with
// a context that ends when Run stops; an error is logged.
type Handler func(ctx context.Context, cmd Command) error

// seenCommands is how many command ids the dispatcher remembers, so a
// command the server sends again is not run twice.
const seenCommands = 512

// dispatcher queues commands for the handler without ever blocking the
// heartbeat loop.
type dispatcher struct {
	handler Handler
	logger  *slog.Logger

	mu    sync.Mutex
	queue []Command
	seen  map[string]bool
	order []string
	wake  chan struct{}
	done  chan struct{}
}

func newDispatcher(h Handler, logger *slog.Logger) *dispatcher {
	return &dispatcher{handler: h, logger: logger, seen: map[string]bool{}, wake: make(chan struct{}, 1), done: make(chan struct{})}
}

// enqueue adds commands the dispatcher has not seen before.
func (d *dispatcher) enqueue(cmds []Command) {
	d.mu.Lock()
	for _, c := range cmds {
		if c.ID != "" {
			if d.seen[c.ID] {
				d.logger.Debug("client: command already handled, skipped", "command_id", c.ID, "kind", c.Kind)
				continue
			}
			d.seen[c.ID] = true
			d.order = append(d.order, c.ID)
			if len(d.order) > seenCommands {
				delete(d.seen, d.order[0])
				d.order = d.order[1:]
			}
		}
		d.queue = append(d.queue, c)
	}
	d.mu.Unlock()
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// run hands queued commands to the handler until ctx ends.
func (d *dispatcher) run(ctx context.Context) {
	defer close(d.done)
	for {
		d.mu.Lock()
		if len(d.queue) == 0 {
			d.mu.Unlock()
			select {
			case <-ctx.Done():
				return
			case <-d.wake:
				continue
			}
		}
		cmd := d.queue[0]
		d.queue = d.queue[1:]
		d.mu.Unlock()
		if ctx.Err() != nil {
			return
		}
		if d.handler == nil {
			d.logger.Warn("client: no handler for commands; command ignored", "command_id", cmd.ID, "kind", cmd.Kind)
			continue
		}
		if err := d.handler(ctx, cmd); err != nil {
			d.logger.Error("client: command failed", "command_id", cmd.ID, "kind", cmd.Kind, "err", err)
			continue
		}
		d.logger.Info("client: command done", "command_id", cmd.ID, "kind", cmd.Kind)
	}
}
