package api

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/graph"
)

// builtSPA is a dist as make build leaves it: the SPA and, under
// graphiql/, GraphiQL's page and hashed assets.
func builtSPA() fstest.MapFS {
	return fstest.MapFS{
		"index.html":                     {Data: []byte("<title>GPUnex</title>")},
		"assets/index-abc.js":            {Data: []byte("spa()")},
		"graphiql/graphiql.html":         {Data: []byte(`<meta name="csp-nonce" content="GPUNEX_CSP_NONCE"><title>GPUnex GraphiQL</title>`)},
		"graphiql/assets/graphiql-x1.js": {Data: []byte("graphiql()")},
	}
}

func spaServer(t *testing.T, cfg Config, dist fstest.MapFS) *httptest.Server {
	t.Helper()
	es := graph.NewExecutableSchema(executableSchema())
	srv := httptest.NewServer(New(cfg, Deps{Schema: es, Logger: slog.New(slog.DiscardHandler), SPA: dist}))
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, srv *httptest.Server, path string) (*http.Response, string) {
	t.Helper()
	res, err := http.Get(srv.URL + path)
	require.NoError(t, err)
	defer func() { _ = res.Body.Close() }()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res, string(b)
}

// directives splits a Content-Security-Policy into its directives.
func directives(csp string) map[string]string {
	d := map[string]string{}
	for _, part := range strings.Split(csp, ";") {
		name, value, _ := strings.Cut(strings.TrimSpace(part), " ")
		d[name] = value
	}
	return d
}

// Point 13 of issue 11: GraphiQL is served from the binary, at /graphiql
// with its hashed files under /graphiql/, under a strict policy: scripts,
// styles and connections to this server only, no inline script, no eval,
// nothing framed and no framing.
func TestGraphiQLIsServedFromTheBinaryUnderAStrictPolicy(t *testing.T) {
	t.Parallel()
	srv := spaServer(t, Config{Introspection: true}, builtSPA())

	res, body := get(t, srv, "/graphiql")
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, "text/html; charset=utf-8", res.Header.Get("Content-Type"))
	require.Equal(t, "DENY", res.Header.Get("X-Frame-Options"))
	csp := res.Header.Get("Content-Security-Policy")
	d := directives(csp)
	require.Equal(t, "'none'", d["default-src"], csp)
	for _, name := range []string{"script-src", "connect-src"} {
		require.Equal(t, "'self'", d[name], "%s: %s", name, csp)
	}
	// Style elements only with this response's nonce, which the page
	// carries for GraphiQL to hand on.
	self, nonce, ok := strings.Cut(d["style-src"], " ")
	require.True(t, ok && self == "'self'" && strings.HasPrefix(nonce, "'nonce-"), csp)
	nonce = strings.TrimSuffix(strings.TrimPrefix(nonce, "'nonce-"), "'")
	require.Len(t, nonce, 24, "128 bits, base64")
	require.Equal(t, `<meta name="csp-nonce" content="`+nonce+`"><title>GPUnex GraphiQL</title>`, body)
	again, _ := get(t, srv, "/graphiql")
	require.NotEqual(t, csp, again.Header.Get("Content-Security-Policy"), "a fresh nonce for each response")
	require.Equal(t, "'none'", d["frame-ancestors"], csp)
	require.NotContains(t, csp, "unsafe", "no inline script or style, no eval")
	require.NotContains(t, csp, "http", "no other origin")
	_, hasWorker := d["worker-src"]
	require.False(t, hasWorker, "GraphiQL 4 needs no worker: default-src 'none' refuses them")

	res, body = get(t, srv, "/graphiql/assets/graphiql-x1.js")
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, "graphiql()", body)
	require.Contains(t, res.Header.Get("Content-Type"), "javascript")
	require.Equal(t, "public, max-age=31536000, immutable", res.Header.Get("Cache-Control"))

	for _, path := range []string{"/graphiql/", "/graphiql/graphiql.html", "/graphiql/assets/missing.js", "/graphiql/assets"} {
		res, _ := get(t, srv, path)
		require.Equal(t, http.StatusNotFound, res.StatusCode, path)
	}
	res, body = get(t, srv, "/")
	require.Equal(t, "<title>GPUnex</title>", body, "the SPA is still the SPA")
	require.Equal(t, siteCSP, res.Header.Get("Content-Security-Policy"), "the SPA has the site's policy, not GraphiQL's")
}

// With introspection off (production) GraphiQL is not served: /graphiql
// is the SPA's (its page for unknown paths) and GraphiQL's files are not
// found.
func TestGraphiQLIsOffWithIntrospection(t *testing.T) {
	t.Parallel()
	srv := spaServer(t, Config{}, builtSPA())
	_, body := get(t, srv, "/graphiql")
	require.Equal(t, "<title>GPUnex</title>", body)
	for _, path := range []string{"/graphiql/assets/graphiql-x1.js", "/graphiql/graphiql.html"} {
		res, _ := get(t, srv, path)
		require.Equal(t, http.StatusNotFound, res.StatusCode, path)
	}
}

// A binary built without the frontend says how to build GraphiQL.
func TestGraphiQLNotBuilt(t *testing.T) {
	t.Parallel()
	srv := spaServer(t, Config{Introspection: true}, fstest.MapFS{"index.html": {Data: []byte("spa")}})
	res, body := get(t, srv, "/graphiql")
	require.Equal(t, http.StatusServiceUnavailable, res.StatusCode)
	require.Contains(t, body, "make build")
}
