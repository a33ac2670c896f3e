package auth_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/auth/authtest"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

const signUpPassword = "correct horse battery"

// requestSignUp starts a public sign-up, failing the test on error.
func (b *bundle) requestSignUp(t *testing.T, email, password, name string) {
	t.Helper()
	require.NoError(t, b.auth.RequestSignUp(b.ctx, auth.SignUpRequest{SignUpInput: auth.SignUpInput{Email: email, Password: password, Name: name}}))
}

// mails returns the outbox rows to email, oldest first.
func (b *bundle) mails(t *testing.T, email string) []models.OutboxEmail {
	t.Helper()
	var rows []models.OutboxEmail
	require.NoError(t, b.db.NewSelect().Model(&rows).Where("to_address = ?", email).OrderExpr("id").Scan(b.ctx))
	return rows
}

// confirmationToken reads the token of the newest confirmation email to
// email, as the person would from the link.
func (b *bundle) confirmationToken(t *testing.T, email string) string {
	t.Helper()
	rows := b.mails(t, email)
	for i := len(rows) - 1; i >= 0; i-- {
		if rows[i].Kind == auth.MailKindConfirmEmail {
			body := rows[i].TextBody
			at := strings.Index(body, publicURL+auth.ConfirmEmailPath+"?token=")
			require.GreaterOrEqual(t, at, 0, "the link: %s", body)
			token, _, _ := strings.Cut(body[at+len(publicURL+auth.ConfirmEmailPath+"?token="):], "\n")
			return token
		}
	}
	require.FailNow(t, "no confirmation email", "to %s", email)
	return ""
}

// requireInvalidToken asserts err is the one answer to a token that
// creates no account.
func requireInvalidToken(t *testing.T, err error) {
	t.Helper()
	requireProblem(t, err, "token", string(fault.InvalidValue))
}

// Issue 9, point 9: signUp does not tell whether an email has an account.
func TestSignUpAnswersTheSameForANewAndATakenEmailAfterTheSameWork(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		b.signUp(t, "ada@example.com")
		for _, email := range []string{"new@example.com", "ADA@example.com"} {
			checks := b.auth.PasswordChecks()
			err := b.auth.RequestSignUp(b.ctx, auth.SignUpRequest{SignUpInput: auth.SignUpInput{Email: email, Password: "another password", Name: "Someone"}})
			require.NoError(t, err, email)
			require.Equal(t, checks+1, b.auth.PasswordChecks(), "%s: the password is hashed either way", email)
			require.Len(t, b.mails(t, auth.NormalizeEmail(email)), 1, "%s: the address is mailed either way", email)
		}
	})
}

func TestSignUpOfATakenEmailMailsTheOwnerAndChangesNothingElse(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		owner, _ := b.signUp(t, "ada@example.com")
		before := new(models.User)
		require.NoError(t, db.NewSelect().Model(before).Where("id = ?", owner.ID).Scan(b.ctx))
		b.clock.Advance(time.Hour)

		b.requestSignUp(t, " Ada@Example.com", "an impostor's password", "Impostor")

		after := new(models.User)
		require.NoError(t, db.NewSelect().Model(after).Where("id = ?", owner.ID).Scan(b.ctx))
		require.Equal(t, before, after, "the account is unchanged, password hash included")
		require.Equal(t, 1, b.count(t, (*models.User)(nil)))
		require.Equal(t, 1, b.count(t, (*models.Session)(nil)), "no session opened")
		require.Zero(t, b.count(t, (*models.PendingSignUp)(nil)), "no pending sign-up for a taken email")
		_, _, err := b.auth.LogIn(b.ctx, "ada@example.com", signUpPassword, models.SessionBearer)
		require.NoError(t, err, "the owner's password still works")
		_, _, err = b.auth.LogIn(b.ctx, "ada@example.com", "an impostor's password", models.SessionBearer)
		requireProblem(t, err, "input.password", "INVALID_CREDENTIALS")

		mails := b.mails(t, "ada@example.com")
		require.Len(t, mails, 1)
		require.Equal(t, auth.MailKindSignUpExisting, mails[0].Kind)
		require.Contains(t, mails[0].TextBody, "Hello Ada Lovelace,", "addressed by the owner's own name")
		require.Contains(t, mails[0].TextBody, publicURL+"/login")
		require.Contains(t, mails[0].TextBody, "Nothing changed")
		require.NotContains(t, mails[0].TextBody, "token=", "no link that could create anything")
	})
}

