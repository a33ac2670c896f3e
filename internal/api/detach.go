package api

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"slices"
	"sync"
)

// A WebSocket outlives the HTTP request that opened it. Served the usual
// way, on the request's handler goroutine, every idle socket would keep
// that goroutine blocked in its read under the whole middleware chain and
// net/http's own frames, and Go keeps a goroutine's stack at a size its
// blocked depth fits in four times over: about 16 KiB a dashboard, where
// a bare gorilla hub's reader needs 4. So once the upgrade has hijacked
// the connection, the socket is served on a goroutine of its own
// (liveWebsocket.Do) and the handler returns; what the middleware would
// have done on the way out (free the socket's slot, end its context) is
// registered with the socket's socketEnd and runs when the socket ends.

// socketEnd is what runs when a WebSocket's request is over: at the
// handler's return when it was never upgraded, at the socket's end when
// it was.
type socketEnd struct {
	mu       sync.Mutex
	detached bool
	done     bool
	fns      []func()
	// upgraded is closed once the connection is hijacked (detach).
	upgraded chan struct{}
}

type socketEndKey struct{}

func withSocketEnd(ctx context.Context, e *socketEnd) context.Context {
	return context.WithValue(ctx, socketEndKey{}, e)
}

func socketEndFrom(ctx context.Context) *socketEnd {
	e, _ := ctx.Value(socketEndKey{}).(*socketEnd)
	return e
}

func newSocketEnd() *socketEnd { return &socketEnd{upgraded: make(chan struct{})} }

// add registers fn to run at the end, after the ones registered later (as
// deferred calls run).
func (e *socketEnd) add(fn func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.fns = append(e.fns, fn)
}

// detach records that the connection was hijacked: the end comes with
// the socket's, not the handler's return.
func (e *socketEnd) detach() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.detached {
		e.detached = true
		close(e.upgraded)
	}
}

// handlerReturned runs the registered functions unless the socket was
// detached (socketEnded runs them then).
func (e *socketEnd) handlerReturned() { e.run(false) }

// socketEnded runs the registered functions of a detached socket.
func (e *socketEnd) socketEnded() { e.run(true) }

func (e *socketEnd) run(bySocket bool) {
	e.mu.Lock()
	if e.done || e.detached != bySocket {
		e.mu.Unlock()
		return
	}
	e.done = true
	fns := e.fns
	e.fns = nil
	e.mu.Unlock()
	for _, fn := range slices.Backward(fns) {
		fn()
	}
}

// serveDetached runs serve (the transport's Do: upgrade, then the
// socket's loop) on a goroutine of its own, and returns once the
// connection is hijacked or serve has returned without upgrading (its
// answer written). Without a socketEnd in r's context it just calls serve.
// A panic of a detached socket is logged, as net/http logs a handler's,
// and ends that socket only.
func serveDetached(logger *slog.Logger, r *http.Request, serve func()) {
	e := socketEndFrom(r.Context())
	if e == nil {
		serve()
		return
	}
	returned := make(chan struct{})
	go func() {
		defer e.socketEnded()
		defer close(returned)
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler { //nolint:errorlint // net/http's sentinel panic value, compared as net/http does
					return
				}
				logger.Error("api: panic serving a WebSocket", "remote", r.RemoteAddr, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			}
		}()
		serve()
	}()
	select {
	case <-returned:
	case <-e.upgraded:
	}
}
