package api

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/executor"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/fault"
)

// Config tunes the HTTP surface. Zero values take the defaults below.
type Config struct {
	// Introspection enables schema introspection and GraphiQL at /graphiql
	// (on in development, off with --no-introspection in production).
	Introspection bool
	// AllowedOrigins are extra browser origins (scheme://host[:port]) that
	// may open WebSockets and use the session cookie; the server's own host
	// is always allowed.
	AllowedOrigins []string
	// SecureCookies marks the session cookie Secure (behind TLS).
	SecureCookies bool
	// MaxBodyBytes bounds a request body (default 1 MiB).
	MaxBodyBytes int64
	// ComplexityLimit bounds an operation's cost (default 1000): each
	// field costs one plus its children, fragments expanded where they are
	// spread, introspection fields (__schema, __type) included.
	// DepthLimit bounds how deeply its fields nest (default 12);
	// introspection's __Type.ofType adds no depth, and its lists nest at
	// most three deep (cost.go), so the standard introspection query
	// (GraphiQL's) passes and costs what it asks for.
	ComplexityLimit int
	DepthLimit      int
	// FragmentLimit, SpreadLimit and AliasLimit cap an operation's shape:
	// the distinct fragments it reaches (default 100), the fragment spreads
	// written in it and in those fragments (default 500), and its fields
	// whose alias differs from their name (default 100). Over any of them
	// the operation is refused with COMPLEXITY_LIMIT_EXCEEDED.
	FragmentLimit int
	SpreadLimit   int
	AliasLimit    int
	// WSInitTimeout is how long a WebSocket may wait before connection_init
	// (default 10s). WSKeepAlive is the interval of protocol pings (default
	// 25s): on graphql-transport-ws a peer that answers none for two
	// intervals is dropped (so a vanished peer within 50 s by default); the
	// legacy graphql-ws has no pong and gets keep-alive messages only.
	// WSWriteTimeout bounds one write to a socket (default 10s): a peer
	// that stalls past it, or any failed write, ends the socket and its
	// subscriptions, and nobody else waits for it.
	WSInitTimeout  time.Duration
	WSKeepAlive    time.Duration
	WSWriteTimeout time.Duration
	// WSMaxSubscriptions caps the operations running at once on one
	// WebSocket, subscriptions and any query or mutation sent over it
	// (default 50; the SPA runs fewer than 10): one more is refused with
	// RATE_LIMITED and the socket stays open. Each costs goroutines and
	// buffers; uncapped, 10,000 on one socket cost 635 MB.
	WSMaxSubscriptions int
	// WSMaxPerUser caps the WebSockets one user (or one provider's agent
	// tokens) holds open on this replica (default 16: one per tab of the
	// SPA). Over it connection_init is refused and the socket closed with
	// 4429. The count is per replica, so behind a load balancer of n
	// replicas a user holds at most n times it.
	WSMaxPerUser int
	// WSMaxPerAddress caps the WebSockets open from one client address
	// (an IPv6 /64) on this replica before identification (default 64: a
	// few users behind one NAT); over it the upgrade is refused with 429.
	WSMaxPerAddress int
	// WSSessionCheck is the longest a socket goes without checking that
	// its session or agent token is still alive (default 5m). Ends are
	// announced on the bus and close sockets at once, and a socket checks
	// again when its session expires and before every operation; this
	// bounds how long one outlives its session when an announcement was
	// never published.
	WSSessionCheck time.Duration
	// WSMessageRate paces the messages read from one WebSocket (default
	// 20 a second, after a burst of as many; the SPA sends a handful when
	// a page opens and a pong every 25s): past it the server reads
	// more slowly and the client's writes back up, so one client flooding
	// a socket with subscribes costs no more than that.
	WSMessageRate int
	// A negative WSMax… or WSMessageRate value lifts that cap.

	// TrustedProxies are the reverse proxies (CIDR prefixes; see
	// ParseTrustedProxies) whose X-Forwarded-For is believed: behind
	// them the client address of sign-in limits and socket caps is the
	// rightmost entry that is not itself a trusted proxy. Without any,
	// the peer of the connection is the client.
	TrustedProxies []netip.Prefix
	// SeparateMetrics takes /metrics off the public handler (it answers
	// 404 there); serve Server.Metrics on an address of its own
	// (--metrics-addr).
	SeparateMetrics bool
}

