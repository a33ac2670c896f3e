package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun"
)

// Config says which database to open.
type Config struct {
	// DatabaseURL selects PostgreSQL when it starts with postgres:// or
	// postgresql://. Empty means SQLite at DataDir/gpunex.db.
	DatabaseURL string
	// DataDir holds the SQLite file (and other local state).
	DataDir string
	// Logger receives slow or failed queries; nil discards.
	Logger *slog.Logger
}

// DB is the opened database: a *bun.DB plus what the backend knows.
type DB struct {
	*bun.DB
	backend   backend
	writes    *writeCounter
	observers *observers
	// schema is PostgreSQL's current schema at open (empty on SQLite).
	schema string
}

// backend is the seam between the two databases.
type backend interface {
	// name is "sqlite" or "postgres", for logs and status output.
	name() string
	// open returns the sql.DB and bun dialect for the configuration.
	open(cfg Config) (*bun.DB, error)
	// migrations returns the embedded migration files of this dialect.
	migrations() fs.FS
	// isUniqueViolation reports whether err is a unique-constraint failure.
	isUniqueViolation(err error) bool
	// forUpdate makes a select inside a transaction lock the rows it reads
	// until the transaction ends.
	forUpdate(q *bun.SelectQuery) *bun.SelectQuery
	// claim makes a select inside a transaction lock the rows of table
	// alias it reads, passing over those another transaction holds.
	claim(q *bun.SelectQuery, alias string) *bun.SelectQuery
	// asTimestamp is expr (a time written as a literal, e.g. a VALUES
	// column) read as a timestamp.
	asTimestamp(expr string) string
	// tryLead takes the leadership of a named background task.
	tryLead(ctx context.Context, db *DB, name string) (*Lease, error)
}

var (
	_ backend = sqliteBackend{}
	_ backend = postgresBackend{}
)

// Open opens (but does not migrate) the database named by cfg.
func Open(ctx context.Context, cfg Config) (*DB, error) {
	var b backend = sqliteBackend{}
	if strings.HasPrefix(cfg.DatabaseURL, "postgres://") || strings.HasPrefix(cfg.DatabaseURL, "postgresql://") {
		b = postgresBackend{}
	} else if cfg.DatabaseURL != "" {
		return nil, fmt.Errorf("store: unsupported database URL scheme (want postgres:// or empty for SQLite)")
	}
	bdb, err := b.open(cfg)
	if err != nil {
		return nil, fmt.Errorf("store: unable to open %s: %w", b.name(), err)
	}
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := bdb.PingContext(pingCtx); err != nil {
		_ = bdb.Close()
		return nil, fmt.Errorf("store: unable to reach %s: %w", b.name(), err)
	}
	if cfg.Logger != nil {
		bdb = bdb.WithQueryHook(&queryLogHook{logger: cfg.Logger, slow: 500 * time.Millisecond})
	}
	// The schema names the leases (LeaseKey): advisory locks are the
	// database's, whatever schema a deployment lives in.
	var schema sql.NullString
	if b.name() == "postgres" {
		if err := bdb.QueryRowContext(pingCtx, "SELECT current_schema()").Scan(&schema); err != nil {
			_ = bdb.Close()
			return nil, fmt.Errorf("store: unable to read the schema: %w", err)
		}
	}
	wc, obs := &writeCounter{}, &observers{}
	bdb = bdb.WithQueryHook(wc).WithQueryHook(obs)
	return &DB{DB: bdb, backend: b, writes: wc, observers: obs, schema: schema.String}, nil
}

// AddQueryHook adds a hook that sees every later query of db, its
// transactions included (tests count statements with it). It replaces
// bun's AddQueryHook, deprecated because it changes a shared *bun.DB
// unguarded; WithQueryHook's copy would not reach the services holding db.
func (db *DB) AddQueryHook(h bun.QueryHook) { db.observers.add(h) }

// observers runs the hooks added after Open, safely for concurrent use.
type observers struct {
	mu    sync.RWMutex
	hooks []bun.QueryHook
}

func (o *observers) add(h bun.QueryHook) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.hooks = append(o.hooks, h)
}

func (o *observers) list() []bun.QueryHook {
	o.mu.RLock()
	defer o.mu.RUnlock()
	return o.hooks
}

func (o *observers) BeforeQuery(ctx context.Context, e *bun.QueryEvent) context.Context {
	for _, h := range o.list() {
		ctx = h.BeforeQuery(ctx, e)
	}
	return ctx
}

func (o *observers) AfterQuery(ctx context.Context, e *bun.QueryEvent) {
	for _, h := range o.list() {
		h.AfterQuery(ctx, e)
	}
}

