package provider_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// A provider's progress: each step reached at the first time the platform
// recorded it, later steps ahead (nil) until they happen, in order; a GPU
// listed once stays a done step after a later failed run; another
// provider's machines and rentals count for nothing.
func TestProgressMarksEachStepAtItsFirstTime(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		_, p := b.approved(t, "ada@example.com", nil, models.TierCommunity)
		_, other := b.approved(t, "grace@example.com", nil, models.TierCommunity)
		at := func(h, m int) time.Time { return time.Date(2026, 12, 1, h, m, 0, 0, time.UTC) }
		progress := func() map[models.ProgressStep]*time.Time {
			t.Helper()
			marks, err := b.providers.Progress(b.ctx, p.ID)
			require.NoError(t, err)
			got := map[models.ProgressStep]*time.Time{}
			var steps []models.ProgressStep
			for _, m := range marks {
				steps = append(steps, m.Step)
				if m.ReachedAt != nil {
					u := m.ReachedAt.UTC()
					got[m.Step] = &u
				} else {
					got[m.Step] = nil
				}
			}
			require.Equal(t, models.ProgressSteps, steps, "every step, in order")
			return got
		}
		reached := func(want map[models.ProgressStep]time.Time) {
			t.Helper()
			got := progress()
			for _, step := range models.ProgressSteps {
				if w, ok := want[step]; ok {
					require.NotNil(t, got[step], "%s reached", step)
					require.Equal(t, w, *got[step], step)
				} else {
					require.Nil(t, got[step], "%s still ahead", step)
				}
			}
		}
		steps := map[models.ProgressStep]time.Time{models.ProgressApplied: at(10, 0), models.ProgressApproved: at(10, 0)}
		reached(steps)

		b.clock.Set(at(11, 0))
		_, err := b.providers.CreateAgentToken(b.ctx, p, "rack")
		require.NoError(t, err)
		b.clock.Set(at(11, 30))
		_, err = b.providers.CreateAgentToken(b.ctx, p, "edge")
		require.NoError(t, err)
		steps[models.ProgressAgentToken] = at(11, 0)
		reached(steps)

		insert := func(model any) int64 {
			t.Helper()
			var id int64
			_, err := db.NewInsert().Model(model).Returning("id").Exec(b.ctx, &id)
			require.NoError(t, err)
			return id
		}
		machine := func(owner *models.Provider, uid string, registered time.Time) (int64, int64) {
			m := insert(&models.Machine{ProviderID: owner.ID, MachineID: uid, Hostname: uid, AgentVersion: "1", Simulated: true,
				Status: protocol.MachineOnline, StatusChangedAt: registered, RegisteredAt: registered, UpdatedAt: registered})
			g := insert(&models.MachineGpu{MachineID: m, UUID: "GPU-" + uid, Name: "NVIDIA L4", Simulated: true, AddedAt: registered})
			return m, g
		}
		benchmark := func(owner *models.Provider, machineID, gpuID int64, when time.Time, passed bool) {
			run := insert(&models.BenchmarkRun{RunID: "run-" + when.Format("1504"), MachineID: machineID, ProviderID: owner.ID,
				Reason: protocol.BenchScheduled, State: models.BenchmarkRunCompleted, RequestedAt: when, Simulated: true})
			insert(&models.GpuBenchmark{RunRowID: run, GpuID: gpuID, MachineID: machineID, Reason: protocol.BenchScheduled, At: when,
				Simulated: true, Outcome: protocol.BenchCompleted, Passed: passed, Figures: []models.BenchmarkFigure{}, Shortfalls: []models.BenchmarkFigure{}})
		}
		rental := func(owner *models.Provider, machineID int64, when time.Time) {
			insert(&models.Rental{JobID: "job-" + when.Format("1504"), CustomerID: p.UserID, ProviderID: owner.ID, MachineID: machineID,
				ModelKey: "L4_24GB", GpuCount: 1, PricePerHour: 500_000, Image: "busybox", Command: []string{}, EnvNames: []string{},
				Tier: models.TierCommunity, State: models.RentalRunning, CreatedAt: when, UpdatedAt: when})
		}

		// The other provider's machine, benchmarks and rental come first and count for nothing.
		om, og := machine(other, "other-1", at(11, 40))
		benchmark(other, om, og, at(11, 41), true)
		rental(other, om, at(11, 42))
		reached(steps)

		m, g := machine(p, "rack-1", at(12, 0))
		steps[models.ProgressMachineOnline] = at(12, 0)
		reached(steps)

		benchmark(p, m, g, at(12, 5), false)
		steps[models.ProgressFirstBenchmark] = at(12, 5)
		reached(steps)

		benchmark(p, m, g, at(12, 10), true)
		benchmark(p, m, g, at(12, 20), false) // delisted again: it was listed once
		steps[models.ProgressListed] = at(12, 10)
		reached(steps)

		rental(p, m, at(13, 0))
		steps[models.ProgressFirstRental] = at(13, 0)
		reached(steps)
	})
}
