package client

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	"github.com/gpunex/gpunex/agent/protocol"
)

// Run registers the machine (retrying until it works), then sends
// heartbeats until ctx ends, buffering what cannot be delivered and
// replaying it once the server answers; see the package documentation.
//
// When ctx ends, Run sends the going-offline heartbeat and returns nil.
// It returns an error only when continuing cannot help: the token was
// refused (errors.Is(err, ErrUnauthenticated)), the server forbids the
// agent, or it refused the registration's input.
func (c *Client) Run(ctx context.Context) error {
	if !c.started.CompareAndSwap(false, true) {
		return errors.New("client: Run may be called once")
	}
	dctx, stopDispatch := context.WithCancel(ctx)
	c.dispatch = newDispatcher(c.handler, c.logger)
	go c.dispatch.run(dctx)
	defer func() {
		stopDispatch()
		<-c.dispatch.done
	}()

	if n := c.spool.Len(); n > 0 {
		c.logger.Info("client: heartbeats from an earlier run are buffered; they are sent after registration", "buffered", n)
	}
	if err := c.registerUntilDone(ctx); err != nil {
		if ctx.Err() != nil {
			c.logger.Info("client: stopped before the machine was registered")
			return nil
		}
		return err
	}

	for {
		if ctx.Err() != nil {
			return c.shutdown(ctx)
		}
		now := c.clock.Now()
		if c.lastBeat.IsZero() || !now.Before(c.lastBeat.Add(c.interval)) {
			c.lastBeat = now
			input := c.sample(ctx, now, false)
			if ctx.Err() != nil {
				// Stopped while reading: a reading cut short by the stop
				// is not a GPU gone, so it is not sent; the going-offline
				// heartbeat, read under its own deadline, carries the GPUs.
				return c.shutdown(ctx)
			}
			if c.spool.Len() > 0 || now.Before(c.retryAt) {
				c.keep(input)
			} else if err := c.deliver(ctx, input); err != nil {
				c.keep(input)
				if ctx.Err() != nil {
					return c.shutdown(ctx)
				}
				if classify(err) == outcomeFatal {
					return fatal(err)
				}
				c.fail(err)
			}
		}
		if c.spool.Len() > 0 && !c.clock.Now().Before(c.retryAt) {
			if err := c.drain(ctx); err != nil {
				if ctx.Err() != nil {
					return c.shutdown(ctx)
				}
				return fatal(err)
			}
		}
		wake := c.lastBeat.Add(c.interval)
		if c.spool.Len() > 0 && c.retryAt.Before(wake) {
			wake = c.retryAt
		}
		if err := c.sleep(ctx, wake.Sub(c.clock.Now())); err != nil {
			return c.shutdown(ctx)
		}
	}
}

