package platformtest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/availability"
	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/onboarding"
	"github.com/gpunex/gpunex/models"
)

// Provider is an approved provider made for a test.
type Provider struct {
	ID int64
	// User is an API client signed in as the provider's user.
	User *Client
	// AgentToken is a fresh agent token of the provider.
	AgentToken string
}

// NewProvider makes an approved provider through the services (apply,
// approve as Community, create an agent token) and signs its user in.
func (s *Server) NewProvider(t testing.TB, name string) *Provider {
	t.Helper()
	ctx := context.Background()
	email := UniqueEmail(name)
	admin, err := s.Platform.Auth.CreateUser(ctx, auth.SignUpInput{Email: UniqueEmail("admin-" + name), Password: "admin password 1", Name: "Admin"}, models.RoleAdmin)
	require.NoError(t, err)
	c := s.NewAPIClient(t, "")
	c.SignUp(email, "correct horse battery", name)
	u, err := s.Platform.Auth.UserByEmail(ctx, email)
	require.NoError(t, err)
	city, country := "Lisbon", "Portugal"
	app, err := s.Platform.Onboarding.Submit(ctx, &auth.Viewer{User: u, Roles: []models.Role{models.RoleCustomer}}, onboarding.Input{
		FullName: name, Email: email, UpsProtected: true, CommitmentMonths: 12,
		Gpus: []onboarding.GPUInput{{ModelKey: "H100_SXM_80GB", Quantity: 2, RAMGb: 256, UploadGbps: 10, DownloadGbps: 10,
			Availability: availability.Input{Kind: models.AvailabilityAlways}, Location: models.Location{City: &city, Country: &country}}},
	})
	require.NoError(t, err)
	_, p, err := s.Platform.Onboarding.Approve(ctx, &auth.Viewer{User: admin, Roles: admin.Roles}, app.ID, nil, nil)
	require.NoError(t, err)
	tok, err := s.Platform.Providers.CreateAgentToken(ctx, p, name+"-host")
	require.NoError(t, err)
	return &Provider{ID: p.ID, User: c, AgentToken: tok.Secret}
}

// DrainMail waits until the mail worker has sent every email in the
// outbox (NewProvider enqueues a few), so a test counting SQL writes sees
// only its own.
func (s *Server) DrainMail(t testing.TB) {
	t.Helper()
	await.True(t, func() bool {
		n, err := s.Platform.DB.NewSelect().Model((*models.OutboxEmail)(nil)).
			Where("sent_at IS NULL AND failed_at IS NULL").Count(context.Background())
		return err == nil && n == 0
	}, "the mail outbox did not drain")
}
