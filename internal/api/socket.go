package api

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/fault"
)

// closeTooManySockets closes a WebSocket whose owner already holds
// WSMaxPerUser sockets. It is the protocol's "too many" code (4429, also
// sent for a second connection_init, told apart by the reason): the SPA's
// client (graphql-ws) treats it as fatal and does not reconnect, so a user
// at the cap adds no reconnect load; a retried code (4403, 1013) would
// make each refused tab knock again and again.
const closeTooManySockets = closeTooManyInitRequests

// socketLimits are the caps on WebSockets, defaults filled (see Config);
// a negative cap is no cap.
type socketLimits struct {
	subscriptions int
	perUser       int
	perAddress    int
	recheck       time.Duration
}

func within(n, limit int) bool { return limit < 0 || n < limit }

// sockets is this replica's registry of open WebSockets. It counts them
// per client address (refused at the upgrade) and per owner (refused at
// connection_init), and indexes them by the session or agent token that
// authenticated them, so the end of either, announced on the bus by any
// replica, closes them here with 4403. Each socket also checks its
// identity when the session would expire, at least every
// limits.recheck, and before every operation it runs.
//
// The bus listeners run while the replica holds at least one WebSocket,
// and stop with the last one or when ctx (the server's streams; see
// Server.CloseStreams) ends: a server that serves no socket runs no
// goroutine for them, and a listener (re)started for a new socket checks
// every socket registered meanwhile (its resync) once subscribed.
type sockets struct {
	auth    *auth.Service
	logger  *slog.Logger
	metrics *metrics
	limits  socketLimits
	proxies proxyPolicy
	ctx     context.Context

	mu sync.Mutex
	// open counts the sockets admitted; stopListening ends the listeners
	// started when it rose from zero.
	open          int
	stopListening context.CancelFunc
	byAddress     map[string]int
	byOwner       map[string]int
	bySession     map[int64]map[*socket]struct{}
	byAgent       map[string]map[*socket]struct{}
}

// socket is one open WebSocket as the registry knows it. Its fields other
// than active are guarded by the registry's mutex.
type socket struct {
	address string
	conn    *gorillaConn
	// owner is "user:<id>" or "provider:<id>" once identified.
	owner      string
	sessionID  int64
	agentToken string
	agentHash  string
	timer      *time.Timer
	released   bool
	// active counts the operations running on the socket; slots holds
	// the operation contexts that took one and were not dispatched yet.
	active atomic.Int64
	slots  slots
}

// slots are the operation contexts of a socket that took a slot and were
// not dispatched yet: at most a few at a time, so a short list (nil when
// empty) costs an idle socket nothing, where a sync.Map kept a kilobyte.
type slots struct {
	mu   sync.Mutex
	list []*graphql.OperationContext
}

func (sl *slots) store(oc *graphql.OperationContext) {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	sl.list = append(sl.list, oc)
}

// take removes oc and reports whether it was there.
func (sl *slots) take(oc *graphql.OperationContext) bool {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	i := slices.Index(sl.list, oc)
	if i < 0 {
		return false
	}
	sl.list = slices.Delete(sl.list, i, i+1)
	if len(sl.list) == 0 {
		sl.list = nil
	}
	return true
}

func newSockets(a *auth.Service, logger *slog.Logger, m *metrics, limits socketLimits, proxies proxyPolicy, ctx context.Context) *sockets {
	return &sockets{
		auth: a, logger: logger, metrics: m, limits: limits, proxies: proxies, ctx: ctx,
		byAddress: map[string]int{}, byOwner: map[string]int{},
		bySession: map[int64]map[*socket]struct{}{}, byAgent: map[string]map[*socket]struct{}{},
	}
}

type socketKey struct{}

func withSocket(ctx context.Context, s *socket) context.Context {
	return context.WithValue(ctx, socketKey{}, s)
}

// socketFrom returns the WebSocket a request or operation runs on, or nil
// for plain HTTP.
func socketFrom(ctx context.Context) *socket {
	s, _ := ctx.Value(socketKey{}).(*socket)
	return s
}

