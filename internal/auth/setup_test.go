package auth_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/auth/authtest"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/fault/faulttest"
	"github.com/gpunex/gpunex/internal/mail"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// start is the instant every test clock starts at.
var start = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

// bundle is what a test of the account service works with.
type bundle struct {
	ctx   context.Context
	db    *store.DB
	clock *clock.Manual
	auth  *auth.Service
}

// setup returns an account service over db with a manual clock at start.
func setup(t *testing.T, db *store.DB, cfg ...auth.Config) *bundle {
	t.Helper()
	clk := clock.NewManual(start)
	c := auth.Config{PasswordParams: authtest.Params}
	if len(cfg) > 0 {
		c = cfg[0]
		c.PasswordParams = authtest.Params
	}
	svc := auth.New(auth.Deps{DB: db, Clock: clk, Logger: slog.New(slog.DiscardHandler)}, c)
	svc.UseSignUpMail(auth.SignUpMail{Outbox: mail.NewOutbox(clk, nil), PublicURL: func() string { return publicURL }})
	return &bundle{
		ctx:   t.Context(),
		db:    db,
		clock: clk,
		auth:  svc,
	}
}

// publicURL is the platform's address in the tests' emails.
const publicURL = "https://gpunex.example"

// signUp creates a customer with a cookie session, failing the test on error.
func (b *bundle) signUp(t *testing.T, email string) (*models.User, *auth.Session) {
	t.Helper()
	u, s, err := b.auth.SignUp(b.ctx, auth.SignUpInput{Email: email, Password: "correct horse battery", Name: "Ada Lovelace"}, models.SessionCookie)
	require.NoError(t, err)
	return u, s
}

// count returns the number of rows of model's table.
func (b *bundle) count(t *testing.T, model any) int {
	t.Helper()
	n, err := b.db.NewSelect().Model(model).Count(b.ctx)
	require.NoError(t, err)
	return int(n)
}

// session loads the stored session of token.
func (b *bundle) session(t *testing.T, token string) *models.Session {
	t.Helper()
	s := new(models.Session)
	require.NoError(t, b.db.NewSelect().Model(s).Where("token_hash = ?", auth.HashToken(token)).Scan(b.ctx))
	return s
}

// requireProblem asserts err is a validation error with exactly one problem,
// on field with code.
func requireProblem(t *testing.T, err error, field, code string) {
	t.Helper()
	faulttest.RequireProblem(t, err, field, fault.ProblemCode(code))
}

// requireSameInstant compares times by instant, whatever zone the
// database hands them back in.
func requireSameInstant(t *testing.T, want, got time.Time, msg string) {
	t.Helper()
	require.True(t, want.Equal(got), "%s: want %v, got %v", msg, want, got)
}
