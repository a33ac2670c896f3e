package platform_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/platform/platformtest"
)

const meQuery = `query { me { id email name roles } }`

type meData struct {
	Me *struct {
		ID    string
		Email string
		Name  string
		Roles []string
	}
}

func TestSPASignsUpWithAnHttpOnlyCookieAndNeverSeesTheToken(t *testing.T) {
	t.Parallel()
	platformtest.Each(t, platformtest.Options{}, func(t *testing.T, s *platformtest.Server) {
		spa := s.NewSPAClient(t)
		email := platformtest.UniqueEmail("spa")
		r := spa.Do(platformtest.SignUpMutation, map[string]any{"input": map[string]any{"email": strings.ToUpper(email), "password": "correct horse battery", "name": "Sam"}})
		require.Empty(t, r.Errors)
		require.JSONEq(t, `{"signUp":{"token":null,"user":null,"userErrors":[],"confirmationSent":true}}`, string(r.Data))
		require.Empty(t, r.Header.Get("Set-Cookie"), "signUp opens no session")

		r = spa.Do(platformtest.ConfirmEmailMutation, map[string]any{"token": s.ConfirmationToken(t, email)})
		require.Empty(t, r.Errors)
		var out struct {
			ConfirmEmail struct {
				Token *string
				User  struct {
					Email string
					Roles []string
				}
				ConfirmationSent bool
			}
		}
		r.Decode(t, &out)
		require.Nil(t, out.ConfirmEmail.Token, "the SPA must not receive a token in JavaScript")
		require.Equal(t, email, out.ConfirmEmail.User.Email, "email is normalised to lower case")
		require.Equal(t, []string{"CUSTOMER"}, out.ConfirmEmail.User.Roles)
		require.False(t, out.ConfirmEmail.ConfirmationSent)
		cookie := r.Header.Get("Set-Cookie")
		require.Contains(t, cookie, "gpunex_session=gpx_s_")
		require.Contains(t, cookie, "HttpOnly")
		require.Contains(t, cookie, "SameSite=Lax")

		var me meData
		spa.MustDo(&me, meQuery, nil)
		require.NotNil(t, me.Me)
		require.Equal(t, "Sam", me.Me.Name)

		var lo struct{ LogOut struct{ Ok bool } }
		spa.MustDo(&lo, `mutation { logOut { ok } }`, nil)
		require.True(t, lo.LogOut.Ok)
		spa.MustDo(&me, meQuery, nil)
		require.Nil(t, me.Me, "logged out")

		var li struct {
			LogIn struct {
				User       *struct{ Email string }
				UserErrors []struct{ Field, Code string }
			}
		}
		spa.MustDo(&li, `mutation($e: String!, $p: String!) { logIn(input: {email: $e, password: $p}) { user { email } userErrors { field code } } }`,
			map[string]any{"e": email, "p": "correct horse battery"})
		require.Empty(t, li.LogIn.UserErrors)
		spa.MustDo(&me, meQuery, nil)
		require.NotNil(t, me.Me, "logged in again")
	})
}

func TestAPIClientUsesBearerTokensThatStopWorkingAtLogOut(t *testing.T) {
	t.Parallel()
	platformtest.Each(t, platformtest.Options{}, func(t *testing.T, s *platformtest.Server) {
		api := s.NewAPIClient(t, "")
		email := platformtest.UniqueEmail("api")
		_, token := api.SignUp(email, "correct horse battery", "Ana")
		require.True(t, strings.HasPrefix(token, "gpx_s_"), token)

		var me meData
		api.MustDo(&me, meQuery, nil)
		require.Equal(t, email, me.Me.Email)

		api.MustDo(nil, `mutation { logOut { ok } }`, nil)
		r := api.Do(meQuery, nil)
		require.Equal(t, http.StatusUnauthorized, r.Status)
		require.Equal(t, []string{"UNAUTHENTICATED"}, r.Codes())
	})
}

