package api

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/executor"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/graph"
)

// Issue 27, point 3: a POST with a document and no variables is answered
// without gqlgen's POST transport (plainRequest), and exactly as it would
// have answered: the same status, content type and body, for a good
// document and each way one goes wrong (syntax, validation, an operation
// name that is not there, no document, over the depth limit, introspection
// where it is off), under either content type a client accepts. The same
// body with "Query" for "query" (gqlgen's decoder matches names without
// regard to case; the plain path only exact ones) goes gqlgen's way: the
// reference.
func TestAPlainQueryIsAnsweredAsGqlgensTransportAnswersIt(t *testing.T) {
	t.Parallel()
	limited := spaServer(t, Config{DepthLimit: 2}, builtSPA())
	// With introspection on, a description holding <, & and … is data
	// that encoding/json escapes (the plain path writes data without it).
	open := spaServer(t, Config{Introspection: true}, builtSPA())
	type answer struct {
		status      int
		contentType string
		body        string
	}
	postTo := func(srv *httptest.Server, body, accept string) answer {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/graphql", strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer func() { _ = res.Body.Close() }()
		b, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		return answer{res.StatusCode, res.Header.Get("Content-Type"), string(b)}
	}
	post := func(body, accept string) answer { return postTo(limited, body, accept) }
	documents := []struct{ query, operationName string }{
		{"{ __typename }", ""},
		{"query Q { __typename }", "Q"},
		{"query Q { __typename }", "Other"},
		{"{", ""},
		{"{ nope }", ""},
		{"", ""},
		{"{ me { providerApplication { gpus { model } } } }", ""},
		{"{ __schema { types { name } } }", ""},
		// Resolved, with a field's error: data null (a non-null field), or
		// partial; and a resolver that panics (no services here).
		{"{ myFunds { balance } }", ""},
		{"{ health myProvider { __typename } }", ""},
		{"{ health depositTerms { __typename } }", ""},
		{"mutation { logOut { __typename } }", ""},
	}
	for _, d := range documents {
		for _, accept := range []string{"", "application/json", "application/graphql-response+json", "application/graphql-response+json, application/json"} {
			q, _ := json.Marshal(d.query)
			op, _ := json.Marshal(d.operationName)
			plain := post(`{"query":`+string(q)+`,"operationName":`+string(op)+`,"variables":{}}`, accept)
			reference := post(`{"Query":`+string(q)+`,"operationName":`+string(op)+`,"variables":{}}`, accept)
			require.Equal(t, reference, plain, "%q accepting %q", d.query, accept)
		}
	}
	escaped := `{ __type(name: \"DepositPayment\") { fields { description } } }`
	plain := postTo(open, `{"query":"`+escaped+`"}`, "")
	require.Equal(t, postTo(open, `{"Query":"`+escaped+`"}`, ""), plain)
	require.Contains(t, plain.body, `solana:\u003crecipient\u003e?amount=…\u0026spl-token`)
	// Both paths were taken: a good document answers, a bad one does not.
	require.Equal(t, `{"data":{"__typename":"Query"}}`, post(`{"query":"{ __typename }"}`, "").body)
	require.Contains(t, post(`{"query":"{ nope }"}`, "").body, `"errors"`)
}

