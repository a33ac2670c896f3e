package platformtest

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/await"
)

// WS is a graphql-transport-ws client over a real WebSocket.
type WS struct {
	t    testing.TB
	Conn *websocket.Conn
}

// WSMessage is one protocol message.
type WSMessage struct {
	ID      string          `json:"id,omitempty"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// DialWS opens a WebSocket to /graphql with the graphql-transport-ws
// subprotocol. header may carry Origin and Cookie.
func (s *Server) DialWS(t testing.TB, header http.Header) (*WS, *http.Response, error) {
	t.Helper()
	return s.DialWSWith(t, &websocket.Dialer{}, header)
}

// DialWSWith is DialWS through d (its own network dialler, say), with the
// graphql-transport-ws subprotocol and a handshake timeout set where d
// has none.
func (s *Server) DialWSWith(t testing.TB, d *websocket.Dialer, header http.Header) (*WS, *http.Response, error) {
	t.Helper()
	dd := *d
	if dd.Subprotocols == nil {
		dd.Subprotocols = []string{"graphql-transport-ws"}
	}
	if dd.HandshakeTimeout == 0 {
		dd.HandshakeTimeout = 5 * time.Second
	}
	conn, res, err := dd.Dial(s.WSURL(), header)
	if err != nil {
		return nil, res, err
	}
	t.Cleanup(func() { _ = conn.Close() })
	return &WS{t: t, Conn: conn}, res, nil
}

// WSURL is the server's GraphQL WebSocket address.
func (s *Server) WSURL() string { return "ws" + strings.TrimPrefix(s.URL, "http") + "/graphql" }

// Send writes one message.
func (w *WS) Send(typ, id string, payload any) {
	w.t.Helper()
	m := map[string]any{"type": typ}
	if id != "" {
		m["id"] = id
	}
	if payload != nil {
		m["payload"] = payload
	}
	require.NoError(w.t, w.Conn.WriteJSON(m))
}

// Read returns the next message that is not a ping/pong, within timeout.
func (w *WS) Read(timeout time.Duration) (*WSMessage, error) {
	for {
		_ = w.Conn.SetReadDeadline(time.Now().Add(timeout))
		var m WSMessage
		if err := w.Conn.ReadJSON(&m); err != nil {
			return nil, err
		}
		if m.Type == "ping" {
			_ = w.Conn.WriteJSON(map[string]string{"type": "pong"})
			continue
		}
		if m.Type == "pong" || m.Type == "ka" {
			continue
		}
		return &m, nil
	}
}

// MustRead is Read for a message that must come: it fails the test on
// error. It waits at least timeout and, however short that is, as long as
// the test may last (await.Patience), so a busy machine makes the test
// slower, never red; a test that means "within" checks the time itself.
func (w *WS) MustRead(timeout time.Duration) *WSMessage {
	w.t.Helper()
	m, err := w.Read(max(timeout, await.Patience(w.t)))
	require.NoError(w.t, err)
	return m
}

// Init sends connection_init with payload and requires connection_ack.
func (w *WS) Init(payload map[string]any) {
	w.t.Helper()
	w.Send("connection_init", "", payload)
	m := w.MustRead(5 * time.Second)
	require.Equal(w.t, "connection_ack", m.Type, "payload: %s", m.Payload)
}

// Subscribe starts an operation with id.
func (w *WS) Subscribe(id, query string, vars map[string]any) {
	w.t.Helper()
	w.Send("subscribe", id, map[string]any{"query": query, "variables": vars})
}

// CloseCode reads until the server closes and returns its close code, or
// -1. Like MustRead it waits at least timeout and as long as the test may
// last: a close that must come may come late on a busy machine.
func (w *WS) CloseCode(timeout time.Duration) int {
	w.t.Helper()
	deadline := time.Now().Add(max(timeout, await.Patience(w.t)))
	for time.Now().Before(deadline) {
		_ = w.Conn.SetReadDeadline(deadline)
		_, _, err := w.Conn.ReadMessage()
		if err != nil {
			if ce, ok := err.(*websocket.CloseError); ok {
				return ce.Code
			}
			return -1
		}
	}
	return -1
}
