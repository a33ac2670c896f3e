package models

import (
	"time"

	"github.com/uptrace/bun"
)

// PendingSignUp is a sign-up waiting for its email to be confirmed: the
// account is created from it when the emailed link comes back. Only the
// SHA-256 of the link's token is stored, so a copy of the database cannot
// confirm anyone; PasswordHash is argon2id, as User's.
type PendingSignUp struct {
	bun.BaseModel `bun:"table:pending_signups,alias:ps"`

	ID           int64  `bun:"id,pk,autoincrement"`
	Email        string `bun:"email,notnull"`
	Name         string `bun:"name,notnull"`
	PasswordHash string `bun:"password_hash,notnull" json:"-"`
	TokenHash    string `bun:"token_hash,notnull" json:"-"`
	// Language is the SPA's language when the sign-up was made: the
	// confirmation email is written in it and the account starts with it.
	Language  Language  `bun:"language,nullzero,notnull,default:'en'"`
	CreatedAt time.Time `bun:"created_at,notnull"`
	ExpiresAt time.Time `bun:"expires_at,notnull"`
}