// The usual body read without the decoder reads as the decoder reads it;
// what it cannot read is left to the decoder.
func TestTheUsualBodyReadsAsTheDecoderReadsIt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		body   string
		simple bool // read without the decoder
	}{
		{`{"query":"{ me { id } }"}`, true},
		{` {"query" : "{ health }" , "operationName":"", "variables": null } `, true},
		{"{\n\t\"operationName\":\"Q\",\r\n\"query\":\"query Q { health }\",\"variables\":{}}", true},
		{`{"query":"{ health }","variables":{ }}`, false},
		{`{"query":"{ é… }"}`, true},
		{`{"query":"a \"quoted\" name"}`, false},
		{`{"query":"\u007b health }"}`, false},
		{`{"query":"{ health }","variables":{"a":1}}`, false},
		{`{"query":"{ health }","variables":[]}`, false},
		{`{"query":"{ health }","query":"{ me { id } }"}`, false},
		{`{"query":"{ health }","extensions":{}}`, false},
		{`{"Query":"{ health }"}`, false},
		{`{"query":"{ health }",}`, false},
		{`{"query":"{ health }"} x`, false},
		{`{"query":"{ health }"`, false},
		{`{"operationName":"Q"}`, false},
		{`{"query":null}`, false},
		{`{"query":"{ health }","variables":nullx}`, false},
		{"{\"query\":\"\xff\"}", false},
		{`{}`, false},
		{``, false},
	} {
		got, ok := simplePlain([]byte(tc.body))
		require.Equal(t, tc.simple, ok, "%s", tc.body)
		want, wantOK := decodePlain([]byte(tc.body))
		if ok {
			require.True(t, wantOK, "%s", tc.body)
			require.Equal(t, want.Query, got.Query, "%s", tc.body)
			require.Equal(t, want.OperationName, got.OperationName, "%s", tc.body)
		}
		p, pOK := plainRequest([]byte(tc.body))
		require.Equal(t, wantOK, pOK, "%s", tc.body)
		if pOK {
			require.Equal(t, want.Query, p.Query, "%s", tc.body)
			require.Equal(t, want.OperationName, p.OperationName, "%s", tc.body)
		}
	}
}

// Whatever a body holds, what is read without the decoder is what the
// decoder reads.
func FuzzTheUsualBodyReadsAsTheDecoderReadsIt(f *testing.F) {
	for _, seed := range []string{`{"query":"{ me { id } }"}`, `{"query":"q","operationName":"Q","variables":{}}`, `{"query":"q","variables":null}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, ok := simplePlain(body)
		if !ok {
			return
		}
		want, wantOK := decodePlain(body)
		require.True(t, wantOK, "%q", body)
		require.Equal(t, want.Query, got.Query, "%q", body)
		require.Equal(t, want.OperationName, got.OperationName, "%q", body)
	})
}

// An extension that intercepts would be skipped by the POST executor's
// dispatch: it is refused where the server is assembled.
func TestThePOSTExecutorTakesNoExtensionThatIntercepts(t *testing.T) {
	t.Parallel()
	require.PanicsWithValue(t, "api: SocketGuard intercepts, which the POST executor's dispatch would skip", func() {
		mustNotIntercept(socketGuard{})
	})
	for _, x := range []graphql.HandlerExtension{operationLimit{}, signInLimit{}, writeLimit{}, introspectionOff{}, extension.Introspection{}, extension.AutomaticPersistedQuery{}} {
		require.NotPanics(t, func() { mustNotIntercept(x) }, x.ExtensionName())
	}
}

// As gqlgen's DispatchOperation, dispatch resolves nothing for a client
// already gone: no response, which is written as null.
func TestAnOperationWhoseClientIsGoneIsNotResolved(t *testing.T) {
	t.Parallel()
	es := graph.NewExecutableSchema(executableSchema())
	exec := executor.New(es)
	post := preparedPOST{schema: es, metrics: newMetrics(), presenter: graphql.DefaultErrorPresenter, recover: graphql.DefaultRecover}
	dispatch := func(ctx context.Context) *graphql.Response {
		ctx = graphql.StartOperationTrace(ctx)
		rc, errs := exec.CreateOperationContext(ctx, &graphql.RawParams{Query: "{ health }"})
		require.Nil(t, errs)
		return post.dispatch(ctx, rc)
	}
	resp := dispatch(context.Background())
	require.NotNil(t, resp)
	require.JSONEq(t, `{"health":true}`, string(resp.Data))
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	require.Nil(t, dispatch(gone))
}