func TestConfirmEmailCreatesTheAccountAndASessionOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		var hooked []string
		b.auth.OnSignUp(func(_ context.Context, _ bun.Tx, u *models.User) error {
			hooked = append(hooked, u.Email)
			return nil
		})
		b.requestSignUp(t, "  Grace@Example.com ", signUpPassword, "  Grace Hopper ")
		require.Zero(t, b.count(t, (*models.User)(nil)), "no account before the link comes back")
		_, _, err := b.auth.LogIn(b.ctx, "grace@example.com", signUpPassword, models.SessionBearer)
		requireProblem(t, err, "input.password", "INVALID_CREDENTIALS")

		mails := b.mails(t, "grace@example.com")
		require.Len(t, mails, 1)
		require.Equal(t, auth.MailKindConfirmEmail, mails[0].Kind)
		require.Contains(t, mails[0].TextBody, "Hello Grace Hopper,")
		token := b.confirmationToken(t, "grace@example.com")
		require.True(t, strings.HasPrefix(token, auth.SignUpTokenPrefix), token)

		u, s, err := b.auth.ConfirmEmail(b.ctx, token, models.SessionCookie)
		require.NoError(t, err)
		require.Equal(t, "grace@example.com", u.Email)
		require.Equal(t, "Grace Hopper", u.Name)
		require.Equal(t, []models.Role{models.RoleCustomer}, u.Roles)
		require.Equal(t, []string{"grace@example.com"}, hooked, "the sign-up hooks ran")
		require.Equal(t, models.SessionCookie, b.session(t, s.Token).Kind)
		v, err := b.auth.Authenticate(b.ctx, s.Token)
		require.NoError(t, err)
		require.Equal(t, u.ID, v.User.ID, "the session is the new user's")
		_, _, err = b.auth.LogIn(b.ctx, "grace@example.com", signUpPassword, models.SessionBearer)
		require.NoError(t, err, "the password given at signUp signs in")
		require.Zero(t, b.count(t, (*models.PendingSignUp)(nil)), "the sign-up is consumed")

		_, _, err = b.auth.ConfirmEmail(b.ctx, token, models.SessionCookie)
		requireInvalidToken(t, err)
		require.Equal(t, 1, b.count(t, (*models.User)(nil)))
		require.Equal(t, 2, b.count(t, (*models.Session)(nil)), "the confirmation's and the log-in's, no more")
		require.Len(t, hooked, 1)
	})
}

func TestConfirmEmailRefusesEveryTokenThatIsNotALiveOneNamingToken(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		b.requestSignUp(t, "late@example.com", signUpPassword, "Late")
		live := b.confirmationToken(t, "late@example.com")
		cases := []struct{ desc, token string }{
			{desc: "empty", token: ""},
			{desc: "garbage", token: "garbage"},
			{desc: "a session token's prefix", token: "gpx_s_" + live[len(auth.SignUpTokenPrefix):]},
			{desc: "truncated", token: live[:len(live)-1]},
			{desc: "well-formed but unknown", token: auth.SignUpTokenPrefix + strings.Repeat("A", 43)},
			{desc: "with a NUL byte", token: live[:10] + "\x00" + live[11:]},
		}
		for _, tc := range cases {
			_, _, err := b.auth.ConfirmEmail(b.ctx, tc.token, models.SessionBearer)
			requireInvalidToken(t, err)
		}

		b.clock.Advance(auth.SignUpTokenTTL)
		_, _, err := b.auth.ConfirmEmail(b.ctx, live, models.SessionBearer)
		requireInvalidToken(t, err)
		require.Zero(t, b.count(t, (*models.User)(nil)), "no refused token made an account")
		require.Zero(t, b.count(t, (*models.Session)(nil)))

		require.Equal(t, 1, countPending(t, b, "late@example.com"), "an expired sign-up is refused, not consumed")
		b.requestSignUp(t, "other@example.com", signUpPassword, "Other")
		require.Zero(t, countPending(t, b, "late@example.com"), "the next sign-up forgets expired ones")
	})
}

// countPending counts the pending sign-ups of email.
func countPending(t *testing.T, b *bundle, email string) int {
	t.Helper()
	n, err := b.db.NewSelect().Model((*models.PendingSignUp)(nil)).Where("email = ?", email).Count(b.ctx)
	require.NoError(t, err)
	return int(n)
}

func TestConfirmEmailOfAnEmailThatGotAnAccountMeanwhileChangesNothing(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		b.requestSignUp(t, "twice@example.com", "the first password", "First")
		token := b.confirmationToken(t, "twice@example.com")
		_, err := b.auth.CreateUser(b.ctx, auth.SignUpInput{Email: "twice@example.com", Password: signUpPassword, Name: "Operator-made"})
		require.NoError(t, err)

		_, _, err = b.auth.ConfirmEmail(b.ctx, token, models.SessionBearer)
		requireInvalidToken(t, err)
		u, err := b.auth.UserByEmail(b.ctx, "twice@example.com")
		require.NoError(t, err)
		require.Equal(t, "Operator-made", u.Name, "the existing account is untouched")
		require.Equal(t, 1, b.count(t, (*models.User)(nil)))
		require.Zero(t, b.count(t, (*models.Session)(nil)))
		require.Equal(t, 1, countPending(t, b, "twice@example.com"), "nothing consumed")
	})
}

