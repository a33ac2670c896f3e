package platform_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/platform/platformtest"
)

// aliasedLogIns is one mutation of n logIn fields, each under its own
// alias, all with the right password.
func aliasedLogIns(n int, email string) string {
	var b strings.Builder
	b.WriteString("mutation {")
	for i := range n {
		fmt.Fprintf(&b, ` l%d: logIn(input: {email: %q, password: "correct horse battery"}) { user { id } userErrors { code } }`, i, email)
	}
	b.WriteString(" }")
	return b.String()
}

// Point 2 of issue 9, end to end: an alias batch of logIn fields is
// refused before any password is checked (the account service counts the
// argon2id runs it begins), and a single logIn still signs in. The batch
// of 500 is refused already by the alias cap of point 1
// (COMPLEXITY_LIMIT_EXCEEDED); the batch of 2 by the sign-in limit
// (BAD_REQUEST).
func TestAliasedLogInBatchIsRefusedWithoutCheckingAPassword(t *testing.T) {
	t.Parallel()
	platformtest.Each(t, platformtest.Options{}, func(t *testing.T, s *platformtest.Server) {
		client := s.NewAPIClient(t, "")
		email := platformtest.UniqueEmail("batch")
		client.SignUp(email, "correct horse battery", "Ada")
		checks := s.Platform.Auth.PasswordChecks()
		for _, tc := range []struct {
			n    int
			code string
		}{
			{n: 2, code: "BAD_REQUEST"},
			{n: 500, code: "COMPLEXITY_LIMIT_EXCEEDED"},
		} {
			r := client.Do(aliasedLogIns(tc.n, email), nil)
			require.Equal(t, []string{tc.code}, r.Codes(), "a batch of %d", tc.n)
			require.True(t, len(r.Data) == 0 || string(r.Data) == "null", "nothing resolved: %s", r.Data)
			require.Equal(t, checks, s.Platform.Auth.PasswordChecks(), "no password checked for a batch of %d", tc.n)
		}

		r := client.Do(aliasedLogIns(1, email), nil)
		require.Empty(t, r.Errors)
		require.Contains(t, string(r.Data), `"user":{"id"`, "a single logIn signs in")
		require.Equal(t, checks+1, s.Platform.Auth.PasswordChecks(), "a single logIn checks one password")
	})
}

// Point 2 of issue 9 across replicas: the attempt limits live in Redis
// when the platform runs on it, so guessing a password through replica B
// counts the failures made through replica A, and the account is locked
// on both (even for the right password).
func TestWrongPasswordsCountAcrossReplicas(t *testing.T) {
	t.Parallel()
	stack := platformtest.Stacks[1]
	a := platformtest.Start(t, stack, platformtest.Options{})
	b := platformtest.Start(t, stack, platformtest.Options{DatabaseURL: a.DatabaseURL, RedisURL: a.RedisURL, RedisPrefix: a.RedisPrefix})
	email := platformtest.UniqueEmail("replicas")
	a.NewAPIClient(t, "").SignUp(email, "correct horse battery", "Ada")
	logIn := func(s *platformtest.Server, password string) *platformtest.Response {
		return s.NewAPIClient(t, "").Do(`mutation($i: LogInInput!) { logIn(input: $i) { user { id } userErrors { code } } }`,
			map[string]any{"i": map[string]any{"email": email, "password": password}})
	}
	for i := range 10 {
		s := a
		if i%2 == 1 {
			s = b
		}
		r := logIn(s, "wrong horse battery")
		require.Empty(t, r.Errors, "failure %d is a user error, not yet a limit", i+1)
		require.Contains(t, string(r.Data), "INVALID_CREDENTIALS")
	}
	for name, s := range map[string]*platformtest.Server{"A": a, "B": b} {
		r := logIn(s, "correct horse battery")
		require.Equal(t, []string{"RATE_LIMITED"}, r.Codes(), "replica %s refuses the 11th attempt, the right password included", name)
	}
}
