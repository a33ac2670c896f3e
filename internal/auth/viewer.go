package auth

import (
	"context"
	"slices"
	"time"

	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/models"
)

// Viewer is the authenticated user behind a request.
type Viewer struct {
	User        *models.User
	Roles       []models.Role
	SessionID   int64
	SessionKind models.SessionKind
}

// clone is a copy of v whose user the caller may change (the roles are
// shared: nothing changes them): the viewer and its user in one
// allocation, as every signed-in request makes one.
func (v *Viewer) clone() *Viewer {
	c := &viewerCopy{viewer: *v, user: *v.User}
	c.viewer.User = &c.user
	return &c.viewer
}

// viewerCopy holds a cloned viewer and its user together.
type viewerCopy struct {
	viewer Viewer
	user   models.User
}

// Has reports whether the viewer holds role.
func (v *Viewer) Has(role models.Role) bool {
	return v != nil && slices.Contains(v.Roles, role)
}

// IsAdmin reports whether the viewer is a GPUnex administrator.
func (v *Viewer) IsAdmin() bool { return v.Has(models.RoleAdmin) }

type viewerKey struct{}

// WithViewer returns ctx carrying v.
func WithViewer(ctx context.Context, v *Viewer) context.Context {
	return context.WithValue(ctx, viewerKey{}, v)
}

// ViewerFrom returns the viewer of ctx, or nil for an anonymous request.
func ViewerFrom(ctx context.Context) *Viewer {
	v, _ := ctx.Value(viewerKey{}).(*Viewer)
	return v
}

// Require returns the viewer, or UNAUTHENTICATED when there is none.
func Require(ctx context.Context) (*Viewer, error) {
	v := ViewerFrom(ctx)
	if v == nil {
		return nil, fault.E(fault.Unauthenticated, "sign in to do this")
	}
	return v, nil
}

// RequireRole returns the viewer when it holds at least one of roles;
// UNAUTHENTICATED when anonymous, FORBIDDEN otherwise.
func RequireRole(ctx context.Context, roles ...models.Role) (*Viewer, error) {
	v, err := Require(ctx)
	if err != nil {
		return nil, err
	}
	for _, r := range roles {
		if v.Has(r) {
			return v, nil
		}
	}
	return nil, fault.E(fault.Forbidden, "your account may not do this")
}

// RequireSelfOrAdmin returns the viewer when it is the user userID or an
// admin: the rule for reading and changing a user's own data. Another
// user's data is NOT_FOUND, as if it did not exist, so ids tell nothing.
func RequireSelfOrAdmin(ctx context.Context, userID int64) (*Viewer, error) {
	v, err := Require(ctx)
	if err != nil {
		return nil, err
	}
	if v.User.ID == userID || v.IsAdmin() {
		return v, nil
	}
	return nil, fault.E(fault.NotFound, "not found")
}

// SessionCookie lets a resolver set or clear the session cookie of the HTTP
// response being built. It is present only on requests from the SPA.
type SessionCookie interface {
	Set(token string, expires time.Time)
	Clear()
}

type sessionCookieKey struct{}

// WithSessionCookie returns ctx carrying c.
func WithSessionCookie(ctx context.Context, c SessionCookie) context.Context {
	return context.WithValue(ctx, sessionCookieKey{}, c)
}

// SessionCookieFrom returns the session cookie of ctx's response, or nil
// when the request is not the SPA's (an API client gets a bearer token).
func SessionCookieFrom(ctx context.Context) SessionCookie {
	c, _ := ctx.Value(sessionCookieKey{}).(SessionCookie)
	return c
}