// addressKey is what the per-address cap counts by: the address, or for
// IPv6 its /64, which one host or household holds whole.
func addressKey(addr string) string {
	a, err := netip.ParseAddr(addr)
	if err != nil || !a.Is6() {
		return addr
	}
	p, _ := a.Prefix(64)
	return p.String()
}

// admit counts a WebSocket upgrade against its client address, refusing
// it with 429 before upgrading when the address is at its cap, and
// releases everything the socket held when the connection ends (the
// transport serves a socket until it closes).
func (r *sockets) admit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if headerValue(req.Header, "Upgrade") == "" {
			next.ServeHTTP(w, req)
			return
		}
		s := &socket{address: addressKey(r.proxies.clientAddr(req))}
		r.mu.Lock()
		ok := within(r.byAddress[s.address], r.limits.perAddress)
		if ok {
			r.byAddress[s.address]++
			r.open++
			if r.open == 1 {
				r.startListening()
			}
		}
		r.mu.Unlock()
		if !ok {
			r.metrics.websocketsRefused.WithLabelValues("address").Inc()
			w.Header().Set("Retry-After", "10")
			writeHTTPError(w, http.StatusTooManyRequests, fault.RateLimited, "too many WebSockets from this address")
			return
		}
		if end := socketEndFrom(req.Context()); end != nil {
			end.add(func() { r.release(s) }) // when the socket ends (streams)
		} else {
			defer r.release(s)
		}
		next.ServeHTTP(w, req.WithContext(withSocket(req.Context(), s)))
	})
}

// attach records the connection of s once upgraded.
func (r *sockets) attach(s *socket, c *gorillaConn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s.conn = c
}

// initialized hands the socket's connection the context of its
// operations, once connection_init was accepted.
func (r *sockets) initialized(s *socket, ctx context.Context) {
	r.mu.Lock()
	c := s.conn
	r.mu.Unlock()
	if c != nil {
		c.initialized(ctx)
	}
}

// errTooManySockets refuses a socket's identification over the owner cap.
var errTooManySockets = errors.New("too many WebSockets for this account; close another tab or window")

// identify records who a socket belongs to once connection_init is
// accepted (ctx holds the viewer or agent; token is the bearer token of
// connection_init, if any): it counts the socket against its owner,
// refusing it over the cap, indexes it by session or agent token, and
// schedules the check at the session's expiry. A socket without identity
// counts against its address only.
func (r *sockets) identify(ctx context.Context, token string) error {
	s := socketFrom(ctx)
	if s == nil {
		return nil
	}
	var owner, hash string
	var session int64
	switch v, a := auth.ViewerFrom(ctx), auth.AgentFrom(ctx); {
	case v != nil:
		owner, session = "user:"+strconv.FormatInt(v.User.ID, 10), v.SessionID
	case a != nil:
		owner, hash = "provider:"+strconv.FormatInt(a.ProviderID, 10), auth.HashToken(token)
	default:
		return nil
	}
	r.mu.Lock()
	if s.released || s.owner != "" {
		r.mu.Unlock()
		return nil
	}
	if !within(r.byOwner[owner], r.limits.perUser) {
		r.mu.Unlock()
		r.metrics.websocketsRefused.WithLabelValues("user").Inc()
		return errTooManySockets
	}
	r.byOwner[owner]++
	s.owner, s.sessionID, s.agentHash = owner, session, hash
	if session != 0 {
		add(r.bySession, session, s)
	}
	if hash != "" {
		s.agentToken = token
		add(r.byAgent, hash, s)
	}
	r.mu.Unlock()
	if session != 0 {
		// The first check learns when the session expires.
		go r.check(s)
	} else if hash != "" {
		r.schedule(s, r.limits.recheck)
	}
	return nil
}

func add[K comparable](index map[K]map[*socket]struct{}, k K, s *socket) {
	set := index[k]
	if set == nil {
		set = map[*socket]struct{}{}
		index[k] = set
	}
	set[s] = struct{}{}
}

func remove[K comparable](index map[K]map[*socket]struct{}, k K, s *socket) {
	if set := index[k]; set != nil {
		delete(set, s)
		if len(set) == 0 {
			delete(index, k)
		}
	}
}

