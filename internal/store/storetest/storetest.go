// Package storetest opens real test databases for any package's tests:
// SQLite in a temporary directory, and PostgreSQL on the server
// GPUNEX_TEST_DATABASE_URL names (make test sets it): a migrated database
// of its own, cloned from a template (Open, Each), or an empty schema of
// the test database for a test that migrates itself (Config,
// PostgresURL). Each runs the same test body on every backend, like bun's
// testEachDB.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
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
// On PostgreSQL it is a database of its own cloned from a migrated
// template (Migrated), not a schema migrated anew: the migrations were
// most of the PostgreSQL server's work in make test.
func Open(t testing.TB, backend string) *store.DB {
	t.Helper()
	if backend == "postgres" {
		// Cloned migrated: nothing to migrate.
		db, err := store.Open(context.Background(), store.Config{DatabaseURL: Migrated(t)})
		require.NoError(t, err)
		t.Cleanup(func() { _ = db.Close() })
		return db
	}
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

// Migrated creates a database of its own on the test server, cloned from a
// template migrated to this tree's migrations, and returns its URL; the
// database is dropped at cleanup (WITH (FORCE): a server the test started
// on it may still hold connections). Cloning (CREATE DATABASE ... TEMPLATE,
// STRATEGY FILE_COPY) cost PostgreSQL about half the CPU of migrating a
// fresh schema, measured on the CI machine (0.32 against 0.67 CPU-seconds,
// create and drop).
//
// The template is named after the test database and
// store.PostgresMigrationsDigest, so a checkout's runs share it until a
// migration changes. It is made once per test process under an exclusive
// advisory lock (several test binaries start at once), and each clone
// holds the same lock shared: PostgreSQL refuses to copy a database
// someone is connected to, which the template is only while it is made.
func Migrated(t testing.TB) string {
	t.Helper()
	base := os.Getenv(EnvDatabaseURL)
	if base == "" {
		t.Skipf("storetest: %s is not set; PostgreSQL tests need it (make test sets it)", EnvDatabaseURL)
	}
	tpl, err := template(base)
	require.NoError(t, err, "storetest: the migrated template")
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "t_" + hex.EncodeToString(b)
	ctx := context.Background()
	// A pool of its own, closed at cleanup (goleak checks some packages).
	admin, err := store.Open(ctx, store.Config{DatabaseURL: base})
	require.NoError(t, err)
	conn, err := admin.Conn(ctx)
	require.NoError(t, err)
	_, err = conn.ExecContext(ctx, "SELECT pg_advisory_lock_shared(hashtext('"+tpl+"'))")
	if err == nil {
		_, err = conn.ExecContext(ctx, "CREATE DATABASE "+name+" TEMPLATE "+tpl+" STRATEGY FILE_COPY")
		_, _ = conn.ExecContext(ctx, "SELECT pg_advisory_unlock_shared(hashtext('"+tpl+"'))")
	}
	_ = conn.Close()
	t.Cleanup(func() {
		_, _ = admin.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		_ = admin.Close()
	})
	require.NoError(t, err, "storetest: cloning %s", tpl)
	return withDatabase(base, name)
}

var (
	templateMu   sync.Mutex
	templateMade = map[string]string{}
)

// template makes sure the migrated template for base exists, once per
// process, and returns its name.
func template(base string) (string, error) {
	templateMu.Lock()
	defer templateMu.Unlock()
	if tpl, ok := templateMade[base]; ok {
		return tpl, nil
	}
	u, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	db := strings.TrimPrefix(u.Path, "/")
	if db == "" {
		db = "postgres"
	}
	name := db + "_tpl_" + store.PostgresMigrationsDigest()[:12]
	ctx := context.Background()
	admin, err := store.Open(ctx, store.Config{DatabaseURL: base})
	if err != nil {
		return "", err
	}
	defer func() { _ = admin.Close() }()
	conn, err := admin.Conn(ctx)
	if err != nil {
		return "", err
	}
	defer func() { _ = conn.Close() }()
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(hashtext('"+name+"'))"); err != nil {
		return "", err
	}
	defer func() {
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock(hashtext('"+name+"'))")
	}()
	var n int
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM pg_database WHERE datname = '"+name+"'").Scan(&n); err != nil {
		return "", err
	}
	if n == 0 {
		if _, err := conn.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
			return "", fmt.Errorf("creating %s: %w", name, err)
		}
	}
	// Migrated under the lock every time a process first needs it: a
	// process that died half-way through leaves the rest to the next.
	tdb, err := store.Open(ctx, store.Config{DatabaseURL: withDatabase(base, name)})
	if err != nil {
		return "", err
	}
	_, err = tdb.MigrateUp(ctx)
	_ = tdb.Close()
	if err != nil {
		return "", fmt.Errorf("migrating %s: %w", name, err)
	}
	templateMade[base] = name
	return name, nil
}

// withDatabase is base with its database replaced by name.
func withDatabase(base, name string) string {
	u, err := url.Parse(base)
	if err != nil {
		return base
	}
	u.Path = "/" + name
	return u.String()
}
