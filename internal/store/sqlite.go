package store

import (
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

//go:embed migrations/sqlite/*.sql
var sqliteMigrations embed.FS

type sqliteBackend struct{}

func (sqliteBackend) name() string { return "sqlite" }

// open uses WAL (readers never block the writer), foreign keys, a busy
// timeout, and BEGIN IMMEDIATE so a read-then-write transaction takes the
// write lock up front instead of failing with SQLITE_BUSY half-way.
func (sqliteBackend) open(cfg Config) (*bun.DB, error) {
	dir := cfg.DataDir
	if dir == "" {
		dir = "data"
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create data dir: %w", err)
	}
	path := filepath.Join(dir, "gpunex.db")
	q := url.Values{}
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Set("_txlock", "immediate")
	q.Set("_time_format", "sqlite")
	dsn := "file:" + path + "?" + q.Encode()
	sqldb, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	sqldb.SetMaxOpenConns(8)
	sqldb.SetMaxIdleConns(8)
	return bun.NewDB(sqldb, sqlitedialect.New()), nil
}

func (sqliteBackend) migrations() fs.FS {
	sub, _ := fs.Sub(sqliteMigrations, "migrations/sqlite")
	return sub
}

func (sqliteBackend) isUniqueViolation(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || se.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	}
	return strings.Contains(err.Error(), "UNIQUE constraint failed")
}

// forUpdate needs no clause: transactions BEGIN IMMEDIATE, so a writer
// holds the database from its first statement.
func (sqliteBackend) forUpdate(q *bun.SelectQuery) *bun.SelectQuery { return q }

// claim needs no clause either (see forUpdate).
func (sqliteBackend) claim(q *bun.SelectQuery, _ string) *bun.SelectQuery { return q }

func (sqliteBackend) asTimestamp(expr string) string { return expr }
