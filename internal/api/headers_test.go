package api

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Every answer carries the site's security headers, whatever path answers
// it: the SPA's page, a GraphQL answer, the health check; GraphiQL's own
// policy replaces the site's for its page only, and the next answer has
// the site's again (the values are made once and shared by every answer).
// A GraphQL POST is read whole however its body comes: with a
// Content-Length, or chunked without one.
func TestEveryAnswerCarriesTheSecurityHeadersAndAPostIsReadHoweverItComes(t *testing.T) {
	t.Parallel()
	srv := spaServer(t, Config{Introspection: true}, builtSPA())
	site := func(res *http.Response, what string) {
		t.Helper()
		require.Equal(t, siteCSP, res.Header.Get("Content-Security-Policy"), what)
		require.Equal(t, []string{"nosniff"}, res.Header.Values("X-Content-Type-Options"), what)
		require.Equal(t, []string{"same-origin"}, res.Header.Values("Referrer-Policy"), what)
		require.Equal(t, []string{"DENY"}, res.Header.Values("X-Frame-Options"), what)
	}
	res, _ := get(t, srv, "/")
	site(res, "the SPA's page")
	res, _ = get(t, srv, "/healthz")
	site(res, "the health check")
	res, _ = get(t, srv, "/graphiql")
	require.NotEqual(t, siteCSP, res.Header.Get("Content-Security-Policy"), "GraphiQL's page has its own policy")
	res, _ = get(t, srv, "/")
	site(res, "the SPA's page after GraphiQL's")

	query := `{"query":"{ __typename }"}`
	for _, chunked := range []bool{false, true} {
		var body io.Reader = strings.NewReader(query)
		if chunked {
			// Neither a *strings.Reader nor a known length: sent chunked.
			body = io.MultiReader(strings.NewReader(query[:7]), strings.NewReader(query[7:]))
		}
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/graphql", body)
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		got, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		_ = res.Body.Close()
		require.Equal(t, http.StatusOK, res.StatusCode, "chunked %v: %s", chunked, got)
		require.JSONEq(t, `{"data":{"__typename":"Query"}}`, string(got), "chunked %v", chunked)
		site(res, "a GraphQL answer")
	}
}
