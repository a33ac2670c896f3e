// Package store opens GPUnex's SQL database through bun and owns its schema.
//
// Two backends sit behind one small seam (backend): SQLite through the
// pure-Go modernc.org/sqlite driver for the embedded default, and PostgreSQL
// through pgx for production. Each backend has its own embedded, versioned,
// reversible migrations (migrations/sqlite, migrations/postgres) run by bun's
// migrator under its lock. The two trees are written by hand, so the
// schema tests (schema_test.go) migrate a database of each and name every
// table, column, index or constraint they disagree on, fully migrated and
// at every version on the way down. Dialect differences are backend
// methods, never checks on a dialect name scattered through the code.
//
// Domain packages take a *DB and write through bun; InTx gives them a
// transaction with AfterCommit hooks, so events are published only once the
// change they announce is durable.
package store
