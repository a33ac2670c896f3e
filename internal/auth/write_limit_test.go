package auth_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/models"
)

// Point 5 of issue 9: writes are limited per user, sixty a minute by
// default, an operation's mutations counted together; other users and
// addresses have their own counts; agents (bounded by the fleet) and the
// operator's CLI (no caller) are not counted; after the window the user
// may write again.
func TestWritesAreLimitedPerCaller(t *testing.T) {
	t.Parallel()
	eachAttemptStore(t, func(t *testing.T, l *limited) {
		user := func(id int64) context.Context {
			return auth.WithViewer(auth.WithClientAddr(l.ctx, "203.0.113.7"), &auth.Viewer{User: &models.User{ID: id}})
		}
		ada, bob := user(1), user(2)
		require.NoError(t, l.auth.AllowWrites(ada, 59), "59 in one operation")
		require.NoError(t, l.auth.AllowWrites(ada, 1), "the 60th")
		requireLimited(t, l.auth.AllowWrites(ada, 1), "the 61st in a minute")
		require.NoError(t, l.auth.AllowWrites(bob, 60), "another user at the same address")
		requireLimited(t, l.auth.AllowWrites(bob, 1), "bob's 61st")

		anon := auth.WithClientAddr(l.ctx, "203.0.113.7")
		require.NoError(t, l.auth.AllowWrites(anon, 60), "signed out, the address counts on its own")
		requireLimited(t, l.auth.AllowWrites(anon, 1), "the address's 61st")
		require.NoError(t, l.auth.AllowWrites(l.ctx, 1000), "no caller: the operator's own tools")
		// An agent's registrations and heartbeats are bounded by the fleet
		// (per token and per machine), not here, even from an address
		// that is over this limit: a hundred machines restarting on one
		// token register at once.
		agent := auth.WithAgent(auth.WithClientAddr(l.ctx, "203.0.113.7"), &auth.Agent{TokenID: 1, ProviderID: 1})
		require.NoError(t, l.auth.AllowWrites(agent, 1000), "an agent token")

		fresh := user(3)
		requireLimited(t, l.auth.AllowWrites(fresh, 61), "one operation of 61 is refused whole")
		l.advance(time.Minute)
		require.NoError(t, l.auth.AllowWrites(ada, 60), "the next minute")
		require.NoError(t, l.auth.AllowWrites(fresh, 1), "the next minute, after a refused operation")
	})
}