// registerUntilDone registers, retrying with backoff what may work later.
func (c *Client) registerUntilDone(ctx context.Context) error {
	for attempt := 1; ; attempt++ {
		reg, err := c.Register(ctx)
		if err == nil {
			c.registeredAs(reg)
			c.logger.Info("client: machine registered", "server_id", reg.ID,
				"status", reg.Status, "gpus", len(reg.GPUUUIDs), "interval", c.interval.String())
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var rej *RejectedError
		var e *Error
		switch {
		case errors.As(err, &rej):
			return fatal(err)
		case errors.As(err, &e):
			if !e.Retryable() {
				return fatal(err)
			}
		case errors.Is(err, errDetector):
			// The GPUs may come back (a driver reload); keep trying.
		default:
			return fatal(err)
		}
		delay := max(c.backoff.Delay(attempt), retryAfter(err))
		c.logger.Warn("client: registration failed; retrying", "attempt", attempt, "retry_in", delay.String(), "err", err)
		if err := c.sleep(ctx, delay); err != nil {
			return err
		}
	}
}

// errDetector is wrapped by inventory failures, which are retried.
var errDetector = errors.New("client: reading the GPU inventory")

// registeredAs records a successful registration.
func (c *Client) registeredAs(reg *Registration) {
	c.needRegister = false
	c.registered = make(map[string]bool, len(reg.GPUUUIDs))
	for _, u := range reg.GPUUUIDs {
		c.registered[u] = true
	}
	c.setInterval(reg.Interval, "registration")
}

// noticeInventory asks for a new registration when the GPUs the telemetry
// shows are not the ones registered (a GPU fell off the bus, or came back),
// so the server records the change.
func (c *Client) noticeInventory(uuids []string) {
	if c.registered == nil || c.needRegister {
		return
	}
	same := len(uuids) == len(c.registered)
	for _, u := range uuids {
		same = same && c.registered[u]
	}
	if !same {
		c.logger.Info("client: the GPUs changed; registering again", "registered", len(c.registered), "now", len(uuids))
		c.needRegister = true
	}
}

// sample reads telemetry and encodes the heartbeat input. A detector that
// fails still yields a heartbeat (liveness), with the GPUs it could read.
func (c *Client) sample(ctx context.Context, at time.Time, goingOffline bool) json.RawMessage {
	samples, err := c.detector.Telemetry(ctx)
	if err != nil {
		msg := err.Error()
		if msg != c.lastSampleErr {
			c.logger.Warn("client: telemetry incomplete", "gpus_read", len(samples), "err", err)
		}
		c.lastSampleErr = msg
	} else {
		c.lastSampleErr = ""
	}
	at = at.UTC()
	in := protocol.HeartbeatInput{MachineID: c.machineID, At: &at, Gpus: telemetryInput(samples, c.history)}
	if goingOffline {
		in.GoingOffline = &goingOffline
	}
	if err == nil && !goingOffline {
		uuids := make([]string, len(in.Gpus))
		for i, g := range in.Gpus {
			uuids[i] = g.UUID
		}
		c.noticeInventory(uuids)
	}
	raw, err := json.Marshal(in)
	if err != nil {
		// Only a NaN or Inf reading can fail here; send liveness without GPUs.
		c.logger.Error("client: telemetry could not be encoded; sending the heartbeat without it", "err", err)
		in.Gpus = []protocol.GpuTelemetry{}
		raw, _ = json.Marshal(in)
	}
	return raw
}

// deliver sends one encoded heartbeat and applies its answer. It returns
// nil when the heartbeat is done with: delivered, or refused for its
// content (then logged and dropped). Other errors leave it undelivered.
func (c *Client) deliver(ctx context.Context, input json.RawMessage) error {
	ctx, done := c.graceful(ctx)
	defer done()
	if c.needRegister {
		reg, err := c.Register(ctx)
		if err != nil {
			return err
		}
		c.registeredAs(reg)
		c.logger.Info("client: machine registered again", "gpus", len(reg.GPUUUIDs))
	}
	res, err := c.heartbeat(ctx, input)
	if err != nil {
		switch classify(err) {
		case outcomeDrop:
			c.logger.Error("client: the server refused a heartbeat; it is dropped", "at", atOf(input), "err", err)
			c.recovered()
			return nil
		case outcomeRegister:
			c.needRegister = true
		}
		return err
	}
	c.recovered()
	if !res.Accepted {
		c.logger.Warn("client: the server did not accept a heartbeat", "at", lazyAt(input), "status", res.Status)
	}
	c.logger.Debug("client: heartbeat delivered", "at", lazyAt(input), "status", res.Status, "commands", len(res.Commands))
	c.setInterval(res.Interval, "heartbeat answer")
	var forward []Command
	for _, cmd := range res.Commands {
		if cmd.Kind == protocol.CommandSetInterval {
			var p struct {
				Seconds int `json:"seconds"`
			}
			if err := json.Unmarshal(cmd.Payload, &p); err != nil || p.Seconds <= 0 {
				c.logger.Error("client: SET_INTERVAL without a positive seconds; ignored", "command_id", cmd.ID)
				continue
			}
			c.setInterval(secondsInterval(p.Seconds), "SET_INTERVAL command")
			continue
		}
		forward = append(forward, cmd)
	}
	if len(forward) > 0 && c.dispatch != nil && ctx.Err() == nil {
		c.dispatch.enqueue(forward)
	}
	return nil
}

// graceful returns a context for one delivery that outlives ctx by the
// offline timeout: a heartbeat in flight when the agent is told to stop
// still gets its answer (and is not sent twice), yet shutdown stays
// bounded.
func (c *Client) graceful(ctx context.Context) (context.Context, context.CancelFunc) {
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() { time.AfterFunc(c.offlineTO, cancel) })
	return rctx, func() {
		stop()
		cancel()
	}
}

