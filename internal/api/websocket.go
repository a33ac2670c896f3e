package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/gorilla/websocket"
)

// Close codes of the graphql-transport-ws protocol
// (https://github.com/enisdenjo/graphql-ws/blob/master/PROTOCOL.md).
const (
	closeUnauthorized        = 4401
	closeForbidden           = 4403
	closeInitTimeout         = 4408
	closeTooManyInitRequests = 4429
	closeInternalServerError = 4500
	// closeTryAgainLater is RFC 6455's 1013 (registered by IANA): a
	// condition of the server's that passes; graphql-ws clients reconnect.
	closeTryAgainLater = 1013
	// closeGoingAway is RFC 6455's 1001: the server is going away (this
	// replica stops); graphql-ws clients reconnect.
	closeGoingAway = 1001
)

// gorillaWebsocket adapts gorilla/websocket to gqlgen's pluggable WebSocket
// transport. Besides the plumbing it enforces what gqlgen leaves loose in
// the graphql-transport-ws protocol: a subscribe before connection_init
// closes with 4401 and a second connection_init with 4429. On every
// subprotocol (graphql-transport-ws, the legacy graphql-ws and none, which
// gqlgen serves as graphql-ws) a socket without connection_init within
// initTimeout closes with 4408, so an idle socket holds nothing for long;
// the legacy protocol defines no code for it and takes the new one's.
//
// It also runs every operation of its sockets (see live.go) and their
// liveness: one goroutine per replica, while it holds a socket, sends the
// protocol's ping to each graphql-transport-ws socket every keepAlive and
// drops one whose pong has not come back by the next (graphql-ws sockets
// get the legacy keep-alive message), where gqlgen would run a ticker
// goroutine on every socket.
type gorillaWebsocket struct {
	upgrader     websocket.Upgrader
	initTimeout  time.Duration
	writeTimeout time.Duration
	keepAlive    time.Duration
	live         *liveHub
	// messageInterval paces the reads of a socket past a burst (see
	// Config.WSMessageRate); zero reads as fast as messages come.
	messageInterval time.Duration
	sockets         *sockets
	onOpen          func()
	onClose         func()

	mu         sync.Mutex
	conns      map[*gorillaConn]struct{}
	stopTicker chan struct{}
}

var _ transport.WebsocketImplementation = (*gorillaWebsocket)(nil)

// wsTimings are the clocks of every socket: the wait for
// connection_init, the bound of one write, and the pace of reads
// (messages a second; zero or less reads as fast as messages come).
type wsTimings struct {
	init, write, keepAlive time.Duration
	messageRate            int
}

func newGorillaWebsocket(origins *originPolicy, t wsTimings, sockets *sockets, onOpen, onClose func()) *gorillaWebsocket {
	var interval time.Duration
	if t.messageRate > 0 {
		interval = time.Second / time.Duration(t.messageRate)
	}
	return &gorillaWebsocket{
		upgrader: websocket.Upgrader{
			HandshakeTimeout: 10 * time.Second,
			// The read buffer is the HTTP server's (net/http keeps it
			// for the connection anyway), and a socket holds a write
			// buffer (4 KiB) only while it writes.
			WriteBufferSize: 4096,
			WriteBufferPool: &sync.Pool{},
			CheckOrigin:     origins.allowed,
		},
		initTimeout:     t.init,
		writeTimeout:    t.write,
		keepAlive:       t.keepAlive,
		live:            newLiveHub(),
		conns:           map[*gorillaConn]struct{}{},
		messageInterval: interval,
		sockets:         sockets,
		onOpen:          onOpen,
		onClose:         onClose,
	}
}

