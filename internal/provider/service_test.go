package provider_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/auth/authtest"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/provider"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// bundle is what a provider test works with.
type bundle struct {
	ctx       context.Context
	db        *store.DB
	auth      *auth.Service
	providers *provider.Service
	clock     *clock.Manual
}

func setup(t *testing.T, db *store.DB) *bundle {
	t.Helper()
	clk := clock.NewManual(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	logger := slog.New(slog.DiscardHandler)
	a := auth.New(auth.Deps{DB: db, Clock: clk, Logger: logger}, auth.Config{PasswordParams: authtest.Params})
	return &bundle{ctx: t.Context(), db: db, auth: a, clock: clk, providers: provider.New(provider.Deps{DB: db, Auth: a, Clock: clk, Logger: logger},
		provider.Config{InstallCommand: func() string { return "curl -fsSL https://gpunex.example/agent/install.sh | sudo sh" }})}
}

// approved signs up email and creates the provider its approved
// application makes, as onboarding's approval does.
func (b *bundle) approved(t *testing.T, email string, company *string, tier models.ProviderTier) (*models.User, *models.Provider) {
	t.Helper()
	u, _, err := b.auth.SignUp(b.ctx, auth.SignUpInput{Email: email, Password: "correct horse battery", Name: "Ada Lovelace"}, models.SessionBearer)
	require.NoError(t, err)
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	app := &models.ProviderApplication{UserID: u.ID, Status: models.ApplicationApproved, FullName: "Ada Lovelace", Email: email,
		Company: company, UpsProtected: true, CommitmentMonths: 12, SuggestionTier: tier, SuggestionReasons: []string{},
		Tier: &tier, SubmittedAt: now, UpdatedAt: now}
	var p *models.Provider
	require.NoError(t, b.db.InTx(b.ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewInsert().Model(app).Returning("id").Exec(ctx); err != nil {
			return err
		}
		p, err = b.providers.Create(ctx, tx, app)
		return err
	}))
	return u, p
}

func TestApprovalCreatesTheProviderNamedAfterTheCompanyWithTheRole(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		company := "Lisbon GPU Works"
		u, p := b.approved(t, "ada@example.com", &company, models.TierEnterprise)
		require.Equal(t, "Lisbon GPU Works", p.Name)
		require.Equal(t, models.TierEnterprise, p.Tier)
		require.Equal(t, time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), p.CreatedAt.UTC(), "created at the instant of the approval")

		got, err := b.providers.ForUser(b.ctx, u.ID)
		require.NoError(t, err)
		require.Equal(t, p.ID, got.ID)
		again, err := b.providers.OfApplication(b.ctx, p.ApplicationID)
		require.NoError(t, err)
		require.Equal(t, p.ID, again.ID)
		roles, err := b.auth.Roles(b.ctx, u.ID)
		require.NoError(t, err)
		require.Contains(t, roles, models.RoleProvider)

		_, individual := b.approved(t, "grace@example.com", nil, models.TierCommunity)
		require.Equal(t, "Ada Lovelace", individual.Name, "without a company, the applicant's name")
	})
}

func TestOnlyApprovedProvidersAreProviders(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		u, _, err := b.auth.SignUp(b.ctx, auth.SignUpInput{Email: "eve@example.com", Password: "correct horse battery", Name: "Eve"}, models.SessionBearer)
		require.NoError(t, err)
		p, err := b.providers.ForUser(b.ctx, u.ID)
		require.NoError(t, err)
		require.Nil(t, p)
		_, err = b.providers.Require(b.ctx, &auth.Viewer{User: u, Roles: u.Roles})
		require.Equal(t, fault.Forbidden, fault.CodeOf(err))
	})
}

func TestAProviderManagesOnlyItsOwnAgentTokens(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		_, mine := b.approved(t, "ada@example.com", nil, models.TierCommunity)
		_, theirs := b.approved(t, "grace@example.com", nil, models.TierCommunity)

		made, err := b.providers.CreateAgentToken(b.ctx, mine, "rack-01")
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(made.Secret, auth.AgentTokenPrefix))
		require.Equal(t, "curl -fsSL https://gpunex.example/agent/install.sh | sudo sh", made.InstallCommand)
		require.NotContains(t, made.InstallCommand, made.Secret, "the token is never on a command line")

		_, err = b.providers.RevokeAgentToken(b.ctx, theirs, made.Token.ID)
		require.Equal(t, fault.NotFound, fault.CodeOf(err), "another provider's token is not found")
		list, err := b.providers.AgentTokens(b.ctx, theirs)
		require.NoError(t, err)
		require.Empty(t, list)

		revoked, err := b.providers.RevokeAgentToken(b.ctx, mine, made.Token.ID)
		require.NoError(t, err)
		require.NotNil(t, revoked.RevokedAt)
		_, err = b.auth.AuthenticateAgent(b.ctx, made.Secret)
		require.Equal(t, fault.Unauthenticated, fault.CodeOf(err), "a revoked token authenticates nothing")

		_, err = b.providers.CreateAgentToken(b.ctx, mine, " ")
		v, ok := fault.AsValidation(err)
		require.True(t, ok)
		require.Equal(t, "name", v.Problems[0].Field)
	})
}