func decrement[K comparable](counts map[K]int, k K) {
	if counts[k] <= 1 {
		delete(counts, k)
		return
	}
	counts[k]--
}

// release gives back everything s held; it runs once, when the
// connection's handler returns.
func (r *sockets) release(s *socket) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s.released {
		return
	}
	s.released = true
	decrement(r.byAddress, s.address)
	r.open--
	if r.open == 0 && r.stopListening != nil {
		r.stopListening()
		r.stopListening = nil
	}
	if s.owner != "" {
		decrement(r.byOwner, s.owner)
	}
	if s.sessionID != 0 {
		remove(r.bySession, s.sessionID, s)
	}
	if s.agentHash != "" {
		remove(r.byAgent, s.agentHash, s)
	}
	if s.timer != nil {
		s.timer.Stop()
	}
}

// startListening starts the listeners for ended sessions and revoked
// agent tokens announced by any replica; r.mu is held.
func (r *sockets) startListening() {
	if r.auth == nil || r.ctx.Err() != nil {
		return
	}
	ctx, cancel := context.WithCancel(r.ctx)
	r.stopListening = cancel
	go r.auth.ListenForSessionEnds(ctx, r.sessionEnded, r.resync)
	go r.auth.ListenForAgentTokenRevocations(ctx, r.agentRevoked, r.resync)
}

func (r *sockets) sessionEnded(id int64) { forbidAll(r, r.bySession, id) }

func (r *sockets) agentRevoked(hash string) { forbidAll(r, r.byAgent, hash) }

// forbidAll closes every socket index holds under k.
func forbidAll[K comparable](r *sockets, index map[K]map[*socket]struct{}, k K) {
	r.mu.Lock()
	list := members(index[k])
	r.mu.Unlock()
	for _, s := range list {
		go r.forbid(s)
	}
}

