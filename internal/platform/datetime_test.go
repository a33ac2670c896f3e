package platform_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/platform/platformtest"
)

// Point 6 of issue 8: a DateTime reads the same, byte for byte, from the
// mutation that made it and from a later query, on both stacks. The clock
// has nanoseconds below the microsecond, as a real one does; PostgreSQL
// keeps microseconds, and so does SQLite as bun writes it.
func TestADateTimeReadsTheSameFromTheMutationAndWhenReadAgain(t *testing.T) {
	t.Parallel()
	clk := clock.NewManual(time.Date(2026, 11, 29, 22, 34, 58, 760052221, time.UTC))
	platformtest.Each(t, platformtest.Options{Clock: clk}, func(t *testing.T, s *platformtest.Server) {
		spa := s.NewSPAClient(t)
		email := platformtest.UniqueEmail("time")
		spa.MustDo(nil, platformtest.SignUpMutation, map[string]any{"input": map[string]any{"email": email, "password": "correct horse battery", "name": "Tim"}})
		r := spa.Do(`mutation($token: String!) { confirmEmail(token: $token) { user { createdAt } userErrors { code } } }`,
			map[string]any{"token": s.ConfirmationToken(t, email)})
		require.Empty(t, r.Errors)
		var signUp struct {
			ConfirmEmail struct {
				User       struct{ CreatedAt json.RawMessage }
				UserErrors []struct{ Code string }
			}
		}
		r.Decode(t, &signUp)
		require.Empty(t, signUp.ConfirmEmail.UserErrors)

		var me struct {
			Me struct{ CreatedAt json.RawMessage }
		}
		spa.MustDo(&me, `query { me { createdAt } }`, nil)

		require.Equal(t, `"2026-11-29T22:34:58.760052Z"`, string(me.Me.CreatedAt), "read again: what the database keeps")
		require.Equal(t, string(me.Me.CreatedAt), string(signUp.ConfirmEmail.User.CreatedAt), "the mutation's answer")
	})
}
