package market

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// Issue 27, point 4: starts that wait their turn behind a start that
// found nothing free get that start's refusal without asking the database
// again; a start that arrives after that read reads for itself, so a GPU
// freed meanwhile is rented, not refused.
func TestStartsWaitingBehindASoldOutReadShareItsAnswer(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		p := b.provider(t, providerSpec{city: "Lisbon"})
		b.machine(t, p, h100, 1, 90, 2_000_000)
		customer := b.user(t, "customer")
		in := StartInput{Model: ptr(h100), GpuCount: 1, Image: "docker.io/library/python:3.12", Command: []string{"python", "-V"}}
		held, err := b.svc.Start(b.ctx, customer, in)
		require.NoError(t, err, "the only GPU is rented")
		refused := func(err error) {
			t.Helper()
			v, ok := fault.AsValidation(err)
			require.True(t, ok, "%v", err)
			require.Len(t, v.Problems, 1)
			require.Equal(t, "input.model", v.Problems[0].Field)
			require.Equal(t, fault.Unavailable, v.Problems[0].Code)
		}

		// What one refused start asks the database.
		queries := storetest.CountQueries(db)
		one := queries.Record(func() {
			_, err := b.svc.Start(b.ctx, customer, in)
			refused(err)
		})
		require.NotEmpty(t, one)

		// Four starts wait while every slot is taken; then one slot
		// frees and they run one after the other.
		const waiting = 4
		slots := b.svc.Config().StartConcurrency
		for range slots {
			b.svc.starts <- struct{}{}
		}
		errs := make(chan error, waiting)
		four := queries.Record(func() {
			arrivals := b.svc.soldOut.seq.Load()
			for range waiting {
				go func() {
					_, err := b.svc.Start(b.ctx, customer, in)
					errs <- err
				}()
			}
			await.True(t, func() bool { return b.svc.soldOut.seq.Load() >= arrivals+waiting },
				"all four starts wait their turn")
			<-b.svc.starts // one slot frees
			for range waiting {
				refused(<-errs)
			}
		})
		for range slots - 1 {
			<-b.svc.starts
		}
		require.Equal(t, len(one), len(four), "the first to run reads as one refused start does; the three behind it get its answer without a statement")

		// The rental ends and its GPU is free: the next start arrives
		// after the refusals' read, reads again and rents it.
		ended, err := b.svc.Stop(b.ctx, customer, held.ID)
		require.NoError(t, err)
		if ended.State != models.RentalStopped {
			_, err = b.svc.end(b.ctx, held.ID, models.RentalStopped, nil, nil, b.clock.Now())
			require.NoError(t, err)
		}
		again, err := b.svc.Start(b.ctx, customer, in)
		require.NoError(t, err, "a GPU freed after a refusal is rented by the next start")
		require.Equal(t, held.MachineID, again.MachineID)
	})
}
