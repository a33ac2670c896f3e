package fleet

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
)

// Issue 10 point 1: one machine transition reaches a hundred dashboards
// of its provider on this replica with the machine loaded once: at most
// two SQL statements for the event, whatever the number of subscribers,
// on both databases (sqlite with memory presence, postgres with Redis).
func TestATransitionIsLoadedOnceForAHundredDashboards(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setupStack(t, db)
		ctx, cancel := context.WithCancel(b.ctx)
		defer cancel()
		const dashboards = 100
		streams := make([]<-chan *StatusEvent, dashboards)
		for i := range streams {
			ch, err := b.svc.Subscribe(ctx, b.agent.ProviderID)
			require.NoError(t, err)
			ev := <-ch
			require.True(t, ev.Initial(), "the current state first")
			streams[i] = ch
		}
		payload, err := json.Marshal(machineEvent{MachineID: b.machineID, Status: protocol.MachineOnline})
		require.NoError(t, err)
		statements := b.queries.Count(func() {
			// As another replica announces it.
			require.NoError(t, b.bus.Publish(b.ctx, Channel(b.agent.ProviderID), payload))
			for i, ch := range streams {
				select {
				case ev, ok := <-ch:
					require.True(t, ok, "dashboard %d's stream ended", i)
					require.False(t, ev.Initial())
					require.Equal(t, b.machineID, ev.Machine.ID)
				case <-await.Timeout(t):
					t.Fatalf("dashboard %d got nothing", i)
				}
			}
		})
		require.LessOrEqual(t, statements, 2, "SQL statements for one event to %d dashboards", dashboards)
	})
}
