package auth_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/models"
)

func viewer(id int64, roles ...models.Role) *auth.Viewer {
	return &auth.Viewer{User: &models.User{ID: id, Roles: roles}, Roles: roles}
}

func TestPolicyHelpersTurnMissingRightsIntoCodes(t *testing.T) {
	t.Parallel()
	const self int64 = 7
	customer := viewer(self, models.RoleCustomer)
	provider := viewer(self, models.RoleCustomer, models.RoleProvider)
	admin := viewer(99, models.RoleCustomer, models.RoleAdmin)
	other := viewer(8, models.RoleCustomer)

	cases := []struct {
		desc   string
		viewer *auth.Viewer // nil: anonymous request
		check  func(ctx context.Context) (*auth.Viewer, error)
		want   fault.Code // empty: allowed
	}{
		{desc: "Require: anonymous is unauthenticated", check: auth.Require, want: fault.Unauthenticated},
		{desc: "Require: any signed-in viewer passes", viewer: customer, check: auth.Require},
		{desc: "RequireRole: anonymous is unauthenticated", check: requireRole(models.RoleAdmin), want: fault.Unauthenticated},
		{desc: "RequireRole: customer lacking admin is forbidden", viewer: customer, check: requireRole(models.RoleAdmin), want: fault.Forbidden},
		{desc: "RequireRole: customer lacking provider is forbidden", viewer: customer, check: requireRole(models.RoleProvider), want: fault.Forbidden},
		{desc: "RequireRole: provider passes provider", viewer: provider, check: requireRole(models.RoleProvider)},
		{desc: "RequireRole: admin passes admin", viewer: admin, check: requireRole(models.RoleAdmin)},
		{desc: "RequireRole: one of several roles is enough", viewer: provider, check: requireRole(models.RoleAdmin, models.RoleProvider)},
		{desc: "RequireRole: no roles asked lets nobody in", viewer: admin, check: requireRole(), want: fault.Forbidden},
		{desc: "RequireRole: admin does not imply provider", viewer: admin, check: requireRole(models.RoleProvider), want: fault.Forbidden},
		{desc: "RequireSelfOrAdmin: anonymous is unauthenticated", check: requireSelfOrAdmin(self), want: fault.Unauthenticated},
		{desc: "RequireSelfOrAdmin: self passes", viewer: customer, check: requireSelfOrAdmin(self)},
		{desc: "RequireSelfOrAdmin: another user's data is not found, as if it did not exist", viewer: other, check: requireSelfOrAdmin(self), want: fault.NotFound},
		{desc: "RequireSelfOrAdmin: another user's provider role does not help", viewer: viewer(8, models.RoleCustomer, models.RoleProvider), check: requireSelfOrAdmin(self), want: fault.NotFound},
		{desc: "RequireSelfOrAdmin: admin passes for anyone", viewer: admin, check: requireSelfOrAdmin(self)},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			if tc.viewer != nil {
				ctx = auth.WithViewer(ctx, tc.viewer)
			}
			got, err := tc.check(ctx)
			if tc.want == "" {
				require.NoError(t, err)
				require.Same(t, tc.viewer, got)
				return
			}
			require.Error(t, err)
			require.Nil(t, got)
			require.Equal(t, tc.want, fault.CodeOf(err))
		})
	}
}

func requireRole(roles ...models.Role) func(context.Context) (*auth.Viewer, error) {
	return func(ctx context.Context) (*auth.Viewer, error) { return auth.RequireRole(ctx, roles...) }
}

func requireSelfOrAdmin(userID int64) func(context.Context) (*auth.Viewer, error) {
	return func(ctx context.Context) (*auth.Viewer, error) { return auth.RequireSelfOrAdmin(ctx, userID) }
}

func TestViewerFromAnonymousContextIsNil(t *testing.T) {
	t.Parallel()
	require.Nil(t, auth.ViewerFrom(context.Background()))
	var anonymous *auth.Viewer
	require.False(t, anonymous.Has(models.RoleCustomer), "a nil viewer holds no role")
	require.False(t, anonymous.IsAdmin())

	v := viewer(1, models.RoleAdmin)
	require.Same(t, v, auth.ViewerFrom(auth.WithViewer(context.Background(), v)))
}
