package api

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

// graphiqlCSP is the Content-Security-Policy of /graphiql, with %s the
// response's nonce. GraphiQL is built into the binary
// (frontend/dist/graphiql, the SPA build's second pass), so the page loads
// its scripts, styles and editor from this server and nothing else: no
// inline script, no eval, no CDN, no web worker (GraphiQL 4 edits with
// CodeMirror 5, which needs none), no frames. A <style> element needs the
// nonce: GraphiQL's dialogs add one (Radix's scroll lock, whose contents
// vary with the scrollbar's width, so no hash would do), and the page hands
// it the nonce from its csp-nonce meta element; any other inline style
// element is refused. data: is allowed for fonts and images only:
// GraphiQL's stylesheet carries its fonts (Roboto, Fira Code) and two
// icons inline as data: URLs. connect-src 'self' covers the WebSocket to
// /graphql on the same host (CSP Level 3 matches ws: and wss: for 'self').
const graphiqlCSP = "default-src 'none'; script-src 'self'; style-src 'self' 'nonce-%s'; " +
	"img-src 'self' data:; font-src 'self' data:; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// graphiqlNonce is the placeholder frontend/graphiql.html carries where the
// server writes each response's nonce.
var graphiqlNonce = []byte("GPUNEX_CSP_NONCE")

// newNonce returns 128 random bits, base64: a CSP nonce.
func newNonce() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24)
	return base64.StdEncoding.EncodeToString(b)
}

// graphiqlDir is where the build puts GraphiQL inside the SPA's dist, and
// graphiqlPage its page (Vite names it after frontend/graphiql.html).
const (
	graphiqlDir  = "graphiql"
	graphiqlPage = "graphiql.html"
)

// graphiqlHandler serves GraphiQL from dist: its page at /graphiql and its
// files under /graphiql/ (hashed, cached for a year), each with
// graphiqlCSP. Without a built GraphiQL it answers 503 with a hint, as the
// SPA's handler does.
func graphiqlHandler(dist fs.FS) http.Handler {
	var page []byte
	var files fs.FS
	if dist != nil {
		if sub, err := fs.Sub(dist, graphiqlDir); err == nil {
			if b, err := fs.ReadFile(sub, graphiqlPage); err == nil {
				page, files = b, sub
			}
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		nonce := newNonce()
		w.Header().Set("Content-Security-Policy", fmt.Sprintf(graphiqlCSP, nonce))
		if page == nil {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte("GraphiQL is not built into this binary. Run `make build` (or `make run`).\n"))
			return
		}
		if r.URL.Path == "/graphiql" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-cache")
			_, _ = w.Write(bytes.ReplaceAll(page, graphiqlNonce, []byte(nonce)))
			return
		}
		// /graphiql/assets/… and the favicon; the page itself only at
		// /graphiql.
		p := strings.TrimPrefix(path.Clean(r.URL.Path), "/graphiql/")
		if p == graphiqlPage || strings.HasPrefix(p, "/") {
			http.NotFound(w, r)
			return
		}
		if st, err := fs.Stat(files, p); err != nil || st.IsDir() {
			http.NotFound(w, r)
			return
		}
		if strings.HasPrefix(p, "assets/") {
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		}
		http.ServeFileFS(w, r, files, p)
	})
}
