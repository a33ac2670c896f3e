package reliability

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// Issue 26: the marketplace shows a listing's reliability parts from
// ComponentsOf, which reads many providers at once; its parts are those
// of each provider's own summary (an outage, maintenance declared ahead,
// a machine offline now, a weekday schedule).
func TestComponentsOfAgreesWithEachProvidersSummary(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		steady, _ := b.provider(t, nil)
		shaky, sm := b.provider(t, nil)
		b.at(t, sm, protocol.MachineOffline, t0.Add(48*time.Hour))
		b.at(t, sm, protocol.MachineOnline, t0.Add(50*time.Hour))
		office, om := b.provider(t, weekdays("09:00", "17:00"))
		_, err := db.NewInsert().Model(&models.MaintenanceWindow{ProviderID: office, MachineID: &om, StartsAt: t0.Add(33 * time.Hour),
			EndsAt: t0.Add(37 * time.Hour), CreatedAt: t0}).Exec(b.ctx)
		require.NoError(t, err)
		b.at(t, om, protocol.MachineOffline, t0.Add(34*time.Hour))
		b.clock.Set(t0.Add(72 * time.Hour))

		got, err := b.svc.ComponentsOf(b.ctx, []int64{steady, shaky, office, 999_999})
		require.NoError(t, err)
		require.Len(t, got, 3, "a provider without machines is left out")
		for _, p := range []int64{steady, shaky, office} {
			want := b.summary(t, p).Components
			require.InDelta(t, want.Uptime, got[p].Uptime, 1e-9, "provider %d", p)
			require.InDelta(t, want.Completion, got[p].Completion, 1e-9, "provider %d", p)
			require.InDelta(t, want.Consistency, got[p].Consistency, 1e-9, "provider %d", p)
		}
		require.Less(t, got[shaky].Uptime, got[steady].Uptime, "the outage shows")
		empty, err := b.svc.ComponentsOf(b.ctx, nil)
		require.NoError(t, err)
		require.Empty(t, empty)
	})
}
