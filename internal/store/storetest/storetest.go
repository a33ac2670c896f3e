// Package storetest opens real test databases for any package's tests:
// SQLite in a temporary directory, and PostgreSQL in a fresh schema of the
// database named by GPUNEX_TEST_DATABASE_URL (make test sets it). Each
// runs the same test body on every backend, like bun's testEachDB.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/store"
)

// EnvDatabaseURL names the PostgreSQL server tests use.
const EnvDatabaseURL = "GPUNEX_TEST_DATABASE_URL"

// Backends are the names Each runs under.
var Backends = []string{"sqlite", "postgres"}

// Config returns a store configuration for a fresh, empty database of the
// backend, removed when the test ends. PostgreSQL without
// GPUNEX_TEST_DATABASE_URL skips the test, saying so.
func Config(t testing.TB, backend string) store.Config {
	t.Helper()
	switch backend {
	case "sqlite":
		return store.Config{DataDir: t.TempDir()}
	case "postgres":
		return store.Config{DatabaseURL: PostgresURL(t)}
	}
	t.Fatalf("storetest: unknown backend %q", backend)
	return store.Config{}
}

// PostgresURL creates a schema of its own on the test server and returns a
// URL whose search_path points at it; the schema is dropped at cleanup.
func PostgresURL(t testing.TB) string {
	t.Helper()
	base := os.Getenv(EnvDatabaseURL)
	if base == "" {
		t.Skipf("storetest: %s is not set; PostgreSQL tests need it (make test sets it)", EnvDatabaseURL)
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	schema := "t_" + hex.EncodeToString(b)
	admin, err := store.Open(context.Background(), store.Config{DatabaseURL: base})
	require.NoError(t, err)
	_, err = admin.ExecContext(context.Background(), "CREATE SCHEMA "+schema)
	require.NoError(t, err)
	t.Cleanup(func() {
		_, _ = admin.ExecContext(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
		_ = admin.Close()
	})
	u, err := url.Parse(base)
	require.NoError(t, err)
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// Open opens and migrates a fresh database of backend, closed at cleanup.
func Open(t testing.TB, backend string) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), Config(t, backend))
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	_, err = db.MigrateUp(context.Background())
	require.NoError(t, err)
	return db
}

// Each runs fn as a parallel subtest on a fresh, migrated database of every
// backend.
func Each(t *testing.T, fn func(t *testing.T, db *store.DB)) {
	t.Helper()
	for _, b := range Backends {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			fn(t, Open(t, b))
		})
	}
}
