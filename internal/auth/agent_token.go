package auth

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// AgentTokenPrefix starts every agent token ("a" for agent), so it is told
// apart from a session token at a glance and by the server.
const AgentTokenPrefix = "gpx_a_"

const (
	// agentCacheTTL bounds how long a replica trusts a token it checked
	// without reading the database again. Revocations evict at once, on
	// every replica, through the event bus; the TTL covers a lost event.
	agentCacheTTL           = 30 * time.Second
	agentTokenDisplayLength = len(AgentTokenPrefix) + 6
)

// Agent is the identity of a request made with an agent token.
type Agent struct {
	TokenID    int64
	ProviderID int64
}

type agentKey struct{}

// WithAgent returns ctx carrying a.
func WithAgent(ctx context.Context, a *Agent) context.Context {
	return context.WithValue(ctx, agentKey{}, a)
}

// AgentFrom returns the agent of ctx, or nil.
func AgentFrom(ctx context.Context) *Agent {
	a, _ := ctx.Value(agentKey{}).(*Agent)
	return a
}

// RequireAgent returns the agent of ctx, or UNAUTHENTICATED.
func RequireAgent(ctx context.Context) (*Agent, error) {
	if a := AgentFrom(ctx); a != nil {
		return a, nil
	}
	return nil, fault.E(fault.Unauthenticated, "this needs an agent token")
}

// IsAgentToken reports whether token has the agent-token prefix.
func IsAgentToken(token string) bool { return strings.HasPrefix(token, AgentTokenPrefix) }

// AgentSecret is a new agent token: the secret the agent sends, which is
// never stored or shown again, and what is stored of it.
type AgentSecret struct {
	// Secret is the whole token, AgentTokenPrefix first.
	Secret string
	// Prefix is the secret's first characters, kept so a provider can
	// tell its tokens apart.
	Prefix string
	// Hash is HashToken(Secret), the key AuthenticateAgent looks it up by.
	Hash string
}

// NewAgentSecret makes the secret of a new agent token. Package provider
// owns the tokens (which provider may hold which, their names, creating
// and revoking them); this package owns what makes one a credential: its
// form, its hash and authenticating a request with it.
func NewAgentSecret() AgentSecret {
	secret := newToken(AgentTokenPrefix)
	return AgentSecret{Secret: secret, Prefix: secret[:agentTokenDisplayLength], Hash: HashToken(secret)}
}

// AgentTokenRevoked stops the token whose hash is tokenHash from
// authenticating, once its revocation is stored: it drops the token from
// this replica's cache at once and announces the revocation on the bus,
// so every other replica drops it too and closes what it opened
// (ListenForRevocations, ListenForAgentTokenRevocations). A lost
// announcement is covered by the cache's 30 s bound.
func (s *Service) AgentTokenRevoked(ctx context.Context, tokenHash string) {
	s.agentCache.Delete(tokenHash)
	if s.deps.Bus == nil {
		return
	}
	if err := s.deps.Bus.Publish(ctx, revokedChannel, []byte(tokenHash)); err != nil {
		s.deps.Logger.WarnContext(ctx, "auth: unable to announce revocation; other replicas drop the token within 30s", "err", err)
	}
}

// AuthenticateAgent resolves an agent token for a request the agent made,
// and reports that use to the OnAgentUse functions. Unknown, malformed and
// revoked tokens are UNAUTHENTICATED. A checked token is remembered for a
// short while so steady heartbeats read no SQL; revoking evicts it at once
// here and, through the bus, on every other replica.
func (s *Service) AuthenticateAgent(ctx context.Context, token string) (*Agent, error) {
	now := s.deps.Clock.Now()
	agent, err := s.agentOf(ctx, token, now)
	if err != nil {
		return nil, err
	}
	s.agentUse(ctx, agent, now)
	return agent, nil
}

