package storetest

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/store"
)

// Queries counts the SQL statements a database runs while a Count is in
// progress: how tests show that a hot path reads or writes nothing, or
// that a list reads each relation once.
type Queries struct {
	on atomic.Bool

	mu  sync.Mutex
	got []string
}

// CountQueries starts watching db's statements.
func CountQueries(db *store.DB) *Queries {
	q := &Queries{}
	db.AddQueryHook(q)
	return q
}

// Count returns how many statements fn ran.
func (q *Queries) Count(fn func()) int {
	return len(q.Record(fn))
}

// Record returns the statements fn ran, by anyone, in order.
func (q *Queries) Record(fn func()) []string {
	q.mu.Lock()
	q.got = nil
	q.mu.Unlock()
	q.on.Store(true)
	fn()
	q.on.Store(false)
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.got
}

// BeforeQuery implements bun.QueryHook.
func (*Queries) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }

// AfterQuery implements bun.QueryHook.
func (q *Queries) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	if q.on.Load() {
		q.mu.Lock()
		q.got = append(q.got, e.Query)
		q.mu.Unlock()
	}
}
