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
	"github.com/gpunex/gpunex/models"
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

// CreateAgentToken makes an agent token for p named name (trimmed). The
// name must not be one of p's active tokens' (ignoring case: "Rack-01" and
// "rack-01" are the same host to a reader), or a TAKEN problem names the
// field; a revoked token's name may be used again. The database's unique
// index decides between two concurrent creations of one name.
func (s *Service) CreateAgentToken(ctx context.Context, p *models.Provider, name string) (*NewAgentToken, error) {
	name = strings.TrimSpace(name)
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
	tok, secret, err := s.deps.Auth.CreateAgentToken(ctx, p.ID, name)
	if s.deps.DB.IsUniqueViolation(err) {
		return nil, nameTaken(name)
	}
	if err != nil {
		return nil, err
	}
	return &NewAgentToken{Token: tok, Secret: secret, InstallCommand: s.InstallCommand()}, nil
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

// RevokeAgentToken revokes p's token tokenID at once; another provider's
// token is NOT_FOUND. The machines that registered with it stay counted:
// they are still there, and stop heartbeating.
func (s *Service) RevokeAgentToken(ctx context.Context, p *models.Provider, tokenID int64) (*models.AgentToken, error) {
	if _, err := s.deps.Auth.RevokeAgentToken(ctx, p.ID, tokenID); err != nil {
		return nil, err
	}
	tok := new(models.AgentToken)
	if err := s.tokensWithCounts(tok).Where("at.id = ?", tokenID).Scan(ctx); err != nil {
		return nil, fmt.Errorf("provider: unable to load agent token: %w", err)
	}
	return tok, nil
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
