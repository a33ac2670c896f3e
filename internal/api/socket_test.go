package api

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/require"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/gpunex/gpunex/internal/await"
)

// tickSchema is a schema without storage: a query health, and a
// subscription tick that stays open until its operation ends.
func tickSchema() graphql.ExecutableSchema {
	schema := gqlparser.MustLoadSchema(&ast.Source{Input: `
		type Query { health: Boolean! }
		type Subscription { tick: Int! }
	`})
	return &graphql.ExecutableSchemaMock{
		SchemaFunc: func() *ast.Schema { return schema },
		ComplexityFunc: func(context.Context, string, string, int, map[string]any) (int, bool) {
			return 1, true
		},
		ExecFunc: func(ctx context.Context) graphql.ResponseHandler {
			if graphql.GetOperationContext(ctx).Operation.Operation == ast.Subscription {
				first := true
				return func(ctx context.Context) *graphql.Response {
					if first {
						first = false
						return &graphql.Response{Data: []byte(`{"tick":1}`)}
					}
					<-ctx.Done()
					return nil
				}
			}
			return graphql.OneShot(&graphql.Response{Data: []byte(`{"health":true}`)})
		},
	}
}

func tickServer(t *testing.T, cfg Config) *httptest.Server {
	t.Helper()
	s := New(cfg, Deps{Schema: tickSchema(), Logger: slog.New(slog.DiscardHandler)})
	srv := httptest.NewServer(s)
	t.Cleanup(func() {
		s.CloseStreams()
		srv.Close()
	})
	return srv
}

// wsClient is a bare protocol client.
type wsClient struct {
	t    *testing.T
	conn *websocket.Conn
}

type wsMessage struct {
	ID      string          `json:"id"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload"`
}

func dial(t *testing.T, srv *httptest.Server, subprotocols ...string) (*wsClient, *http.Response, error) {
	t.Helper()
	d := websocket.Dialer{Subprotocols: subprotocols, HandshakeTimeout: 5 * time.Second}
	conn, res, err := d.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+"/graphql", nil)
	if err != nil {
		return nil, res, err
	}
	t.Cleanup(func() { _ = conn.Close() })
	return &wsClient{t: t, conn: conn}, res, nil
}

func (c *wsClient) send(typ, id string, payload any) {
	c.t.Helper()
	m := map[string]any{"type": typ}
	if id != "" {
		m["id"] = id
	}
	if payload != nil {
		m["payload"] = payload
	}
	require.NoError(c.t, c.conn.WriteJSON(m))
}

// read returns the next message other than keep-alives.
func (c *wsClient) read() wsMessage {
	c.t.Helper()
	for {
		require.NoError(c.t, c.conn.SetReadDeadline(time.Now().Add(await.Patience(c.t))))
		var m wsMessage
		require.NoError(c.t, c.conn.ReadJSON(&m))
		if m.Type != "ka" && m.Type != "ping" && m.Type != "pong" {
			return m
		}
	}
}

// closeCode reads until the server closes and returns its code.
func (c *wsClient) closeCode(timeout time.Duration) int {
	c.t.Helper()
	require.NoError(c.t, c.conn.SetReadDeadline(time.Now().Add(timeout)))
	for {
		if _, _, err := c.conn.ReadMessage(); err != nil {
			if ce, ok := err.(*websocket.CloseError); ok {
				return ce.Code
			}
			return -1
		}
	}
}

func (c *wsClient) init() {
	c.t.Helper()
	c.send("connection_init", "", nil)
	require.Equal(c.t, "connection_ack", c.read().Type)
}

