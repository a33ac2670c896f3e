package platform_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/api"
	"github.com/gpunex/gpunex/internal/auth/authtest"
	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/platform"
	"github.com/gpunex/gpunex/internal/platform/platformtest"
)

func TestBadInputGetsACodedErrorAndTheServerKeepsServing(t *testing.T) {
	t.Parallel()
	opts := platformtest.Options{API: api.Config{DepthLimit: 4, ComplexityLimit: 50, MaxBodyBytes: 4096}}
	platformtest.Each(t, opts, func(t *testing.T, s *platformtest.Server) {
		c := s.NewAPIClient(t, "")
		cases := []struct {
			desc   string
			method string
			ctype  string
			body   string
			query  string
			status int
			code   string
		}{
			{desc: "malformed JSON", method: "POST", ctype: "application/json", body: `{"query": "{ health }"`, status: 400, code: "BAD_REQUEST"},
			{desc: "invalid GraphQL syntax", method: "POST", ctype: "application/json", body: `{"query": "{ health "}`, status: 200, code: "GRAPHQL_PARSE_FAILED"},
			{desc: "unknown field", method: "POST", ctype: "application/json", body: `{"query": "{ nope }"}`, status: 200, code: "GRAPHQL_VALIDATION_FAILED"},
			{desc: "unknown operation name", method: "POST", ctype: "application/json", body: `{"query": "query A { health }", "operationName": "B"}`, status: 200, code: "GRAPHQL_VALIDATION_FAILED"},
			{desc: "over the depth limit", method: "POST", ctype: "application/json", body: mustJSON(t, map[string]any{"query": "{ a: health b: notifications(first: 1) { edges { node { params { key } } } } }"}), status: 200, code: "DEPTH_LIMIT_EXCEEDED"},
			{desc: "over the complexity limit", method: "POST", ctype: "application/json", body: mustJSON(t, map[string]any{"query": "{ " + strings.Repeat("health ", 1) + aliases(60) + " }"}), status: 200, code: "COMPLEXITY_LIMIT_EXCEEDED"},
			{desc: "body over the size limit", method: "POST", ctype: "application/json", body: mustJSON(t, map[string]any{"query": "{ health }", "variables": map[string]any{"pad": strings.Repeat("x", 5000)}}), status: 413, code: "BAD_USER_INPUT"},
			{desc: "mutation over GET", method: "GET", query: "?query=" + urlEscape("mutation { logOut { ok } }"), status: 406},
		}
		for _, tc := range cases {
			t.Run(tc.desc, func(t *testing.T) {
				r := c.Raw(tc.method, tc.ctype, []byte(tc.body), tc.query)
				require.Equal(t, tc.status, r.Status, "errors: %+v", r.Errors)
				require.NotEmpty(t, r.Errors)
				require.NotEmpty(t, r.Errors[0].Message)
				if tc.code != "" {
					require.Equal(t, tc.code, r.Codes()[0], "errors: %+v", r.Errors)
				}
				var out struct{ Health bool }
				c.MustDo(&out, `{ health }`, nil)
				require.True(t, out.Health, "the server keeps serving")
			})
		}
	})
}

func aliases(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("h")
		b.WriteString(strings.Repeat("x", i%5+1))
		b.WriteString(string(rune('a' + i%26)))
		b.WriteString(": health ")
		_ = i
	}
	return b.String()
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func urlEscape(s string) string {
	r := strings.NewReplacer(" ", "%20", "{", "%7B", "}", "%7D")
	return r.Replace(s)
}

func TestInternalErrorsAreHiddenAndCoded(t *testing.T) {
	t.Parallel()
	s := platformtest.Start(t, platformtest.Stacks[0], platformtest.Options{})
	c := s.NewAPIClient(t, "")
	c.SignUp(platformtest.UniqueEmail("int"), "correct horse battery", "Ian")
	// Closing the database makes every query fail inside a resolver.
	require.NoError(t, s.Platform.DB.Close())
	r := c.Do(`{ notifications { unreadCount } }`, nil)
	require.NotEmpty(t, r.Errors)
	require.Contains(t, []string{"INTERNAL", "UNAUTHENTICATED"}, r.Codes()[0])
	for _, e := range r.Errors {
		require.NotContains(t, e.Message, "sql")
		require.NotContains(t, e.Message, "database")
	}
	res, err := http.Get(s.URL + "/readyz")
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusServiceUnavailable, res.StatusCode)
	body, _ := io.ReadAll(res.Body)
	require.Contains(t, string(body), `"database":"unavailable"`)
}

