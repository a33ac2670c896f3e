package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/bus"
)

// The live layer runs the operations of every WebSocket: gqlgen's
// transport keeps the connection's protocol (connection_init and its ack,
// ping and pong, the close codes), and the adapter takes the subscribe
// messages, because gqlgen would run each subscription on a goroutine of
// its own and execute and encode every event once per subscriber.
//
// Here a subscription holds no goroutine. Its resolver follows a
// bus.Shared channel under a sink (bus.Tap): the current state and each
// event go straight to the socket's queue, and a socket drains its queue
// on a goroutine that lives only while there is something to write. The
// events are encoded by a liveGroup: one per viewer and operation (the
// same document, operation name and variables, for the same user with the
// same roles), which executes the operation's selection once for an event
// and hands the same bytes to every subscription of the group, on any
// socket. A subscription still gets only what its own resolver lets
// through (its follow's keep), and its own current state.
//
// A socket whose queue holds maxQueuedEvents events not yet written has
// fallen behind: the subscription that would add one more ends with
// complete, and the client subscribes again for the current state, as
// with every early end of a bus.Shared follow.
const maxQueuedEvents = 32

// encodedEvents is how many events a group keeps encoded: enough for the
// subscribers of a burst to find each one.
const encodedEvents = 8

type execKey struct{}

// liveWebsocket is gqlgen's WebSocket transport, with the executor handed
// to the adapter for the operations it runs, serving each socket on a
// goroutine of its own once upgraded (see detach.go).
type liveWebsocket struct {
	transport.Websocket
	logger *slog.Logger
}

func (t liveWebsocket) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	r = r.WithContext(context.WithValue(r.Context(), execKey{}, exec))
	serveDetached(t.logger, r, func() { t.Websocket.Do(w, r, exec) })
}

// liveHub holds a replica's groups.
type liveHub struct {
	mu     sync.Mutex
	groups map[string]*liveGroup
}

func newLiveHub() *liveHub { return &liveHub{groups: map[string]*liveGroup{}} }

// liveGroup encodes the events of one operation for one view.
type liveGroup struct {
	hub     *liveHub
	key     string
	exec    graphql.GraphExecutor
	members int // guarded by hub.mu

	ctx    context.Context
	cancel context.CancelFunc
	rc     *graphql.OperationContext

	mu        sync.RWMutex
	tap       *bus.Tap
	responses graphql.ResponseHandler
	broken    bool
	encoded   [encodedEvents]encodedEvent
	next      int
}

type encodedEvent struct {
	seq     uint64
	payload []byte
}

// viewKey names what a viewer may see: the same key, the same bytes.
func viewKey(ctx context.Context) string {
	if v := auth.ViewerFrom(ctx); v != nil && v.User != nil {
		roles := make([]string, len(v.Roles))
		for i, r := range v.Roles {
			roles[i] = string(r)
		}
		slices.Sort(roles)
		return "user:" + strconv.FormatInt(v.User.ID, 10) + ":" + strings.Join(roles, ",")
	}
	if a := auth.AgentFrom(ctx); a != nil {
		return "agent:" + strconv.FormatInt(a.ProviderID, 10)
	}
	return "anonymous"
}

// groupKey is the view and the operation: its document, name and
// variables (coerced, encoded with sorted keys).
func groupKey(ctx context.Context, rc *graphql.OperationContext) string {
	vars, _ := json.Marshal(rc.Variables)
	return viewKey(ctx) + "\x00" + rc.OperationName + "\x00" + string(vars) + "\x00" + rc.RawQuery
}

// join returns the group of the operation, made on first use.
func (h *liveHub) join(ctx context.Context, exec graphql.GraphExecutor, rc *graphql.OperationContext) *liveGroup {
	key := groupKey(ctx, rc)
	h.mu.Lock()
	defer h.mu.Unlock()
	g := h.groups[key]
	if g == nil {
		// The group outlives the subscription that made it: its context
		// keeps the values (the viewer) but neither the cancellation nor
		// the socket of that subscription.
		gctx, cancel := context.WithCancel(detached{context.WithoutCancel(ctx)})
		// The operation context is safe for concurrent use (gqlgen guards
		// its field cache), and read-only once made.
		g = &liveGroup{hub: h, key: key, exec: exec, ctx: gctx, cancel: cancel, rc: rc}
		h.groups[key] = g
	}
	g.members++
	return g
}

func (h *liveHub) leave(g *liveGroup) {
	h.mu.Lock()
	defer h.mu.Unlock()
	g.members--
	if g.members == 0 {
		if h.groups[g.key] == g {
			delete(h.groups, g.key)
		}
		g.cancel()
	}
}

// detached hides the socket of the context it wraps.
type detached struct{ context.Context }

func (d detached) Value(key any) any {
	if _, ok := key.(socketKey); ok {
		return nil
	}
	return d.Context.Value(key)
}