// Point 4 of issue 9: operations beyond the cap of one socket are refused
// with RATE_LIMITED, the socket stays usable, completing one frees a slot,
// and closing the socket returns every goroutine.
func TestIssue9Point4SubscriptionsPerSocketAreCapped(t *testing.T) {
	srv := tickServer(t, Config{WSMaxSubscriptions: 3})
	warm, _, err := dial(t, srv, "graphql-transport-ws")
	require.NoError(t, err)
	warm.init()
	require.NoError(t, warm.conn.Close())
	time.Sleep(50 * time.Millisecond)
	before := runtime.NumGoroutine()

	c, _, err := dial(t, srv, "graphql-transport-ws")
	require.NoError(t, err)
	c.init()
	for _, id := range []string{"1", "2", "3"} {
		c.send("subscribe", id, map[string]any{"query": "subscription { tick }"})
		m := c.read()
		require.Equal(t, "next", m.Type, "%s", m.Payload)
		require.Equal(t, id, m.ID)
	}
	c.send("subscribe", "4", map[string]any{"query": "subscription { tick }"})
	m := c.read()
	require.Equal(t, "next", m.Type)
	require.Equal(t, "4", m.ID)
	require.Contains(t, string(m.Payload), `"code":"RATE_LIMITED"`)
	require.Equal(t, "complete", c.read().Type, "the refused operation is over")

	// Completing one makes room; the socket was never closed.
	c.send("complete", "2", nil)
	await.True(t, func() bool {
		c.send("subscribe", "5", map[string]any{"query": "subscription { tick }"})
		for {
			m := c.read()
			if m.ID == "5" {
				if m.Type == "next" && !strings.Contains(string(m.Payload), "RATE_LIMITED") {
					return true
				}
				require.Equal(t, "complete", c.read().Type)
				return false
			}
		}
	})

	require.NoError(t, c.conn.Close())
	await.Goroutines(t, before, "goroutines back")
}

// Point 4 of issue 9: an operation refused by a check made after the
// socket's cap (here __schema with introspection off) gives its slot back.
func TestIssue9Point4AnOperationRefusedLaterGivesItsSlotBack(t *testing.T) {
	t.Parallel()
	srv := tickServer(t, Config{WSMaxSubscriptions: 1})
	c, _, err := dial(t, srv, "graphql-transport-ws")
	require.NoError(t, err)
	c.init()
	for _, id := range []string{"1", "2", "3"} {
		c.send("subscribe", id, map[string]any{"query": "{ __schema { queryType { name } } }"})
		m := c.read()
		require.Contains(t, string(m.Payload), "BAD_REQUEST", "%s", m.Payload)
		require.Equal(t, "complete", c.read().Type)
	}
	c.send("subscribe", "4", map[string]any{"query": "subscription { tick }"})
	m := c.read()
	require.Equal(t, "next", m.Type)
	require.JSONEq(t, `{"data":{"tick":1}}`, string(m.Payload))
}

// Bad input (issue 9): a socket's messages are read at WSMessageRate
// after a burst of as many, so a flood costs no more than that.
func TestIssue9MessagesOfOneSocketAreReadAtTheirRate(t *testing.T) {
	t.Parallel()
	srv := tickServer(t, Config{WSMessageRate: 50})
	c, _, err := dial(t, srv, "graphql-transport-ws")
	require.NoError(t, err)
	c.init()
	start := time.Now()
	for i := range 100 {
		c.send("subscribe", strconv.Itoa(i), map[string]any{"query": "{ health }"})
	}
	for answered := 0; answered < 100; {
		if c.read().Type == "complete" {
			answered++
		}
	}
	// The 50 past the burst wait 20 ms each: a machine however busy cannot
	// answer sooner. That they are due no later is TestPace's, on a clock
	// of its own.
	elapsed := time.Since(start)
	t.Logf("100 messages at 50 a second after a burst of 50: %v", elapsed)
	require.Greater(t, elapsed, 800*time.Millisecond)
}

// A socket's reads at 50 a second: a second's worth at once, then one
// every 20 ms; a pause earns the burst back, never more than a second's.
func TestPaceLetsABurstThroughThenOneAnInterval(t *testing.T) {
	t.Parallel()
	p := pace{interval: 20 * time.Millisecond}
	now := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	for i := range 50 {
		require.Zero(t, p.delay(now), "message %d is within the burst", i)
	}
	for i := 1; i <= 50; i++ {
		require.Equal(t, time.Duration(i)*20*time.Millisecond, p.delay(now), "message %d past the burst", 50+i)
	}
	// The reader slept until the last slot and a second more went by idle:
	// a whole burst again, and not two.
	now = now.Add(time.Second + 2*time.Second)
	for i := range 50 {
		require.Zero(t, p.delay(now), "message %d of the burst after a pause", i)
	}
	require.Equal(t, 20*time.Millisecond, p.delay(now))
	require.Zero(t, (&pace{}).delay(now), "no rate: no wait")
}

