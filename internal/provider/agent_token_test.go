package provider_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/provider"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// Issue 11, point 11: an active token's name is unique per provider,
// ignoring case; the refusal names the field and creates nothing.
func TestATokenNameInUseIsRefusedIgnoringCase(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		_, mine := b.approved(t, "ada@example.com", nil, models.TierCommunity)
		_, theirs := b.approved(t, "grace@example.com", nil, models.TierCommunity)
		first, err := b.providers.CreateAgentToken(b.ctx, mine, "Rack-01")
		require.NoError(t, err)
		_, err = b.providers.CreateAgentToken(b.ctx, mine, "Ärger")
		require.NoError(t, err)

		for _, name := range []string{"Rack-01", "rack-01", "  RACK-01 ", "ärger"} {
			writes := db.Writes()
			_, err := b.providers.CreateAgentToken(b.ctx, mine, name)
			v, ok := fault.AsValidation(err)
			require.True(t, ok, "%q: %v", name, err)
			require.Len(t, v.Problems, 1)
			require.Equal(t, "name", v.Problems[0].Field)
			require.Equal(t, fault.Taken, v.Problems[0].Code)
			require.Equal(t, writes, db.Writes(), "%q: a refused name creates nothing", name)
		}
		list, err := b.providers.AgentTokens(b.ctx, mine)
		require.NoError(t, err)
		require.Len(t, list, 2)

		_, err = b.providers.CreateAgentToken(b.ctx, theirs, "rack-01")
		require.NoError(t, err, "another provider may use the name")
		_, err = b.providers.RevokeAgentToken(b.ctx, mine, first.Token.ID)
		require.NoError(t, err)
		again, err := b.providers.CreateAgentToken(b.ctx, mine, "rack-01")
		require.NoError(t, err, "a revoked token's name is free again")
		require.Equal(t, "rack-01", again.Token.Name)
	})
}

// Two creations of one name at once: the database's unique index lets
// exactly one through, and the other gets the same coded problem.
func TestConcurrentCreationsOfOneNameMakeOneToken(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		_, p := b.approved(t, "ada@example.com", nil, models.TierCommunity)
		const n = 6
		var wg sync.WaitGroup
		errs := make([]error, n)
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				<-start
				_, errs[i] = b.providers.CreateAgentToken(b.ctx, p, "rack-01")
			})
		}
		close(start)
		wg.Wait()
		made := 0
		for _, err := range errs {
			if err == nil {
				made++
				continue
			}
			v, ok := fault.AsValidation(err)
			require.True(t, ok, "%v", err)
			require.Equal(t, "name", v.Problems[0].Field)
			require.Equal(t, fault.Taken, v.Problems[0].Code)
		}
		require.Equal(t, 1, made)
		list, err := b.providers.AgentTokens(b.ctx, p)
		require.NoError(t, err)
		require.Len(t, list, 1)
	})
}

// Issue 11, point 11: every authenticated agent request counts as a use,
// heartbeats included, and the use is written at most once a minute per
// token, so "last used" lags the real last use by less than a minute.
func TestLastUseFollowsEveryRequestWithOneWriteAMinute(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		_, p := b.approved(t, "ada@example.com", nil, models.TierCommunity)
		made, err := b.providers.CreateAgentToken(b.ctx, p, "rack-01")
		require.NoError(t, err)
		lastUsed := func() *time.Time {
			list, err := b.providers.AgentTokens(b.ctx, p)
			require.NoError(t, err)
			return list[0].LastUsedAt
		}
		require.Nil(t, lastUsed(), "never used")
		use := func() {
			_, err := b.auth.AuthenticateAgent(b.ctx, made.Secret)
			require.NoError(t, err)
		}

		first := b.clock.Now()
		use() // registration
		require.True(t, lastUsed().Equal(first))

		// Heartbeats every 10 s for a minute: one write, at the minute.
		writes := db.Writes()
		for range 5 {
			b.clock.Advance(10 * time.Second)
			use()
		}
		require.Equal(t, writes, db.Writes(), "no write per heartbeat")
		require.True(t, lastUsed().Equal(first), "shown within a minute of the real last use")
		b.clock.Advance(10 * time.Second)
		use()
		require.Equal(t, writes+1, db.Writes())
		require.True(t, lastUsed().Equal(first.Add(provider.LastUseInterval)))

		// Used an hour later: shown at once.
		b.clock.Advance(time.Hour)
		use()
		require.True(t, lastUsed().Equal(b.clock.Now()))
	})
}

