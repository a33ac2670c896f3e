package api

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/auth/authtest"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/store/storetest"
)

// A client that goes away while the server looks up its session (a tab
// closed, a dashboard's socket dropped during a drill, a reload) cancels
// that look-up: no fault of the server's, so it is a DEBUG line, never an
// ERROR for an operator to chase (the full soak logged 131 of them). The
// same failure with the client still there stays an ERROR.
func TestALookUpEndedByItsClientLeavingIsNotLoggedAsAnError(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer // each look-up logs on this goroutine
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	a := auth.New(auth.Deps{DB: storetest.Open(t, "sqlite"), Clock: clock.NewManual(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)), Logger: logger},
		auth.Config{PasswordParams: authtest.Params})
	raw := make([]byte, 32)
	_, err := rand.Read(raw)
	require.NoError(t, err)
	token := auth.SessionTokenPrefix + base64.RawURLEncoding.EncodeToString(raw)
	left, cancel := context.WithCancel(context.Background())
	cancel()
	authn := &authenticator{auth: a, logger: logger, origins: &originPolicy{}}
	sockets := &sockets{auth: a, logger: logger, ctx: context.Background(), limits: socketLimits{subscriptions: -1}}
	guard := socketGuard{sockets: sockets}

	for _, tc := range []struct {
		desc string
		run  func(ctx context.Context) // ctx is the client's
	}{
		{desc: "an HTTP request's bearer session", run: func(ctx context.Context) {
			r := httptest.NewRequestWithContext(ctx, http.MethodPost, "/graphql", strings.NewReader(`{"query":"{ health }"}`))
			r.Header.Set("Authorization", "Bearer "+token)
			authn.middleware(http.NotFoundHandler()).ServeHTTP(httptest.NewRecorder(), r)
		}},
		{desc: "a WebSocket's connection_init", run: func(ctx context.Context) {
			_, err := authn.wsInit(ctx, token)
			require.Error(t, err)
			// Its context also ends when the replica closes its streams
			// (a restart): a client still there is told to come back, not
			// 4500, which graphql-ws clients never retry.
			code, _ := wsInitClose(err)
			require.Equal(t, 1001, code, "Going Away")
		}},
		{desc: "an operation on a WebSocket", run: func(ctx context.Context) {
			require.NotNil(t, guard.MutateOperationContext(withSocket(ctx, &socket{sessionID: 1}), nil))
		}},
	} {
		before := len(logs.String())
		tc.run(left)
		got := logs.String()[before:]
		require.NotContains(t, got, "level=ERROR", "%s: %s", tc.desc, got)
		require.Contains(t, got, "level=DEBUG", "%s: %s", tc.desc, got)
	}
	// The database gone while the client waits is the server's fault.
	db := storetest.Open(t, "sqlite")
	require.NoError(t, db.Close())
	a = auth.New(auth.Deps{DB: db, Clock: clock.NewManual(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)), Logger: logger},
		auth.Config{PasswordParams: authtest.Params})
	authn.auth, sockets.auth = a, a
	before := len(logs.String())
	require.NotNil(t, guard.MutateOperationContext(withSocket(context.Background(), &socket{sessionID: 1}), nil))
	_, err = authn.wsInit(context.Background(), token)
	require.Error(t, err)
	code, _ := wsInitClose(err)
	require.Equal(t, 4500, code, "the platform's own failure")
	require.Equal(t, 2, strings.Count(logs.String()[before:], "level=ERROR"), logs.String()[before:])
}
