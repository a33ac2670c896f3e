package store

import (
	"database/sql"
	"embed"
	"errors"
	"io/fs"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

//go:embed migrations/postgres/*.sql
var postgresMigrations embed.FS

type postgresBackend struct{}

func (postgresBackend) name() string { return "postgres" }

func (postgresBackend) open(cfg Config) (*bun.DB, error) {
	sqldb, err := sql.Open("pgx", cfg.DatabaseURL)
	if err != nil {
		return nil, err
	}
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
