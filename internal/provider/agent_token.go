package provider

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/validate"
	"github.com/gpunex/gpunex/models"
)

// Limits on agent tokens.
const (
	// MaxAgentTokenName bounds a token's name, in characters.
	MaxAgentTokenName = 64
	// MaxActiveAgentTokens bounds a provider's live tokens.
	MaxActiveAgentTokens = 50
)

// LastUseInterval is how often, at most, a token's last use is written:
// once per token per replica per interval, by the first request that comes
// an interval or more after the last write. An agent heartbeats every few
// seconds, so this is one write a minute instead of one per heartbeat, and
// the "last used" a provider reads is never more than an interval older
// than the token's latest request.
const LastUseInterval = time.Minute

// NewAgentToken is a token just made: the secret is shown once.
type NewAgentToken struct {
	Token          *models.AgentToken
	Secret         string
	InstallCommand string
}

// CreateAgentToken makes an agent token for p named name (trimmed, 1 to
// MaxAgentTokenName characters) and returns it with its secret
// (auth.NewAgentSecret), which is never stored or shown again. The name
// must not be one of p's active tokens' (ignoring case: "Rack-01" and
// "rack-01" are the same host to a reader), or a TAKEN problem names the
// field; a revoked token's name may be used again. The database's unique
// index decides between two concurrent creations of one name. A provider
// holds at most MaxActiveAgentTokens active tokens (TOO_MANY).
func (s *Service) CreateAgentToken(ctx context.Context, p *models.Provider, name string) (*NewAgentToken, error) {
	name = strings.TrimSpace(name)
	var v fault.Validation
	validate.Text{Required: true, MaxRunes: MaxAgentTokenName}.Check(&v, validate.At("name"), name)
	if err := v.Err(); err != nil {
		return nil, err
	}
	var active []string
	if err := s.deps.DB.NewSelect().Model((*models.AgentToken)(nil)).Column("name").
		Where("provider_id = ? AND revoked_at IS NULL", p.ID).Scan(ctx, &active); err != nil {
		return nil, fmt.Errorf("provider: unable to list agent token names: %w", err)
	}
	for _, other := range active {
		if strings.EqualFold(other, name) {
			return nil, nameTaken(other)
		}
	}
	if len(active) >= MaxActiveAgentTokens {
		v.Add("name", fault.TooMany, fmt.Sprintf("a provider may hold at most %d active tokens; revoke one first", MaxActiveAgentTokens))
		return nil, &v
	}
	secret := auth.NewAgentSecret()
	tok := &models.AgentToken{
		ProviderID: p.ID, Name: name, Prefix: secret.Prefix, TokenHash: secret.Hash, CreatedAt: s.deps.Clock.Now(),
	}
	_, err := s.deps.DB.NewInsert().Model(tok).Returning("id").Exec(ctx)
	if s.deps.DB.IsUniqueViolation(err) {
		return nil, nameTaken(name)
	}
	if err != nil {
		return nil, fmt.Errorf("provider: unable to create agent token: %w", err)
	}
	s.deps.Logger.InfoContext(ctx, "provider: agent token created", "provider_id", p.ID, "token_id", tok.ID, "prefix", tok.Prefix)
	return &NewAgentToken{Token: tok, Secret: secret.Secret, InstallCommand: s.InstallCommand()}, nil
}

func nameTaken(name string) error {
	var v fault.Validation
	v.Add("name", fault.Taken, fmt.Sprintf("an active token is already named %q: choose another name, or revoke that token first", name))
	return &v
}

// AgentTokens lists p's agent tokens, newest first, each with the number
// of machines whose latest registration used it.
func (s *Service) AgentTokens(ctx context.Context, p *models.Provider) ([]*models.AgentToken, error) {
	var out []*models.AgentToken
	if err := s.tokensWithCounts(&out).Where("at.provider_id = ?", p.ID).OrderExpr("at.id DESC").Scan(ctx); err != nil {
		return nil, fmt.Errorf("provider: unable to list agent tokens: %w", err)
	}
	return out, nil
}

