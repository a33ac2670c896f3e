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
