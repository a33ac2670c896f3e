package api

import (
	"io/fs"
	"net/http"
	"path"
	"strings"
)

// spaHandler serves the built SPA. A path naming a file serves it (hashed
// assets are cached for a year); any other GET serves index.html, so the
// client-side router owns every other URL (history-API fallback).
func spaHandler(dist fs.FS) http.Handler {
	var index []byte
	if dist != nil {
		index, _ = fs.ReadFile(dist, "index.html")
	}
	files := http.FileServerFS(orEmpty(dist))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		if index == nil {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte("The GPUnex web app is not built into this binary. Run `make build` (or `make run`).\n"))
			return
		}
		p := strings.TrimPrefix(path.Clean(r.URL.Path), "/")
		if p != "" && p != "index.html" {
			if st, err := fs.Stat(dist, p); err == nil && !st.IsDir() {
				if strings.HasPrefix(p, "assets/") {
					w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
				}
				files.ServeHTTP(w, r)
				return
			}
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		_, _ = w.Write(index)
	})
}

type emptyFS struct{}

func (emptyFS) Open(string) (fs.File, error) { return nil, fs.ErrNotExist }

func orEmpty(f fs.FS) fs.FS {
	if f == nil {
		return emptyFS{}
	}
	return f
}
