package platform_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gpunex/gpunex/internal/platform/platformtest"
)

type nopRW struct{ h http.Header; n int; b []byte; code int }

func (w *nopRW) Header() http.Header { return w.h }
func (w *nopRW) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }
func (w *nopRW) WriteHeader(c int) { w.code = c }

func BenchmarkZZDirect(b *testing.B) {
	s := platformtest.Start(b, platformtest.Stacks[0], platformtest.Options{})
	_, token := s.NewAPIClient(b, "").SignUp(platformtest.UniqueEmail("small"), "correct horse battery", "Ada Lovelace")
	bare := bareAnswer(http.Header{"Content-Type": {"application/json"}, "Content-Security-Policy": {"default-src 'self'; x"}, "X-Content-Type-Options": {"nosniff"}, "Referrer-Policy": {"same-origin"}, "X-Frame-Options": {"DENY"}}, []byte(`{"data":{"health":true}}`))
	for _, q := range []struct{ name, token, query string }{{"bare", "", `{ health }`}, {"health", "", `{ health }`}, {"me", token, `{ me { id } }`}} {
		body, _ := json.Marshal(map[string]any{"query": q.query})
		b.Run(q.name, func(b *testing.B) {
			b.ReportAllocs()
			{
				req, _ := http.NewRequest("POST", "/graphql", bytes.NewReader(body))
				req.RemoteAddr = "127.0.0.1:5555"
				req.Header.Set("Content-Type", "application/json")
				if q.token != "" {
					req.Header.Set("Authorization", "Bearer "+q.token)
				}
				rec := httptest.NewRecorder()
				s.Platform.Handler.ServeHTTP(rec, req)
				if rec.Code != 200 || !bytes.Contains(rec.Body.Bytes(), []byte(`"data":{`)) {
					b.Fatalf("%d %s", rec.Code, rec.Body)
				}
			}
			for b.Loop() {
				req, _ := http.NewRequest("POST", "/graphql", bytes.NewReader(body))
				req.RemoteAddr = "127.0.0.1:5555"
				req.Header.Set("Content-Type", "application/json")
				if q.token != "" {
					req.Header.Set("Authorization", "Bearer "+q.token)
				}
				w := &nopRW{h: http.Header{}}
				if q.name == "bare" {
					bare.ServeHTTP(w, req)
				} else {
					s.Platform.Handler.ServeHTTP(w, req)
				}
			}
		})
	}
}
