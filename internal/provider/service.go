package provider

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// Deps are what the service uses.
type Deps struct {
	DB     *store.DB
	Auth   *auth.Service
	Clock  clock.Clock
	Logger *slog.Logger
}

// Config tunes the service.
type Config struct {
	// InstallCommand makes the one line that installs the agent (the
	// platform gives the installer's, which knows its path and the public
	// URL). It never holds a token: the installer asks for it.
	InstallCommand func() string
}

// Service is the provider service.
type Service struct {
	deps    Deps
	cfg     Config
	lastUse *lastUse
}

// New returns the provider service. It records the last use of agent
// tokens from then on (auth.Service.OnAgentUse; see LastUseInterval).
func New(deps Deps, cfg Config) *Service {
	if cfg.InstallCommand == nil {
		cfg.InstallCommand = func() string { return "" }
	}
	s := &Service{deps: deps, cfg: cfg, lastUse: newLastUse(deps.DB, deps.Logger)}
	if deps.Auth != nil {
		deps.Auth.OnAgentUse(s.lastUse.record)
	}
	return s
}

// Create makes the provider of an approved application, in the approval's
// transaction: named after the company (or the applicant), with the tier
// the admin set, created at the instant of the approval. The user gets
// the provider role.
func (s *Service) Create(ctx context.Context, tx bun.Tx, app *models.ProviderApplication) (*models.Provider, error) {
	if app.Tier == nil {
		return nil, fmt.Errorf("provider: application %d is approved without a tier", app.ID)
	}
	name := app.FullName
	if app.Company != nil {
		name = *app.Company
	}
	p := &models.Provider{UserID: app.UserID, ApplicationID: app.ID, Tier: *app.Tier, Name: name, CreatedAt: app.UpdatedAt}
	if _, err := tx.NewInsert().Model(p).Returning("id").Exec(ctx); err != nil {
		return nil, fmt.Errorf("provider: unable to create provider: %w", err)
	}
	if err := s.deps.Auth.GrantRole(ctx, tx, app.UserID, models.RoleProvider); err != nil {
		return nil, err
	}
	return p, nil
}

// OfApplication returns the provider that approving application
// applicationID created.
func (s *Service) OfApplication(ctx context.Context, applicationID int64) (*models.Provider, error) {
	p := new(models.Provider)
	if err := s.deps.DB.NewSelect().Model(p).Where("application_id = ?", applicationID).Scan(ctx); err != nil {
		return nil, fmt.Errorf("provider: unable to load the provider of application %d: %w", applicationID, err)
	}
	return p, nil
}

// ForUser returns userID's provider account, or nil when the user is not
// a provider.
func (s *Service) ForUser(ctx context.Context, userID int64) (*models.Provider, error) {
	p := new(models.Provider)
	err := s.deps.DB.NewSelect().Model(p).Where("user_id = ?", userID).Scan(ctx)
	if store.IsNoRows(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("provider: unable to load provider: %w", err)
	}
	return p, nil
}

// Require returns viewer's provider account, or FORBIDDEN.
func (s *Service) Require(ctx context.Context, viewer *auth.Viewer) (*models.Provider, error) {
	p, err := s.ForUser(ctx, viewer.User.ID)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, fault.E(fault.Forbidden, "only approved providers may do this")
	}
	return p, nil
}

// InstallCommand is the one line that installs the agent; the installer
// asks for the token (or reads it from a file), so no command line holds it.
func (s *Service) InstallCommand() string {
	return s.cfg.InstallCommand()
}
