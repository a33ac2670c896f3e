package auth_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// languageOf reads the stored language of the account of email.
func (b *bundle) languageOf(t *testing.T, email string) models.Language {
	t.Helper()
	var lang models.Language
	require.NoError(t, b.db.NewSelect().Model((*models.User)(nil)).Column("language").Where("email = ?", email).Scan(b.ctx, &lang))
	return lang
}

// Issue 11, point 12: a sign-up made in Hindi is confirmed by an email in
// Hindi (its expiry a Hindi date) and the account starts in Hindi; a
// sign-up with the address of an Arabic reader's account tells the owner
// in Arabic, whatever the language of the request.
func TestSignUpEmailsAreInTheReadersLanguage(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		require.NoError(t, b.auth.RequestSignUp(b.ctx, auth.SignUpRequest{
			SignUpInput: auth.SignUpInput{Email: "priya@example.com", Password: signUpPassword, Name: "Priya"},
			Language:    models.LanguageHindi,
		}))
		mails := b.mails(t, "priya@example.com")
		require.Len(t, mails, 1)
		require.Equal(t, "GPUnex पर साइन अप पूरा करने के लिए अपने ईमेल की पुष्टि करें", mails[0].Subject)
		require.Contains(t, mails[0].TextBody, "नमस्ते Priya,")
		var p models.PendingSignUp
		require.NoError(t, db.NewSelect().Model(&p).Where("email = ?", "priya@example.com").Scan(b.ctx))
		require.Equal(t, models.LanguageHindi, p.Language)
		months := []string{"जनवरी", "फ़रवरी", "मार्च", "अप्रैल", "मई", "जून", "जुलाई", "अगस्त", "सितंबर", "अक्तूबर", "नवंबर", "दिसंबर"}
		exp := p.ExpiresAt.UTC()
		require.Contains(t, mails[0].TextBody, "यह लिंक एक ही बार, "+exp.Format("2")+" "+months[exp.Month()-1]+" "+exp.Format("2006, 15:04")+" UTC तक काम करता है।")
		require.Contains(t, mails[0].HTMLBody, `<html lang="hi" dir="ltr">`)

		user, _, err := b.auth.ConfirmEmail(b.ctx, b.confirmationToken(t, "priya@example.com"), models.SessionCookie)
		require.NoError(t, err)
		require.Equal(t, models.LanguageHindi, user.Language)
		require.Equal(t, models.LanguageHindi, b.languageOf(t, "priya@example.com"))

		owner, _ := b.signUp(t, "ada@example.com")
		require.Equal(t, models.LanguageEnglish, b.languageOf(t, "ada@example.com"), "English until chosen")
		_, err = b.auth.SetLanguage(b.ctx, owner.ID, models.LanguageArabic)
		require.NoError(t, err)
		require.NoError(t, b.auth.RequestSignUp(b.ctx, auth.SignUpRequest{
			SignUpInput: auth.SignUpInput{Email: "ada@example.com", Password: signUpPassword, Name: "Someone"},
			Language:    models.LanguageSpanish,
		}))
		mails = b.mails(t, "ada@example.com")
		require.Len(t, mails, 1)
		require.Equal(t, auth.MailKindSignUpExisting, mails[0].Kind)
		require.Equal(t, "حاول شخص ما التسجيل في GPUnex ببريدك الإلكتروني", mails[0].Subject)
		require.Contains(t, mails[0].TextBody, "مرحبًا Ada Lovelace،")
		require.Contains(t, mails[0].HTMLBody, `<html lang="ar" dir="rtl">`)
	})
}

func TestSetLanguageChangesOnlyThatUsersLanguageAndRefusesAnUnknownOne(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		ada, _ := b.signUp(t, "ada@example.com")
		b.signUp(t, "grace@example.com")
		for _, bad := range []models.Language{"", "fr", "EN"} {
			_, err := b.auth.SetLanguage(b.ctx, ada.ID, bad)
			requireProblem(t, err, "language", string(fault.InvalidValue))
		}
		require.Equal(t, models.LanguageEnglish, b.languageOf(t, "ada@example.com"), "nothing changes on bad input")

		got, err := b.auth.SetLanguage(b.ctx, ada.ID, models.LanguagePortuguese)
		require.NoError(t, err)
		require.Equal(t, models.LanguagePortuguese, got)
		require.Equal(t, models.LanguagePortuguese, b.languageOf(t, "ada@example.com"))
		require.Equal(t, models.LanguageEnglish, b.languageOf(t, "grace@example.com"), "another user keeps theirs")

		_, err = b.auth.SetLanguage(b.ctx, 999_999, models.LanguageArabic)
		require.Equal(t, fault.NotFound, fault.CodeOf(err))
	})
}
