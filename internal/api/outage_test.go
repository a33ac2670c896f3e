package api_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/graph"
	"github.com/gpunex/gpunex/internal/api"
	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/auth/authtest"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/proxytest"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
)

// outageHook counts the calls of api.Deps.Outage.
type outageHook struct{ n atomic.Int32 }

func (h *outageHook) note(context.Context) { h.n.Add(1) }

// refusedDialError is what dialing a loopback port nothing listens on any
// more gives: a *net.OpError, as a database or Redis that went away does.
func refusedDialError(t *testing.T) error {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	conn, err := net.Dial("tcp", addr)
	if conn != nil {
		_ = conn.Close()
	}
	require.Error(t, err)
	require.True(t, fault.IsOutage(err), "%v", err)
	return err
}

// The presenter answers a dependency out of reach UNAVAILABLE with its
// retry hint, leaking nothing of the cause, logs it as a warning and tells
// the outage hook once; anything else keeps its code and tells nothing.
func TestOutagesArePresentedUnavailable(t *testing.T) {
	t.Parallel()
	dial := refusedDialError(t)
	cases := []struct {
		desc string
		err  error
		// canceled presents the error in a request whose client went away.
		canceled bool
		want     fault.Code
		// message is what the client reads.
		message string
	}{
		{desc: "a refused dial", err: dial, want: fault.ServiceUnavailable, message: fault.OutageMessage},
		{desc: "a refused dial, wrapped", err: fmt.Errorf("auth: unable to look up session: %w", dial), want: fault.ServiceUnavailable, message: fault.OutageMessage},
		{desc: "an internal fault wrapping an outage", err: &fault.Error{Code: fault.Internal, Message: "x", Err: dial},
			want: fault.ServiceUnavailable, message: fault.OutageMessage},
		{desc: "an internal fault wrapping an outage, wrapped", err: fmt.Errorf("billing: %w", &fault.Error{Code: fault.Internal, Message: "x", Err: dial}),
			want: fault.ServiceUnavailable, message: fault.OutageMessage},
		{desc: "a plain error", err: errors.New("disk on fire"), want: fault.Internal, message: "internal error"},
		{desc: "a query past the platform's own deadline (overload)", err: fmt.Errorf("fleet: unable to change status: timeout: %w", context.DeadlineExceeded),
			want: fault.ServiceUnavailable, message: fault.OutageMessage},
		{desc: "an internal fault without a cause keeps its message", err: fault.E(fault.Internal, "pool exhausted"), want: fault.Internal, message: "pool exhausted"},
		{desc: "a domain error wrapping an outage keeps its code", err: &fault.Error{Code: fault.Conflict, Message: "taken", Err: dial}, want: fault.Conflict, message: "taken"},
		{desc: "a dial canceled by a client that went away", err: &net.OpError{Op: "dial", Net: "tcp", Err: context.Canceled}, canceled: true,
			want: fault.Internal, message: "internal error"},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			logs := &api.LockedLog{}
			hook := &outageHook{}
			present := api.PresentError(slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})), hook.note)
			ctx := graphql.WithResponseContext(context.Background(), graphql.DefaultErrorPresenter, graphql.DefaultRecover)
			if tc.canceled {
				var cancel context.CancelFunc
				ctx, cancel = context.WithCancel(ctx)
				cancel()
			}
			got := present(ctx, tc.err)
			require.Equal(t, string(tc.want), got.Extensions["code"])
			require.Equal(t, tc.message, got.Message)
			switch tc.want {
			case fault.ServiceUnavailable:
				require.NoError(t, got.Unwrap(), "the cause does not travel on")
				require.Equal(t, map[string]any{"code": string(fault.ServiceUnavailable), "retryAfterSeconds": 5}, got.Extensions)
				require.Zero(t, hook.n.Load(), "a user's request tells the outage hook nothing")
				require.Contains(t, logs.String(), "level=WARN")
				require.NotContains(t, logs.String(), "level=ERROR")
				again := present(auth.WithAgent(ctx, &auth.Agent{TokenID: 1, ProviderID: 1}), tc.err)
				require.Equal(t, string(fault.ServiceUnavailable), again.Extensions["code"])
				require.Equal(t, int32(1), hook.n.Load(), "an agent's request tells the outage hook once")
			case fault.Internal:
				require.NotContains(t, got.Extensions, "retryAfterSeconds")
				require.Zero(t, hook.n.Load(), "the outage hook is not told")
				if tc.canceled {
					require.NotContains(t, logs.String(), "level=ERROR", "a client that went away is no fault of the server's")
				}
			default:
				require.NotContains(t, got.Extensions, "retryAfterSeconds")
				require.Zero(t, hook.n.Load(), "the outage hook is not told")
			}
		})
	}
	require.Equal(t, 5*time.Second, fault.RetryAfter, "retryAfterSeconds above is fault.RetryAfter")
}

