package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

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
)

// gorillaWebsocket adapts gorilla/websocket to gqlgen's pluggable WebSocket
// transport. Besides the plumbing it enforces what gqlgen leaves loose in
// the graphql-transport-ws protocol: a subscribe before connection_init
// closes with 4401 and a second connection_init with 4429. On every
// subprotocol (graphql-transport-ws, the legacy graphql-ws and none, which
// gqlgen serves as graphql-ws) a socket without connection_init within
// initTimeout closes with 4408, so an idle socket holds nothing for long;
// the legacy protocol defines no code for it and takes the new one's.
type gorillaWebsocket struct {
	upgrader     websocket.Upgrader
	initTimeout  time.Duration
	writeTimeout time.Duration
	// messageInterval paces the reads of a socket past a burst (see
	// Config.WSMessageRate); zero reads as fast as messages come.
	messageInterval time.Duration
	sockets         *sockets
	onOpen          func()
	onClose         func()
}

var _ transport.WebsocketImplementation = (*gorillaWebsocket)(nil)

// wsTimings are the clocks of every socket: the wait for
// connection_init, the bound of one write, and the pace of reads
// (messages a second; zero or less reads as fast as messages come).
type wsTimings struct {
	init, write time.Duration
	messageRate int
}

func newGorillaWebsocket(origins *originPolicy, t wsTimings, sockets *sockets, onOpen, onClose func()) *gorillaWebsocket {
	var interval time.Duration
	if t.messageRate > 0 {
		interval = time.Second / time.Duration(t.messageRate)
	}
	return &gorillaWebsocket{
		upgrader: websocket.Upgrader{
			HandshakeTimeout: 10 * time.Second,
			ReadBufferSize:   4096,
			WriteBufferSize:  4096,
			CheckOrigin:      origins.allowed,
		},
		initTimeout:     t.init,
		writeTimeout:    t.write,
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
	c := &gorillaConn{conn: conn, onClose: g.onClose, strict: conn.Subprotocol() == "graphql-transport-ws",
		pace: pace{interval: g.messageInterval}, writeTimeout: g.writeTimeout}
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
	return c, nil
}

type gorillaConn struct {
	conn         *websocket.Conn
	strict       bool
	onClose      func()
	writeTimeout time.Duration

	writeMu sync.Mutex

	mu        sync.Mutex
	inited    bool
	closed    bool
	initTimer *time.Timer
	pace      pace
	// forbidden closes the socket with 4403 at the next read, once the
	// transport has answered the operation that found its session ended.
	forbidden atomic.Bool
}

// forbidAtNextRead makes the next read close the socket with 4403. The
// transport reads again only after writing its answer to the current
// message, so that answer goes out first.
func (c *gorillaConn) forbidAtNextRead() { c.forbidden.Store(true) }

var (
	_ transport.WebsocketConn          = (*gorillaConn)(nil)
	_ transport.WebsocketReadLimiter   = (*gorillaConn)(nil)
	_ transport.WebsocketReadDeadliner = (*gorillaConn)(nil)
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
	if c.forbidden.Load() {
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
	c.mu.Lock()
	inited := c.inited
	c.mu.Unlock()
	if !c.strict && inited {
		// The legacy protocol needs nothing more than connection_init seen.
		return mt, bytes.NewReader(data), nil
	}
	var head struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(data, &head)
	if head.Type == "connection_init" {
		c.mu.Lock()
		c.inited = true
		if c.initTimer != nil {
			c.initTimer.Stop()
		}
		c.mu.Unlock()
	}
	if c.strict {
		switch {
		case head.Type == "connection_init" && inited:
			_ = c.WriteClose(closeTooManyInitRequests, "Too many initialisation requests")
			return mt, nil, errProtocolClosed
		case head.Type == "subscribe" && !inited:
			_ = c.WriteClose(closeUnauthorized, "Unauthorized")
			return mt, nil, errProtocolClosed
		}
	}
	return mt, bytes.NewReader(data), nil
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

func (c *gorillaConn) SetReadDeadline(t time.Time) error { return c.conn.SetReadDeadline(t) }

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
	c.mu.Unlock()
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
	if p.interval <= 0 {
		return
	}
	now := time.Now()
	if earliest := now.Add(-time.Second); p.next.Before(earliest) {
		p.next = earliest
	}
	p.next = p.next.Add(p.interval)
	if d := p.next.Sub(now); d > 0 {
		time.Sleep(d)
	}
}
