package storetest

import (
	"context"
	"sync/atomic"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/store"
)

// Queries counts the SQL statements a database runs while a Count is in
// progress: how tests show that a hot path reads or writes nothing, or
// that a list reads each relation once.
type Queries struct {
	on atomic.Bool
	n  atomic.Int64
}

// CountQueries starts watching db's statements.
func CountQueries(db *store.DB) *Queries {
	q := &Queries{}
	db.AddQueryHook(q)
	return q
}

// Count returns how many statements fn ran.
func (q *Queries) Count(fn func()) int {
	q.n.Store(0)
	q.on.Store(true)
	fn()
	q.on.Store(false)
	return int(q.n.Load())
}

// BeforeQuery implements bun.QueryHook.
func (*Queries) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }

// AfterQuery implements bun.QueryHook.
func (q *Queries) AfterQuery(context.Context, *bun.QueryEvent) {
	if q.on.Load() {
		q.n.Add(1)
	}
}
