package auth_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/alexedwards/argon2id"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

func TestSignUpRejectsInvalidInputAndStoresNothing(t *testing.T) {
	t.Parallel()
	const (
		okEmail    = "ada@example.com"
		okPassword = "correct horse battery"
		okName     = "Ada Lovelace"
	)
	cases := []struct {
		desc  string
		in    auth.SignUpInput
		field string
		code  string
	}{
		{desc: "missing email", in: auth.SignUpInput{Email: "", Password: okPassword, Name: okName}, field: "input.email", code: "REQUIRED"},
		{desc: "email of spaces only", in: auth.SignUpInput{Email: "   ", Password: okPassword, Name: okName}, field: "input.email", code: "REQUIRED"},
		{desc: "email without @", in: auth.SignUpInput{Email: "ada.example.com", Password: okPassword, Name: okName}, field: "input.email", code: "INVALID"},
		{desc: "email without a dot in the domain", in: auth.SignUpInput{Email: "ada@localhost", Password: okPassword, Name: okName}, field: "input.email", code: "INVALID"},
		{desc: "email with a display name", in: auth.SignUpInput{Email: "Ada <ada@example.com>", Password: okPassword, Name: okName}, field: "input.email", code: "INVALID"},
		{desc: "email of two addresses", in: auth.SignUpInput{Email: "ada@example.com, bob@example.com", Password: okPassword, Name: okName}, field: "input.email", code: "INVALID"},
		{desc: "email over 254 characters", in: auth.SignUpInput{Email: strings.Repeat("a", 243) + "@example.com", Password: okPassword, Name: okName}, field: "input.email", code: "TOO_LONG"},
		{desc: "missing password", in: auth.SignUpInput{Email: okEmail, Password: "", Name: okName}, field: "input.password", code: "REQUIRED"},
		{desc: "password of 9 characters", in: auth.SignUpInput{Email: okEmail, Password: "123456789", Name: okName}, field: "input.password", code: "TOO_SHORT"},
		{desc: "password of 9 characters in 18 bytes counts characters", in: auth.SignUpInput{Email: okEmail, Password: strings.Repeat("é", 9), Name: okName}, field: "input.password", code: "TOO_SHORT"},
		{desc: "password over 256 bytes", in: auth.SignUpInput{Email: okEmail, Password: strings.Repeat("p", auth.MaxPasswordLength+1), Name: okName}, field: "input.password", code: "TOO_LONG"},
		{desc: "password of 200 characters in 400 bytes counts bytes", in: auth.SignUpInput{Email: okEmail, Password: strings.Repeat("é", 200), Name: okName}, field: "input.password", code: "TOO_LONG"},
		{desc: "missing name", in: auth.SignUpInput{Email: okEmail, Password: okPassword, Name: ""}, field: "input.name", code: "REQUIRED"},
		{desc: "name of spaces only", in: auth.SignUpInput{Email: okEmail, Password: okPassword, Name: " \t "}, field: "input.name", code: "REQUIRED"},
		{desc: "name over 100 characters", in: auth.SignUpInput{Email: okEmail, Password: okPassword, Name: strings.Repeat("n", auth.MaxNameLength+1)}, field: "input.name", code: "TOO_LONG"},
		{desc: "name with a NUL byte", in: auth.SignUpInput{Email: okEmail, Password: okPassword, Name: "Ada\x00Lovelace"}, field: "input.name", code: "INVALID"},
		{desc: "name with a tab inside", in: auth.SignUpInput{Email: okEmail, Password: okPassword, Name: "Ada\tLovelace"}, field: "input.name", code: "INVALID"},
		{desc: "name with an escape sequence", in: auth.SignUpInput{Email: okEmail, Password: okPassword, Name: "Ada\x1b[31m"}, field: "input.name", code: "INVALID"},
		{desc: "name with a line break", in: auth.SignUpInput{Email: okEmail, Password: okPassword, Name: "Ada\nLovelace"}, field: "input.name", code: "INVALID"},
		{desc: "name with a Unicode line separator (refused since the shared single-line rule)", in: auth.SignUpInput{Email: okEmail, Password: okPassword, Name: "Ada\u2028Lovelace"}, field: "input.name", code: "INVALID"},
	}
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		for _, tc := range cases {
			t.Run(tc.desc, func(t *testing.T) {
				t.Parallel()
				u, s, err := b.auth.SignUp(b.ctx, tc.in, models.SessionCookie)
				requireProblem(t, err, tc.field, tc.code)
				require.Nil(t, u)
				require.Nil(t, s)
				require.Zero(t, b.count(t, (*models.User)(nil)), "a rejected sign-up stores no user")
				require.Zero(t, b.count(t, (*models.Session)(nil)), "a rejected sign-up stores no session")
			})
		}
	})
}

func TestSignUpReportsEveryBadFieldAtOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		_, _, err := b.auth.SignUp(b.ctx, auth.SignUpInput{Email: "nope", Password: "short", Name: ""}, models.SessionCookie)
		v, ok := fault.AsValidation(err)
		require.True(t, ok, "%v", err)
		var got []string
		for _, p := range v.Problems {
			got = append(got, p.Field+" "+string(p.Code))
		}
		require.Equal(t, []string{"input.email INVALID", "input.password TOO_SHORT", "input.name REQUIRED"}, got)
		require.Zero(t, b.count(t, (*models.User)(nil)))
	})
}

func TestSignUpAcceptsInputAtTheLimits(t *testing.T) {
	t.Parallel()
	// 64 + 1 + 189 = 254 characters.
	longEmail := strings.Repeat("a", 64) + "@" + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 57) + ".com"
	require.Len(t, longEmail, auth.MaxEmailLength)
	cases := []struct {
		desc string
		in   auth.SignUpInput
	}{
		{desc: "email of exactly 254 characters", in: auth.SignUpInput{Email: longEmail, Password: "correct horse battery", Name: "Ada"}},
		{desc: "password of exactly 10 characters", in: auth.SignUpInput{Email: "ten@example.com", Password: "0123456789", Name: "Ada"}},
		{desc: "password of exactly 256 bytes", in: auth.SignUpInput{Email: "max@example.com", Password: strings.Repeat("p", auth.MaxPasswordLength), Name: "Ada"}},
		{desc: "name of exactly 100 characters, multi-byte", in: auth.SignUpInput{Email: "name@example.com", Password: "correct horse battery", Name: strings.Repeat("é", auth.MaxNameLength)}},
	}
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		for _, tc := range cases {
			t.Run(tc.desc, func(t *testing.T) {
				t.Parallel()
				u, s, err := b.auth.SignUp(b.ctx, tc.in, models.SessionBearer)
				require.NoError(t, err)
				require.NotZero(t, u.ID)
				require.NotEmpty(t, s.Token)
			})
		}
	})
}

func TestSignUpNormalisesEmailAndRefusesADuplicateAsTaken(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		u, _, err := b.auth.SignUp(b.ctx, auth.SignUpInput{Email: "  Ada@Example.COM ", Password: "correct horse battery", Name: "  Ada Lovelace  "}, models.SessionCookie)
		require.NoError(t, err)
		require.Equal(t, "ada@example.com", u.Email)
		require.Equal(t, "Ada Lovelace", u.Name, "name is trimmed")

		stored := new(models.User)
		require.NoError(t, db.NewSelect().Model(stored).Where("id = ?", u.ID).Scan(b.ctx))
		require.Equal(t, "ada@example.com", stored.Email)

		cases := []struct {
			desc  string
			email string
		}{
			{desc: "same email", email: "ada@example.com"},
			{desc: "same email in other case", email: "ADA@EXAMPLE.COM"},
			{desc: "same email with spaces around", email: "\tada@example.com  "},
		}
		for _, tc := range cases {
			t.Run(tc.desc, func(t *testing.T) {
				_, _, err := b.auth.SignUp(b.ctx, auth.SignUpInput{Email: tc.email, Password: "another password", Name: "Impostor"}, models.SessionCookie)
				requireProblem(t, err, "input.email", "TAKEN")
				require.Equal(t, 1, b.count(t, (*models.User)(nil)))
				require.Equal(t, 1, b.count(t, (*models.Session)(nil)), "only the first sign-up's session exists")
				require.Equal(t, 1, b.count(t, (*models.UserRole)(nil)), "the refused sign-up left no role behind")
			})
		}
	})
}