func members(set map[*socket]struct{}) []*socket {
	out := make([]*socket, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	return out
}

// resync checks every identified socket after a gap in the bus
// subscription, in which an announcement may have been missed.
func (r *sockets) resync() {
	r.mu.Lock()
	var list []*socket
	for _, set := range r.bySession {
		list = append(list, members(set)...)
	}
	for _, set := range r.byAgent {
		list = append(list, members(set)...)
	}
	r.mu.Unlock()
	if len(list) == 0 {
		return
	}
	go func() {
		for _, s := range list {
			r.check(s)
		}
	}()
}

// forbid closes s because its identity ended: 4403, as the
// graphql-transport-ws protocol closes a socket that may no longer
// proceed. The transport then cancels its operations.
func (r *sockets) forbid(s *socket) {
	r.mu.Lock()
	c := s.conn
	r.mu.Unlock()
	if c == nil {
		return
	}
	r.metrics.websocketsEnded.Inc()
	_ = c.WriteClose(closeForbidden, "Forbidden")
	_ = c.Close()
}

// alive reports whether the identity of s still holds and, for a session,
// how long it has left.
func (r *sockets) alive(ctx context.Context, s *socket) (ok bool, left time.Duration, err error) {
	r.mu.Lock()
	session, token := s.sessionID, s.agentToken
	r.mu.Unlock()
	switch {
	case r.auth == nil:
		return true, r.limits.recheck, nil
	case session != 0:
		left, ok, err := r.auth.SessionTimeLeft(ctx, session)
		return ok, left, err
	case token != "":
		_, err := r.auth.CheckAgentToken(ctx, token)
		if fault.CodeOf(err) == fault.Unauthenticated {
			return false, 0, nil
		}
		return err == nil, r.limits.recheck, err
	}
	return true, r.limits.recheck, nil
}

// check closes s if its identity ended, or schedules the next check at
// its expiry (a session's use slides it forward), at most recheck away.
// A failure to check is logged and tried again later; it never closes
// the socket.
func (r *sockets) check(s *socket) {
	ctx, cancel := context.WithTimeout(r.ctx, 5*time.Second)
	defer cancel()
	ok, left, err := r.alive(ctx, s)
	switch {
	case err != nil:
		if r.ctx.Err() == nil {
			r.logger.WarnContext(ctx, "api: unable to check a WebSocket's session; trying again later", "err", err)
		}
		r.schedule(s, r.limits.recheck)
	case !ok:
		r.forbid(s)
	default:
		r.schedule(s, left)
	}
}

// schedule runs check on s after d, capped by recheck.
func (r *sockets) schedule(s *socket, d time.Duration) {
	if r.limits.recheck > 0 && d > r.limits.recheck {
		d = r.limits.recheck
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if s.released || r.ctx.Err() != nil {
		return
	}
	if s.timer != nil {
		s.timer.Stop()
	}
	s.timer = time.AfterFunc(max(d, 0), func() { r.check(s) })
}

// socketGuard runs before every operation on a WebSocket (every subscribe
// message, queries and mutations included), in the socket's read loop,
// before gqlgen starts a goroutine for it. It caps the operations running
// at once on the socket: one more is answered RATE_LIMITED and the socket
// stays open. Then it checks that the socket's session or agent token
// still holds (one query): when it has ended the operation is answered
// UNAUTHENTICATED and the socket closes with 4403 as soon as the transport
// has written the answer. Being in the read loop, a socket checks one
// operation at a time, so a flood of subscribes queues on its own
// connection (a client that does not read its answers stops being read),
// not on the database or in goroutines, and one over the cap costs no
// query. HTTP requests pass untouched.
//
// The slot an operation takes is given back exactly once: when the
// transport cancels the context of a dispatched operation (its stream
// ended, the client completed it, or the socket closed), or, when a later
// context mutator refused the operation, as gqlgen presents that error
// (the only response of an operation never dispatched).
type socketGuard struct {
	sockets *sockets
}

var (
	_ graphql.HandlerExtension        = socketGuard{}
	_ graphql.OperationContextMutator = socketGuard{}
	_ graphql.OperationInterceptor    = socketGuard{}
	_ graphql.ResponseInterceptor     = socketGuard{}
)

func (socketGuard) ExtensionName() string                   { return "SocketGuard" }
func (socketGuard) Validate(graphql.ExecutableSchema) error { return nil }

func (g socketGuard) MutateOperationContext(ctx context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	s := socketFrom(ctx)
	if s == nil {
		return nil
	}
	r := g.sockets
	// The cap first: a flood of subscribes over it costs no query.
	limit := r.limits.subscriptions
	if n := s.active.Add(1); !within(int(n-1), limit) {
		s.active.Add(-1)
		r.metrics.websocketsRefused.WithLabelValues("subscriptions").Inc()
		return coded(fault.RateLimited, gqlerror.Errorf(
			"at most %d operations may run at once on one WebSocket; complete one first", limit))
	}
	ok, _, err := r.alive(ctx, s)
	if err != nil {
		s.active.Add(-1)
		if fault.IsOutage(err) {
			r.logger.WarnContext(ctx, "api: unable to check a WebSocket's session: a dependency is out of reach", "err", err)
			return coded(fault.ServiceUnavailable, gqlerror.Errorf("%s", fault.OutageMessage))
		}
		logFailure(ctx, r.logger, err, "api: unable to check a WebSocket's session")
		return coded(fault.Internal, gqlerror.Errorf("internal error"))
	}
	if !ok {
		s.active.Add(-1)
		r.mu.Lock()
		c := s.conn
		r.mu.Unlock()
		if c != nil {
			c.forbidAtNextRead()
		}
		return coded(fault.Unauthenticated, gqlerror.Errorf("the session of this WebSocket has ended; sign in again"))
	}
	s.slots.store(oc)
	return nil
}

func (g socketGuard) InterceptOperation(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	if s := socketFrom(ctx); s != nil {
		if s.slots.take(graphql.GetOperationContext(ctx)) {
			whenOperationEnds(ctx, func() { s.active.Add(-1) })
		}
	}
	return next(ctx)
}

func (g socketGuard) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	if s := socketFrom(ctx); s != nil && graphql.HasOperationContext(ctx) {
		// A dispatched operation gave its slot to InterceptOperation
		// already; one still here was refused after it was taken.
		if s.slots.take(graphql.GetOperationContext(ctx)) {
			s.active.Add(-1)
		}
	}
	return next(ctx)
}