func TestConfirmingOneSignUpOfAnAddressConsumesItsOthers(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		b.requestSignUp(t, "twin@example.com", signUpPassword, "Twin")
		first := b.confirmationToken(t, "twin@example.com")
		b.requestSignUp(t, "twin@example.com", signUpPassword, "Twin")
		second := b.confirmationToken(t, "twin@example.com")
		require.NotEqual(t, first, second, "every sign-up has its own token")

		_, _, err := b.auth.ConfirmEmail(b.ctx, second, models.SessionBearer)
		require.NoError(t, err)
		_, _, err = b.auth.ConfirmEmail(b.ctx, first, models.SessionBearer)
		requireInvalidToken(t, err)
		require.Zero(t, b.count(t, (*models.PendingSignUp)(nil)))
	})
}

func TestThePendingSignUpHoldsOnlyTheTokensHashAndAnArgon2idHash(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		b.requestSignUp(t, "hash@example.com", signUpPassword, "Hash")
		token := b.confirmationToken(t, "hash@example.com")

		var rows []models.PendingSignUp
		require.NoError(t, db.NewSelect().Model(&rows).Scan(b.ctx))
		require.Len(t, rows, 1)
		p := rows[0]
		require.Equal(t, auth.HashToken(token), p.TokenHash, "the SHA-256 of the token")
		require.True(t, strings.HasPrefix(p.PasswordHash, "$argon2id$"), p.PasswordHash)
		require.True(t, p.ExpiresAt.Equal(start.Add(auth.SignUpTokenTTL)), "expires 24h after: %v", p.ExpiresAt)
		var all []map[string]any
		require.NoError(t, db.NewSelect().Table("pending_signups").Scan(b.ctx, &all))
		for _, row := range all {
			for col, v := range row {
				require.NotContains(t, stringOf(v), token[len(auth.SignUpTokenPrefix):], "column %s holds the token in clear", col)
				require.NotContains(t, stringOf(v), signUpPassword, "column %s holds the password in clear", col)
			}
		}
	})
}

func stringOf(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []byte:
		return string(v)
	default:
		return ""
	}
}

func TestRequestSignUpValidatesAsSignUpAndStoresAndMailsNothing(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		for _, tc := range []struct {
			desc, field, code string
			in                auth.SignUpInput
		}{
			{desc: "malformed email", field: "input.email", code: "INVALID", in: auth.SignUpInput{Email: "nope", Password: signUpPassword, Name: "Ada"}},
			{desc: "short password", field: "input.password", code: "TOO_SHORT", in: auth.SignUpInput{Email: "ada@example.com", Password: "short", Name: "Ada"}},
			{desc: "empty name", field: "input.name", code: "REQUIRED", in: auth.SignUpInput{Email: "ada@example.com", Password: signUpPassword, Name: " "}},
		} {
			err := b.auth.RequestSignUp(b.ctx, auth.SignUpRequest{SignUpInput: tc.in})
			requireProblem(t, err, tc.field, tc.code)
		}
		require.Zero(t, b.count(t, (*models.PendingSignUp)(nil)))
		require.Zero(t, b.count(t, (*models.OutboxEmail)(nil)))
	})
}

func TestRequestSignUpKeepsThePerAddressLimit(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		ctx := auth.WithClientAddr(b.ctx, "203.0.113.7")
		for i := range auth.DefaultLimits.SignUps {
			require.NoError(t, b.auth.RequestSignUp(ctx, auth.SignUpRequest{SignUpInput: auth.SignUpInput{Email: "many@example.com", Password: signUpPassword, Name: "Many"}}), "sign-up %d", i+1)
		}
		err := b.auth.RequestSignUp(ctx, auth.SignUpRequest{SignUpInput: auth.SignUpInput{Email: "many@example.com", Password: signUpPassword, Name: "Many"}})
		require.Equal(t, fault.RateLimited, fault.CodeOf(err), "%v", err)
	})
}

func TestRequestSignUpWithoutSignUpMailFails(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		bare := auth.New(auth.Deps{DB: db, Clock: b.clock, Logger: slog.New(slog.DiscardHandler)}, auth.Config{PasswordParams: authtest.Params})
		err := bare.RequestSignUp(b.ctx, auth.SignUpRequest{SignUpInput: auth.SignUpInput{Email: "x@example.com", Password: signUpPassword, Name: "X"}})
		require.Error(t, err)
		require.Equal(t, fault.Internal, fault.CodeOf(err))
	})
}