// Accept upgrades the request. A foreign Origin gets 403 from the upgrader.
func (g *gorillaWebsocket) Accept(w http.ResponseWriter, r *http.Request, opts transport.WebsocketAcceptOptions) (transport.WebsocketConn, error) {
	up := g.upgrader
	up.Subprotocols = opts.Subprotocols
	conn, err := up.Upgrade(w, r, opts.ResponseHeader)
	if err != nil {
		return nil, err
	}
	exec, _ := r.Context().Value(execKey{}).(graphql.GraphExecutor)
	c := &gorillaConn{conn: conn, onClose: g.onClose, strict: conn.Subprotocol() == "graphql-transport-ws",
		pace: pace{interval: g.messageInterval}, writeTimeout: g.writeTimeout,
		ws: g, exec: exec, headers: r.Header, ops: map[string]*liveOp{}}
	c.flushed.L = &c.qmu
	g.track(c)
	if g.initTimeout > 0 {
		c.mu.Lock()
		c.initTimer = time.AfterFunc(g.initTimeout, func() {
			if !c.initSeen() {
				_ = c.WriteClose(closeInitTimeout, "Connection initialisation timeout")
				_ = c.Close()
			}
		})
		c.mu.Unlock()
	}
	if s := socketFrom(r.Context()); s != nil && g.sockets != nil {
		g.sockets.attach(s, c)
	}
	if g.onOpen != nil {
		g.onOpen()
	}
	if e := socketEndFrom(r.Context()); e != nil {
		e.detach() // the handler may return: the socket is served on
	}
	return c, nil
}

type gorillaConn struct {
	conn         *websocket.Conn
	strict       bool
	onClose      func()
	writeTimeout time.Duration
	ws           *gorillaWebsocket
	exec         graphql.GraphExecutor
	headers      http.Header

	writeMu sync.Mutex

	mu        sync.Mutex
	inited    bool
	closed    bool
	initTimer *time.Timer
	pace      pace
	// opCtx is the context of the socket's operations, once
	// connection_init was accepted (see initialized); ops are the
	// operations running, by id.
	opCtx        context.Context
	ops          map[string]*liveOp
	awaitingPong bool

	// The queue of frames to write, drained by a goroutine that runs
	// while it holds any; events counts the subscription events in it.
	qmu      sync.Mutex
	queue    []frame
	events   int
	draining bool
	dead     bool
	flushed  sync.Cond // on qmu: draining ended
	// forbidden closes the socket with 4403 at the next read, once the
	// transport has answered the operation that found its session ended.
	forbidden atomic.Bool
}

// forbidAtNextRead makes the next read close the socket with 4403. The
// transport reads again only after writing its answer to the current
// message, so that answer goes out first.
func (c *gorillaConn) forbidAtNextRead() { c.forbidden.Store(true) }

var (
	_ transport.WebsocketConn        = (*gorillaConn)(nil)
	_ transport.WebsocketReadLimiter = (*gorillaConn)(nil)
	// Not transport.WebsocketReadDeadliner: gqlgen would clear the read
	// deadline on every pong, behind keepAlive's back (see keepAlive).
)

func (c *gorillaConn) initSeen() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.inited
}

// errProtocolClosed ends the read loop after the adapter closed the
// connection for a protocol violation.
var errProtocolClosed = errors.New("websocket: closed for a protocol violation")

func (c *gorillaConn) NextReader() (int, io.Reader, error) {
	for {
		if c.forbidden.Load() {
			// The answer to the operation that found the session ended
			// goes out first.
			c.flush()
			_ = c.WriteClose(closeForbidden, "Forbidden")
			return 0, nil, errProtocolClosed
		}
		c.pace.wait()
		mt, data, err := c.conn.ReadMessage()
		if err != nil {
			if websocket.IsCloseError(err, websocket.CloseNormalClosure, websocket.CloseNoStatusReceived, websocket.CloseGoingAway) {
				return mt, nil, transport.ErrWebsocketClosed
			}
			return mt, nil, err
		}
		start := graphql.Now()
		var msg struct {
			Type    string          `json:"type"`
			ID      string          `json:"id"`
			Payload json.RawMessage `json:"payload"`
		}
		_ = json.Unmarshal(data, &msg)
		c.mu.Lock()
		inited, opCtx := c.inited, c.opCtx
		if msg.Type == "connection_init" {
			c.inited = true
			if c.initTimer != nil {
				c.initTimer.Stop()
			}
		}
		c.mu.Unlock()
		if c.strict {
			switch {
			case msg.Type == "connection_init" && inited:
				_ = c.WriteClose(closeTooManyInitRequests, "Too many initialisation requests")
				return mt, nil, errProtocolClosed
			case msg.Type == "subscribe" && !inited:
				_ = c.WriteClose(closeUnauthorized, "Unauthorized")
				return mt, nil, errProtocolClosed
			case msg.Type == "pong":
				c.ponged()
			}
		}
		if opCtx != nil && c.exec != nil {
			subscribe, stop := "start", "stop"
			if c.strict {
				subscribe, stop = "subscribe", "complete"
			}
			switch msg.Type {
			case subscribe:
				if err := c.operate(c.exec, msg.ID, msg.Payload, start); err != nil {
					return mt, nil, err
				}
				continue
			case stop:
				if o := c.op(msg.ID); o != nil {
					o.finish(false)
				}
				continue
			}
		}
		return mt, bytes.NewReader(data), nil
	}
}

