package store_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

func TestMigrationsAreReversibleOnEveryBackend(t *testing.T) {
	t.Parallel()
	for _, backend := range storetest.Backends {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db, err := store.Open(ctx, storetest.Config(t, backend))
			require.NoError(t, err)
			defer db.Close()

			st, err := db.MigrationStatus(ctx)
			require.NoError(t, err)
			require.NotEmpty(t, st)
			for _, m := range st {
				require.False(t, m.Applied, "fresh database has %s applied", m.Name)
			}

			applied, err := db.MigrateUp(ctx)
			require.NoError(t, err)
			require.Len(t, applied, len(st))
			again, err := db.MigrateUp(ctx)
			require.NoError(t, err)
			require.Empty(t, again, "a second up applies nothing")

			_, err = db.NewInsert().Model(&models.User{Email: "a@example.com", Name: "A", PasswordHash: "x", CreatedAt: time.Now(), UpdatedAt: time.Now()}).Exec(ctx)
			require.NoError(t, err)

			rolled, err := db.MigrateDown(ctx)
			require.NoError(t, err)
			require.ElementsMatch(t, applied, rolled)
			_, err = db.NewSelect().Model((*models.User)(nil)).Count(ctx)
			require.Error(t, err, "users table is gone after down")

			_, err = db.MigrateUp(ctx)
			require.NoError(t, err, "up works again after down")
			n, err := db.NewSelect().Model((*models.User)(nil)).Count(ctx)
			require.NoError(t, err)
			require.Zero(t, n)
		})
	}
}

func TestConcurrentMigrateUpTakesTheLockInTurn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := storetest.Config(t, "postgres")
	errs := make(chan error, 3)
	for range 3 {
		go func() {
			db, err := store.Open(ctx, cfg)
			if err != nil {
				errs <- err
				return
			}
			defer db.Close()
			_, err = db.MigrateUp(ctx)
			errs <- err
		}()
	}
	for range 3 {
		require.NoError(t, <-errs)
	}
}

func TestStorage(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		newUser := func(email string) *models.User {
			now := time.Date(2026, 11, 29, 10, 30, 15, 123456000, time.UTC)
			return &models.User{Email: email, Name: "N", PasswordHash: "h", CreatedAt: now, UpdatedAt: now}
		}

		t.Run("times round-trip in UTC to the microsecond", func(t *testing.T) {
			u := newUser("time@example.com")
			_, err := db.NewInsert().Model(u).Returning("id").Exec(ctx)
			require.NoError(t, err)
			got := new(models.User)
			require.NoError(t, db.NewSelect().Model(got).Where("id = ?", u.ID).Scan(ctx))
			require.True(t, got.CreatedAt.Equal(u.CreatedAt), "got %v want %v", got.CreatedAt, u.CreatedAt)
		})

		t.Run("a duplicate email is a unique violation", func(t *testing.T) {
			_, err := db.NewInsert().Model(newUser("dup@example.com")).Exec(ctx)
			require.NoError(t, err)
			_, err = db.NewInsert().Model(newUser("dup@example.com")).Exec(ctx)
			require.Error(t, err)
			require.True(t, db.IsUniqueViolation(err), "%v", err)
			require.False(t, db.IsUniqueViolation(errors.New("other")))
		})

		t.Run("foreign keys are enforced", func(t *testing.T) {
			_, err := db.NewInsert().Model(&models.UserRole{UserID: 999999, Role: models.RoleAdmin, CreatedAt: time.Now()}).Exec(ctx)
			require.Error(t, err)
		})

		t.Run("after-commit hooks run on commit only", func(t *testing.T) {
			var ran []string
			err := db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
				store.AfterCommit(ctx, func() { ran = append(ran, "committed") })
				_, err := tx.NewInsert().Model(newUser("hook@example.com")).Exec(ctx)
				require.Empty(t, ran, "hook must wait for the commit")
				return err
			})
			require.NoError(t, err)
			require.Equal(t, []string{"committed"}, ran)

			boom := errors.New("boom")
			err = db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
				store.AfterCommit(ctx, func() { ran = append(ran, "rolled back") })
				_, err := tx.NewInsert().Model(newUser("rollback@example.com")).Exec(ctx)
				require.NoError(t, err)
				return boom
			})
			require.ErrorIs(t, err, boom)
			require.Equal(t, []string{"committed"}, ran, "hook of a rolled-back transaction must not run")
			n, err := db.NewSelect().Model((*models.User)(nil)).Where("email = ?", "rollback@example.com").Count(ctx)
			require.NoError(t, err)
			require.Zero(t, n)
		})

		t.Run("ping answers", func(t *testing.T) {
			require.NoError(t, db.Ping(ctx))
		})
	})
}

func TestOpenRefusesUnknownSchemes(t *testing.T) {
	t.Parallel()
	_, err := store.Open(context.Background(), store.Config{DatabaseURL: "mysql://localhost/x"})
	require.ErrorContains(t, err, "unsupported database URL")
}

