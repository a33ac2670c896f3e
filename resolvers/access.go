package resolvers

import (
	"context"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/models"
)

// viewerAndID checks who is asking with require (auth.Require, or
// requireAdmin), then reads the id argument: an anonymous request is
// refused before its arguments are looked at.
func viewerAndID(ctx context.Context, require func(context.Context) (*auth.Viewer, error), id string) (*auth.Viewer, int64, error) {
	v, err := require(ctx)
	if err != nil {
		return nil, 0, err
	}
	n, err := parseID("id", id)
	if err != nil {
		return nil, 0, err
	}
	return v, n, nil
}

// requireAdmin returns the viewer when it is an admin.
func requireAdmin(ctx context.Context) (*auth.Viewer, error) {
	return auth.RequireRole(ctx, models.RoleAdmin)
}