// healthRoot is a resolver root whose only resolver, Query.health, returns
// what the test says.
type healthRoot struct {
	graph.ResolverRoot
	health func(ctx context.Context) (bool, error)
}

func (r healthRoot) Query() graph.QueryResolver { return healthQuery{health: r.health} }

type healthQuery struct {
	graph.QueryResolver
	health func(ctx context.Context) (bool, error)
}

func (q healthQuery) Health(ctx context.Context) (bool, error) { return q.health(ctx) }

// gqlAnswer is a GraphQL response as a client reads it.
type gqlAnswer struct {
	Data   json.RawMessage `json:"data"`
	Errors []struct {
		Message    string         `json:"message"`
		Path       []any          `json:"path"`
		Extensions map[string]any `json:"extensions"`
	} `json:"errors"`
}

// postGraphQL sends body to srv's /graphql with header and decodes the
// answer.
func postGraphQL(t *testing.T, srv http.Handler, header http.Header, body string) (*httptest.ResponseRecorder, gqlAnswer) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header[k] = v
	}
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	var ans gqlAnswer
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &ans), rec.Body.String())
	return rec, ans
}

// A resolver's outage reaches the client of a real server as one
// UNAVAILABLE error with its retry hint, and Deps.Outage is told once; a
// resolver's bug is INTERNAL and tells nothing.
func TestAResolversOutageIsAnsweredUnavailable(t *testing.T) {
	t.Parallel()
	dial := refusedDialError(t)
	cases := []struct {
		desc    string
		err     error
		want    fault.Code
		message string
		outages int32
	}{
		// Anonymous requests: answered UNAVAILABLE, but only an agent's
		// request tells the outage hook (TestAnAuthLookupThatMeetsAnOutageIsAnswered503).
		{desc: "an outage", err: fmt.Errorf("store: %w", dial), want: fault.ServiceUnavailable, message: fault.OutageMessage, outages: 0},
		{desc: "an internal fault wrapping an outage", err: &fault.Error{Code: fault.Internal, Message: "x", Err: dial},
			want: fault.ServiceUnavailable, message: fault.OutageMessage, outages: 0},
		{desc: "a plain error", err: errors.New("disk on fire"), want: fault.Internal, message: "internal error", outages: 0},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			logs := &api.LockedLog{}
			hook := &outageHook{}
			srv := api.New(api.Config{}, api.Deps{
				Schema: graph.NewExecutableSchema(graph.Config{Resolvers: healthRoot{health: func(context.Context) (bool, error) { return false, tc.err }}}),
				Logger: slog.New(slog.NewTextHandler(logs, nil)),
				Outage: hook.note,
			})
			_, ans := postGraphQL(t, srv, nil, `{"query":"{ health }"}`)
			require.Len(t, ans.Errors, 1, "%+v", ans)
			got := ans.Errors[0]
			require.Equal(t, tc.message, got.Message)
			require.Equal(t, []any{"health"}, got.Path)
			require.Equal(t, string(tc.want), got.Extensions["code"])
			if tc.want == fault.ServiceUnavailable {
				require.Equal(t, map[string]any{"code": string(fault.ServiceUnavailable), "retryAfterSeconds": float64(5)}, got.Extensions)
				require.NotContains(t, logs.String(), "level=ERROR")
				require.Contains(t, logs.String(), "level=WARN")
			} else {
				require.NotContains(t, got.Extensions, "retryAfterSeconds")
				require.Contains(t, logs.String(), "level=ERROR")
			}
			require.Equal(t, tc.outages, hook.n.Load())
		})
	}
}

// randomToken is a well-formed token of prefix that no database holds.
func randomToken(t *testing.T, prefix string) string {
	t.Helper()
	b := make([]byte, 32)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return prefix + base64.RawURLEncoding.EncodeToString(b)
}

// authServer is a server whose auth service reads db.
func authServer(db *store.DB, hook *outageHook, logs io.Writer) http.Handler {
	logger := slog.New(slog.NewTextHandler(logs, nil))
	a := auth.New(auth.Deps{DB: db, Clock: clock.NewManual(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)), Logger: logger},
		auth.Config{PasswordParams: authtest.Params})
	return api.New(api.Config{}, api.Deps{
		Schema: graph.NewExecutableSchema(graph.Config{Resolvers: healthRoot{health: func(context.Context) (bool, error) { return true, nil }}}),
		Auth:   a,
		Logger: logger,
		Outage: hook.note,
	})
}

