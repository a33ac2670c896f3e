package api

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/fault"
)

// SessionCookieName is the name of the SPA's session cookie.
const SessionCookieName = "gpunex_session"

// CSRFHeader must accompany every cookie-authenticated HTTP request. Browsers
// only send custom headers cross-origin after a CORS preflight, which this
// server never grants.
const CSRFHeader = "X-GPUnex-CSRF"

// csrfKey is CSRFHeader in net/http's canonical form, as headerValue
// takes it (Header.Get(CSRFHeader) would make that string anew on every
// request).
var csrfKey = http.CanonicalHeaderKey(CSRFHeader)

// headerValue is h.Get(key) for a key already in canonical form, as
// every name the request path reads is: the first value, or "", without
// Get's check of the name's form on every read.
func headerValue(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// cookieJar sets and clears the session cookie on the response being built.
type cookieJar struct {
	w      http.ResponseWriter
	secure bool
}

var _ auth.SessionCookie = (*cookieJar)(nil)

func (j *cookieJar) Set(token string, expires time.Time) {
	http.SetCookie(j.w, &http.Cookie{
		Name: SessionCookieName, Value: token, Path: "/",
		Expires: expires, MaxAge: int(time.Until(expires).Seconds()),
		HttpOnly: true, Secure: j.secure, SameSite: http.SameSiteLaxMode,
	})
}

func (j *cookieJar) Clear() {
	http.SetCookie(j.w, &http.Cookie{
		Name: SessionCookieName, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: j.secure, SameSite: http.SameSiteLaxMode,
	})
}

// authenticator resolves the identity of HTTP requests.
type authenticator struct {
	auth    *auth.Service
	logger  *slog.Logger
	origins *originPolicy
	proxies proxyPolicy
	secure  bool
	// outage is told of each request refused for an outage.
	outage func(context.Context)
}

func bearerToken(h string) (string, bool) {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(tok), true
}

// middleware puts the viewer (if any) and, for SPA requests, the cookie jar
// into the request context. A bad bearer token is refused with 401; a bad
// cookie is cleared and the request continues anonymously.
func (a *authenticator) middleware(next http.Handler) http.Handler {
	serve := handOn(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := auth.WithClientAddrFunc(r.Context(), func() string { return a.proxies.clientAddr(r) })
		isWS := strings.EqualFold(headerValue(r.Header, "Upgrade"), "websocket")
		spa := headerValue(r.Header, csrfKey) != "" || (isWS && headerValue(r.Header, "Origin") != "" && a.origins.allowed(r))
		if spa {
			jar := &cookieJar{w: w, secure: a.secure || r.TLS != nil}
			ctx = auth.WithSessionCookie(ctx, jar)
		}
		if h := headerValue(r.Header, "Authorization"); h != "" {
			tok, ok := bearerToken(h)
			if !ok {
				writeHTTPError(w, http.StatusUnauthorized, fault.Unauthenticated, "the Authorization header must be \"Bearer <token>\"")
				return
			}
			ctx, err := a.authenticateBearer(ctx, tok)
			if err != nil {
				if fault.CodeOf(err) == fault.Unauthenticated {
					writeHTTPError(w, http.StatusUnauthorized, fault.Unauthenticated, publicMessage(err))
					return
				}
				a.internal(w, r, err, auth.IsAgentToken(tok))
				return
			}
			serve(ctx, w, r)
			return
		}
		if spa {
			if c, err := r.Cookie(SessionCookieName); err == nil && c.Value != "" {
				v, err := a.auth.Authenticate(ctx, c.Value)
				switch {
				case err == nil:
					ctx = auth.WithViewer(ctx, v)
				case fault.CodeOf(err) == fault.Unauthenticated:
					if !isWS {
						(&cookieJar{w: w, secure: a.secure || r.TLS != nil}).Clear()
					}
				default:
					a.internal(w, r, err, false)
					return
				}
			}
		}
		serve(ctx, w, r)
	})
}

// wsToken is the bearer token of a WebSocket's connection_init payload:
// its "authorization" ("Bearer …", or the bare token) or "token" entry,
// or "" when it has none.
func wsToken(payload map[string]any) string {
	if s, _ := payload["authorization"].(string); s != "" {
		if tok, _ := bearerToken(s); tok != "" {
			return tok
		}
		return s
	}
	if s, _ := payload["Authorization"].(string); s != "" {
		tok, _ := bearerToken(s)
		return tok
	}
	s, _ := payload["token"].(string)
	return s
}

