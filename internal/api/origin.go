package api

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// originPolicy decides which browser origins may open a WebSocket or use
// the session cookie: the server's own host, plus any configured origins
// (for a separate SPA dev server, say).
type originPolicy struct {
	extra []string
}

func newOriginPolicy(allowed []string) *originPolicy {
	p := &originPolicy{}
	for _, o := range allowed {
		if o = strings.TrimRight(strings.TrimSpace(o), "/"); o != "" {
			p.extra = append(p.extra, strings.ToLower(o))
		}
	}
	return p
}

// allowed reports whether r's Origin may talk to this server. A request
// without Origin comes from a non-browser client, which carries no ambient
// credentials worth protecting, and is allowed.
func (p *originPolicy) allowed(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if strings.EqualFold(u.Host, r.Host) {
		return true
	}
	return slices.Contains(p.extra, strings.ToLower(u.Scheme+"://"+u.Host))
}
