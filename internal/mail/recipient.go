package mail

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// recipient is a message still to be written in its reader's language:
// Enqueue reads the language of user userID in the enqueuing transaction
// and calls write with it.
type recipient struct {
	userID int64
	write  func(lang models.Language) *Email
}

// ForUser is a message to the user userID, written by write in the
// language the user chose. The language is read when the message is
// enqueued, in the transaction that records the decision, so a writer
// needs neither a query of its own nor the transaction (the decisions of
// onboarding build their email without either). The caller sets To (which
// may be another address than the account's, such as an application's
// contact email) and DedupeKey on the result; Kind comes from the Email.
func ForUser(userID int64, write func(lang models.Language) *Email) Message {
	return Message{recipient: &recipient{userID: userID, write: write}}
}

// InLanguage is a message to an address written by write in lang: for a
// reader without an account (the sign-up confirmation goes out in the
// language of the request) or whose language the caller has already read.
func InLanguage(lang models.Language, write func(lang models.Language) *Email) Message {
	return Message{recipient: &recipient{write: func(models.Language) *Email { return write(lang.Or(models.DefaultLanguage)) }}}
}

// LanguageOf reads user userID's language with idb; an unknown user reads
// in DefaultLanguage.
func LanguageOf(ctx context.Context, idb bun.IDB, userID int64) (models.Language, error) {
	var lang models.Language
	err := idb.NewSelect().Model((*models.User)(nil)).Column("language").Where("id = ?", userID).Scan(ctx, &lang)
	if store.IsNoRows(err) {
		return models.DefaultLanguage, nil
	}
	if err != nil {
		return "", fmt.Errorf("mail: unable to read the recipient's language: %w", err)
	}
	return lang.Or(models.DefaultLanguage), nil
}

// written returns msg with its subject and bodies written in the
// recipient's language (read with idb); a message written already is
// returned as it is.
func (m Message) written(ctx context.Context, idb bun.IDB) (Message, error) {
	r := m.recipient
	if r == nil {
		return m, nil
	}
	lang := models.DefaultLanguage
	if r.userID != 0 {
		var err error
		if lang, err = LanguageOf(ctx, idb, r.userID); err != nil {
			return Message{}, err
		}
	}
	out, err := r.write(lang).Message(m.To)
	if err != nil {
		return Message{}, err
	}
	out.DedupeKey = m.DedupeKey
	if m.Kind != "" {
		out.Kind = m.Kind
	}
	return out, nil
}
