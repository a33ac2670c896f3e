package auth_test

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// forgedToken has the shape of a session token but was never issued.
func forgedToken(t *testing.T) string {
	t.Helper()
	b := make([]byte, 32)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return auth.SessionTokenPrefix + base64.RawURLEncoding.EncodeToString(b)
}

func TestAuthenticateResolvesATokenToItsViewerWithRoles(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		u, s := b.signUp(t, "ada@example.com")
		require.NoError(t, b.auth.GrantRole(b.ctx, db.DB, u.ID, models.RoleProvider))

		v, err := b.auth.Authenticate(b.ctx, s.Token)
		require.NoError(t, err)
		require.Equal(t, u.ID, v.User.ID)
		require.Equal(t, "ada@example.com", v.User.Email)
		require.Equal(t, []models.Role{models.RoleCustomer, models.RoleProvider}, v.Roles)
		require.Equal(t, v.Roles, v.User.Roles)
		require.Equal(t, b.session(t, s.Token).ID, v.SessionID)
		require.Equal(t, models.SessionCookie, v.SessionKind)
		require.True(t, v.Has(models.RoleProvider))
		require.False(t, v.IsAdmin())
	})
}

func TestSessionTokensAreFreshAndWellFormed(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		b.signUp(t, "ada@example.com")
		seen := map[string]bool{}
		for range 5 {
			_, s, err := b.auth.LogIn(b.ctx, "ada@example.com", "correct horse battery", models.SessionBearer)
			require.NoError(t, err)
			require.True(t, strings.HasPrefix(s.Token, auth.SessionTokenPrefix), s.Token)
			raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(s.Token, auth.SessionTokenPrefix))
			require.NoError(t, err)
			require.Len(t, raw, 32, "256 random bits")
			require.False(t, seen[s.Token], "tokens never repeat")
			seen[s.Token] = true
		}
	})
}

func TestAuthenticateRefusesInvalidTokensAsUnauthenticated(t *testing.T) {
	t.Parallel()
	cases := []struct {
		desc string
		// token returns the token to present, given a freshly signed-up
		// user's token and the test bundle.
		token func(t *testing.T, b *bundle, issued string) string
	}{
		{desc: "forged token with the right prefix", token: func(t *testing.T, _ *bundle, _ string) string { return forgedToken(t) }},
		{desc: "issued token with its first character changed", token: func(t *testing.T, _ *bundle, issued string) string {
			i := len(auth.SessionTokenPrefix)
			swap := "A"
			if issued[i] == 'A' {
				swap = "B"
			}
			return issued[:i] + swap + issued[i+1:]
		}},
		{desc: "empty token", token: func(*testing.T, *bundle, string) string { return "" }},
		{desc: "prefix only", token: func(*testing.T, *bundle, string) string { return auth.SessionTokenPrefix }},
		{desc: "issued token without its prefix", token: func(_ *testing.T, _ *bundle, issued string) string {
			return strings.TrimPrefix(issued, auth.SessionTokenPrefix)
		}},
		{desc: "issued token under another prefix", token: func(_ *testing.T, _ *bundle, issued string) string {
			return "gpx_k_" + strings.TrimPrefix(issued, auth.SessionTokenPrefix)
		}},
		{desc: "issued token with a character appended", token: func(_ *testing.T, _ *bundle, issued string) string { return issued + "A" }},
		{desc: "issued token truncated", token: func(_ *testing.T, _ *bundle, issued string) string { return issued[:len(issued)-1] }},
		{desc: "right length but not base64url", token: func(*testing.T, *bundle, string) string {
			return auth.SessionTokenPrefix + strings.Repeat("!", 43)
		}},
		{desc: "the stored hash presented as the token", token: func(_ *testing.T, _ *bundle, issued string) string { return auth.HashToken(issued) }},
		{desc: "token of a logged-out session", token: func(t *testing.T, b *bundle, issued string) string {
			ended, err := b.auth.LogOut(b.ctx, issued)
			require.NoError(t, err)
			require.True(t, ended)
			return issued
		}},
		{desc: "token of a session ended by id", token: func(t *testing.T, b *bundle, issued string) string {
			v, err := b.auth.Authenticate(b.ctx, issued)
			require.NoError(t, err)
			ended, err := b.auth.EndSession(b.ctx, v.SessionID)
			require.NoError(t, err)
			require.True(t, ended)
			return issued
		}},
		{desc: "session unused for exactly the TTL", token: func(_ *testing.T, b *bundle, issued string) string {
			b.clock.Advance(auth.DefaultSessionTTL)
			return issued
		}},
		{desc: "session unused for longer than the TTL", token: func(_ *testing.T, b *bundle, issued string) string {
			b.clock.Advance(auth.DefaultSessionTTL + time.Minute)
			return issued
		}},
	}
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		for i, tc := range cases {
			t.Run(tc.desc, func(t *testing.T) {
				t.Parallel()
				b := setup(t, db)
				u, s := b.signUp(t, "user"+string(rune('a'+i))+"@example.com")
				token := tc.token(t, b, s.Token)

				v, err := b.auth.Authenticate(b.ctx, token)
				require.Error(t, err)
				require.Nil(t, v)
				require.Equal(t, fault.Unauthenticated, fault.CodeOf(err), "%v", err)

				// The user's account itself is untouched.
				_, _, err = b.auth.LogIn(b.ctx, u.Email, "correct horse battery", models.SessionCookie)
				require.NoError(t, err)
			})
		}
	})
}