// errGroupEnded ends a subscription whose group can no longer encode.
var errGroupEnded = errors.New("live: the operation's encoder ended")

// encode returns the payload of the next message for v, event seq (0: a
// subscriber's current state, encoded for it alone). The first subscriber
// to need an event encodes it; the others find the bytes.
func (g *liveGroup) encode(seq uint64, v any) ([]byte, error) {
	if seq != 0 {
		g.mu.RLock()
		b := g.find(seq)
		g.mu.RUnlock()
		if b != nil {
			return b, nil
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if seq != 0 {
		if b := g.find(seq); b != nil {
			return b, nil
		}
	}
	if g.responses == nil && !g.broken {
		g.tap = &bus.Tap{}
		g.responses, _ = g.exec.DispatchOperation(bus.WithTap(g.ctx, g.tap), g.rc)
		g.broken = !g.tap.Used()
	}
	if g.broken || !g.tap.Push(v) {
		g.broken = true
		return nil, errGroupEnded
	}
	resp := g.responses(g.ctx)
	if resp == nil {
		g.broken = true
		return nil, errGroupEnded
	}
	b, err := json.Marshal(resp)
	if err != nil {
		return nil, err
	}
	if seq != 0 {
		g.encoded[g.next] = encodedEvent{seq: seq, payload: b}
		g.next = (g.next + 1) % encodedEvents
	}
	return b, nil
}

func (g *liveGroup) find(seq uint64) []byte {
	for _, e := range g.encoded {
		if e.seq == seq {
			return e.payload
		}
	}
	return nil
}

// liveOp is one operation running on a socket.
type liveOp struct {
	id     string
	qid    []byte // id as JSON, written in every message of the operation
	conn   *gorillaConn
	cancel context.CancelFunc
	group  *liveGroup // a subscription's; nil for others
	tap    *bus.Tap   // a subscription's follow

	mu    sync.Mutex
	ended bool
	onEnd []func()
}

type opKey struct{}

// whenOperationEnds runs fn once the operation of ctx ended: for one of a
// socket's, when it finishes (a callback on ctx would keep the whole
// dispatch alive as long as the operation lives); otherwise when ctx ends.
func whenOperationEnds(ctx context.Context, fn func()) {
	if o, ok := ctx.Value(opKey{}).(*liveOp); ok {
		o.mu.Lock()
		if !o.ended {
			o.onEnd = append(o.onEnd, fn)
			o.mu.Unlock()
			return
		}
		o.mu.Unlock()
		fn()
		return
	}
	context.AfterFunc(ctx, fn)
}

func (o *liveOp) done() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.ended
}

// finish ends o once: it leaves the socket and its group, and unless the
// socket is closing, tells the client with complete.
func (o *liveOp) finish(complete bool) {
	o.mu.Lock()
	if o.ended {
		o.mu.Unlock()
		return
	}
	o.ended = true
	g, tap, onEnd := o.group, o.tap, o.onEnd
	o.onEnd = nil
	o.mu.Unlock()
	o.cancel()
	if tap != nil {
		tap.Stop()
	}
	for _, fn := range onEnd {
		fn()
	}
	o.conn.dropOp(o)
	if g != nil {
		g.hub.leave(g)
	}
	if complete {
		o.conn.enqueue(frame{kind: frameComplete, id: o.id})
	}
}

// deliver is the sink of a subscription's follow: it queues the value for
// the socket, and reports false when the socket has fallen behind.
func (o *liveOp) deliver(seq uint64, v any) bool {
	if o.done() {
		return false
	}
	return o.conn.enqueue(frame{kind: frameEvent, id: o.id, op: o, seq: seq, v: v})
}

// endEarly is the end of a subscription's follow: when the subscription
// did not end first (the client completed it, or the socket closed), the
// follow ended early and the client subscribes again.
func (o *liveOp) endEarly() { o.finish(true) }

// operate runs one subscribe message of the socket: it answers parse and
// validation errors as gqlgen would, starts a subscription in its group,
// and runs a query or mutation on a goroutine until its last response.
func (c *gorillaConn) operate(exec graphql.GraphExecutor, id string, payload json.RawMessage, start time.Time) error {
	c.mu.Lock()
	base := c.opCtx
	_, dup := c.ops[id]
	c.mu.Unlock()
	if dup {
		// graphql-transport-ws: 4409 Subscriber for <id> already exists.
		_ = c.WriteClose(4409, "Subscriber for "+id+" already exists")
		return errProtocolClosed
	}
	ctx := graphql.StartOperationTrace(base)
	params := &graphql.RawParams{}
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	if err := dec.Decode(params); err != nil {
		c.sendErrors(id, &gqlerror.Error{Message: "invalid json"})
		c.enqueue(frame{kind: frameComplete, id: id})
		return nil
	}
	params.ReadTime = graphql.TraceTiming{Start: start, End: graphql.Now()}
	params.Headers = c.headers
	rc, errs := exec.CreateOperationContext(ctx, params)
	if errs != nil {
		resp := exec.DispatchError(graphql.WithOperationContext(ctx, rc), errs)
		if errcode.GetErrorKind(errs) == errcode.KindProtocol {
			c.sendErrors(id, resp.Errors...)
		} else {
			c.sendResponse(id, &graphql.Response{Errors: errs})
		}
		c.enqueue(frame{kind: frameComplete, id: id})
		return nil
	}
	// The operation lives as long as life; what the dispatch needs (the
	// operation context, gqlgen's field contexts) is garbage once it
	// returned, for a subscription, which then holds only life.
	life, cancel := context.WithCancel(ctx)
	qid, _ := json.Marshal(id)
	o := &liveOp{id: id, qid: qid, conn: c, cancel: cancel}
	ctx = context.WithValue(graphql.WithOperationContext(life, rc), opKey{}, o)
	if !c.addOp(o) {
		cancel()
		return nil
	}
	if rc.Operation.Operation != ast.Subscription {
		responses, ctx := exec.DispatchOperation(ctx, rc)
		go o.stream(ctx, rc, responses)
		return nil
	}
	o.mu.Lock()
	o.group = c.ws.live.join(ctx, exec, rc)
	o.mu.Unlock()
	tap := &bus.Tap{Deliver: o.deliver, End: o.endEarly}
	o.mu.Lock()
	o.tap = tap
	o.mu.Unlock()
	responses, ctx := exec.DispatchOperation(bus.WithTap(ctx, tap), rc)
	if !tap.Used() {
		// The resolver refused (its error is the one response), or it
		// follows no bus.Shared channel: gqlgen's way, one goroutine.
		o.mu.Lock()
		g := o.group
		o.group = nil
		o.mu.Unlock()
		c.ws.live.leave(g)
		go o.stream(ctx, rc, responses)
	}
	return nil
}

// stream writes every response of an operation run the generic way, then
// completes it; a panic is answered as gqlgen's transport answers it.
func (o *liveOp) stream(ctx context.Context, rc *graphql.OperationContext, responses graphql.ResponseHandler) {
	defer func() {
		if r := recover(); r != nil {
			err := rc.Recover(ctx, r)
			var gqlErr *gqlerror.Error
			if !errors.As(err, &gqlErr) {
				gqlErr = &gqlerror.Error{}
				if err != nil {
					gqlErr.Message = err.Error()
				}
			}
			o.conn.sendErrors(o.id, gqlErr)
			o.finish(false)
		}
	}()
	for {
		resp := responses(ctx)
		if resp == nil {
			break
		}
		o.conn.sendResponse(o.id, resp)
	}
	o.finish(true)
}

// sendResponse queues a response already executed (not an event).
func (c *gorillaConn) sendResponse(id string, resp *graphql.Response) {
	b, err := json.Marshal(resp)
	if err != nil {
		b, _ = json.Marshal(&graphql.Response{Errors: gqlerror.List{{Message: "internal error"}}})
	}
	c.enqueue(frame{kind: frameNext, id: id, payload: b})
}

// sendErrors queues an error message, which ends the operation.
func (c *gorillaConn) sendErrors(id string, errs ...*gqlerror.Error) {
	list := make([]error, len(errs))
	for i, e := range errs {
		list[i] = e
	}
	b, _ := json.Marshal(list)
	c.enqueue(frame{kind: frameError, id: id, payload: b})
}

// The kinds of frame a socket writes from its queue.
const (
	frameEvent     = iota // an event of a subscription: its group encodes it
	frameNext             // a response already encoded
	frameComplete         // the operation ended
	frameError            // the operation failed
	framePing             // graphql-transport-ws ping
	frameKeepAlive        // graphql-ws ka
)

type frame struct {
	kind    int
	id      string
	op      *liveOp
	seq     uint64
	v       any
	payload []byte
}

// quotedID is f's operation id as JSON: an operation's, made once.
func (f frame) quotedID() []byte {
	if f.op != nil {
		return f.op.qid
	}
	id, _ := json.Marshal(f.id)
	return id
}

// counted reports whether f counts against maxQueuedEvents: an event, not
// a subscription's current state (sequence 0) nor anything else.
func (f frame) counted() bool { return f.kind == frameEvent && f.seq != 0 }

// message types of the two protocols, by frame kind.
var (
	strictTypes = map[int]string{frameEvent: "next", frameNext: "next", frameComplete: "complete", frameError: "error", framePing: "ping"}
	legacyTypes = map[int]string{frameEvent: "data", frameNext: "data", frameComplete: "complete", frameError: "error", frameKeepAlive: "ka"}
)
