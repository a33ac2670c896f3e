package resolvers

import (
	"context"

	"github.com/gpunex/gpunex/graph/model"
	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/models"
)

// userErrors splits a service error: validation problems become the
// payload's userErrors (and a nil error); anything else is returned for the
// error presenter.
func userErrors(err error) ([]*model.UserError, error) {
	if err == nil {
		return []*model.UserError{}, nil
	}
	v, ok := fault.AsValidation(err)
	if !ok {
		return nil, err
	}
	out := make([]*model.UserError, 0, len(v.Problems))
	for _, p := range v.Problems {
		out = append(out, &model.UserError{Field: p.Field, Message: p.Message, Code: p.Code})
	}
	return out, nil
}

// parseID reads a numeric ID argument; a malformed one is BAD_USER_INPUT
// naming the argument.
func parseID(field, s string) (int64, error) {
	id, err := models.UnmarshalInt64ID(s)
	if err != nil {
		return 0, fault.E(fault.Invalid, "%s is not a valid ID", field)
	}
	return id, nil
}

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
