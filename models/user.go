package models

import (
	"time"

	"github.com/uptrace/bun"
)

// User is a person with an account. PasswordHash is an argon2id PHC string
// and never leaves the server: the GraphQL User type has no such field.
type User struct {
	bun.BaseModel `bun:"table:users,alias:u"`

	ID           int64  `bun:"id,pk,autoincrement"`
	Email        string `bun:"email,notnull"`
	Name         string `bun:"name,notnull"`
	PasswordHash string `bun:"password_hash,notnull" json:"-"`
	// Language is the language the user reads the SPA and their emails
	// in. A zero value inserts the column's default, en.
	Language  Language  `bun:"language,nullzero,notnull,default:'en'"`
	CreatedAt time.Time `bun:"created_at,notnull"`
	UpdatedAt time.Time `bun:"updated_at,notnull"`

	// Roles are loaded from user_roles by the auth service; not a column.
	Roles []Role `bun:"-"`
}

// UserRole grants one Role to one user; a user may hold several.
type UserRole struct {
	bun.BaseModel `bun:"table:user_roles,alias:ur"`

	UserID    int64     `bun:"user_id,pk"`
	Role      Role      `bun:"role,pk"`
	CreatedAt time.Time `bun:"created_at,notnull"`
}

// Session is a signed-in session. Only the SHA-256 of the token is stored,
// so a copy of the database cannot be used to sign in.
type Session struct {
	bun.BaseModel `bun:"table:sessions,alias:s"`

	ID         int64       `bun:"id,pk,autoincrement"`
	UserID     int64       `bun:"user_id,notnull"`
	TokenHash  string      `bun:"token_hash,notnull"`
	Kind       SessionKind `bun:"kind,notnull"`
	CreatedAt  time.Time   `bun:"created_at,notnull"`
	LastUsedAt time.Time   `bun:"last_used_at,notnull"`
	ExpiresAt  time.Time   `bun:"expires_at,notnull"`
}

// SessionKind tells how a session's token travels: in the SPA's HttpOnly
// cookie or as a bearer token of an API client.
type SessionKind string

// The session kinds.
const (
	SessionCookie SessionKind = "cookie"
	SessionBearer SessionKind = "bearer"
)
