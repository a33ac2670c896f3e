package resolvers

import (
	"context"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/models"
)

// requireProvider returns the provider of the user asking: UNAUTHENTICATED
// for an anonymous request, FORBIDDEN for a user who is not a provider.
func (r *Resolver) requireProvider(ctx context.Context) (*models.Provider, error) {
	v, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	return r.Providers.Require(ctx, v)
}

// requireProviderAccess allows the provider's own user and admins: every
// field hanging from Provider checks it.
func (r *Resolver) requireProviderAccess(ctx context.Context, p *models.Provider) error {
	_, err := auth.RequireSelfOrAdmin(ctx, p.UserID)
	return err
}

// emptyNil is nil for "", else s.
func emptyNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