// initialized records the context of the socket's operations: the one
// connection_init's check returned (it holds the viewer or agent).
func (c *gorillaConn) initialized(ctx context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.opCtx = ctx
}

func (c *gorillaConn) addOp(o *liveOp) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	c.ops[o.id] = o
	return true
}

func (c *gorillaConn) op(id string) *liveOp {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ops[id]
}

func (c *gorillaConn) dropOp(o *liveOp) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ops[o.id] == o {
		delete(c.ops, o.id)
	}
}

// enqueue adds f to the socket's queue and makes sure a goroutine drains
// it. A subscription event finds no room when maxQueuedEvents are
// waiting: enqueue reports false and the subscription ends.
func (c *gorillaConn) enqueue(f frame) bool {
	c.qmu.Lock()
	defer c.qmu.Unlock()
	if c.dead {
		return !f.counted()
	}
	if f.counted() {
		if c.events >= maxQueuedEvents {
			return false
		}
		c.events++
	}
	c.queue = append(c.queue, f)
	if !c.draining {
		c.draining = true
		go c.drain()
	}
	return true
}

// drain writes the queue until it is empty, then ends. A write that fails
// ends the socket.
func (c *gorillaConn) drain() {
	for {
		c.qmu.Lock()
		if c.dead || len(c.queue) == 0 {
			c.queue, c.draining = nil, false
			c.flushed.Broadcast()
			c.qmu.Unlock()
			return
		}
		f := c.queue[0]
		c.queue[0] = frame{}
		c.queue = c.queue[1:]
		if f.counted() {
			c.events--
		}
		c.qmu.Unlock()
		if err := c.writeFrame(f); err != nil {
			c.qmu.Lock()
			c.dead, c.queue, c.draining = true, nil, false
			c.flushed.Broadcast()
			c.qmu.Unlock()
			_ = c.conn.NetConn().Close()
			return
		}
	}
}

// flush waits until the queue is written (or the socket ended).
func (c *gorillaConn) flush() {
	c.qmu.Lock()
	defer c.qmu.Unlock()
	for c.draining {
		c.flushed.Wait()
	}
}

// writeFrame writes one frame of the queue within the write timeout; an
// event is encoded by its subscription's group (once for all).
func (c *gorillaConn) writeFrame(f frame) error {
	types := legacyTypes
	if c.strict {
		types = strictTypes
	}
	typ, ok := types[f.kind]
	if !ok {
		return nil
	}
	payload := f.payload
	if f.kind == frameEvent {
		f.op.mu.Lock()
		g, ended := f.op.group, f.op.ended
		f.op.mu.Unlock()
		if ended || g == nil {
			return nil
		}
		p, err := g.encode(f.seq, f.v)
		if err != nil {
			f.op.finish(true)
			return nil
		}
		payload = p
	}
	head := make([]byte, 0, 64)
	head = append(head, `{"type":"`...)
	head = append(head, typ...)
	head = append(head, '"')
	if f.id != "" {
		head = append(head, `,"id":`...)
		head = append(head, f.quotedID()...)
	}
	if payload != nil {
		head = append(head, `,"payload":`...)
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_ = c.conn.SetWriteDeadline(time.Now().Add(c.writeTimeout))
	w, err := c.conn.NextWriter(websocket.TextMessage)
	if err != nil {
		return err
	}
	_, _ = w.Write(head)
	if payload != nil {
		_, _ = w.Write(payload)
	}
	_, _ = w.Write([]byte{'}'})
	return w.Close()
}

// keepAlive is the liveness tick of the socket: a ping, and a read
// deadline at the next tick, which the pong lifts (see ponged).
//
// awaitingPong and the read deadline change together under c.mu, here and
// in ponged, and nothing else touches the deadline: were they apart, a
// pong clearing the deadline just after the next tick set it would leave
// awaitingPong true with no deadline, and no later tick would set one, so
// a peer that then went silent was never dropped (seen at load 11: a
// silent test peer kept for 42 minutes).
func (c *gorillaConn) keepAlive(every time.Duration) {
	if !c.initSeen() {
		return
	}
	if !c.strict {
		c.enqueue(frame{kind: frameKeepAlive})
		return
	}
	c.mu.Lock()
	if c.awaitingPong {
		c.mu.Unlock()
		return
	}
	c.awaitingPong = true
	_ = c.conn.SetReadDeadline(time.Now().Add(every))
	c.mu.Unlock()
	c.enqueue(frame{kind: framePing})
}

func (c *gorillaConn) ponged() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.awaitingPong = false
	_ = c.conn.SetReadDeadline(time.Time{})
}