// CheckAgentToken is AuthenticateAgent for the server's own checks, which
// are not the agent's use of its token: it resolves the token the same way
// (UNAUTHENTICATED once revoked) but tells no OnAgentUse function, so a
// connection's periodic re-check of a silent agent's token leaves the
// token's last use where the agent's last request put it.
func (s *Service) CheckAgentToken(ctx context.Context, token string) (*Agent, error) {
	return s.agentOf(ctx, token, s.deps.Clock.Now())
}

// agentOf resolves token at now, from the cache or the database.
func (s *Service) agentOf(ctx context.Context, token string, now time.Time) (*Agent, error) {
	if !looksLikeToken(AgentTokenPrefix, token) {
		return nil, fault.E(fault.Unauthenticated, "the agent token is not valid")
	}
	hash := HashToken(token)
	if v, ok := s.agentCache.Load(hash); ok {
		c := v.(cachedAgent)
		if now.Before(c.until) {
			return c.agent, nil
		}
		s.agentCache.Delete(hash)
	}
	tok := new(models.AgentToken)
	err := s.deps.DB.NewSelect().Model(tok).Where("token_hash = ?", hash).Scan(ctx)
	if store.IsNoRows(err) {
		return nil, fault.E(fault.Unauthenticated, "the agent token is not valid")
	}
	if err != nil {
		return nil, fmt.Errorf("auth: unable to look up agent token: %w", err)
	}
	if tok.RevokedAt != nil {
		return nil, fault.E(fault.Unauthenticated, "the agent token was revoked")
	}
	agent := &Agent{TokenID: tok.ID, ProviderID: tok.ProviderID}
	s.agentCache.Store(hash, cachedAgent{agent: agent, until: now.Add(agentCacheTTL)})
	return agent, nil
}

// OnAgentUse adds fn to the functions told of every request an agent
// token authenticates (AuthenticateAgent, from the cache or not; never
// CheckAgentToken), with the time of the request, in the order added. The
// token's last use is recorded this way (internal/provider), not here: fn
// runs on the request's goroutine, heartbeats included, so it must be
// quick and must not write a row per call. Call it while assembling the
// platform, before serving.
func (s *Service) OnAgentUse(fn func(ctx context.Context, a *Agent, at time.Time)) {
	s.agentUsed = append(s.agentUsed, fn)
}

func (s *Service) agentUse(ctx context.Context, a *Agent, at time.Time) {
	for _, fn := range s.agentUsed {
		fn(ctx, a, at)
	}
}

type cachedAgent struct {
	agent *Agent
	until time.Time
}

// revokedChannel carries the hashes of revoked agent tokens to every
// replica's cache.
const revokedChannel = "auth.agent-token-revoked"

// ListenForRevocations evicts from this replica's caches what other
// replicas revoked or changed, until ctx ends: agent tokens revoked,
// sessions ended, users changed (UserChanged). After a gap in the
// agent tokens' subscription their cache is dropped whole, since a
// revocation may have been missed; the sessions' cache is kept (see
// listenForViewerChanges).
func (s *Service) ListenForRevocations(ctx context.Context) {
	if s.deps.Bus == nil {
		return
	}
	var wg sync.WaitGroup
	wg.Go(func() { s.listenForViewerChanges(ctx) })
	bus.Listen(ctx, s.deps.Bus, revokedChannel, s.deps.Logger, s.agentCache.Clear, func(m bus.Message) {
		s.agentCache.Delete(string(m.Payload))
	})
	wg.Wait()
}

// ListenForAgentTokenRevocations calls revoked with the hash (HashToken)
// of every agent token revoked on any replica, until ctx ends, so the
// caller can end what the token opened (its WebSockets). After a gap in
// the subscription resync runs, since a revocation may have been missed.
// Without a bus it returns at once.
func (s *Service) ListenForAgentTokenRevocations(ctx context.Context, revoked func(tokenHash string), resync func()) {
	if s.deps.Bus == nil {
		return
	}
	bus.Listen(ctx, s.deps.Bus, revokedChannel, s.deps.Logger, resync, func(m bus.Message) {
		revoked(string(m.Payload))
	})
}
