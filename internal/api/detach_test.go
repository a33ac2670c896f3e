package api

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/await"
)

// lockedLog collects a server's log lines from any goroutine.
type lockedLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// A WebSocket is served on a goroutine of its own once upgraded: the
// request's handler returns, and what the middleware does when a socket is
// over (free its slot, end its context) waits for the socket's end. A
// request refused before the upgrade is over when its handler returns. A
// panic while serving a socket is logged and ends that socket only.
func TestASocketOutlivesItsHandlerAndEndsWhatItHeldWhenItEnds(t *testing.T) {
	logs := &lockedLog{}
	logger := slog.New(slog.NewTextHandler(logs, nil))
	streamsCtx, closeStreams := context.WithCancel(context.Background())
	defer closeStreams()

	ended := make(chan string, 4)         // what the middleware released, by path
	handlerDone := make(chan string, 4)   // handlers returned, by path
	socketCtxDone := make(chan string, 4) // sockets' contexts ended, by path
	up := websocket.Upgrader{}
	serve := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path := r.URL.Path
		socketEndFrom(r.Context()).add(func() { ended <- path })
		defer func() { handlerDone <- path }()
		serveDetached(logger, r, func() {
			if path == "/refused" {
				http.Error(w, "no", http.StatusForbidden)
				return
			}
			conn, err := up.Upgrade(w, r, nil)
			if err != nil {
				return
			}
			defer conn.Close()
			socketEndFrom(r.Context()).detach()
			context.AfterFunc(r.Context(), func() { socketCtxDone <- path })
			for {
				_, msg, err := conn.ReadMessage()
				if err != nil {
					return
				}
				if string(msg) == "panic" {
					panic("the socket's operation failed")
				}
				_ = conn.WriteMessage(websocket.TextMessage, msg)
			}
		})
	})
	srv := httptest.NewServer(streams(streamsCtx, serve))
	defer srv.Close()
	url := "ws" + strings.TrimPrefix(srv.URL, "http")

	// Refused before the upgrade: over when its handler returns.
	_, resp, err := websocket.DefaultDialer.Dial(url+"/refused", nil)
	require.Error(t, err)
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	_ = resp.Body.Close()
	require.Equal(t, "/refused", await.Receive(t, handlerDone))
	require.Equal(t, "/refused", await.Receive(t, ended))

	// Upgraded: the handler returns while the socket still serves.
	conn, _, err := websocket.DefaultDialer.Dial(url+"/socket", nil)
	require.NoError(t, err)
	require.Equal(t, "/socket", await.Receive(t, handlerDone))
	require.NoError(t, conn.WriteMessage(websocket.TextMessage, []byte("hello")))
	_, echo, err := conn.ReadMessage()
	require.NoError(t, err)
	require.Equal(t, "hello", string(echo), "the socket serves after its handler returned")
	select {
	case p := <-ended:
		t.Fatalf("%s released while its socket is open", p)
	case p := <-socketCtxDone:
		t.Fatalf("%s's context ended while its socket is open", p)
	default:
	}
	require.NoError(t, conn.Close())
	require.Equal(t, "/socket", await.Receive(t, ended, "released once the socket ended"))
	require.Equal(t, "/socket", await.Receive(t, socketCtxDone, "its context ends with it"))

	// A panic ends its socket, is logged, and the server serves on.
	conn, _, err = websocket.DefaultDialer.Dial(url+"/panics", nil)
	require.NoError(t, err)
	require.Equal(t, "/panics", await.Receive(t, handlerDone))
	require.NoError(t, conn.WriteMessage(websocket.TextMessage, []byte("panic")))
	_, _, err = conn.ReadMessage()
	require.Error(t, err, "the socket that panicked is closed")
	_ = conn.Close()
	require.Equal(t, "/panics", await.Receive(t, ended))
	require.Equal(t, "/panics", await.Receive(t, socketCtxDone))
	require.Contains(t, logs.String(), "panic serving a WebSocket")
	require.Contains(t, logs.String(), "the socket's operation failed")

	conn, _, err = websocket.DefaultDialer.Dial(url+"/after", nil)
	require.NoError(t, err)
	require.NoError(t, conn.WriteMessage(websocket.TextMessage, []byte("still here")))
	_, echo, err = conn.ReadMessage()
	require.NoError(t, err)
	require.Equal(t, "still here", string(echo))

	// CloseStreams ends an open socket's context (the server's shutdown).
	closeStreams()
	require.Equal(t, "/after", await.Receive(t, socketCtxDone))
	_ = conn.Close()
	require.Equal(t, "/after", await.Receive(t, ended))
}