func TestOperationalEndpoints(t *testing.T) {
	t.Parallel()
	platformtest.Each(t, platformtest.Options{}, func(t *testing.T, s *platformtest.Server) {
		get := func(path string) (int, string, http.Header) {
			res, err := http.Get(s.URL + path)
			require.NoError(t, err)
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			return res.StatusCode, string(b), res.Header
		}
		code, body, _ := get("/healthz")
		require.Equal(t, 200, code)
		require.JSONEq(t, `{"status":"ok"}`, body)

		code, body, _ = get("/readyz")
		require.Equal(t, 200, code)
		require.JSONEq(t, `{"status":"ok","checks":{"database":"ok","events":"ok","presence":"ok"}}`, body)

		s.NewAPIClient(t, "").MustDo(nil, `{ health }`, nil)
		// The plain POST body, answered with a field's error: counted by
		// its code.
		res, err := http.Post(s.URL+"/graphql", "application/json", strings.NewReader(`{"query":"{ myFunds { balance } }"}`))
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, res.Body)
		_ = res.Body.Close()
		code, body, _ = get("/metrics")
		require.Equal(t, 200, code)
		require.Contains(t, body, `gpunex_http_requests_total{code="200",route="/graphql"}`)
		require.Contains(t, body, "gpunex_graphql_operations_total{outcome=\"ok\",type=\"query\"} 1\n")
		require.Contains(t, body, "gpunex_graphql_operations_total{outcome=\"UNAUTHENTICATED\",type=\"query\"} 1\n")
		require.Contains(t, body, "go_goroutines")
		// The database pool's, its size the backend's.
		require.Contains(t, body, fmt.Sprintf("go_sql_max_open_connections{db_name=\"gpunex\"} %d\n", s.Platform.DB.Stats().MaxOpenConnections))
		require.Contains(t, body, `go_sql_open_connections{db_name="gpunex"}`)
		require.Contains(t, body, `go_sql_max_idle_time_closed_total{db_name="gpunex"}`)
	})
}

func TestSPAIsServedWithHistoryFallback(t *testing.T) {
	t.Parallel()
	spa := fstest.MapFS{
		"index.html":      {Data: []byte("<!doctype html><div id=root>spa</div>")},
		"assets/app-1.js": {Data: []byte("console.log(1)")},
	}
	s := platformtest.Start(t, platformtest.Stacks[0], platformtest.Options{SPA: spa})
	for _, tc := range []struct{ desc, path, want, cache string }{
		{desc: "root", path: "/", want: "id=root"},
		{desc: "client route", path: "/account", want: "id=root"},
		{desc: "deep client route", path: "/admin/applications/42", want: "id=root"},
		{desc: "hashed asset", path: "/assets/app-1.js", want: "console.log", cache: "immutable"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			res, err := http.Get(s.URL + tc.path)
			require.NoError(t, err)
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			require.Equal(t, 200, res.StatusCode)
			require.Contains(t, string(b), tc.want)
			if tc.cache != "" {
				require.Contains(t, res.Header.Get("Cache-Control"), tc.cache)
			}
		})
	}
	res, err := http.Post(s.URL+"/account", "text/plain", bytes.NewReader(nil))
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusMethodNotAllowed, res.StatusCode)
}

func TestIntrospectionAndGraphiQLFollowTheFlag(t *testing.T) {
	t.Parallel()
	for _, on := range []bool{true, false} {
		s := platformtest.Start(t, platformtest.Stacks[0], platformtest.Options{API: api.Config{Introspection: on}})
		c := s.NewAPIClient(t, "")
		r := c.Do(`{ __schema { queryType { name } } }`, nil)
		if !on {
			// Refused whole, as the client's mistake: not an INTERNAL
			// error per field (100 aliases were 100 logged errors), and
			// through a fragment or under an alias alike.
			for _, q := range []string{
				`{ __type(name: "Query") { name } }`,
				`{ health a: __schema { queryType { name } } }`,
				`{ ...F } fragment F on Query { __type(name: "Query") { name } }`,
			} {
				r := c.Do(q, nil)
				require.Equal(t, []string{"BAD_REQUEST"}, r.Codes(), q)
				require.Contains(t, r.Errors[0].Message, "introspection is disabled")
			}
			require.Equal(t, []string{"BAD_REQUEST"}, r.Codes())
			require.Contains(t, string(c.Do(`{ __typename health }`, nil).Data), `"health":true`, "__typename is not introspection")
		}
		res, err := http.Get(s.URL + "/graphiql")
		require.NoError(t, err)
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if on {
			require.Empty(t, r.Errors)
			require.Contains(t, string(b), "GraphiQL")
		} else {
			require.NotEmpty(t, r.Errors, "introspection must be off")
			require.NotContains(t, string(b), "graphiql.min.js")
		}
	}
}

