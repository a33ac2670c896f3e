package fleet

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// The Overview shows, beside each GPU's telemetry, whether customers may
// rent it (its benchmarks' decision) and whether a rental holds it now:
// the machine the provider's query and every machine event carry has both,
// read in the statement that reads the GPUs (no statement more per load).
func TestAMachinesGpusCarryTheirListingAndWhetherRentedNow(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		gpu := func() *models.MachineGpu {
			t.Helper()
			m := b.reloaded(t)
			require.Len(t, m.Gpus, 1)
			return m.Gpus[0]
		}
		g := gpu()
		require.Equal(t, models.GpuListingPending, g.Standing, "no benchmark has scored it yet")
		require.False(t, g.Rented)

		now := b.clock.Now()
		require.NoError(t, insert(b, &models.GpuBenchStatus{GpuID: g.ID, MachineID: b.machineID, ProviderID: b.agent.ProviderID,
			Listing: models.GpuListingDelisted, ListingChangedAt: now, Shortfalls: []models.BenchmarkFigure{}, Guidance: []models.BenchmarkGuidance{}}))
		require.Equal(t, models.GpuListingDelisted, gpu().Standing)

		var customer int64
		require.NoError(t, db.NewSelect().Table("providers").Column("user_id").Where("id = ?", b.agent.ProviderID).Scan(b.ctx, &customer))
		r := &models.Rental{JobID: "job-1", CustomerID: customer, ProviderID: b.agent.ProviderID, MachineID: b.machineID, ModelKey: "L4_24GB",
			GpuCount: 1, PricePerHour: 500_000, Image: "busybox", Command: []string{}, EnvNames: []string{}, Tier: models.TierCommunity,
			State: models.RentalRunning, CreatedAt: now, UpdatedAt: now}
		require.NoError(t, insert(b, r))
		require.NoError(t, insert(b, &models.GpuAllocation{GpuID: g.ID, RentalID: r.ID, MachineID: b.machineID, CreatedAt: now}))

		var ms []*models.Machine
		statements := b.queries.Record(func() {
			var err error
			ms, err = b.replica(Config{Interval: 10 * time.Second}).Machines(b.ctx, b.agent.ProviderID)
			require.NoError(t, err)
		})
		require.Len(t, statements, 2, "the machines, then their GPUs each with its listing and rental")
		require.True(t, ms[0].Gpus[0].Rented, "a rental holds it")
		require.Equal(t, models.GpuListingDelisted, ms[0].Gpus[0].Standing)

		_, err := db.NewDelete().Model((*models.GpuAllocation)(nil)).Where("gpu_id = ?", g.ID).Exec(b.ctx)
		require.NoError(t, err)
		require.False(t, gpu().Rented, "free again once the rental ends")
	})
}

func insert(b *bundle, model any) error {
	q := b.db.NewInsert().Model(model)
	if r, ok := model.(*models.Rental); ok {
		_, err := q.Returning("id").Exec(b.ctx, &r.ID)
		return err
	}
	_, err := q.Exec(b.ctx)
	return err
}
