package mail

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// Outbox writes emails into the email_outbox table, inside the caller's
// transaction.
type Outbox struct {
	clock clock.Clock
	wake  func()
}

// NewOutbox returns an outbox stamping rows with clk. wake, when not nil,
// runs after the enqueuing transaction commits (pass Worker.Kick, so the
// email leaves at once instead of at the next poll).
func NewOutbox(clk clock.Clock, wake func()) *Outbox {
	return &Outbox{clock: clk, wake: wake}
}

// Enqueue validates msg and inserts it with idb, which should be the
// transaction that records the decision the email announces: the email
// then exists if and only if that transaction commits. A message whose
// DedupeKey was enqueued before is silently dropped (nil error), so a
// decision made twice sends one email. ID and Created of msg are ignored.
// A message of ForUser or InLanguage is written first, in its reader's
// language (read with idb for ForUser).
func (o *Outbox) Enqueue(ctx context.Context, idb bun.IDB, msg Message) error {
	msg, err := msg.written(ctx, idb)
	if err != nil {
		return err
	}
	if err := msg.Validate(); err != nil {
		return err
	}
	to, _ := parseAddress(msg.To)
	toAddress := to.Address
	if to.Name != "" {
		toAddress = to.String()
	}
	now := o.clock.Now().UTC()
	row := &models.OutboxEmail{
		Kind:          msg.Kind,
		ToAddress:     toAddress,
		Subject:       msg.Subject,
		TextBody:      msg.Text,
		HTMLBody:      msg.HTML,
		Language:      msg.Language,
		DedupeKey:     msg.DedupeKey,
		CreatedAt:     now,
		NextAttemptAt: now,
	}
	// ON CONFLICT DO NOTHING rather than catching the unique violation:
	// on PostgreSQL a failed statement aborts the caller's transaction.
	if _, err := idb.NewInsert().Model(row).On("CONFLICT (dedupe_key) DO NOTHING").Exec(ctx); err != nil {
		return fmt.Errorf("mail: unable to enqueue %s email: %w", msg.Kind, err)
	}
	if o.wake != nil {
		store.AfterCommit(ctx, o.wake)
	}
	return nil
}
