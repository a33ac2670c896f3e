package reliability

import (
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/notification"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// TestAConfiguredFloorFlagsWhatTheDefaultWouldNot: with the floor set to
// 95 (serve --reliability-floor 95), a new provider at the prior's 94 is
// above the default 70 but under the configured floor: the admins' list
// (Fleet, providersByReliability), the provider's summary and its machine
// all carry the configured floor and flag it, and Refresh notifies its
// owner; a service on the same rows with the default floor flags none.
func TestAConfiguredFloorFlagsWhatTheDefaultWouldNot(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		const floor = 95
		b := setup(t, db)
		memory := bus.NewMemory()
		t.Cleanup(func() { _ = memory.Close() })
		logger := slog.New(slog.DiscardHandler)
		notify := notification.New(notification.Deps{DB: db, Bus: memory, Clock: b.clock, Logger: logger}, notification.Config{})
		b.svc = New(Deps{DB: db, Bus: memory, Notify: notify, Clock: b.clock, Logger: logger}, Config{Floor: floor})
		defaults := New(Deps{DB: db, Bus: memory, Notify: notify, Clock: b.clock, Logger: logger}, Config{})
		require.Equal(t, 70, defaults.Config().Floor)

		p, m := b.provider(t, nil)
		require.NoError(t, b.svc.Refresh(b.ctx))
		s := b.summary(t, p)
		require.Equal(t, 94, s.Score, "the prior")
		require.Greater(t, s.Score, defaults.Config().Floor)
		require.Less(t, s.Score, floor)
		require.Equal(t, floor, s.Floor)
		require.True(t, s.BelowFloor)
		require.Len(t, s.Machines, 1)
		require.True(t, s.Machines[0].BelowFloor)

		fleet, err := b.svc.Fleet(b.ctx, 10)
		require.NoError(t, err)
		require.Len(t, fleet, 1)
		got := *fleet[0]
		require.NotNil(t, got.Components(), "the score's parts")
		require.Equal(t, s.Components, *got.Components())
		require.Equal(t, ProviderScore{ProviderID: p, Score: 94, Floor: floor, BelowFloor: true},
			ProviderScore{ProviderID: got.ProviderID, Score: got.Score, Floor: got.Floor, BelowFloor: got.BelowFloor})

		var owner int64
		require.NoError(t, db.NewSelect().Model((*models.Provider)(nil)).Column("user_id").Where("id = ?", p).Scan(b.ctx, &owner))
		var notes []*models.Notification
		require.NoError(t, db.NewSelect().Model(&notes).Where("user_id = ? AND kind = ?", owner, KindBelowFloor).Scan(b.ctx))
		require.Len(t, notes, 1, "flagged at the configured floor")
		require.Equal(t, "95", notes[0].Params["floor"])

		// The default floor on the same rows: nothing is under it.
		ds, err := defaults.Provider(b.ctx, p)
		require.NoError(t, err)
		require.Equal(t, 70, ds.Floor)
		require.False(t, ds.BelowFloor)
		require.False(t, ds.Machines[0].BelowFloor)
		dm, err := defaults.Machine(b.ctx, p, m)
		require.NoError(t, err)
		require.False(t, dm.BelowFloor)
		dfleet, err := defaults.Fleet(b.ctx, 10)
		require.NoError(t, err)
		require.Equal(t, 70, dfleet[0].Floor)
		require.False(t, dfleet[0].BelowFloor)
	})
}