func TestConcurrentSignUpsOfOneEmailLetExactlyOneSucceed(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		// Different spellings of one address: the race is decided on the
		// normalised email, by the unique index.
		emails := []string{"Race@Example.com", " race@example.com"}
		errs := make([]error, len(emails))
		ready := make(chan struct{})
		var wg sync.WaitGroup
		for i, email := range emails {
			wg.Go(func() {
				<-ready
				_, _, errs[i] = b.auth.SignUp(b.ctx, auth.SignUpInput{Email: email, Password: "correct horse battery", Name: "Racer"}, models.SessionCookie)
			})
		}
		close(ready)
		wg.Wait()

		var ok, taken int
		for _, err := range errs {
			if err == nil {
				ok++
				continue
			}
			requireProblem(t, err, "input.email", "TAKEN")
			taken++
		}
		require.Equal(t, 1, ok, "exactly one sign-up succeeds: %v", errs)
		require.Equal(t, 1, taken)
		require.Equal(t, 1, b.count(t, (*models.User)(nil)))
		require.Equal(t, 1, b.count(t, (*models.Session)(nil)))
		require.Equal(t, 1, b.count(t, (*models.UserRole)(nil)))
	})
}

func TestSignUpMakesACustomerWithAnArgon2idHashAndASession(t *testing.T) {
	t.Parallel()
	const password = "correct horse battery"
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		u, s, err := b.auth.SignUp(b.ctx, auth.SignUpInput{Email: "ada@example.com", Password: password, Name: "Ada"}, models.SessionBearer)
		require.NoError(t, err)
		require.Equal(t, []models.Role{models.RoleCustomer}, u.Roles)

		roles, err := b.auth.Roles(b.ctx, u.ID)
		require.NoError(t, err)
		require.Equal(t, []models.Role{models.RoleCustomer}, roles, "the stored roles")

		stored := new(models.User)
		require.NoError(t, db.NewSelect().Model(stored).Where("id = ?", u.ID).Scan(b.ctx))
		require.True(t, strings.HasPrefix(stored.PasswordHash, "$argon2id$v=19$m=1024,t=1,p=1$"), "PHC string, got %q", stored.PasswordHash)
		require.NotContains(t, stored.PasswordHash, password)
		require.Equal(t, 1, strings.Count(stored.PasswordHash, "$argon2id$"))
		match, err := argon2id.ComparePasswordAndHash(password, stored.PasswordHash)
		require.NoError(t, err)
		require.True(t, match)
		requireSameInstant(t, start, stored.CreatedAt, "created_at comes from the clock")

		n, err := db.NewSelect().Model((*models.User)(nil)).Where("password_hash = ?", password).Count(b.ctx)
		require.NoError(t, err)
		require.Zero(t, n, "no password is stored in plain text")

		require.True(t, strings.HasPrefix(s.Token, auth.SessionTokenPrefix))
		requireSameInstant(t, start.Add(auth.DefaultSessionTTL), s.ExpiresAt, "the session lasts the TTL")
		row := b.session(t, s.Token)
		require.Equal(t, u.ID, row.UserID)
		require.Equal(t, models.SessionBearer, row.Kind)
	})
}

func TestLogInOpensASessionForTheRightPassword(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		signed, _ := b.signUp(t, "ada@example.com")

		u, s, err := b.auth.LogIn(b.ctx, "  ADA@example.com", "correct horse battery", models.SessionBearer)
		require.NoError(t, err)
		require.Equal(t, signed.ID, u.ID)
		require.Equal(t, []models.Role{models.RoleCustomer}, u.Roles)
		require.Equal(t, models.SessionBearer, b.session(t, s.Token).Kind)
		require.Equal(t, 2, b.count(t, (*models.Session)(nil)), "one session per sign-in")
	})
}

