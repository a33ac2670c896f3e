// Package auth owns accounts, sessions and roles, and the authorization
// helpers every resolver uses.
//
// Passwords are hashed with argon2id (github.com/alexedwards/argon2id).
// Session tokens are 256 random bits with a recognisable prefix ("gpx_s_");
// only their SHA-256 is stored. The same session table backs the SPA's
// HttpOnly cookie and the bearer tokens of API clients; the kind is kept so
// an operator can tell them apart.
//
// A request's identity travels in its context as a *Viewer (WithViewer,
// ViewerFrom). Require, RequireRole and RequireSelfOrAdmin turn a missing
// or insufficient identity into coded errors (UNAUTHENTICATED, FORBIDDEN),
// so resolvers state who may act in one line.
package auth
