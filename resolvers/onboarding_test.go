package resolvers

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/models"
)

// Issue 11 point 5: what a resubmission changed is the reviewers' view;
// the applicant (and anyone signed out) reads null, an admin the list.
func TestApplicationChangesAreForAdminsOnly(t *testing.T) {
	t.Parallel()
	before, after := "128", "192"
	ev := &models.ApplicationEvent{Action: models.ActionResubmitted, FieldChanges: []models.ApplicationFieldChange{
		{Field: "gpus.0.ramGb", Before: &before, After: &after},
	}}
	unchanged := &models.ApplicationEvent{Action: models.ActionResubmitted, FieldChanges: []models.ApplicationFieldChange{}}
	viewer := func(roles ...models.Role) context.Context {
		return auth.WithViewer(t.Context(), &auth.Viewer{User: &models.User{ID: 7}, Roles: roles})
	}
	r := &applicationEventResolver{&Resolver{}}
	cases := []struct {
		desc string
		ctx  context.Context
		ev   *models.ApplicationEvent
		want []*models.ApplicationFieldChange
	}{
		{"an admin reads the changes", viewer(models.RoleCustomer, models.RoleAdmin), ev, []*models.ApplicationFieldChange{&ev.FieldChanges[0]}},
		{"an admin reads an empty list when no answer changed", viewer(models.RoleAdmin), unchanged, []*models.ApplicationFieldChange{}},
		{"the applicant reads null", viewer(models.RoleCustomer), ev, nil},
		{"a provider reads null", viewer(models.RoleCustomer, models.RoleProvider), ev, nil},
		{"no one signed in reads null", t.Context(), ev, nil},
		{"a step without kept answers is null for an admin too", viewer(models.RoleAdmin), &models.ApplicationEvent{Action: models.ActionInfoRequested}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			got, err := r.Changes(tc.ctx, tc.ev)
			require.NoError(t, err)
			if tc.want == nil {
				require.Nil(t, got)
				return
			}
			require.Equal(t, tc.want, got)
		})
	}
}