// The server re-checking a token (a WebSocket's periodic liveness check)
// is not the agent using it: a connected but silent agent's token keeps
// the last use its last request set, and a revoked token still fails.
func TestAServerCheckOfATokenIsNotAUse(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		_, p := b.approved(t, "ada@example.com", nil, models.TierCommunity)
		made, err := b.providers.CreateAgentToken(b.ctx, p, "rack-01")
		require.NoError(t, err)
		lastUsed := func() *time.Time {
			list, err := b.providers.AgentTokens(b.ctx, p)
			require.NoError(t, err)
			return list[0].LastUsedAt
		}
		check := func() {
			a, err := b.auth.CheckAgentToken(b.ctx, made.Secret)
			require.NoError(t, err)
			require.Equal(t, made.Token.ID, a.TokenID)
			require.Equal(t, p.ID, a.ProviderID)
		}

		check() // from the database
		check() // from the cache
		require.Nil(t, lastUsed(), "checked, never used")

		used := b.clock.Now()
		_, err = b.auth.AuthenticateAgent(b.ctx, made.Secret)
		require.NoError(t, err)
		for range 3 {
			b.clock.Advance(time.Hour)
			check()
		}
		require.True(t, lastUsed().Equal(used), "the agent's last request, not the last check: %s", lastUsed())

		_, err = b.providers.RevokeAgentToken(b.ctx, p, made.Token.ID)
		require.NoError(t, err)
		_, err = b.auth.CheckAgentToken(b.ctx, made.Secret)
		require.Equal(t, fault.Unauthenticated, fault.CodeOf(err))
		_, err = b.auth.CheckAgentToken(b.ctx, "gpx_a_not-a-token")
		require.Equal(t, fault.Unauthenticated, fault.CodeOf(err))
	})
}

// Issue 11, point 11: the tokens list counts the machines whose latest
// registration used each token.
func TestTheTokensListCountsEachTokensMachines(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		_, p := b.approved(t, "ada@example.com", nil, models.TierCommunity)
		_, other := b.approved(t, "grace@example.com", nil, models.TierCommunity)
		rack, err := b.providers.CreateAgentToken(b.ctx, p, "rack")
		require.NoError(t, err)
		_, err = b.providers.CreateAgentToken(b.ctx, p, "spare")
		require.NoError(t, err)
		now := b.clock.Now()
		for i, m := range []struct {
			provider int64
			token    *int64
		}{{p.ID, &rack.Token.ID}, {p.ID, &rack.Token.ID}, {p.ID, nil}, {other.ID, &rack.Token.ID}} {
			_, err := db.NewInsert().Model(&models.Machine{ProviderID: m.provider, MachineID: "machine-" + string(rune('a'+i)) + "-0001", Hostname: "h",
				AgentVersion: "1", Status: protocol.MachineOffline, StatusChangedAt: now, RegisteredAt: now, UpdatedAt: now, AgentTokenID: m.token}).Exec(b.ctx)
			require.NoError(t, err)
		}

		list, err := b.providers.AgentTokens(b.ctx, p)
		require.NoError(t, err)
		counts := map[string]int{}
		for _, tok := range list {
			counts[tok.Name] = tok.MachineCount
		}
		require.Equal(t, map[string]int{"rack": 2, "spare": 0}, counts, "another provider's machine is not counted")

		revoked, err := b.providers.RevokeAgentToken(b.ctx, p, rack.Token.ID)
		require.NoError(t, err)
		require.NotNil(t, revoked.RevokedAt)
		require.Equal(t, 2, revoked.MachineCount, "its machines are still there")
	})
}

// runMigration runs the statements of migration 20261204000002's up or
// down file on db, as the migrator does.
func runMigration(t *testing.T, db *store.DB, direction string) {
	t.Helper()
	sql, err := os.ReadFile(filepath.Join("..", "store", "migrations", db.Backend(), "20261204000002_fleet_details.tx."+direction+".sql"))
	require.NoError(t, err)
	require.NoError(t, db.InTx(t.Context(), func(ctx context.Context, tx bun.Tx) error {
		for stmt := range strings.SplitSeq(string(sql), "--bun:split") {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("%s: %w", stmt, err)
			}
		}
		return nil
	}))
}