// track and untrack keep the registry the liveness ticker walks; the
// ticker runs while there is a socket.
func (g *gorillaWebsocket) track(c *gorillaConn) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.conns[c] = struct{}{}
	if len(g.conns) == 1 && g.keepAlive > 0 {
		g.stopTicker = make(chan struct{})
		go g.tick(g.stopTicker)
	}
}

func (g *gorillaWebsocket) untrack(c *gorillaConn) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.conns, c)
	if len(g.conns) == 0 && g.stopTicker != nil {
		close(g.stopTicker)
		g.stopTicker = nil
	}
}

func (g *gorillaWebsocket) tick(stop chan struct{}) {
	t := time.NewTicker(g.keepAlive)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			g.mu.Lock()
			list := make([]*gorillaConn, 0, len(g.conns))
			for c := range g.conns {
				list = append(list, c)
			}
			g.mu.Unlock()
			for _, c := range list {
				c.keepAlive(g.keepAlive)
			}
		}
	}
}

// WriteJSON writes one message within the write timeout. A write that
// fails (the peer vanished, or stalled past the timeout) ends the socket:
// closing the connection ends the transport's read loop and with it every
// subscription of the socket, where gqlgen alone would ignore the error
// and keep resolving events for nobody. Other sockets never wait for
// this one: each has its own lock and writer.
func (c *gorillaConn) WriteJSON(v any) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_ = c.conn.SetWriteDeadline(time.Now().Add(c.writeTimeout))
	if err := c.conn.WriteJSON(v); err != nil {
		_ = c.conn.NetConn().Close()
		return err
	}
	return nil
}

func (c *gorillaConn) WriteClose(code int, message string) error {
	if len(message) > 120 {
		message = message[:120]
	}
	return c.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, message), time.Now().Add(time.Second))
}

func (c *gorillaConn) Subprotocol() string { return c.conn.Subprotocol() }

func (c *gorillaConn) SetReadLimit(limit int64) { c.conn.SetReadLimit(limit) }

func (c *gorillaConn) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	if c.initTimer != nil {
		c.initTimer.Stop()
	}
	ops := make([]*liveOp, 0, len(c.ops))
	for _, o := range c.ops {
		ops = append(ops, o)
	}
	c.mu.Unlock()
	c.qmu.Lock()
	c.dead, c.queue = true, nil
	c.qmu.Unlock()
	for _, o := range ops {
		o.finish(false)
	}
	if c.ws != nil {
		c.ws.untrack(c)
	}
	if c.onClose != nil {
		c.onClose()
	}
	return c.conn.Close()
}

// pace spaces the reads of one socket: a burst of a second's worth of
// messages goes through at once, then one every interval. Waiting to read
// costs the server nothing: the client's writes back up in TCP, so a
// client flooding one socket with messages takes no more of the server
// than its rate, and others are served as usual. Only the read loop uses
// it.
type pace struct {
	interval time.Duration
	// next is when the next message is due: at most a second's worth of
	// intervals in the past (the burst).
	next time.Time
}

func (p *pace) wait() {
	if d := p.delay(time.Now()); d > 0 {
		time.Sleep(d)
	}
}

// delay books the next message's slot for a read at now and returns how
// long the reader waits for it.
func (p *pace) delay(now time.Time) time.Duration {
	if p.interval <= 0 {
		return 0
	}
	if earliest := now.Add(-time.Second); p.next.Before(earliest) {
		p.next = earliest
	}
	p.next = p.next.Add(p.interval)
	return max(p.next.Sub(now), 0)
}