func TestLogInGivesInvalidCredentialsForWrongPasswordAndUnknownEmailAlike(t *testing.T) {
	t.Parallel()
	cases := []struct {
		desc     string
		email    string
		password string
		field    string
		code     string
	}{
		{desc: "wrong password", email: "ada@example.com", password: "wrong horse battery", field: "input.password", code: "INVALID_CREDENTIALS"},
		{desc: "password differing only in case", email: "ada@example.com", password: "Correct horse battery", field: "input.password", code: "INVALID_CREDENTIALS"},
		{desc: "unknown email", email: "nobody@example.com", password: "correct horse battery", field: "input.password", code: "INVALID_CREDENTIALS"},
		{desc: "missing email", email: " ", password: "correct horse battery", field: "input.email", code: "REQUIRED"},
		{desc: "missing password", email: "ada@example.com", password: "", field: "input.password", code: "REQUIRED"},
		{desc: "password over 256 bytes", email: "ada@example.com", password: strings.Repeat("p", auth.MaxPasswordLength+1), field: "input.password", code: "TOO_LONG"},
	}
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		b.signUp(t, "ada@example.com")
		var messages []string
		for _, tc := range cases {
			t.Run(tc.desc, func(t *testing.T) {
				u, s, err := b.auth.LogIn(b.ctx, tc.email, tc.password, models.SessionCookie)
				requireProblem(t, err, tc.field, tc.code)
				require.Nil(t, u)
				require.Nil(t, s)
				require.Equal(t, 1, b.count(t, (*models.Session)(nil)), "a failed sign-in opens no session")
				if tc.code == "INVALID_CREDENTIALS" {
					messages = append(messages, err.Error())
				}
			})
		}
		require.Len(t, messages, 3)
		require.Equal(t, messages[0], messages[2], "an unknown email reads exactly like a wrong password")
	})
}

func TestCreateUserGrantsExtraRolesBesideCustomer(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		u, err := b.auth.CreateUser(b.ctx, auth.SignUpInput{Email: "Root@Example.com", Password: "correct horse battery", Name: "Root"}, models.RoleAdmin)
		require.NoError(t, err)
		require.Equal(t, "root@example.com", u.Email)
		require.Equal(t, []models.Role{models.RoleCustomer, models.RoleAdmin}, u.Roles)
		require.Zero(t, b.count(t, (*models.Session)(nil)), "creating a user opens no session")

		_, s, err := b.auth.LogIn(b.ctx, "root@example.com", "correct horse battery", models.SessionCookie)
		require.NoError(t, err)
		v, err := b.auth.Authenticate(b.ctx, s.Token)
		require.NoError(t, err)
		require.True(t, v.IsAdmin())
		require.Equal(t, []models.Role{models.RoleCustomer, models.RoleAdmin}, v.Roles)

		t.Run("customer named again is granted once", func(t *testing.T) {
			u, err := b.auth.CreateUser(b.ctx, auth.SignUpInput{Email: "twice@example.com", Password: "correct horse battery", Name: "Twice"}, models.RoleCustomer, models.RoleProvider)
			require.NoError(t, err)
			require.Equal(t, []models.Role{models.RoleCustomer, models.RoleProvider}, u.Roles)
			n, err := db.NewSelect().Model((*models.UserRole)(nil)).Where("user_id = ?", u.ID).Count(b.ctx)
			require.NoError(t, err)
			require.EqualValues(t, 2, n)
		})

		t.Run("invalid input names the bare field", func(t *testing.T) {
			_, err := b.auth.CreateUser(b.ctx, auth.SignUpInput{Email: "x@example.com", Password: "correct horse battery", Name: ""}, models.RoleAdmin)
			requireProblem(t, err, "name", "REQUIRED")
		})

		t.Run("a taken email is refused", func(t *testing.T) {
			_, err := b.auth.CreateUser(b.ctx, auth.SignUpInput{Email: "root@example.com", Password: "correct horse battery", Name: "Root"}, models.RoleAdmin)
			requireProblem(t, err, "input.email", "TAKEN")
		})
	})
}

