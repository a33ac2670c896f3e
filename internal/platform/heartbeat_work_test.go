package platform_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/platform/platformtest"
)

// heartbeatWork counts the SQL writes and bus publishes made while serving
// the heartbeat mutation. The steady-state promise ("a heartbeat writes no
// row and publishes nothing") is about them: the mail worker, benchmark
// scheduling, metering and the sweeper write and publish on their own
// schedule, and on a busy machine some of that lands inside any window a
// test could choose.
type heartbeatWork struct {
	writes, publishes atomic.Int64
}

// watchHeartbeats starts counting s's heartbeat work.
func watchHeartbeats(t *testing.T, s *platformtest.Server) *heartbeatWork {
	t.Helper()
	w := &heartbeatWork{}
	s.Platform.DB.AddQueryHook(heartbeatWrites{w})
	s.Bus.Watch(func(ctx context.Context, _ string) {
		if servesHeartbeat(ctx) {
			w.publishes.Add(1)
		}
	})
	return w
}

// servesHeartbeat reports whether ctx is that of a GraphQL operation that
// calls the heartbeat mutation (what the agent sends).
func servesHeartbeat(ctx context.Context) bool {
	if !graphql.HasOperationContext(ctx) {
		return false
	}
	oc := graphql.GetOperationContext(ctx)
	return oc != nil && strings.Contains(oc.RawQuery, "heartbeat(")
}

type heartbeatWrites struct{ w *heartbeatWork }

func (heartbeatWrites) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	return ctx
}

func (h heartbeatWrites) AfterQuery(ctx context.Context, e *bun.QueryEvent) {
	switch e.Operation() {
	case "INSERT", "UPDATE", "DELETE":
		if servesHeartbeat(ctx) {
			h.w.writes.Add(1)
		}
	}
}
