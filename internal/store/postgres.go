package store

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

//go:embed migrations/postgres/*.sql
var postgresMigrations embed.FS

type postgresBackend struct{}

func (postgresBackend) name() string { return "postgres" }

func (postgresBackend) open(cfg Config) (*bun.DB, error) {
	pgcfg, err := pgx.ParseConfig(cfg.DatabaseURL)
	if err != nil {
		return nil, err
	}
	// bun writes values into the statement's text, so most statements are
	// new; pgx prepares each and keeps the last 512 per connection, which
	// is most of what an idle replica held (docs/scale.md). The statements
	// that do repeat are few: a shorter cache keeps them. A database URL
	// (or key=value string) that sets statement_cache_capacity keeps its
	// own.
	if !strings.Contains(cfg.DatabaseURL, "statement_cache_capacity") {
		pgcfg.StatementCacheCapacity = postgresStatementCache
	}
	sqldb := stdlib.OpenDB(*pgcfg)
	// Every connection the pool opens stays open while the load needs it:
	// with fewer idle than open, each connection past the idle count was
	// closed when a statement returned it and a new one opened for the
	// next burst, and a PostgreSQL connection is a process to start (and
	// pgx's prepared statements to prepare again). The full soak's
	// replicas, at 16 idle of 32, started backends by the dozen every
	// second. A connection idle for a while is closed, so the pool (and
	// PostgreSQL's backends, and pgx's statement cache on each) shrinks
	// back once a load has passed.
	sqldb.SetMaxOpenConns(postgresMaxConns)
	sqldb.SetMaxIdleConns(postgresMaxConns)
	sqldb.SetConnMaxIdleTime(postgresIdleFor)
	return bun.NewDB(sqldb, pgdialect.New()), nil
}

// The pool's size per replica, and how long a connection may stay idle
// before it is closed.
const (
	postgresMaxConns = 32
	postgresIdleFor  = 2 * time.Minute
	// postgresStatementCache is how many prepared statements pgx keeps
	// per connection.
	postgresStatementCache = 64
)

func (postgresBackend) migrations() fs.FS {
	sub, _ := fs.Sub(postgresMigrations, "migrations/postgres")
	return sub
}

func (postgresBackend) isUniqueViolation(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}

// forUpdate takes FOR NO KEY UPDATE, the lock an UPDATE of other columns
// than the key takes: a foreign key's check in another transaction (FOR
// KEY SHARE: the metering tick inserting a ledger row or a meter that
// names a rental) does not wait on it, so a transaction that locked a
// rental and then waits on that tick's meters cannot deadlock with it.
// No caller changes a locked row's key.
func (postgresBackend) forUpdate(q *bun.SelectQuery) *bun.SelectQuery { return q.For("NO KEY UPDATE") }

// claim takes the same lock as forUpdate on alias's rows, skipping locked ones.
func (postgresBackend) claim(q *bun.SelectQuery, alias string) *bun.SelectQuery {
	return q.For("NO KEY UPDATE OF " + alias + " SKIP LOCKED")
}

func (postgresBackend) asTimestamp(expr string) string { return "CAST(" + expr + " AS TIMESTAMPTZ)" }

// PostgresMigrationsDigest is a digest of the embedded PostgreSQL
// migrations (names and contents): storetest names the migrated template
// its test databases are cloned from by it, so an added or edited
// migration makes a new template instead of reusing a stale one.
func PostgresMigrationsDigest() string {
	h := sha256.New()
	_ = fs.WalkDir(postgresMigrations, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := postgresMigrations.ReadFile(path)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %d\n", path, len(b))
		h.Write(b)
		return nil
	})
	return hex.EncodeToString(h.Sum(nil))
}