// errWSOutage and errWSInternal are wsInit's failures that are not the
// token's: the socket closes with a code saying so (wsInitClose).
var (
	errWSOutage   = errors.New(fault.OutageMessage)
	errWSInternal = errors.New("internal error")
	// errWSEnded: the socket's own context ended while its connection_init
	// was checked: its client left, or this replica is closing its
	// streams (a restart, a deploy). Nothing failed.
	errWSEnded = errors.New("going away")
)

// wsInitClose is the close code and reason of a connection_init that
// wsInit refused with err: 4403 Forbidden only for an identity that does
// not hold; 1013 Try Again Later while a dependency is out of reach (the
// full soak's dashboards reconnecting through a database restart were
// told 4403, as if their sessions had ended); 1001 Going Away when the
// socket's context ended first (the full soak's rolling restart told 21
// dashboards 4500, which graphql-ws clients do not retry); 4500 for the
// platform's own failure.
func wsInitClose(err error) (int, string) {
	switch {
	case errors.Is(err, errWSOutage):
		return closeTryAgainLater, "Try Again Later"
	case errors.Is(err, errWSEnded):
		return closeGoingAway, "Going Away"
	case errors.Is(err, errWSInternal):
		return closeInternalServerError, "Internal Server Error"
	}
	return closeForbidden, "Forbidden"
}

// wsInit authenticates a WebSocket from the token of its connection_init
// (wsToken). Without one, the identity of the upgrade request (cookie)
// stands.
func (a *authenticator) wsInit(ctx context.Context, tok string) (context.Context, error) {
	if tok == "" {
		return ctx, nil
	}
	actx, err := a.authenticateBearer(ctx, tok)
	if err != nil {
		if fault.CodeOf(err) == fault.Unauthenticated {
			return ctx, err
		}
		if fault.IsOutage(err) {
			a.logger.WarnContext(ctx, "api: unable to authenticate a WebSocket: a dependency is out of reach", "err", err)
			return ctx, errWSOutage
		}
		logFailure(ctx, a.logger, err, "api: unable to authenticate a WebSocket")
		if clientLeft(ctx, err) {
			return ctx, errWSEnded
		}
		return ctx, errWSInternal
	}
	return actx, nil
}

// authenticateBearer puts the identity of a bearer token into ctx: an
// agent for agent tokens, a viewer for session tokens.
func (a *authenticator) authenticateBearer(ctx context.Context, tok string) (context.Context, error) {
	if auth.IsAgentToken(tok) {
		ag, err := a.auth.AuthenticateAgent(ctx, tok)
		if err != nil {
			return ctx, err
		}
		return auth.WithAgent(ctx, ag), nil
	}
	v, err := a.auth.Authenticate(ctx, tok)
	if err != nil {
		return ctx, err
	}
	return auth.WithViewer(ctx, v), nil
}

// internal answers 500 for a failure to authenticate that is not the
// caller's fault, logging the cause once; 503 UNAVAILABLE with
// Retry-After when the cause is a dependency out of reach (the session
// or agent token could not be looked up: fault.IsOutage), told to outage
// when the token was an agent's (see presentOutage).
func (a *authenticator) internal(w http.ResponseWriter, r *http.Request, err error, agent bool) {
	if fault.IsOutage(err) {
		a.logger.WarnContext(r.Context(), "api: unable to authenticate a request: a dependency is out of reach", "err", err)
		if agent {
			a.outage(r.Context())
		}
		w.Header().Set("Retry-After", strconv.Itoa(int(fault.RetryAfter/time.Second)))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_ = json.NewEncoder(w).Encode(map[string]any{"errors": []map[string]any{{"message": fault.OutageMessage,
			"extensions": map[string]any{"code": fault.ServiceUnavailable, "retryAfterSeconds": int(fault.RetryAfter / time.Second)}}}})
		return
	}
	logFailure(r.Context(), a.logger, err, "api: unable to authenticate a request")
	writeHTTPError(w, http.StatusInternalServerError, fault.Internal, "internal error")
}

func publicMessage(err error) string {
	var fe *fault.Error
	if errors.As(err, &fe) {
		return fe.Message
	}
	return "internal error"
}