// tokenRequests are the ways a request names a session or agent token,
// each looked up in the database by the authentication middleware.
func tokenRequests(t *testing.T) []struct {
	desc   string
	header http.Header
} {
	session := randomToken(t, auth.SessionTokenPrefix)
	spa := http.Header{}
	spa.Set(api.CSRFHeader, "1")
	spa.Set("Cookie", (&http.Cookie{Name: api.SessionCookieName, Value: session}).String())
	return []struct {
		desc   string
		header http.Header
	}{
		{desc: "a bearer session token", header: http.Header{"Authorization": {"Bearer " + session}}},
		{desc: "a bearer agent token", header: http.Header{"Authorization": {"Bearer " + randomToken(t, auth.AgentTokenPrefix)}}},
		{desc: "the SPA's session cookie", header: spa},
	}
}

// A token that cannot be looked up because the database is out of reach
// is answered 503 UNAVAILABLE with Retry-After, and Deps.Outage is told;
// the same lookup against a reachable database is an unknown token. The
// database is a real PostgreSQL behind a proxy the test cuts, so the
// lookup fails the way it does when PostgreSQL goes away: its dial is
// refused.
func TestAnAuthLookupThatMeetsAnOutageIsAnswered503(t *testing.T) {
	t.Parallel()
	pg, err := url.Parse(storetest.PostgresURL(t))
	require.NoError(t, err)
	proxy := proxytest.Start(t, pg.Host)
	pg.Host = proxy.Addr()
	db, err := store.Open(context.Background(), store.Config{DatabaseURL: pg.String()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	_, err = db.MigrateUp(context.Background())
	require.NoError(t, err)

	logs := &api.LockedLog{}
	hook := &outageHook{}
	srv := authServer(db, hook, logs)
	const query = `{"query":"{ health }"}`

	bearer := http.Header{"Authorization": {"Bearer " + randomToken(t, auth.SessionTokenPrefix)}}
	rec, ans := postGraphQL(t, srv, bearer, query)
	require.Equal(t, http.StatusUnauthorized, rec.Code, "reachable, the database does not know the token: %s", rec.Body.String())
	require.Equal(t, string(fault.Unauthenticated), ans.Errors[0].Extensions["code"])

	// No idle connection is left to be found broken: every lookup dials,
	// and the dial is refused.
	db.SetMaxIdleConns(0)
	proxy.Cut()

	for _, tc := range tokenRequests(t) {
		before := hook.n.Load()
		rec, ans := postGraphQL(t, srv, tc.header, query)
		require.Equal(t, http.StatusServiceUnavailable, rec.Code, "%s: %s", tc.desc, rec.Body.String())
		require.Equal(t, "5", rec.Header().Get("Retry-After"), tc.desc)
		require.Len(t, ans.Errors, 1, tc.desc)
		require.Equal(t, string(fault.ServiceUnavailable), ans.Errors[0].Extensions["code"], tc.desc)
		require.Equal(t, fault.OutageMessage, ans.Errors[0].Message, tc.desc)
		if strings.Contains(tc.desc, "agent") {
			require.Equal(t, before+1, hook.n.Load(), "%s: the outage hook is told once", tc.desc)
		} else {
			require.Equal(t, before, hook.n.Load(), "%s: a user's request tells the outage hook nothing", tc.desc)
		}
	}
	require.NotContains(t, logs.String(), "level=ERROR", logs.String())
}

// A lookup that fails for another reason than an outage (here a database
// closed by its own process: "sql: database is closed") stays 500
// INTERNAL, without Retry-After, and tells the outage hook nothing.
func TestAnAuthLookupThatFailsOtherwiseIsAnswered500(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t, "sqlite")
	require.NoError(t, db.Close())
	logs := &api.LockedLog{}
	hook := &outageHook{}
	srv := authServer(db, hook, logs)
	for _, tc := range tokenRequests(t) {
		rec, ans := postGraphQL(t, srv, tc.header, `{"query":"{ health }"}`)
		require.Equal(t, http.StatusInternalServerError, rec.Code, "%s: %s", tc.desc, rec.Body.String())
		require.Empty(t, rec.Header().Get("Retry-After"), tc.desc)
		require.Len(t, ans.Errors, 1, tc.desc)
		require.Equal(t, string(fault.Internal), ans.Errors[0].Extensions["code"], tc.desc)
		require.Equal(t, "internal error", ans.Errors[0].Message, tc.desc)
	}
	require.Zero(t, hook.n.Load())
	require.Contains(t, logs.String(), "level=ERROR")
}