// Migration 20261204000002 renames all but the oldest of the active tokens
// whose names differ only in case, before building the unique index: the
// new names fit the limit and clash with no other name, even one that
// looks like a renamed one.
func TestTheMigrationRenamesDuplicateTokenNamesWithoutAClash(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		_, p := b.approved(t, "ada@example.com", nil, models.TierCommunity)
		_, q := b.approved(t, "grace@example.com", nil, models.TierCommunity)
		runMigration(t, db, "down")

		now := b.clock.Now()
		long := strings.Repeat("a", 57) + " " + strings.Repeat("b", 6)
		tokens := []struct {
			id       int64
			provider int64
			name     string
			revoked  bool
			want     string
		}{
			{101, p.ID, "rack", false, "rack"},
			{102, p.ID, "Rack", false, "Rack (102)"},
			{103, p.ID, "rack (104)", false, "rack (104)"},  // what 104 would become
			{104, p.ID, "RACK", false, "RACK (#104)\u00a0"}, // so it takes the other form
			{105, p.ID, "rack", true, "rack"},               // revoked: left alone
			{106, p.ID, "é" + strings.Repeat("a", 63), false, "é" + strings.Repeat("a", 63)},
			{107, p.ID, "é" + strings.Repeat("A", 63), false, "é" + strings.Repeat("A", 57) + " (107)"}, // cut to 64 characters
			{108, p.ID, long, false, long},
			{109, p.ID, strings.ToUpper(long), false, strings.Repeat("A", 57) + " (109)"}, // cut at a space, trimmed
			{110, q.ID, "RACK", false, "RACK"},                                            // another provider's
		}
		for _, tok := range tokens {
			row := &models.AgentToken{ID: tok.id, ProviderID: tok.provider, Name: tok.name, Prefix: "gpx_a_x",
				TokenHash: fmt.Sprint("hash-", tok.id), CreatedAt: now}
			if tok.revoked {
				row.RevokedAt = &now
			}
			_, err := db.NewInsert().Model(row).Exec(b.ctx)
			require.NoError(t, err)
		}

		runMigration(t, db, "up")
		var got []*models.AgentToken
		require.NoError(t, db.NewSelect().Model(&got).OrderExpr("id ASC").Scan(b.ctx))
		require.Len(t, got, len(tokens))
		for i, tok := range tokens {
			require.Equal(t, tok.want, got[i].Name, "token %d", tok.id)
			require.LessOrEqual(t, utf8.RuneCountInString(got[i].Name), provider.MaxAgentTokenName, "token %d", tok.id)
		}

		_, err := db.NewInsert().Model(&models.AgentToken{ProviderID: p.ID, Name: "RaCk", Prefix: "gpx_a_x", TokenHash: "hash-new", CreatedAt: now}).Exec(b.ctx)
		require.True(t, db.IsUniqueViolation(err), "the index holds: %v", err)
	})
}

// Issue 25, point 4: creating and revoking an agent token are this
// package's operations, each the only one there is. Creation checks the
// name and the limit on active tokens; revocation is idempotent and stops
// the token authenticating at once.
func TestIssue25Point4ProviderOwnsCreatingAndRevokingAgentTokens(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		_, p := b.approved(t, "ada@example.com", nil, models.TierCommunity)

		for _, tc := range []struct {
			desc, name string
			code       fault.ProblemCode
		}{
			{desc: "blank", name: "  ", code: fault.Required},
			{desc: "too long", name: strings.Repeat("a", provider.MaxAgentTokenName+1), code: fault.TooLong},
		} {
			_, err := b.providers.CreateAgentToken(b.ctx, p, tc.name)
			v, ok := fault.AsValidation(err)
			require.True(t, ok, "%s: %v", tc.desc, err)
			require.Equal(t, tc.code, v.Problems[0].Code, tc.desc)
			require.Equal(t, "name", v.Problems[0].Field, tc.desc)
		}

		var first *provider.NewAgentToken
		for i := range provider.MaxActiveAgentTokens {
			made, err := b.providers.CreateAgentToken(b.ctx, p, fmt.Sprintf("rack-%02d", i))
			require.NoError(t, err)
			if first == nil {
				first = made
			}
		}
		writes := db.Writes()
		_, err := b.providers.CreateAgentToken(b.ctx, p, "one-too-many")
		v, ok := fault.AsValidation(err)
		require.True(t, ok, "%v", err)
		require.Equal(t, fault.TooMany, v.Problems[0].Code)
		require.Equal(t, writes, db.Writes(), "a refused token creates nothing")

		revoked, err := b.providers.RevokeAgentToken(b.ctx, p, first.Token.ID)
		require.NoError(t, err)
		require.NotNil(t, revoked.RevokedAt)
		_, err = b.auth.CheckAgentToken(b.ctx, first.Secret)
		require.Equal(t, fault.Unauthenticated, fault.CodeOf(err), "revoked at once")
		again, err := b.providers.RevokeAgentToken(b.ctx, p, first.Token.ID)
		require.NoError(t, err, "revoking a revoked token is no error")
		require.True(t, again.RevokedAt.Equal(*revoked.RevokedAt), "and keeps when it was revoked")

		_, err = b.providers.CreateAgentToken(b.ctx, p, "one-too-many")
		require.NoError(t, err, "a revoked token frees its place")
	})
}
