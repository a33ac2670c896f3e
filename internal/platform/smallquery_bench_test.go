package platform_test

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"testing"

	"github.com/gpunex/gpunex/internal/platform/platformtest"
)

// bareAnswer is a net/http handler that answers every request with body,
// having read the request's: the floor a GraphQL request's answer is
// measured against (sent the same request, headers included).
func bareAnswer(body []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})
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
				answer := s.NewAPIClient(b, q.token).Raw(http.MethodPost, "application/json", body, "")
				if got, _ := json.Marshal(map[string]json.RawMessage{"data": answer.Data}); string(got) != q.answer {
					b.Fatalf("%s answers %s, not %s", q.query, got, q.answer)
				}
				var bare hbResult
				b.Run(q.name+"/bare", func(b *testing.B) {
					ln, err := net.Listen("tcp", "127.0.0.1:0")
					if err != nil {
						b.Fatal(err)
					}
					srv := &http.Server{Handler: bareAnswer([]byte(q.answer))}
					go func() { _ = srv.Serve(ln) }()
					defer srv.Close()
					// The same request, its Authorization header
					// included: the bare handler reads what the
					// stack reads and answers the same bytes.
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