func TestGrantRoleIsIdempotent(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		u, _ := b.signUp(t, "ada@example.com")

		for range 2 {
			require.NoError(t, b.auth.GrantRole(b.ctx, db.DB, u.ID, models.RoleProvider))
		}
		require.NoError(t, b.auth.GrantRole(b.ctx, db.DB, u.ID, models.RoleCustomer), "granting a held role is not an error")
		roles, err := b.auth.Roles(b.ctx, u.ID)
		require.NoError(t, err)
		require.Equal(t, []models.Role{models.RoleCustomer, models.RoleProvider}, roles)
		require.Equal(t, 2, b.count(t, (*models.UserRole)(nil)))

		t.Run("inside a transaction that rolls back", func(t *testing.T) {
			boom := errors.New("boom")
			err := db.InTx(b.ctx, func(ctx context.Context, tx bun.Tx) error {
				require.NoError(t, b.auth.GrantRole(ctx, tx, u.ID, models.RoleAdmin))
				return boom
			})
			require.ErrorIs(t, err, boom)
			roles, err := b.auth.Roles(b.ctx, u.ID)
			require.NoError(t, err)
			require.NotContains(t, roles, models.RoleAdmin)
		})

		t.Run("an unknown role is invalid input", func(t *testing.T) {
			err := b.auth.GrantRole(b.ctx, db.DB, u.ID, models.Role("ROOT"))
			require.Equal(t, fault.Invalid, fault.CodeOf(err))
		})
	})
}

func TestSignUpHooksRunInTheSignUpTransaction(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		t.Run("a hook sees the new user and its roles", func(t *testing.T) {
			b := setup(t, db)
			var seen []models.Role
			b.auth.OnSignUp(func(ctx context.Context, tx bun.Tx, u *models.User) error {
				var rows []models.UserRole
				if err := tx.NewSelect().Model(&rows).Where("user_id = ?", u.ID).Scan(ctx); err != nil {
					return err
				}
				for _, r := range rows {
					seen = append(seen, r.Role)
				}
				return nil
			})
			b.signUp(t, "seen@example.com")
			require.Equal(t, []models.Role{models.RoleCustomer}, seen)
		})

		t.Run("a failing hook rolls the user back", func(t *testing.T) {
			b := setup(t, db)
			boom := errors.New("hook failed")
			var ran []string
			b.auth.OnSignUp(func(ctx context.Context, tx bun.Tx, u *models.User) error {
				ran = append(ran, "first")
				return nil
			})
			b.auth.OnSignUp(func(ctx context.Context, tx bun.Tx, u *models.User) error {
				ran = append(ran, "second")
				return boom
			})
			b.auth.OnSignUp(func(ctx context.Context, tx bun.Tx, u *models.User) error {
				ran = append(ran, "third")
				return nil
			})
			u, s, err := b.auth.SignUp(b.ctx, auth.SignUpInput{Email: "rollback@example.com", Password: "correct horse battery", Name: "Ada"}, models.SessionCookie)
			require.ErrorIs(t, err, boom)
			require.Nil(t, u)
			require.Nil(t, s)
			require.Equal(t, []string{"first", "second"}, ran, "hooks run in order and stop at the first error")

			_, err = b.auth.UserByEmail(b.ctx, "rollback@example.com")
			require.Equal(t, fault.NotFound, fault.CodeOf(err), "the user was rolled back")
			n, err := db.NewSelect().Model((*models.UserRole)(nil)).
				Where("user_id NOT IN (?)", db.NewSelect().Model((*models.User)(nil)).Column("id")).Count(b.ctx)
			require.NoError(t, err)
			require.Zero(t, n, "no orphan roles")
			_, _, err = b.auth.LogIn(b.ctx, "rollback@example.com", "correct horse battery", models.SessionCookie)
			requireProblem(t, err, "input.password", "INVALID_CREDENTIALS")
		})
	})
}

func TestUserByEmailFindsNormalisedEmail(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		want, _ := b.signUp(t, "ada@example.com")
		got, err := b.auth.UserByEmail(b.ctx, " ADA@example.COM")
		require.NoError(t, err)
		require.Equal(t, want.ID, got.ID)

		_, err = b.auth.UserByEmail(b.ctx, "nobody@example.com")
		require.Equal(t, fault.NotFound, fault.CodeOf(err))
	})
}
