package models

import (
	"time"

	"github.com/uptrace/bun"
)

// OutboxEmail is one email waiting in, or sent from, the outbox. It is
// written in the same transaction as the decision it announces and sent
// later by internal/mail's worker, so an email goes out if and only if the
// decision was committed.
//
// A row is pending while SentAt and FailedAt are both nil; LockedUntil is
// the lease of the worker sending it now. DedupeKey, when set, is unique:
// a decision enqueued twice sends one email. FailedAt is set when the
// retries run out, or at the first attempt when the server refuses the
// message for good (a 5xx to RCPT TO or DATA) or it cannot be built;
// LastError then holds the reason, the server's reply included.
type OutboxEmail struct {
	bun.BaseModel `bun:"table:email_outbox,alias:eo"`

	ID        int64  `bun:"id,pk,autoincrement"`
	Kind      string `bun:"kind,notnull"`
	ToAddress string `bun:"to_address,notnull"`
	Subject   string `bun:"subject,notnull"`
	TextBody  string `bun:"text_body,notnull"`
	HTMLBody  string `bun:"html_body,nullzero"`
	// Language is what the email is written in (its Content-Language);
	// empty for an email of no particular reader.
	Language      Language   `bun:"language,nullzero"`
	DedupeKey     string     `bun:"dedupe_key,nullzero"`
	CreatedAt     time.Time  `bun:"created_at,notnull"`
	Attempts      int        `bun:"attempts,notnull"`
	NextAttemptAt time.Time  `bun:"next_attempt_at,notnull"`
	LockedUntil   *time.Time `bun:"locked_until"`
	SentAt        *time.Time `bun:"sent_at"`
	FailedAt      *time.Time `bun:"failed_at"`
	// LastError is the latest delivery failure, free of credentials.
	LastError string `bun:"last_error,nullzero"`
}