func TestInvalidDocumentsUseTheStatusCodesOfTheGraphQLOverHTTPSpec(t *testing.T) {
	t.Parallel()
	s := platformtest.Start(t, platformtest.Stacks[0], platformtest.Options{})
	for _, tc := range []struct {
		accept string
		status int
	}{
		{accept: "application/json", status: http.StatusOK},
		{accept: "application/graphql-response+json", status: http.StatusBadRequest},
	} {
		req, err := http.NewRequest(http.MethodPost, s.URL+"/graphql", strings.NewReader(`{"query":"{ nope }"}`))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", tc.accept)
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		require.Equal(t, tc.status, res.StatusCode, tc.accept)
		require.Contains(t, string(b), "GRAPHQL_VALIDATION_FAILED")
	}
}

func TestAutomaticPersistedQueries(t *testing.T) {
	t.Parallel()
	s := platformtest.Start(t, platformtest.Stacks[0], platformtest.Options{})
	c := s.NewAPIClient(t, "")
	query := "{ health }"
	sum := sha256.Sum256([]byte(query))
	ext := map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": hex.EncodeToString(sum[:])}}

	r := c.Raw(http.MethodPost, "application/json", []byte(mustJSON(t, map[string]any{"extensions": ext})), "")
	require.Equal(t, "PERSISTED_QUERY_NOT_FOUND", r.Codes()[0], "an unknown hash asks for the query")
	r = c.Raw(http.MethodPost, "application/json", []byte(mustJSON(t, map[string]any{"query": query, "extensions": ext})), "")
	require.Empty(t, r.Errors, "the query registers under its hash")
	r = c.Raw(http.MethodPost, "application/json", []byte(mustJSON(t, map[string]any{"extensions": ext})), "")
	require.Empty(t, r.Errors, "then the hash alone is enough")
	require.JSONEq(t, `{"health":true}`, string(r.Data))

	bad := map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": strings.Repeat("0", 64)}}
	r = c.Raw(http.MethodPost, "application/json", []byte(mustJSON(t, map[string]any{"query": query, "extensions": bad})), "")
	require.NotEmpty(t, r.Errors, "a hash that does not match the query is refused")
}

func TestGracefulShutdownClosesWebSockets(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	p, err := platform.New(ctx, platform.Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(), PasswordParams: authtest.Params})
	require.NoError(t, err)
	defer p.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	urlc, done := make(chan string, 1), make(chan error, 1)
	go func() { done <- p.ServeListener(ctx, ln, func(u string) { urlc <- u }) }()
	s := &platformtest.Server{URL: <-urlc, Platform: p}
	_, token := s.NewAPIClient(t, "").SignUp(platformtest.UniqueEmail("bye"), "correct horse battery", "Bye")
	ws, _, err := s.DialWS(t, nil)
	require.NoError(t, err)
	ws.Init(map[string]any{"authorization": "Bearer " + token})
	ws.Subscribe("1", notificationAdded, nil)
	time.Sleep(100 * time.Millisecond)

	cancel() // SIGTERM
	select {
	case err := <-done:
		require.NoError(t, err, "shutdown is clean")
	case <-await.Timeout(t):
		t.Fatal("the server did not shut down")
	}
	// Whatever the socket still holds, then its end: a close or EOF, not
	// the read running out of patience on a socket left open.
	for err == nil {
		_, err = ws.Read(await.Patience(t))
	}
	var ne net.Error
	require.False(t, errors.As(err, &ne) && ne.Timeout(), "the subscription's socket is closed by the shutdown, not left open: %v", err)
}
