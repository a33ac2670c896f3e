package market

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/billing"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// Issue 30: an agent frozen after its last heartbeat. The machine goes
// offline a grace later and its rental ends INTERRUPTED at the last
// heartbeat the platform received, not at the end of the grace; what a
// metering tick billed past that heartbeat is given back in the
// transaction that ends the rental, so no reading of the bill, not even
// before the next tick, shows time nobody used.
func TestAnInterruptedRentalIsBilledToTheLastHeartbeatAndTheExcessReturnedAsItEnds(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		var bill *billing.Service
		b := setupWith(t, db, func(b *bundle, d *Deps) {
			bill = billing.New(billing.Deps{DB: db, Bus: b.bus, Clock: b.clock}, billing.Config{})
			d.Meter, d.Costs = bill, bill
		})
		p := b.provider(t, providerSpec{})
		m := b.machine(t, p, l4, 1, 80, 3_600_000) // 3.6 USDC an hour: 0.001 a second
		customer := b.user(t, "customer")
		_, err := bill.Credit(b.ctx, customer, 10*models.MicrosPerUSDC, "opening")
		require.NoError(t, err)
		_, _ = b.fleet.Sweep(b.ctx) // the presence store starts being trusted

		r := b.start(t, customer, b.list(t, Filter{}, SortRank)[0], 1)
		b.report(t, m, r, protocol.JobRunning, nil)
		started := *b.rental(t, r.ID).StartedAt

		// Its last heartbeat, 10 s in; the sweeper, every interval, sees it.
		b.clock.Advance(10 * time.Second)
		b.deliver(t, m)
		lastBeat := b.clock.Now()
		for range 2 {
			b.clock.Advance(10 * time.Second)
			n, err := b.fleet.Sweep(b.ctx)
			require.NoError(t, err)
			require.Zero(t, n)
		}
		// A tick 40 s in bills 40 s: the platform does not know yet.
		b.clock.Advance(10 * time.Second)
		require.NoError(t, bill.Tick(b.ctx))
		costs, err := bill.Costs(b.ctx, []*models.Rental{b.rental(t, r.ID)})
		require.NoError(t, err)
		require.Equal(t, int64(40), costs[r.ID].BilledSeconds)
		require.Equal(t, models.USDC(40_000), costs[r.ID].Charged)

		// A grace (30 s) after the last heartbeat the machine is offline.
		b.clock.Advance(time.Second)
		n, err := b.fleet.Sweep(b.ctx)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		got := b.rental(t, r.ID)
		require.Equal(t, models.RentalInterrupted, got.State)
		require.True(t, lastBeat.Equal(*got.EndedAt), "ended at the last heartbeat (%s), not %s", lastBeat, got.EndedAt)
		require.Equal(t, 10*time.Second, got.EndedAt.Sub(started))

		// No tick since: the rental's end settled its bill.
		costs, err = bill.Costs(b.ctx, []*models.Rental{got})
		require.NoError(t, err)
		require.Equal(t, int64(10), costs[r.ID].BilledSeconds)
		require.Equal(t, models.USDC(10_000), costs[r.ID].Charged, "10 s at 0.001 USDC a second")
		require.Equal(t, models.USDC(30_000), costs[r.ID].Refunded, "the 30 s billed past the last heartbeat, given back")
		funds, err := bill.FundsOf(b.ctx, customer)
		require.NoError(t, err)
		require.Equal(t, models.USDC(10*models.MicrosPerUSDC-10_000), funds.Balance)

		// Later ticks change nothing.
		b.clock.Advance(time.Minute)
		require.NoError(t, bill.Tick(b.ctx))
		costs, err = bill.Costs(b.ctx, []*models.Rental{got})
		require.NoError(t, err)
		require.Equal(t, models.USDC(10_000), costs[r.ID].Charged)
		funds, err = bill.FundsOf(b.ctx, customer)
		require.NoError(t, err)
		require.Equal(t, models.USDC(10*models.MicrosPerUSDC-10_000), funds.Balance)
	})
}