// drain replays the buffer, oldest first, until it is empty or a delivery
// fails (then backoff is set and drain returns nil). It returns an error
// only when the loop must end.
func (c *Client) drain(ctx context.Context) error {
	n := 0
	defer func() {
		// The offset is written once for the batch, not per entry: a crash
		// before this repeats delivered heartbeats, never loses any.
		if err := c.spool.Flush(); err != nil {
			c.logger.Error("client: the heartbeat buffer could not be updated; heartbeats may be sent twice", "err", err)
		}
		if n > 0 {
			c.logger.Info("client: buffered heartbeats replayed", "replayed", n, "still_buffered", c.spool.Len())
		}
	}()
	for c.spool.Len() > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		input, err := c.spool.Peek()
		if err == nil && !json.Valid(input) {
			err = errors.New("the entry is not JSON")
		}
		if err != nil {
			c.logger.Error("client: an unreadable buffered heartbeat is dropped", "err", err)
			if perr := c.spool.Pop(); perr != nil {
				return perr
			}
			continue
		}
		if err := c.deliver(ctx, input); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if classify(err) == outcomeFatal {
				return err
			}
			c.fail(err)
			return nil
		}
		if err := c.spool.Pop(); err != nil {
			c.logger.Error("client: the heartbeat buffer could not be updated; a heartbeat may be sent twice", "err", err)
		}
		n++
	}
	return nil
}

// keep buffers a heartbeat that was not delivered.
func (c *Client) keep(input json.RawMessage) {
	dropped, err := c.spool.Append(input)
	if dropped {
		c.logger.Warn("client: heartbeat buffer full; the oldest heartbeat is dropped", "limit", c.spool.limit)
	}
	if err != nil {
		c.logger.Error("client: a heartbeat could not be buffered and is lost", "at", atOf(input), "err", err)
	}
}

// fail records a failed delivery and schedules the next try.
func (c *Client) fail(err error) {
	c.failures++
	delay := max(c.backoff.Delay(c.failures), retryAfter(err))
	c.retryAt = c.clock.Now().Add(delay)
	c.logger.Warn("client: heartbeat not delivered; buffered, retrying", "attempt", c.failures,
		"retry_in", delay.String(), "buffered", c.spool.Len(), "err", err)
}

// recovered clears the backoff after the server answered.
func (c *Client) recovered() {
	if c.failures > 0 {
		c.logger.Info("client: the server answers again", "failed_attempts", c.failures, "buffered", c.spool.Len())
	}
	c.failures = 0
	c.retryAt = time.Time{}
}

// setInterval applies an interval the server asked for (0: unchanged).
func (c *Client) setInterval(d time.Duration, why string) {
	if d <= 0 || d == c.interval {
		return
	}
	c.logger.Info("client: heartbeat interval changed", "from", c.interval.String(), "to", d.String(), "by", why)
	c.interval = d
}

// shutdown sends the going-offline heartbeat after the buffer, within the
// offline timeout, and buffers it when it cannot be sent.
func (c *Client) shutdown(parent context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(parent), c.offlineTO)
	defer cancel()
	input := c.sample(ctx, c.clock.Now(), true)
	if c.spool.Len() == 0 {
		err := c.deliver(ctx, input)
		if err == nil {
			c.logger.Info("client: going-offline heartbeat sent")
			return nil
		}
		c.keep(input)
		c.logger.Warn("client: the going-offline heartbeat could not be sent; it is buffered for the next start", "err", err)
		return nil
	}
	c.keep(input)
	if err := c.drain(ctx); err != nil || c.spool.Len() > 0 {
		c.logger.Warn("client: stopping with heartbeats still buffered; they are sent on the next start",
			"buffered", c.spool.Len(), "err", err)
		return nil
	}
	c.logger.Info("client: buffered and going-offline heartbeats sent")
	return nil
}

// lazyAt logs a heartbeat's sample time, decoding it only when the record
// is actually written (a debug line per heartbeat must not cost a decode
// when debug logging is off).
type lazyAt json.RawMessage

// LogValue implements slog.LogValuer.
func (l lazyAt) LogValue() slog.Value { return slog.StringValue(atOf(json.RawMessage(l))) }

// atOf reads the `at` of an encoded heartbeat, for logs.
func atOf(input json.RawMessage) string {
	var v struct {
		At string `json:"at"`
	}
	_ = json.Unmarshal(input, &v)
	return v.At
}
