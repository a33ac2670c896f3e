package platform_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"testing"

	"github.com/gpunex/gpunex/internal/platform/platformtest"
)

// bareNS is the bare handler's ns/op from the same run, so the full-stack
// figure is reported as a ratio that machine noise does not skew.
var bareNS float64

// BenchmarkTrivialQuery measures `{ health }` through the whole stack
// (HTTP, middleware, gqlgen parse/validate cache, resolver, JSON) against a
// bare net/http handler that decodes the same JSON body and writes the
// same answer, both over loopback with parallel clients. Run with
// `make bench`; the gpunex case reports x_bare, its cost relative to bare.
func BenchmarkTrivialQuery(b *testing.B) {
	body := []byte(`{"query":"{ health }"}`)
	run := func(b *testing.B, url string) {
		tr := &http.Transport{MaxIdleConnsPerHost: 64}
		client := &http.Client{Transport: tr}
		defer tr.CloseIdleConnections()
		b.ReportAllocs()
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				res, err := client.Post(url, "application/json", bytes.NewReader(body))
				if err != nil {
					b.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusOK {
					b.Errorf("status %d", res.StatusCode)
					return
				}
			}
		})
	}
	b.Run("bare", func(b *testing.B) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var req struct {
				Query string `json:"query"`
			}
			if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Query == "" {
				http.Error(w, "bad", http.StatusBadRequest)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{"health": true}})
		})}
		go func() { _ = srv.Serve(ln) }()
		defer srv.Close()
		run(b, "http://"+ln.Addr().String()+"/graphql")
		bareNS = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	b.Run("gpunex", func(b *testing.B) {
		s := platformtest.Start(b, platformtest.Stacks[0], platformtest.Options{})
		run(b, s.URL+"/graphql")
		ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		if bareNS > 0 {
			b.ReportMetric(ns/bareNS, "x_bare")
		}
	})
}
