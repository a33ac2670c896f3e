package mail_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/mail"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

func TestEnqueueValidatesTheMessage(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db, mail.WorkerConfig{})
		valid := approval("ada@example.com")
		cases := []struct {
			desc   string
			edit   func(m *mail.Message)
			reason string
		}{
			{"empty recipient", func(m *mail.Message) { m.To = "" }, "to: address is empty"},
			{"malformed recipient", func(m *mail.Message) { m.To = "ada.example.com" }, "not an email address"},
			{"two recipients", func(m *mail.Message) { m.To = "a@example.com, b@example.com" }, "not an email address"},
			{"header injection in the recipient", func(m *mail.Message) { m.To = "a@example.com\r\nBcc: x@example.com" }, "single line"},
			{"empty subject", func(m *mail.Message) { m.Subject = " " }, "subject is empty"},
			{"header injection in the subject", func(m *mail.Message) { m.Subject = "Hi\r\nBcc: x@example.com" }, "subject must be a single line"},
			{"subject too long", func(m *mail.Message) { m.Subject = strings.Repeat("s", 251) }, "subject is longer than 250"},
			{"no text body", func(m *mail.Message) { m.Text = "" }, "text is empty"},
			{"no kind", func(m *mail.Message) { m.Kind = "" }, "kind is empty"},
			{"dedupe key too long", func(m *mail.Message) { m.DedupeKey = strings.Repeat("k", 201) }, "dedupe key is longer"},
			{"a language GPUnex does not write in", func(m *mail.Message) { m.Language = "fr" }, `language "fr"`},
			{"header injection in the language", func(m *mail.Message) { m.Language = "en\r\nBcc: x@example.com" }, "language"},
		}
		for _, c := range cases {
			msg := valid
			c.edit(&msg)
			err := b.outbox.Enqueue(context.Background(), db, msg)
			require.ErrorIs(t, err, mail.ErrInvalidMessage, c.desc)
			require.ErrorContains(t, err, c.reason, c.desc)
		}
		n, err := db.NewSelect().Model((*models.OutboxEmail)(nil)).Count(context.Background())
		require.NoError(t, err)
		require.Zero(t, n, "an invalid message stores nothing")

		require.NoError(t, b.outbox.Enqueue(context.Background(), db, valid))
		row := b.row(t, valid.Subject)
		require.Equal(t, "ada@example.com", row.ToAddress)
		require.True(t, row.CreatedAt.Equal(t0))
		require.True(t, row.NextAttemptAt.Equal(t0), "due at once")
		require.Zero(t, row.Attempts)
		require.Empty(t, row.DedupeKey)
	})
}
