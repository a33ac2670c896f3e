package store

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"strings"

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
	// bun writes every value into the statement's text, so nearly every
	// statement is new: pgx's default (prepare each new text, keep 512 per
	// connection) cost each of them a round trip to prepare it and kept
	// them, 20 MiB of statement text in an idle replica after the soak and
	// as many prepared statements in each PostgreSQL backend. Each
	// statement is sent once, in one round trip, as the extended protocol's
	// unnamed statement (one statement per query, as before); a URL that
	// names default_query_exec_mode keeps its choice.
	if !strings.Contains(cfg.DatabaseURL, "default_query_exec_mode") {
		pgcfg.DefaultQueryExecMode = pgx.QueryExecModeExec
	}
	sqldb := stdlib.OpenDB(*pgcfg)
	sqldb.SetMaxOpenConns(32)
	sqldb.SetMaxIdleConns(16)
	return bun.NewDB(sqldb, pgdialect.New()), nil
}

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