func (c *Config) defaults() {
	orDefault(&c.MaxBodyBytes, 1<<20)
	orDefault(&c.ComplexityLimit, 1000)
	orDefault(&c.DepthLimit, 12)
	orDefault(&c.FragmentLimit, 100)
	orDefault(&c.SpreadLimit, 500)
	orDefault(&c.AliasLimit, 100)
	orDefault(&c.WSInitTimeout, 10*time.Second)
	orDefault(&c.WSWriteTimeout, 10*time.Second)
	orDefault(&c.WSKeepAlive, 25*time.Second)
	// The socket caps take -1 for none; zero is the default.
	orDefault(&c.WSMaxSubscriptions, 50)
	orDefault(&c.WSMaxPerUser, 16)
	orDefault(&c.WSMaxPerAddress, 64)
	orDefault(&c.WSMessageRate, 20)
	if c.WSSessionCheck <= 0 {
		c.WSSessionCheck = 5 * time.Minute
	}
}

// orDefault sets *v to def where it is the zero value.
func orDefault[T comparable](v *T, def T) {
	var zero T
	if *v == zero {
		*v = def
	}
}

// socketLimits are the caps on WebSockets, defaults filled.
func (c Config) socketLimits() socketLimits {
	return socketLimits{subscriptions: c.WSMaxSubscriptions, perUser: c.WSMaxPerUser,
		perAddress: c.WSMaxPerAddress, recheck: c.WSSessionCheck}
}

// operationLimits are the limits of one operation, defaults filled.
func (c Config) operationLimits() operationLimits {
	return operationLimits{Complexity: c.ComplexityLimit, Depth: c.DepthLimit,
		Fragments: c.FragmentLimit, Spreads: c.SpreadLimit, Aliases: c.AliasLimit}
}

// Check is one dependency /readyz asks (database, bus, presence).
type Check struct {
	Name string
	Ping func(ctx context.Context) error
}

// Deps are what the HTTP surface serves.
type Deps struct {
	Schema graphql.ExecutableSchema
	Auth   *auth.Service
	Logger *slog.Logger
	Checks []Check
	// SPA is the built frontend (the directory holding index.html); nil
	// or empty serves a hint to build it.
	SPA fs.FS
	// Routes adds more handlers (the agent installer, for one).
	Routes map[string]http.Handler
	// Prepared are the trusted documents answered without the generic
	// executor (the agent's heartbeat; see Prepare).
	Prepared []PreparedOperation
	// Outage, when set, is told each time an agent's request is answered
	// UNAVAILABLE (a dependency out of reach, fault.IsOutage): the fleet
	// keeps the platform's own outages from counting as its machines'
	// (fleet.Service.NoteOutage). Users' requests answered UNAVAILABLE are
	// not told: another dependency's outage must not hold the sweeper.
	Outage func(ctx context.Context)
	// Collectors are more series for the metrics page (the database
	// pool's, for one).
	Collectors []prometheus.Collector
}

// Server is the assembled HTTP handler.
type Server struct {
	http.Handler
	closeStreams context.CancelFunc
	metrics      http.Handler
}

// CloseStreams ends every open WebSocket (their subscriptions end and the
// sockets close) and stops listening for ended sessions. http.Server's
// Shutdown does not track hijacked connections: register this with
// RegisterOnShutdown.
func (s *Server) CloseStreams() { s.closeStreams() }

// Metrics serves the Prometheus series. With Config.SeparateMetrics it is
// the only way to reach them: serve it on a private address.
func (s *Server) Metrics() http.Handler { return s.metrics }

// streams gives each WebSocket a context of its own, which ends with the
// socket (not with the request that opened it: see detach.go) or when
// CloseStreams ends them all, while plain requests finish undisturbed.
func streams(streamsCtx context.Context, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if headerValue(r.Header, "Upgrade") == "" {
			next.ServeHTTP(w, r)
			return
		}
		end := newSocketEnd()
		defer end.handlerReturned()
		ctx, cancel := context.WithCancel(context.WithoutCancel(r.Context()))
		stop := context.AfterFunc(streamsCtx, cancel)
		end.add(func() {
			stop()
			cancel()
		})
		next.ServeHTTP(w, r.WithContext(withSocketEnd(ctx, end)))
	})
}