func TestWrongPasswordAndUnknownEmailGetTheSameAnswer(t *testing.T) {
	t.Parallel()
	platformtest.Each(t, platformtest.Options{}, func(t *testing.T, s *platformtest.Server) {
		api := s.NewAPIClient(t, "")
		email := platformtest.UniqueEmail("pw")
		api.SignUp(email, "correct horse battery", "Pat")
		q := `mutation($e: String!, $p: String!) { logIn(input: {email: $e, password: $p}) { token user { id } userErrors { field code message } } }`
		for _, tc := range []struct{ desc, email string }{
			{desc: "wrong password", email: email},
			{desc: "unknown email", email: platformtest.UniqueEmail("nobody")},
		} {
			t.Run(tc.desc, func(t *testing.T) {
				var out struct {
					LogIn struct {
						Token      *string
						User       *struct{ ID string }
						UserErrors []struct{ Field, Code, Message string }
					}
				}
				s.NewAPIClient(t, "").MustDo(&out, q, map[string]any{"e": tc.email, "p": "not the password"})
				require.Nil(t, out.LogIn.Token)
				require.Nil(t, out.LogIn.User)
				require.Len(t, out.LogIn.UserErrors, 1)
				require.Equal(t, "INVALID_CREDENTIALS", out.LogIn.UserErrors[0].Code)
				require.Equal(t, "input.password", out.LogIn.UserErrors[0].Field)
			})
		}
	})
}

func TestSignUpValidationNamesTheFieldAndStoresNothing(t *testing.T) {
	t.Parallel()
	platformtest.Each(t, platformtest.Options{}, func(t *testing.T, s *platformtest.Server) {
		taken := platformtest.UniqueEmail("taken")
		s.NewAPIClient(t, "").SignUp(taken, "correct horse battery", "First")
		cases := []struct {
			desc  string
			input map[string]any
			field string
			code  string
		}{
			{"malformed email", map[string]any{"email": "not-an-email", "password": "correct horse battery", "name": "X"}, "input.email", "INVALID"},
			{"missing email", map[string]any{"email": " ", "password": "correct horse battery", "name": "X"}, "input.email", "REQUIRED"},
			{"short password", map[string]any{"email": platformtest.UniqueEmail("v"), "password": "short", "name": "X"}, "input.password", "TOO_SHORT"},
			{"empty name", map[string]any{"email": platformtest.UniqueEmail("v"), "password": "correct horse battery", "name": ""}, "input.name", "REQUIRED"},
		}
		for _, tc := range cases {
			t.Run(tc.desc, func(t *testing.T) {
				var out struct {
					SignUp struct {
						Token      *string
						User       *struct{ ID string }
						UserErrors []struct{ Field, Code, Message string }
					}
				}
				c := s.NewAPIClient(t, "")
				c.MustDo(&out, platformtest.SignUpMutation, map[string]any{"input": tc.input})
				require.Nil(t, out.SignUp.User)
				require.Nil(t, out.SignUp.Token)
				require.NotEmpty(t, out.SignUp.UserErrors)
				require.Equal(t, tc.field, out.SignUp.UserErrors[0].Field)
				require.Equal(t, tc.code, out.SignUp.UserErrors[0].Code)
				require.NotEmpty(t, out.SignUp.UserErrors[0].Message)
			})
		}
		n, err := s.Platform.DB.NewSelect().Table("users").Count(t.Context())
		require.NoError(t, err)
		require.EqualValues(t, 1, n, "only the first account exists")
	})
}

