package platform_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/platform/platformtest"
	"github.com/gpunex/gpunex/models"
)

const setLanguageMutation = `mutation($l: Language!) { setLanguage(language: $l) { user { email language } userErrors { field code } } }`

// Issue 11, point 12, over GraphQL: a sign-up made in the SPA's language
// is confirmed in it and the account starts in it (me.language); the
// signed-in user changes their own language with setLanguage; an
// anonymous request changes nothing.
func TestLanguageIsChosenAtSignUpAndChangedBySetLanguage(t *testing.T) {
	t.Parallel()
	platformtest.Each(t, platformtest.Options{}, func(t *testing.T, s *platformtest.Server) {
		spa := s.NewSPAClient(t)
		email := platformtest.UniqueEmail("lang")
		r := spa.Do(platformtest.SignUpMutation, map[string]any{"input": map[string]any{
			"email": email, "password": "correct horse battery", "name": "Layla", "language": "AR"}})
		require.Empty(t, r.Errors)
		var row models.OutboxEmail
		require.NoError(t, s.Platform.DB.NewSelect().Model(&row).Where("to_address = ?", email).
			Where("kind = ?", auth.MailKindConfirmEmail).Scan(context.Background()))
		require.Equal(t, "أكِّد بريدك الإلكتروني لإكمال التسجيل في GPUnex", row.Subject)
		require.Contains(t, row.HTMLBody, `dir="rtl"`)

		r = spa.Do(platformtest.ConfirmEmailMutation, map[string]any{"token": s.ConfirmationToken(t, email)})
		require.Empty(t, r.Errors)
		var me struct{ Me struct{ Language string } }
		spa.MustDo(&me, `query { me { language } }`, nil)
		require.Equal(t, "AR", me.Me.Language)

		var set struct {
			SetLanguage struct {
				User       *struct{ Email, Language string }
				UserErrors []struct{ Field, Code string }
			}
		}
		spa.MustDo(&set, setLanguageMutation, map[string]any{"l": "HI"})
		require.Empty(t, set.SetLanguage.UserErrors)
		require.Equal(t, email, set.SetLanguage.User.Email)
		require.Equal(t, "HI", set.SetLanguage.User.Language)
		spa.MustDo(&me, `query { me { language } }`, nil)
		require.Equal(t, "HI", me.Me.Language)

		r = spa.Do(setLanguageMutation, map[string]any{"l": "FR"})
		require.NotEmpty(t, r.Errors, "not a Language")
		spa.MustDo(&me, `query { me { language } }`, nil)
		require.Equal(t, "HI", me.Me.Language, "nothing changes on bad input")

		anonymous := s.NewSPAClient(t)
		r = anonymous.Do(setLanguageMutation, map[string]any{"l": "ES"})
		require.Equal(t, []string{"UNAUTHENTICATED"}, r.Codes())
		spa.MustDo(&me, `query { me { language } }`, nil)
		require.Equal(t, "HI", me.Me.Language)
	})
}