// Backend is "sqlite" or "postgres".
func (db *DB) Backend() string { return db.backend.name() }

// IsUniqueViolation reports whether err comes from a unique constraint, so
// services can turn a race on "email already taken" into a clean error.
func (db *DB) IsUniqueViolation(err error) bool {
	return err != nil && db.backend.isUniqueViolation(err)
}

// ForUpdate makes q, run inside a transaction, lock the rows it reads
// until the transaction ends, so a read-then-write cannot interleave with
// another transaction's.
func (db *DB) ForUpdate(q *bun.SelectQuery) *bun.SelectQuery { return db.backend.forUpdate(q) }

// Claim makes q, run inside a transaction, lock the rows of its table
// alias that it reads, passing over the rows another transaction holds
// (SKIP LOCKED): many transactions choosing from one pool of rows at once
// (rental starts choosing free GPUs) each take different rows instead of
// all reaching for the first and waiting on each other. A row passed
// over is not seen at all, so a caller short of rows tries elsewhere or
// again. On SQLite, whose writers hold the database one at a time, q is
// unchanged.
func (db *DB) Claim(q *bun.SelectQuery, alias string) *bun.SelectQuery {
	return db.backend.claim(q, alias)
}

// AsTimestamp is SQL reading expr, a time bun wrote as a literal that the
// database cannot type by its column (a VALUES list's), as a timestamp:
// a cast on PostgreSQL, which types such a literal as text; expr itself
// on SQLite, which stores times as that text.
func (db *DB) AsTimestamp(expr string) string { return db.backend.asTimestamp(expr) }

// Ping checks the database answers (for /readyz).
func (db *DB) Ping(ctx context.Context) error { return db.PingContext(ctx) }

type afterCommitKey struct{}

type afterCommit struct {
	fns []func()
	// committed: the transaction committed and its functions run; one
	// registered now (by a function running after the commit, with the
	// transaction's context) runs at once.
	committed bool
}

// InTx runs fn in a transaction. Functions registered with AfterCommit
// during fn run after a successful commit, in order, and never on rollback.
//
// database/sql rolls a transaction back as soon as its context ends, and
// then answers the commit and any later statement with ErrTxDone. That is
// the context's end (the request's deadline, a client gone), so InTx
// returns it with the context's error in the chain: the API answers a
// deadline the platform set as UNAVAILABLE instead of INTERNAL (the full
// soak found registrations and heartbeats answered INTERNAL under load).
func (db *DB) InTx(ctx context.Context, fn func(ctx context.Context, tx bun.Tx) error) error {
	hooks := &afterCommit{}
	ctx = context.WithValue(ctx, afterCommitKey{}, hooks)
	if err := db.RunInTx(ctx, nil, fn); err != nil {
		if errors.Is(err, sql.ErrTxDone) && ctx.Err() != nil {
			return fmt.Errorf("%w: %w", context.Cause(ctx), err)
		}
		return err
	}
	hooks.committed = true
	for _, f := range hooks.fns {
		f()
	}
	return nil
}

// AfterCommit registers f to run once the transaction of ctx commits.
// Outside InTx, or once that transaction has committed, it runs f at once
// (there is nothing to wait for).
func AfterCommit(ctx context.Context, f func()) {
	if hooks, ok := ctx.Value(afterCommitKey{}).(*afterCommit); ok && !hooks.committed {
		hooks.fns = append(hooks.fns, f)
		return
	}
	f()
}

// IsNoRows reports whether err means a query found no row.
func IsNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }

// Writes counts the INSERT, UPDATE and DELETE statements run so far: how
// the "no SQL row per heartbeat" promise is measured.
func (db *DB) Writes() int64 { return db.writes.n.Load() }

type writeCounter struct{ n atomic.Int64 }

func (*writeCounter) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }

func (w *writeCounter) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	switch e.Operation() {
	case "INSERT", "UPDATE", "DELETE":
		w.n.Add(1)
	}
}

type queryLogHook struct {
	logger *slog.Logger
	slow   time.Duration
}

func (h *queryLogHook) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	return ctx
}

func (h *queryLogHook) AfterQuery(ctx context.Context, e *bun.QueryEvent) {
	d := time.Since(e.StartTime)
	if e.Err != nil && !errors.Is(e.Err, sql.ErrNoRows) {
		// The query text may hold user data; log the operation only.
		h.logger.DebugContext(ctx, "store: query failed", "op", e.Operation(), "err", e.Err, "duration", d)
		return
	}
	if d > h.slow {
		h.logger.WarnContext(ctx, "store: slow query", "op", e.Operation(), "duration", d)
	}
}