// New assembles the HTTP surface.
func New(cfg Config, deps Deps) *Server {
	cfg.defaults()
	m := newMetrics()
	m.registry.MustRegister(deps.Collectors...)
	origins := newOriginPolicy(cfg.AllowedOrigins)
	proxies := proxyPolicy{trusted: cfg.TrustedProxies}
	outage := deps.Outage
	if outage == nil {
		outage = func(context.Context) {}
	}
	authn := &authenticator{auth: deps.Auth, logger: deps.Logger, origins: origins, proxies: proxies, secure: cfg.SecureCookies, outage: outage}
	streamsCtx, closeStreams := context.WithCancel(context.Background())
	sockets := newSockets(deps.Auth, deps.Logger, m, cfg.socketLimits(), proxies, streamsCtx)

	gql := handler.New(deps.Schema)
	gql.AddTransport(liveWebsocket{logger: deps.Logger, Websocket: transport.Websocket{
		Implementation: newGorillaWebsocket(origins, wsTimings{init: cfg.WSInitTimeout, write: cfg.WSWriteTimeout,
			keepAlive: cfg.WSKeepAlive, messageRate: cfg.WSMessageRate}, sockets,
			func() { m.websockets.Inc() }, func() { m.websockets.Dec() }),
		InitFunc: func(ctx context.Context, p transport.InitPayload) (context.Context, *transport.InitPayload, error) {
			tok := wsToken(p)
			ctx, err := authn.wsInit(ctx, tok)
			if err != nil {
				code, reason := wsInitClose(err)
				ctx = transport.WithWebsocketCloseCode(ctx, code)
				ctx = transport.AppendCloseReason(ctx, reason)
				return ctx, nil, errors.New(publicMessage(err))
			}
			if err := sockets.identify(ctx, tok); err != nil {
				ctx = transport.WithWebsocketCloseCode(ctx, closeTooManySockets)
				ctx = transport.AppendCloseReason(ctx, "Too many connections")
				return ctx, nil, err
			}
			if s := socketFrom(ctx); s != nil {
				sockets.initialized(s, ctx)
			}
			return ctx, nil, nil
		},
		// Pings and keep-alives are the adapter's (one ticker per
		// replica, not one goroutine per socket).
		PayloadReadLimit: &cfg.MaxBodyBytes,
	}})
	gql.AddTransport(transport.Options{})
	gql.AddTransport(transport.GET{})
	// POSTs (every query, mutation and heartbeat) go to gqlgen's executor
	// straight from postRoute, without handler.Server: the prepared documents
	// (the agent's heartbeat) and the plain queries in front of gqlgen's
	// POST transport. Both executors are configured alike (configure), and
	// share the caches.
	exec := executor.New(deps.Schema)
	presenter, recoverer := presentError(deps.Logger, outage), recoverPanic(deps.Logger)
	queries := lru.New[*ast.QueryDocument](1000)
	persisted := extension.AutomaticPersistedQuery{Cache: lru.New[string](1000)}
	for _, e := range []configurable{gql, exec} {
		use := e.Use
		if e == configurable(exec) {
			// preparedPOST.dispatch runs the POST executor's queries and
			// mutations without its middleware chain.
			use = func(x graphql.HandlerExtension) {
				mustNotIntercept(x)
				e.Use(x)
			}
		}
		e.SetQueryCache(queries)
		e.SetErrorPresenter(presenter)
		e.SetRecoverFunc(recoverer)
		e.SetParserTokenLimit(parserTokenLimit)
		if cfg.Introspection {
			use(extension.Introspection{})
		} else {
			e.SetDisableSuggestion(true)
		}
		use(persisted)
		// Before anything else counts an operation on a WebSocket: its
		// session still holds, and the socket has room for one more.
		// WebSockets are gqlgen's handler's alone: POSTs have none.
		if e == configurable(gql) {
			use(socketGuard{sockets: sockets})
		}
		// After the persisted queries (which fill in the document) and
		// before gqlgen validates it; among the operation context
		// mutators only Introspection's (which sets a flag) runs before it.
		use(operationLimit{limits: cfg.operationLimits(), queries: queries})
		// At most one logIn or signUp per operation, before any resolver.
		use(signInLimit{})
		// Every other mutation field counts against its caller's write
		// limit; an operation over it is refused whole.
		use(writeLimit{auth: deps.Auth})
		// __schema and __type where introspection is off, refused whole.
		use(introspectionOff{})
		e.AroundResponses(m.countOperations)
	}
	posts := postRoute{exec: exec, transport: preparedPOST{schema: deps.Schema,
		ops: mustPrepare(deps.Schema, cfg, deps.Prepared, m, deps.Logger), metrics: m,
		presenter: presenter, recover: recoverer,
	}, other: okForJSON(gql)}

	mux := http.NewServeMux()
	spa := spaHandler(deps.SPA)
	graphqlHandler := streams(streamsCtx, sockets.admit(limitBody(cfg.MaxBodyBytes, checkRequest(authn.middleware(posts)))))
	graphqlRoute := m.instrument("/graphql", graphqlHandler)
	mux.Handle("/graphql", graphqlRoute)
	if cfg.Introspection {
		// GraphiQL, built into the binary with the SPA, under its own CSP.
		graphiql := graphiqlHandler(deps.SPA)
		mux.Handle("GET /graphiql", graphiql)
		mux.Handle("GET /graphiql/", graphiql)
	} else {
		// Off, /graphiql is the SPA's (its page for unknown paths), and
		// GraphiQL's files are not served. (With only the /graphiql/
		// pattern, the mux would redirect /graphiql to it.)
		mux.Handle("/graphiql", spa)
		mux.Handle("/graphiql/", http.NotFoundHandler())
	}
	mux.Handle("GET /healthz", m.instrument("/healthz", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"status":"ok"}`)
	})))
	mux.Handle("GET /readyz", m.instrument("/readyz", readiness(deps.Checks)))
	metricsHandler := promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
	if cfg.SeparateMetrics {
		mux.Handle("/metrics", http.NotFoundHandler())
	} else {
		mux.Handle("GET /metrics", metricsHandler)
	}
	for pattern, h := range deps.Routes {
		mux.Handle(pattern, m.instrument(pattern, h))
	}
	mux.Handle("/", spa)
	return &Server{Handler: securityHeaders(graphQLFirst(graphqlRoute, mux)), closeStreams: closeStreams, metrics: metricsHandler}
}

// graphQLFirst sends a request for /graphql, nearly every request, to
// its handler before the mux's pattern match (which makes a slice per
// request), where the mux would send it; anything else goes to the mux.
func graphQLFirst(graphql, mux http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/graphql" {
			graphql.ServeHTTP(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// limitBody refuses bodies over max: with 413 before anything is read
// when Content-Length says so, and by cutting the read short (a decode
// error) for a chunked body that grows past it. The body is read once, by
// the transport.
func limitBody(max int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Method == http.MethodGet || r.Method == http.MethodOptions {
			next.ServeHTTP(w, r)
			return
		}
		if r.ContentLength > max {
			writeHTTPError(w, http.StatusRequestEntityTooLarge, fault.Invalid, "request body is larger than the limit")
			return
		}
		if r.ContentLength < 0 {
			// Of unknown length: read up to the limit and no further. A
			// body of known length (net/http reads no more of it than
			// that) is within the limit already.
			r.Body = http.MaxBytesReader(w, r.Body, max)
		}
		next.ServeHTTP(w, r)
	})
}

// readiness answers 200 when every dependency answers, 503 naming the
// failing ones otherwise.
func readiness(checks []Check) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
		defer cancel()
		status := http.StatusOK
		results := map[string]string{}
		for _, c := range checks {
			if err := c.Ping(ctx); err != nil {
				status = http.StatusServiceUnavailable
				results[c.Name] = "unavailable"
				continue
			}
			results[c.Name] = "ok"
		}
		overall := "ok"
		if status != http.StatusOK {
			overall = "unavailable"
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]any{"status": overall, "checks": results})
	})
}

// siteCSP is the Content-Security-Policy of every response, the SPA's
// pages first: the SPA is one bundle served by this binary, so scripts,
// styles, fonts and API calls come from this origin only (connect-src
// 'self' covers the WebSocket to /graphql: CSP Level 3 matches ws: and
// wss: for 'self'); no inline script or style element, no eval, no
// plugin, no frame around it. data: and blob: images are the charts' and
// the stylesheet's icons. React and uPlot set styles through the CSSOM,
// which style-src does not govern. /graphiql replaces it with
// graphiqlCSP (its nonce). e2e/phone.test.mjs fails on any violation in
// any main page.
const siteCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; " +
	"font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; " +
	"form-action 'self'; frame-ancestors 'none'"

// The security headers' values, made once: every answer carries them, and
// Header.Set would make a slice per header per request. net/http only
// reads them.
var (
	siteCSPValue    = []string{siteCSP}
	nosniffValue    = []string{"nosniff"}
	sameOriginValue = []string{"same-origin"}
	denyValue       = []string{"DENY"}
)

func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		// Canonical keys, as Set would make them.
		h["Content-Security-Policy"] = siteCSPValue
		h["X-Content-Type-Options"] = nosniffValue
		h["Referrer-Policy"] = sameOriginValue
		h["X-Frame-Options"] = denyValue
		next.ServeHTTP(w, r)
	})
}

// okForJSON follows the GraphQL-over-HTTP spec where gqlgen does not: a
// well-formed request answered as application/json gets 200 even when the
// document fails to parse or validate (the errors are in the body); with
// application/graphql-response+json the 4xx codes stand.
func okForJSON(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if headerValue(r.Header, "Upgrade") != "" {
			next.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(&jsonStatusWriter{ResponseWriter: w}, r)
	})
}

type jsonStatusWriter struct {
	http.ResponseWriter
	wrote bool
}

func (j *jsonStatusWriter) WriteHeader(code int) {
	if !j.wrote && code == http.StatusUnprocessableEntity &&
		strings.HasPrefix(j.Header().Get("Content-Type"), "application/json") {
		code = http.StatusOK
	}
	j.wrote = true
	j.ResponseWriter.WriteHeader(code)
}

func (j *jsonStatusWriter) Write(b []byte) (int, error) {
	j.wrote = true
	return j.ResponseWriter.Write(b)
}

func (j *jsonStatusWriter) Unwrap() http.ResponseWriter { return j.ResponseWriter }