func TestCSRFCannotDriveACookieAuthenticatedMutation(t *testing.T) {
	t.Parallel()
	platformtest.Each(t, platformtest.Options{}, func(t *testing.T, s *platformtest.Server) {
		spa := s.NewSPAClient(t)
		spa.SignUp(platformtest.UniqueEmail("csrf"), "correct horse battery", "Vic")

		// The same browser cookie, without the header a cross-site page
		// cannot add: the request is anonymous.
		forged := *spa
		forged.AsSPA = false
		var me meData
		forged.MustDo(&me, meQuery, nil)
		require.Nil(t, me.Me, "cookie must be ignored without the CSRF header")
		r := forged.Do(`mutation { markNotificationsRead { updated } }`, nil)
		require.Equal(t, []string{"UNAUTHENTICATED"}, r.Codes())

		// A cross-site HTML form can only send form encodings: refused.
		r = forged.Raw(http.MethodPost, "application/x-www-form-urlencoded", []byte("query=mutation%7BlogOut%7Bok%7D%7D"), "")
		require.GreaterOrEqual(t, r.Status, 400)
		r = forged.Raw(http.MethodPost, "text/plain", []byte(`{"query":"mutation{logOut{ok}}"}`), "")
		require.GreaterOrEqual(t, r.Status, 400)

		var unread struct{ Notifications struct{ UnreadCount int } }
		spa.MustDo(&unread, `query { notifications { unreadCount } }`, nil)
		require.Equal(t, 1, unread.Notifications.UnreadCount, "nothing changed: the welcome is still unread")
		spa.MustDo(&me, meQuery, nil)
		require.NotNil(t, me.Me, "the session survived: the forged logOut did nothing")
	})
}