func TestShorterSessionTTLIsHonoured(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db, auth.Config{SessionTTL: 2 * time.Hour})
		require.Equal(t, 2*time.Hour, b.auth.SessionTTL())
		_, s := b.signUp(t, "ada@example.com")
		requireSameInstant(t, start.Add(2*time.Hour), s.ExpiresAt, "expiry of the new session")

		b.clock.Advance(2*time.Hour - time.Second)
		_, err := b.auth.Authenticate(b.ctx, s.Token)
		require.NoError(t, err, "valid a second before the end")

		// That use slid the expiry to start+4h-1s.
		b.clock.Advance(2*time.Hour - time.Second)
		_, err = b.auth.Authenticate(b.ctx, s.Token)
		require.NoError(t, err, "valid just before the slid expiry")
	})
}

func TestUseSlidesSessionExpiryAtMostOncePerHour(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		_, s := b.signUp(t, "ada@example.com")
		ttl := auth.DefaultSessionTTL

		steps := []struct {
			desc        string
			advance     time.Duration
			wantUsed    time.Time
			wantExpires time.Time
		}{
			{desc: "use within the first hour writes nothing", advance: 30 * time.Minute, wantUsed: start, wantExpires: start.Add(ttl)},
			{desc: "use at 59m59s still writes nothing", advance: 29*time.Minute + 59*time.Second, wantUsed: start, wantExpires: start.Add(ttl)},
			{desc: "use after 2h moves last use and expiry", advance: time.Hour + time.Second, wantUsed: start.Add(2 * time.Hour), wantExpires: start.Add(2*time.Hour + ttl)},
			{desc: "use 59m later writes nothing", advance: 59 * time.Minute, wantUsed: start.Add(2 * time.Hour), wantExpires: start.Add(2*time.Hour + ttl)},
			{desc: "use exactly an hour after the last write moves them again", advance: time.Minute, wantUsed: start.Add(3 * time.Hour), wantExpires: start.Add(3*time.Hour + ttl)},
			{desc: "use past the first expiry is still valid, then slides", advance: ttl - time.Hour, wantUsed: start.Add(2*time.Hour + ttl), wantExpires: start.Add(2*time.Hour + 2*ttl)},
		}
		for _, step := range steps {
			b.clock.Advance(step.advance)
			v, err := b.auth.Authenticate(b.ctx, s.Token)
			require.NoError(t, err, step.desc)
			require.NotNil(t, v)
			row := b.session(t, s.Token)
			requireSameInstant(t, step.wantUsed, row.LastUsedAt, step.desc+": last_used_at")
			requireSameInstant(t, step.wantExpires, row.ExpiresAt, step.desc+": expires_at")
			requireSameInstant(t, start, row.CreatedAt, step.desc+": created_at never moves")
		}

		b.clock.Set(start.Add(2*time.Hour + 2*ttl))
		_, err := b.auth.Authenticate(b.ctx, s.Token)
		require.Equal(t, fault.Unauthenticated, fault.CodeOf(err), "expired at the slid expiry")
	})
}

func TestDatabaseStoresOnlyTheSHA256OfTheToken(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		_, s := b.signUp(t, "ada@example.com")

		sum := sha256.Sum256([]byte(s.Token))
		require.Equal(t, hex.EncodeToString(sum[:]), auth.HashToken(s.Token), "HashToken is the hex SHA-256")

		n, err := db.NewSelect().Model((*models.Session)(nil)).Where("token_hash = ?", s.Token).Count(b.ctx)
		require.NoError(t, err)
		require.Zero(t, n, "the token itself is not stored")
		n, err = db.NewSelect().Model((*models.Session)(nil)).Where("token_hash = ?", auth.HashToken(s.Token)).Count(b.ctx)
		require.NoError(t, err)
		require.EqualValues(t, 1, n, "its SHA-256 is")

		var rows []models.Session
		require.NoError(t, db.NewSelect().Model(&rows).Scan(b.ctx))
		for _, r := range rows {
			require.NotContains(t, r.TokenHash, strings.TrimPrefix(s.Token, auth.SessionTokenPrefix))
			require.Len(t, r.TokenHash, 64)
		}
	})
}

func TestLogOutEndsOnlyThatSession(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		_, first := b.signUp(t, "ada@example.com")
		_, second, err := b.auth.LogIn(b.ctx, "ada@example.com", "correct horse battery", models.SessionBearer)
		require.NoError(t, err)

		ended, err := b.auth.LogOut(b.ctx, first.Token)
		require.NoError(t, err)
		require.True(t, ended)
		ended, err = b.auth.LogOut(b.ctx, first.Token)
		require.NoError(t, err)
		require.False(t, ended, "logging out twice ends nothing the second time")

		_, err = b.auth.Authenticate(b.ctx, first.Token)
		require.Equal(t, fault.Unauthenticated, fault.CodeOf(err))
		_, err = b.auth.Authenticate(b.ctx, second.Token)
		require.NoError(t, err, "the user's other session lives on")

		cases := []struct {
			desc  string
			token string
		}{
			{desc: "malformed token", token: "nonsense"},
			{desc: "forged token", token: forgedToken(t)},
		}
		for _, tc := range cases {
			ended, err := b.auth.LogOut(b.ctx, tc.token)
			require.NoError(t, err, tc.desc)
			require.False(t, ended, tc.desc)
		}
		require.Equal(t, 1, b.count(t, (*models.Session)(nil)))
	})
}
