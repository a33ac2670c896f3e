package store

import (
	"context"
	"database/sql"
	"fmt"
	"hash/fnv"
	"log/slog"
	"time"
)

// Lease is this process's leadership of a named background task.
type Lease struct {
	conn *sql.Conn
	key  int64
}

// Alive reports whether the lease still holds: on PostgreSQL the session
// holding the advisory lock must still answer.
func (l *Lease) Alive(ctx context.Context) bool {
	if l == nil {
		return false
	}
	if l.conn == nil {
		return true
	}
	return l.conn.PingContext(ctx) == nil
}

// Release gives leadership up.
func (l *Lease) Release() {
	if l == nil || l.conn == nil {
		return
	}
	_, _ = l.conn.ExecContext(context.Background(), "SELECT pg_advisory_unlock($1)", l.key)
	_ = l.conn.Close()
}

// TryLead makes this process the one runner of the background task name
// across every replica sharing the database, if no other holds it. On
// PostgreSQL it takes a session advisory lock on a dedicated connection,
// released when the lease is released or the session dies, so another
// replica takes over. SQLite is a single process's database: it always
// leads. It returns nil (and no error) when another replica leads.
func (db *DB) TryLead(ctx context.Context, name string) (*Lease, error) {
	return db.backend.tryLead(ctx, db, name)
}

// LeaseKey is the PostgreSQL advisory lock key of the lease name, as
// pg_locks shows it (in this database: classid its high 32 bits, objid its
// low 32 bits, objsubid 1). An operator (or a drill) finds the replica
// leading a task by it, the replica's application_name naming it.
// Advisory locks belong to the database, not to a schema, so deployments
// (or tests) sharing one database in schemas of their own lead apart: the
// schema is part of the key, except the public schema's, which keeps the
// key of the name alone (as before the schema counted, so replicas of two
// versions in a rolling deploy still contend for one key).
func (db *DB) LeaseKey(name string) int64 {
	h := fnv.New64a()
	if db.schema == "" || db.schema == "public" {
		_, _ = h.Write([]byte("gpunex:" + name))
	} else {
		_, _ = h.Write([]byte("gpunex:" + db.schema + "/" + name))
	}
	return int64(h.Sum64())
}

func (sqliteBackend) tryLead(context.Context, *DB, string) (*Lease, error) {
	return &Lease{}, nil
}

func (postgresBackend) tryLead(ctx context.Context, db *DB, name string) (*Lease, error) {
	conn, err := db.DB.DB.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: unable to take a connection for leadership: %w", err)
	}
	key := db.LeaseKey(name)
	var ok bool
	if err := conn.QueryRowContext(ctx, "SELECT pg_try_advisory_lock($1)", key).Scan(&ok); err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("store: unable to try leadership of %s: %w", name, err)
	}
	if !ok {
		_ = conn.Close()
		return nil, nil
	}
	return &Lease{conn: conn, key: key}, nil
}

// Periodic runs work at once and then every every until ctx ends, on the
// one replica that holds the lease name (TryLead; a replica that loses it,
// or never had it, tries again at each tick): the one way background work
// runs once per cluster. A failed attempt at the lease or a failed work
// is logged under what, and the next tick tries again.
func (db *DB) Periodic(ctx context.Context, name string, every time.Duration, logger *slog.Logger, what string, work func(context.Context) error) {
	ticker := time.NewTicker(every)
	defer ticker.Stop()
	var lease *Lease
	defer func() { lease.Release() }()
	for {
		if !lease.Alive(ctx) {
			lease.Release()
			l, err := db.TryLead(ctx, name)
			if err != nil && ctx.Err() == nil {
				logger.WarnContext(ctx, what+": unable to contend for the lease", "lease", name, "err", err)
			}
			lease = l
		}
		if lease != nil {
			if err := work(ctx); err != nil && ctx.Err() == nil {
				logger.WarnContext(ctx, what+" failed", "lease", name, "err", err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}
