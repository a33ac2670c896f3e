package platform_test

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"testing"

	"github.com/gpunex/gpunex/internal/platform/platformtest"
)

// bareAnswer is a net/http handler that answers every request with the
// same bytes as the stack, headers and body (what stackAnswer saw), having
// read the request's: the floor a GraphQL request's answer is measured
// against (sent the same request, headers included). net/http adds Date
// and Content-Length to both.
func bareAnswer(header http.Header, body []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		h := w.Header()
		for k, v := range header {
			h[k] = v
		}
		_, _ = w.Write(body)
	})
}

// stackAnswer is the stack's answer to the request runHeartbeats sends:
// its headers (less those net/http sets) and body.
func stackAnswer(b *testing.B, url, token string, body []byte) (http.Header, []byte) {
	b.Helper()
	res, err := http.DefaultClient.Do(heartbeatRequest(url, token, body))
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	answer, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		b.Fatalf("the stack answered %d %s (%v)", res.StatusCode, answer, err)
	}
	header := res.Header.Clone()
	header.Del("Date")
	header.Del("Content-Length")
	return header, answer
}

// BenchmarkSmallQueries measures the smallest requests through the whole
// stack (HTTP, session, the complexity and depth checks, gqlgen, the error
// presenter) against a bare net/http handler answering the same bytes, side
// by side in one run, from 16 parallel clients: { health } anonymously
// and { me { id } } with a session token. Targets: throughput at least
// 1/1.3 of the bare handler's, p99 at most 1.3× its p99; the signed-in
// query reads no SQL once its session is known (sql/request).
func BenchmarkSmallQueries(b *testing.B) {
	for _, stack := range platformtest.Stacks {
		b.Run(stack.Name, func(b *testing.B) {
			s := platformtest.Start(b, stack, platformtest.Options{})
			id, token := s.NewAPIClient(b, "").SignUp(platformtest.UniqueEmail("small"), "correct horse battery", "Ada Lovelace")
			for _, q := range []struct {
				name, token, query, answer string
			}{
				{"health", "", `{ health }`, `{"data":{"health":true}}`},
				{"me", token, `{ me { id } }`, `{"data":{"me":{"id":"` + id + `"}}}`},
			} {
				body, _ := json.Marshal(map[string]any{"query": q.query})
				bodies := [][]byte{body}
				header, stackBody := stackAnswer(b, s.URL+"/graphql", q.token, body)
				if string(stackBody) != q.answer {
					b.Fatalf("%s answers %s, not %s", q.query, stackBody, q.answer)
				}
				var bare hbResult
				b.Run(q.name+"/bare", func(b *testing.B) {
					ln, err := net.Listen("tcp", "127.0.0.1:0")
					if err != nil {
						b.Fatal(err)
					}
					srv := &http.Server{Handler: bareAnswer(header, stackBody)}
					go func() { _ = srv.Serve(ln) }()
					defer srv.Close()
					// The same request, its Authorization header
					// included: the bare handler reads what the
					// stack reads and answers the same bytes, its
					// headers included.
					bare = runHeartbeats(b, "http://"+ln.Addr().String()+"/graphql", q.token, bodies)
				})
				b.Run(q.name+"/gpunex", func(b *testing.B) {
					s.DrainMail(b) // the mail worker's reads are not the queries'
					statements := s.RecordStatements()
					var r hbResult
					n := len(statements.Record(func() {
						r = runHeartbeats(b, s.URL+"/graphql", q.token, bodies)
					}))
					b.ReportMetric(float64(n)/float64(b.N), "sql/request")
					if bare.nsPerOp > 0 {
						b.ReportMetric(bare.nsPerOp/r.nsPerOp, "throughput_x_bare")
						b.ReportMetric(float64(r.p99)/float64(bare.p99), "p99_x_bare")
					}
				})
			}
		})
	}
}
