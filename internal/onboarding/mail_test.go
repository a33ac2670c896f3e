package onboarding_test

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/mail"
	"github.com/gpunex/gpunex/internal/mail/mailtest"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// deliver sends every due outbox email of b's database through a real
// SMTP server on loopback, as --smtp-url does, and returns them decoded as
// a mail client shows them.
func (b *bundle) deliver(t *testing.T) []*mailtest.Decoded {
	t.Helper()
	server := mailtest.Start(t, nil)
	sender, err := mail.NewSender(server.URL()+"?tls=none", t.TempDir(), "GPUnex <noreply@gpunex.example>")
	require.NoError(t, err)
	worker := mail.NewWorker(mail.WorkerDeps{DB: b.db, Sender: sender, Clock: b.clock, Logger: slog.New(slog.DiscardHandler)}, mail.WorkerConfig{})
	_, err = worker.SendDue(b.ctx)
	require.NoError(t, err)
	var out []*mailtest.Decoded
	for _, m := range server.Messages() {
		d, err := mailtest.Decode(m.Data)
		require.NoError(t, err)
		out = append(out, d)
	}
	return out
}

// Issue 11, point 12: a decision email arrives in the applicant's chosen
// language, Arabic (right to left), Hindi or Spanish, with a text and an HTML part
// in that language and the decision's values filled in, escaped in HTML
// only.
func TestDecisionEmailsArriveInArabicAndHindiThroughSMTP(t *testing.T) {
	t.Parallel()
	const note = `Welcome, R&D <lab> "team"`
	cases := []struct {
		desc    string
		lang    models.Language
		decide  func(b *bundle, appID int64) error
		subject string
		// text must all be in the text part as written, and in the HTML
		// part escaped.
		text []string
		// notText must be in neither part: the English of the same email.
		notText []string
		link    string
		dir     string
	}{
		{
			desc: "an approval as Enterprise in Arabic, with the reviewer's note",
			lang: models.LanguageArabic,
			decide: func(b *bundle, appID int64) error {
				tier, n := models.TierEnterprise, note
				_, _, err := b.service.Approve(b.ctx, b.admin, appID, &tier, &n)
				return err
			},
			subject: "تمت الموافقة على تقديمك وحدات GPU على GPUnex",
			text: []string{"مرحبًا Grace Hopper،", "تمت الموافقة على طلبك لتقديم وحدات GPU على GPUnex. فئتك: المؤسسات.",
				"ملاحظة من المراجِع:", note, "/agent/install.sh | sudo sh", "فريق GPUnex"},
			notText: []string{"Hello", "approved", "Your tier", "Enterprise", "Next steps"},
			link:    "https://gpunex.example/provider/tokens",
			dir:     "rtl",
		},
		{
			desc: "a rejection in Hindi, with the reason",
			lang: models.LanguageHindi,
			decide: func(b *bundle, appID int64) error {
				_, err := b.service.Reject(b.ctx, b.admin, appID, note)
				return err
			},
			subject: "आपका GPUnex प्रदाता आवेदन",
			text: []string{"नमस्ते Grace Hopper,", "हम इस समय आपका आवेदन स्वीकृत नहीं कर सकते।", "कारण:", note,
				"इसे ठीक करने के बाद आप फिर से आवेदन कर सकते हैं:", "GPUnex टीम"},
			notText: []string{"Hello", "Reason", "Thank you", "The GPUnex team"},
			link:    "https://gpunex.example/provider/apply",
			dir:     "ltr",
		},
		{
			desc: "a request for more information in Spanish, with the question",
			lang: models.LanguageSpanish,
			decide: func(b *bundle, appID int64) error {
				_, err := b.service.RequestInfo(b.ctx, b.admin, appID, note)
				return err
			},
			subject: "GPUnex necesita más información sobre tu solicitud de proveedor",
			text: []string{"Hola, Grace Hopper:", "Un revisor necesita más información antes de decidir sobre tu solicitud:", note,
				"Edítala y vuelve a enviarla aquí:", "El equipo de GPUnex"},
			notText: []string{"Hello", "A reviewer", "resubmit", "The GPUnex team"},
			link:    "https://gpunex.example/provider/application",
			dir:     "ltr",
		},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			storetest.Each(t, func(t *testing.T, db *store.DB) {
				b := setup(t, db)
				applicant, app := b.apply(t, "grace@example.com", true)
				_, err := b.auth.SetLanguage(b.ctx, applicant.User.ID, tc.lang)
				require.NoError(t, err)
				// Another user's language does not leak into the email.
				_, err = b.auth.SetLanguage(b.ctx, b.admin.User.ID, models.LanguageSpanish)
				require.NoError(t, err)
				require.NoError(t, tc.decide(b, app.ID))

				mails := b.deliver(t)
				require.Len(t, mails, 1)
				m := mails[0]
				require.Equal(t, "grace@example.com", strings.Trim(m.Header.Get("To"), "<>"))
				require.Equal(t, tc.subject, m.Subject)
				require.Equal(t, "multipart/alternative", m.MediaType)
				require.Equal(t, string(tc.lang), m.Header.Get("Content-Language"), "the email says which language it is in")
				text, html := m.Text(), m.HTML()
				require.NotEmpty(t, text)
				require.NotEmpty(t, html)
				require.Contains(t, html, `<html lang="`+string(tc.lang)+`" dir="`+tc.dir+`">`)
				require.Contains(t, html, `<title>`+tc.subject+`</title>`)
				for _, want := range tc.text {
					require.Contains(t, text, want, "text part")
					require.Contains(t, html, escapeHTML(want), "HTML part")
				}
				require.NotContains(t, html, "<lab>", "the note's markup is escaped in HTML")
				require.Contains(t, text, tc.link)
				require.Contains(t, html, `<a href="`+tc.link+`"`)
				for _, english := range tc.notText {
					require.NotContains(t, text, english)
					require.NotContains(t, html, english)
				}
			})
		})
	}
}

// escapeHTML is how html/template writes text, which these emails use.
func escapeHTML(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;", "+", "&#43;").Replace(s)
}