// Point 4 of issue 9: a client address over its cap is refused with 429
// before the upgrade, and a closed socket gives its slot back.
func TestIssue9Point4SocketsPerAddressAreCappedAtTheUpgrade(t *testing.T) {
	t.Parallel()
	srv := tickServer(t, Config{WSMaxPerAddress: 2})
	a, _, err := dial(t, srv, "graphql-transport-ws")
	require.NoError(t, err)
	_, _, err = dial(t, srv, "graphql-transport-ws")
	require.NoError(t, err)

	_, res, err := dial(t, srv, "graphql-transport-ws")
	require.ErrorIs(t, err, websocket.ErrBadHandshake)
	require.Equal(t, http.StatusTooManyRequests, res.StatusCode)
	body, _ := io.ReadAll(res.Body)
	require.Contains(t, string(body), "RATE_LIMITED")

	// Plain requests from the same address are not sockets.
	require.Equal(t, "", post(t, srv, "{ health }", false).code())

	require.NoError(t, a.conn.Close())
	await.True(t, func() bool {
		c, _, err := dial(t, srv, "graphql-transport-ws")
		if err == nil {
			_ = c.conn.Close()
		}
		return err == nil
	})
}

// Point 4 of issue 9: the init timeout holds on every subprotocol, the
// legacy graphql-ws and none included.
func TestIssue9Point4EverySubprotocolHasTheInitTimeout(t *testing.T) {
	t.Parallel()
	srv := tickServer(t, Config{WSInitTimeout: 200 * time.Millisecond})
	for _, tc := range []struct {
		desc        string
		subprotocol []string
	}{
		{desc: "graphql-transport-ws", subprotocol: []string{"graphql-transport-ws"}},
		{desc: "legacy graphql-ws", subprotocol: []string{"graphql-ws"}},
		{desc: "no subprotocol", subprotocol: nil},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			c, _, err := dial(t, srv, tc.subprotocol...)
			require.NoError(t, err)
			// The close may take as long as the test may wait; a socket
			// without the timeout would never be closed. Sooner than the
			// 10 s default shows it was the configured 200 ms.
			start := time.Now()
			require.Equal(t, closeInitTimeout, c.closeCode(await.Patience(t)))
			require.Less(t, time.Since(start), 10*time.Second, "the configured timeout, not the default")
		})
	}
	t.Run("legacy graphql-ws initialised in time stays open", func(t *testing.T) {
		t.Parallel()
		c, _, err := dial(t, srv, "graphql-ws")
		require.NoError(t, err)
		c.init()
		time.Sleep(400 * time.Millisecond)
		c.send("start", "1", map[string]any{"query": "{ health }"})
		m := c.read()
		require.Equal(t, "data", m.Type, "%s", m.Payload)
		require.JSONEq(t, `{"data":{"health":true}}`, string(m.Payload))
	})
}

// Point 9 of issue 9: with SeparateMetrics /metrics is not public;
// Server.Metrics serves it.
func TestIssue9Point9MetricsCanLeaveThePublicHandler(t *testing.T) {
	t.Parallel()
	for _, separate := range []bool{false, true} {
		s := New(Config{SeparateMetrics: separate}, Deps{Schema: tickSchema(), Logger: slog.New(slog.DiscardHandler)})
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
		if separate {
			require.Equal(t, http.StatusNotFound, rec.Code)
			require.NotContains(t, rec.Body.String(), "gpunex_")
		} else {
			require.Equal(t, http.StatusOK, rec.Code)
			require.Contains(t, rec.Body.String(), "gpunex_websocket_connections")
		}
		rec = httptest.NewRecorder()
		s.Metrics().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
		require.Equal(t, http.StatusOK, rec.Code)
		require.Contains(t, rec.Body.String(), "gpunex_websocket_session_ended_total")
	}
}

// keepAlive owns a socket's read deadline together with awaitingPong.
// gqlgen clears the deadline on every pong of a socket that lets it
// (transport.WebsocketReadDeadliner); racing a tick that had just set it
// for the next ping, that left a silent peer connected for good.
func TestTheLivenessDeadlineIsTheSocketsOwn(t *testing.T) {
	t.Parallel()
	var c transport.WebsocketConn = &gorillaConn{}
	_, lets := c.(transport.WebsocketReadDeadliner)
	require.False(t, lets, "gqlgen must not set the read deadline keepAlive relies on")
}
