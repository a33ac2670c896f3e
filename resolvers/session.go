package resolvers

import (
	"context"

	"github.com/gpunex/gpunex/graph/model"
	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/models"
)

// sessionKind is cookie for the SPA (which never sees its token) and
// bearer for API clients.
func sessionKind(ctx context.Context) models.SessionKind {
	if auth.SessionCookieFrom(ctx) != nil {
		return models.SessionCookie
	}
	return models.SessionBearer
}

// authPayload sets the cookie for the SPA, or returns the token to an API
// client; a token is never handed to browser JavaScript.
func authPayload(ctx context.Context, user *models.User, sess *auth.Session, userErrors []*fault.Problem) *model.AuthPayload {
	p := &model.AuthPayload{User: user, UserErrors: userErrors}
	if c := auth.SessionCookieFrom(ctx); c != nil {
		c.Set(sess.Token, sess.ExpiresAt)
		return p
	}
	tok := sess.Token
	p.Token = &tok
	return p
}

// authResult maps the result of a sign-up or log-in to its payload:
// validation problems become userErrors, other errors go to the error
// presenter.
func authResult(ctx context.Context, user *models.User, sess *auth.Session, err error) (*model.AuthPayload, error) {
	return payload(err, func(ue []*fault.Problem) *model.AuthPayload {
		if sess == nil {
			return &model.AuthPayload{UserErrors: ue}
		}
		return authPayload(ctx, user, sess, ue)
	})
}