func TestExpiredAndForgedSessionsAreRefused(t *testing.T) {
	t.Parallel()
	clk := clock.NewManual(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
	platformtest.Each(t, platformtest.Options{Clock: clk}, func(t *testing.T, s *platformtest.Server) {
		forged := s.NewAPIClient(t, "gpx_s_"+strings.Repeat("A", 43))
		r := forged.Do(meQuery, nil)
		require.Equal(t, http.StatusUnauthorized, r.Status)
		require.Equal(t, []string{"UNAUTHENTICATED"}, r.Codes())

		garbage := s.NewAPIClient(t, "not-a-token")
		r = garbage.Do(meQuery, nil)
		require.Equal(t, http.StatusUnauthorized, r.Status)

		// A forged cookie is cleared and the request is anonymous.
		spa := s.NewSPAClient(t)
		spa.Header.Set("Cookie", "gpunex_session=gpx_s_"+strings.Repeat("B", 43))
		r = spa.Do(meQuery, nil)
		require.Empty(t, r.Errors)
		require.Contains(t, r.Header.Get("Set-Cookie"), "Max-Age=0")
	})
	t.Run("expired", func(t *testing.T) {
		t.Parallel()
		clk := clock.NewManual(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
		s := platformtest.Start(t, platformtest.Stacks[0], platformtest.Options{Clock: clk})
		api := s.NewAPIClient(t, "")
		api.SignUp(platformtest.UniqueEmail("exp"), "correct horse battery", "Eve")
		api.MustDo(nil, meQuery, nil)
		clk.Advance(31 * 24 * time.Hour)
		r := api.Do(meQuery, nil)
		require.Equal(t, http.StatusUnauthorized, r.Status)
		require.Equal(t, []string{"UNAUTHENTICATED"}, r.Codes())
		require.Contains(t, r.Errors[0].Message, "expired")
	})
}

// Issue 9, point 9: signUp answers a taken email exactly as a new one (no
// TAKEN, no session), and the address's owner is mailed instead.
func TestSignUpAnswersATakenEmailAsANewOneAndMailsTheOwner(t *testing.T) {
	t.Parallel()
	for _, stack := range platformtest.Stacks {
		t.Run(stack.Name, func(t *testing.T) {
			t.Parallel()
			smtp := platformtest.StartSMTP(t)
			s := platformtest.Start(t, stack, platformtest.Options{SMTPURL: smtp.URL(), PublicURL: "https://gpunex.example"})
			owner := s.NewAPIClient(t, "")
			taken := platformtest.UniqueEmail("owner")
			owner.SignUp(taken, "correct horse battery", "Olga")
			var before meData
			owner.MustDo(&before, meQuery, nil)

			for _, newClient := range []func() *platformtest.Client{
				func() *platformtest.Client { return s.NewAPIClient(t, "") },
				func() *platformtest.Client { return s.NewSPAClient(t) },
			} {
				answer := func(email string) *platformtest.Response {
					r := newClient().Do(platformtest.SignUpMutation, map[string]any{"input": map[string]any{"email": email, "password": "another password", "name": "Mallory"}})
					require.Empty(t, r.Errors)
					require.Equal(t, http.StatusOK, r.Status)
					return r
				}
				fresh, again := answer(platformtest.UniqueEmail("fresh")), answer(strings.ToUpper(taken))
				require.Equal(t, string(fresh.Data), string(again.Data), "the whole payload is the same")
				require.JSONEq(t, `{"signUp":{"token":null,"user":null,"userErrors":[],"confirmationSent":true}}`, string(again.Data))
				require.Equal(t, fresh.Header.Values("Set-Cookie"), again.Header.Values("Set-Cookie"))
			}

			notice := smtp.WaitFor(t, taken, "Someone tried to sign up")
			require.Contains(t, notice.Body, "https://gpunex.example/login")
			require.Contains(t, notice.Body, "Nothing changed")
			require.NotContains(t, notice.Body, "token=")

			var after meData
			owner.MustDo(&after, meQuery, nil)
			require.Equal(t, before, after, "the owner's session and account are as they were")
			var li struct {
				LogIn struct{ UserErrors []struct{ Code string } }
			}
			login := `mutation($e: String!, $p: String!) { logIn(input: {email: $e, password: $p}) { userErrors { code } } }`
			s.NewAPIClient(t, "").MustDo(&li, login, map[string]any{"e": taken, "p": "correct horse battery"})
			require.Empty(t, li.LogIn.UserErrors, "the owner's password still signs in")
			s.NewAPIClient(t, "").MustDo(&li, login, map[string]any{"e": taken, "p": "another password"})
			require.Len(t, li.LogIn.UserErrors, 1, "the sign-up's password does not")
		})
	}
}

func TestTheConfirmationEmailLinkSignsInOnceAndBadTokensNameToken(t *testing.T) {
	t.Parallel()
	smtp := platformtest.StartSMTP(t)
	for _, stack := range platformtest.Stacks {
		t.Run(stack.Name, func(t *testing.T) {
			t.Parallel()
			s := platformtest.Start(t, stack, platformtest.Options{SMTPURL: smtp.URL(), PublicURL: "https://gpunex.example"})
			email := platformtest.UniqueEmail("link")
			api := s.NewAPIClient(t, "")
			api.MustDo(nil, platformtest.SignUpMutation, map[string]any{"input": map[string]any{"email": email, "password": "correct horse battery", "name": "Lin"}})
			m := smtp.WaitFor(t, email, "Confirm your email")
			require.Contains(t, m.Body, "https://gpunex.example/confirm-email?token=gpx_c_")
			token := platformtest.TokenInMail(t, m.Body)

			_, bearer := api.ConfirmEmail(token)
			require.True(t, strings.HasPrefix(bearer, "gpx_s_"), bearer)
			var me meData
			api.MustDo(&me, meQuery, nil)
			require.Equal(t, email, me.Me.Email)
			require.Equal(t, []string{"CUSTOMER"}, me.Me.Roles)

			for _, tc := range []struct{ desc, token string }{
				{desc: "used", token: token},
				{desc: "garbage", token: "garbage"},
				{desc: "well-formed but unknown", token: "gpx_c_" + strings.Repeat("A", 43)},
			} {
				t.Run(tc.desc, func(t *testing.T) {
					r := s.NewAPIClient(t, "").Do(platformtest.ConfirmEmailMutation, map[string]any{"token": tc.token})
					require.Empty(t, r.Errors)
					var out struct {
						ConfirmEmail struct {
							Token      *string
							User       *struct{ ID string }
							UserErrors []struct{ Field, Code string }
						}
					}
					r.Decode(t, &out)
					require.Nil(t, out.ConfirmEmail.Token)
					require.Nil(t, out.ConfirmEmail.User)
					require.Equal(t, []struct{ Field, Code string }{{Field: "token", Code: "INVALID"}}, out.ConfirmEmail.UserErrors)
				})
			}
			n, err := s.Platform.DB.NewSelect().Table("users").Where("email = ?", email).Count(t.Context())
			require.NoError(t, err)
			require.EqualValues(t, 1, n)
		})
	}
}
