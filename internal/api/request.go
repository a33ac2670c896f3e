package api

import (
	"encoding/json"
	"mime"
	"net/http"
	"net/url"

	"github.com/gpunex/gpunex/internal/fault"
)

// checkRequest refuses, coded like every other refusal, the requests
// gqlgen's transports would refuse on their own without extensions.code:
// a method other than GET, POST or OPTIONS (405), a POST body that is not
// application/json (415, as the GraphQL-over-HTTP spec advises), and a
// GET whose query string cannot be read or whose variables or extensions
// are not JSON (400). WebSocket upgrades pass through.
func checkRequest(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if headerValue(r.Header, "Upgrade") != "" {
			next.ServeHTTP(w, r)
			return
		}
		switch r.Method {
		case http.MethodOptions:
		case http.MethodPost:
			// Every heartbeat passes here: the plain header is compared
			// as it is, only another one is parsed.
			if ct := headerValue(r.Header, "Content-Type"); ct != "application/json" && !isJSONMediaType(ct) {
				writeHTTPError(w, http.StatusUnsupportedMediaType, fault.BadRequest, "a POST body must be application/json")
				return
			}
		case http.MethodGet:
			q, err := url.ParseQuery(r.URL.RawQuery)
			if err != nil {
				writeHTTPError(w, http.StatusBadRequest, fault.BadRequest, "the query string cannot be read")
				return
			}
			for _, k := range []string{"variables", "extensions"} {
				if v := q.Get(k); v != "" && !json.Valid([]byte(v)) {
					writeHTTPError(w, http.StatusBadRequest, fault.BadRequest, k+" is not valid JSON")
					return
				}
			}
		default:
			w.Header().Set("Allow", "GET, POST, OPTIONS")
			writeHTTPError(w, http.StatusMethodNotAllowed, fault.BadRequest, "/graphql takes GET, POST and OPTIONS")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// isJSONMediaType reports whether a Content-Type names application/json,
// parameters (a charset) allowed.
func isJSONMediaType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
}