// RevokeAgentToken revokes p's token tokenID at once: the revocation is
// stored, then auth stops the token authenticating on every replica
// (auth.Service.AgentTokenRevoked). Revoking a revoked token is not an
// error; another provider's token is NOT_FOUND. The machines that
// registered with it stay counted: they are still there, and stop
// heartbeating.
func (s *Service) RevokeAgentToken(ctx context.Context, p *models.Provider, tokenID int64) (*models.AgentToken, error) {
	tok := new(models.AgentToken)
	err := s.deps.DB.NewSelect().Model(tok).Where("id = ? AND provider_id = ?", tokenID, p.ID).Scan(ctx)
	if store.IsNoRows(err) {
		return nil, fault.E(fault.NotFound, "no such agent token")
	}
	if err != nil {
		return nil, fmt.Errorf("provider: unable to load agent token: %w", err)
	}
	if tok.RevokedAt == nil {
		if _, err := s.deps.DB.NewUpdate().Model((*models.AgentToken)(nil)).Set("revoked_at = ?", s.deps.Clock.Now()).
			Where("id = ? AND revoked_at IS NULL", tok.ID).Exec(ctx); err != nil {
			return nil, fmt.Errorf("provider: unable to revoke agent token: %w", err)
		}
		s.deps.Auth.AgentTokenRevoked(ctx, tok.TokenHash)
		s.deps.Logger.InfoContext(ctx, "provider: agent token revoked", "provider_id", p.ID, "token_id", tok.ID)
	}
	out := new(models.AgentToken)
	if err := s.tokensWithCounts(out).Where("at.id = ?", tok.ID).Scan(ctx); err != nil {
		return nil, fmt.Errorf("provider: unable to load agent token: %w", err)
	}
	return out, nil
}

// tokensWithCounts selects agent tokens (alias at) into model with their
// machine_count.
func (s *Service) tokensWithCounts(model any) *bun.SelectQuery {
	return s.deps.DB.NewSelect().Model(model).ColumnExpr("at.*").
		ColumnExpr("(SELECT COUNT(*) FROM machines AS m WHERE m.agent_token_id = at.id AND m.provider_id = at.provider_id) AS machine_count")
}

// lastUse writes agent tokens' last use at most once per LastUseInterval
// per token (see LastUseInterval). What it remembers is per replica: with
// N replicas a token is written at most N times an interval.
type lastUse struct {
	db     *store.DB
	logger *slog.Logger

	mu      sync.Mutex
	written map[int64]time.Time // token id -> the use last written
}

func newLastUse(db *store.DB, logger *slog.Logger) *lastUse {
	return &lastUse{db: db, logger: logger, written: map[int64]time.Time{}}
}

// record notes a's use at at, writing it when the last write of a's token
// is an interval old or more. The write never moves last_used_at back (a
// replica that wrote earlier may race one that wrote later).
func (u *lastUse) record(ctx context.Context, a *auth.Agent, at time.Time) {
	u.mu.Lock()
	if last, ok := u.written[a.TokenID]; ok && at.Sub(last) < LastUseInterval {
		u.mu.Unlock()
		return
	}
	u.written[a.TokenID] = at
	u.mu.Unlock()
	if _, err := u.db.NewUpdate().Model((*models.AgentToken)(nil)).Set("last_used_at = ?", at).
		Where("id = ? AND (last_used_at IS NULL OR last_used_at < ?)", a.TokenID, at).Exec(ctx); err != nil {
		u.logger.WarnContext(ctx, "provider: unable to record agent token use", "token_id", a.TokenID, "err", err)
		u.mu.Lock()
		if u.written[a.TokenID].Equal(at) {
			delete(u.written, a.TokenID) // the next use tries again
		}
		u.mu.Unlock()
	}
}