// Advisory locks belong to the database, not to a schema: two
// deployments (or two tests) sharing one PostgreSQL database in schemas of
// their own each lead their own tasks. Before the schema was in the key,
// the soak's payouts were never sent while another test's server in the
// same database held the "billing-payouts" lock. The public schema keeps
// the key of the name alone, so replicas of two versions in a rolling
// deploy still contend for one lock.
func TestDeploymentsInSchemasOfTheirOwnLeadApart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, err := store.Open(ctx, storetest.Config(t, "postgres"))
	require.NoError(t, err)
	defer a.Close()
	b, err := store.Open(ctx, storetest.Config(t, "postgres"))
	require.NoError(t, err)
	defer b.Close()

	la, err := a.TryLead(ctx, "billing-payouts")
	require.NoError(t, err)
	require.NotNil(t, la)
	defer la.Release()
	lb, err := b.TryLead(ctx, "billing-payouts")
	require.NoError(t, err)
	require.NotNil(t, lb, "another schema's deployment leads its own payouts")
	defer lb.Release()
	require.NotEqual(t, a.LeaseKey("billing-payouts"), b.LeaseKey("billing-payouts"))

	public, err := store.Open(ctx, store.Config{DatabaseURL: os.Getenv(storetest.EnvDatabaseURL)})
	require.NoError(t, err)
	defer public.Close()
	h := fnv.New64a()
	_, _ = h.Write([]byte("gpunex:billing-payouts"))
	require.Equal(t, int64(h.Sum64()), public.LeaseKey("billing-payouts"), "the public schema's key is the one every earlier version took")
}

func TestOnlyOneReplicaLeadsATask(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := storetest.Config(t, "postgres")
	a, err := store.Open(ctx, cfg)
	require.NoError(t, err)
	defer a.Close()
	b, err := store.Open(ctx, cfg)
	require.NoError(t, err)
	defer b.Close()

	la, err := a.TryLead(ctx, "sweeper-"+t.Name())
	require.NoError(t, err)
	require.NotNil(t, la, "the first replica leads")
	require.True(t, la.Alive(ctx))
	lb, err := b.TryLead(ctx, "sweeper-"+t.Name())
	require.NoError(t, err)
	require.Nil(t, lb, "the second does not while the first holds it")

	la.Release()
	lb, err = b.TryLead(ctx, "sweeper-"+t.Name())
	require.NoError(t, err)
	require.NotNil(t, lb, "leadership passes on once released")
	lb.Release()
}

// TestATransactionWhoseContextEndedAnswersWithTheContextsEnd: database/sql
// rolls the transaction back once its context ends and answers the commit
// with ErrTxDone; InTx keeps the context's error in the chain, so the API
// answers a deadline it set as UNAVAILABLE, not INTERNAL.
func TestATransactionWhoseContextEndedAnswersWithTheContextsEnd(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		err := db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			if _, err := tx.ExecContext(ctx, "SELECT 1"); err != nil {
				return err
			}
			// The context ends after the last statement, before the
			// commit: database/sql rolls the transaction back on its own.
			cancel()
			await.True(t, func() bool {
				_, err := tx.ExecContext(context.Background(), "SELECT 1")
				return errors.Is(err, sql.ErrTxDone)
			}, "database/sql rolled the transaction back")
			return nil
		})
		require.ErrorIs(t, err, sql.ErrTxDone)
		require.ErrorIs(t, err, context.Canceled, "the context's end is in the chain: %v", err)

	})
}

// A burst that needs every connection of the pool at once leaves them
// open for the next one: none is closed when it is returned and opened
// again for the next burst (on PostgreSQL a backend process to start,
// and its prepared statements to prepare again).
func TestABurstLeavesThePoolsConnectionsOpenForTheNext(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx, backend := context.Background(), db.Backend()
		size := db.Stats().MaxOpenConnections
		require.Greater(t, size, 1)
		// burst holds size connections at once, then returns them,
		// and says which PostgreSQL backends served it.
		burst := func() map[int]bool {
			backends := map[int]bool{}
			var held []*sql.Conn
			for range size {
				c, err := db.DB.DB.Conn(ctx)
				require.NoError(t, err)
				held = append(held, c)
				if backend == "postgres" {
					var pid int
					require.NoError(t, c.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&pid))
					backends[pid] = true
				} else {
					require.NoError(t, c.PingContext(ctx))
				}
			}
			for _, c := range held {
				require.NoError(t, c.Close())
			}
			return backends
		}
		first := burst()
		second := burst()
		st := db.Stats()
		require.Equal(t, size, st.OpenConnections, "every connection of the burst is still open")
		require.Zero(t, st.MaxIdleClosed, "no connection was closed for want of room among the idle")
		if backend == "postgres" {
			require.Len(t, first, size)
			require.Equal(t, first, second, "the second burst ran on the first one's backends")
		}
	})
}

// A PostgreSQL connection keeps a bounded number of prepared statements
// (pgx's cache, which holds each one's text in the replica and a plan in
// the backend): bun writes values into the text, so nearly every
// statement is new, and a replica kept 20 MiB of them idle.
func TestAPostgresConnectionKeepsABoundedNumberOfPreparedStatements(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.Open(t, "postgres")
	c, err := db.DB.DB.Conn(ctx)
	require.NoError(t, err)
	defer c.Close()
	for i := range 200 {
		var n int
		require.NoError(t, c.QueryRowContext(ctx, fmt.Sprintf("SELECT %d", i)).Scan(&n))
		require.Equal(t, i, n)
	}
	var kept int
	require.NoError(t, c.QueryRowContext(ctx, "SELECT count(*) FROM pg_prepared_statements").Scan(&kept))
	require.Positive(t, kept, "statements are still prepared (the ones that repeat are planned once)")
	require.LessOrEqual(t, kept, 64+1, "at most the cache's 64, and the count's own")
}
