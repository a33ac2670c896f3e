package billing

import (
	"context"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/billing/billingtest"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// A rental of 2 GPUs at 2.50 USDC per GPU-hour for 90 minutes and 7
// seconds, metered by ticks at odd moments, costs 7.509722 USDC (5.00 ×
// 5407 s / 3600, rounded down): the customer pays exactly that, the
// provider gets it less the 15 % fee (rounded down on the cumulative
// amount), and the hourly rollups split it over the two hours and GPUs.
func TestMeteringChargesPerSecondAndPostsOnlyTheDifference(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db, Config{})
		customer := b.user(t, "customer")
		b.credit(t, customer, 100_000_000)
		provider, machine, gpus := b.provider(t, 2)
		b.clock.Set(start.Add(20 * time.Minute)) // 09:20
		id := b.rental(t, customer, provider, machine, gpus, 2_500_000, 1500)
		for _, step := range []time.Duration{17 * time.Second, 59 * time.Minute, 0, 13 * time.Minute, 18*time.Minute + 7*time.Second - 17*time.Second} {
			b.clock.Advance(step)
			require.NoError(t, b.svc.Tick(b.ctx))
		}
		b.end(t, id, models.RentalStopped, b.clock.Now())
		b.clock.Advance(45 * time.Second)
		require.NoError(t, b.svc.Tick(b.ctx))
		require.NoError(t, b.svc.Tick(b.ctx))

		const charged = models.USDC(5_000_000 * 5407 / 3600)
		const fee = charged * 1500 / 10_000
		require.Equal(t, models.USDC(7_509_722), charged)
		require.Equal(t, 100_000_000-charged, b.balanceOf(t, models.AccountCustomerFunds, customer))
		require.Equal(t, charged-fee, b.balanceOf(t, models.AccountProviderEarnings, provider))
		require.Equal(t, fee, b.balanceOf(t, models.AccountPlatformFees, 0))

		var meter models.RentalMeter
		require.NoError(t, db.NewSelect().Model(&meter).Where("rental_id = ?", id).Scan(b.ctx))
		require.True(t, meter.Closed)
		require.Equal(t, charged, meter.Charged)
		require.True(t, meter.BilledUntil.Equal(start.Add(20*time.Minute+5407*time.Second)))

		// 09:20–10:00 is 2400 s, 10:00–10:50:07 is 3007 s.
		var hours []*models.ProviderEarningsHour
		require.NoError(t, db.NewSelect().Model(&hours).Order("hour").Scan(b.ctx))
		require.Len(t, hours, 2)
		first := models.USDC(5_000_000 * 2400 / 3600)
		require.Equal(t, []models.USDC{first, charged - first}, []models.USDC{hours[0].Gross, hours[1].Gross})
		var gpuHours []*models.EarningsHour
		require.NoError(t, db.NewSelect().Model(&gpuHours).Order("hour", "gpu_id").Scan(b.ctx))
		require.Len(t, gpuHours, 4)
		require.Equal(t, hours[0].Gross, gpuHours[0].Gross+gpuHours[1].Gross)
		require.Equal(t, hours[0].Fee, gpuHours[0].Fee+gpuHours[1].Fee)
		requireBalancedLedger(t, b)
	})
}

// A customer whose balance runs out is billed up to the second it pays
// for, told before and after, and the rental is stopped; the balance is
// never below zero.
func TestMeteringStopsARentalWhenTheFundsRunOut(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db, Config{})
		customer := b.user(t, "customer")
		b.credit(t, customer, 3_000_000) // 3 USDC: 1.2 h at 2.50
		provider, machine, gpus := b.provider(t, 1)
		id := b.rental(t, customer, provider, machine, gpus, 2_500_000, 1500)

		b.clock.Advance(20 * time.Minute)
		require.NoError(t, b.svc.Tick(b.ctx))
		var kinds []string
		require.NoError(t, db.NewSelect().Model((*models.Notification)(nil)).Column("kind").Where("user_id = ?", customer).Scan(b.ctx, &kinds))
		require.Equal(t, []string{KindFundsLow}, kinds, "told while less than an hour is left")

		b.clock.Advance(2 * time.Hour)
		require.NoError(t, b.svc.Tick(b.ctx))
		require.Equal(t, []int64{id}, b.stopped)
		require.Zero(t, b.balanceOf(t, models.AccountCustomerFunds, customer))
		var meter models.RentalMeter
		require.NoError(t, db.NewSelect().Model(&meter).Where("rental_id = ?", id).Scan(b.ctx))
		require.Equal(t, models.USDC(3_000_000), meter.Charged, "billed exactly what the balance held")
		require.True(t, meter.BilledUntil.Equal(start.Add(4320*time.Second)), "to the second it paid for: 3 / 2.5 h")
		kinds = nil
		require.NoError(t, db.NewSelect().Model((*models.Notification)(nil)).Column("kind").Where("user_id = ?", customer).Order("id").Scan(b.ctx, &kinds))
		require.Equal(t, []string{KindFundsLow, KindFundsExhausted}, kinds)

		b.clock.Advance(time.Minute)
		require.NoError(t, b.svc.Tick(b.ctx))
		require.NoError(t, db.NewSelect().Model(&meter).Where("rental_id = ?", id).Scan(b.ctx))
		require.True(t, meter.Closed)
		requireBalancedLedger(t, b)
	})
}

func TestCreditAndTheMinimumToRent(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db, Config{})
		customer := b.user(t, "customer")
		err := b.svc.Reserve(b.ctx, db, customer, 2_500_000, "input.listingId")
		v, ok := fault.AsValidation(err)
		require.True(t, ok)
		require.Equal(t, fault.InsufficientFunds, v.Problems[0].Code)
		require.Equal(t, "input.listingId", v.Problems[0].Field)

		bal, err := b.svc.Credit(b.ctx, customer, 2_500_000, "wire-1")
		require.NoError(t, err)
		require.Equal(t, models.USDC(2_500_000), bal)
		require.NoError(t, b.svc.Reserve(b.ctx, db, customer, 2_500_000, "input.listingId"), "an hour at the rate")

		_, err = b.svc.Credit(b.ctx, customer, 1, "wire-1")
		v, ok = fault.AsValidation(err)
		require.True(t, ok, "%v", err)
		require.Equal(t, fault.Duplicate, v.Problems[0].Code, "a reference credits once")
		_, err = b.svc.Credit(b.ctx, customer, 0, " ")
		v, _ = fault.AsValidation(err)
		require.Len(t, v.Problems, 2)
		_, err = b.svc.Credit(b.ctx, customer, MaxCredit+1, "big")
		require.Error(t, err)
		require.Equal(t, models.USDC(2_500_000), b.balanceOf(t, models.AccountCustomerFunds, customer), "nothing changed")
		requireBalancedLedger(t, b)
	})
}

// Random rental timelines: starts, stops, interruptions, credits, rates
// and fees that differ per rental, ticks at random moments and on two
// replicas at once. Afterwards: every posting sums to zero, balances are
// their entries' sums and never negative, what customers paid is what
// providers earned plus the fees, the rollups equal the postings, and a
// rental whose customer could always pay was charged exactly rate × GPUs ×
// seconds.
func TestMeteringPropertiesOverRandomTimelines(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		for seed := range uint64(3) {
			// Several workers a tick on PostgreSQL (SQLite: one).
			b := setup(t, db, Config{ChunkSize: 3, MeterWorkers: 3})
			b.serial = int(seed) * 10_000
			other := b.replica(Config{ChunkSize: 2, MeterWorkers: 2})
			rng := rand.New(rand.NewPCG(seed, 42))
			rich := b.user(t, "rich")
			b.credit(t, rich, 1_000_000_000_000)
			poor := b.user(t, "poor")
			b.credit(t, poor, 4_000_000)
			type live struct {
				id        int64
				customer  int64
				started   time.Time
				perHour   models.USDC
				feeBps    int
				ended     *time.Time
				unlimited bool
			}
			var rentals []*live
			var providers []int64
			for range 3 {
				p, m, g := b.provider(t, 4)
				providers = append(providers, p)
				for i := range 2 {
					price := models.USDC(100_000 + rng.Int64N(5_000_000))
					fee := []int{1000, 1500, 2000}[rng.IntN(3)]
					customer := rich
					if rng.IntN(3) == 0 {
						customer = poor
					}
					id := b.rental(t, customer, p, m, g[2*i:2*i+1+rng.IntN(2)], price, fee)
					var n int
					require.NoError(t, db.NewSelect().Model((*models.RentalGpu)(nil)).ColumnExpr("COUNT(*)").Where("rental_id = ?", id).Scan(b.ctx, &n))
					rentals = append(rentals, &live{id: id, customer: customer, started: b.clock.Now(), perHour: price * models.USDC(n), feeBps: fee, unlimited: customer == rich})
				}
				b.clock.Advance(time.Duration(rng.IntN(300)) * time.Second)
			}
			for range 40 {
				b.clock.Advance(time.Duration(1+rng.IntN(900)) * time.Second)
				switch rng.IntN(5) {
				case 0:
					r := rentals[rng.IntN(len(rentals))]
					if r.ended == nil {
						at := b.clock.Now()
						state := models.RentalStopped
						if rng.IntN(2) == 0 {
							// Interrupted: billed to the last heartbeat, a little before.
							at, state = at.Add(-time.Duration(rng.IntN(30))*time.Second), models.RentalInterrupted
							at = maxTime(at, r.started)
						}
						b.end(t, r.id, state, at)
						r.ended = &at
					}
				case 1:
					var wg sync.WaitGroup
					for _, svc := range []*Service{b.svc, other} {
						wg.Go(func() { require.NoError(t, svc.Tick(b.ctx)) })
					}
					wg.Wait()
				default:
					require.NoError(t, []*Service{b.svc, other}[rng.IntN(2)].Tick(b.ctx))
				}
			}
			for _, r := range rentals {
				if r.ended == nil {
					at := b.clock.Now()
					b.end(t, r.id, models.RentalCompleted, at)
					r.ended = &at
				}
			}
			b.clock.Advance(time.Minute)
			require.NoError(t, b.svc.Tick(b.ctx))
			require.NoError(t, other.Tick(b.ctx))

			for _, r := range rentals {
				var m models.RentalMeter
				require.NoError(t, db.NewSelect().Model(&m).Where("rental_id = ?", r.id).Scan(b.ctx))
				require.True(t, m.Closed)
				if r.unlimited {
					secs := int64(r.ended.Sub(r.started) / time.Second)
					want := models.USDC(int64(r.perHour) * secs / 3600)
					require.Equal(t, want, m.Charged, "seed %d rental %d", seed, r.id)
					require.Equal(t, want*models.USDC(r.feeBps)/10_000, m.Fee)
				}
			}
			require.GreaterOrEqual(t, b.balanceOf(t, models.AccountCustomerFunds, poor), models.USDC(0))
			requireBalancedLedger(t, b)
			_ = providers
			// Clean the slate for the next seed (the ledger checks are
			// over the whole database).
			for _, table := range []string{"ledger_entries", "ledger_transactions", "ledger_accounts", "earnings_gpu_hours", "earnings_provider_hours",
				"rental_meters", "notifications", "rental_gpus", "rentals"} {
				_, err := db.ExecContext(b.ctx, "DELETE FROM "+table)
				require.NoError(t, err)
			}
		}
	})
}

// Issue 27, point 6: a tick meters its shares of the customers in
// several transactions at once. Thirty customers renting from three
// providers (whose earnings accounts, hourly rollups and the platform's fee
// account every worker writes), chunks of two meters, four workers on each
// of two replicas ticking together: no tick fails (no deadlock, no
// balance check refused), every rental is charged exactly rate × GPUs ×
// seconds once, and the ledger balances. The shares cover every customer
// once: each worker's ranges are disjoint and in order, and none but a
// single customer's holds more meters than a chunk.
func TestATicksWorkersMeterTheirSharesAtOnceAndChargeEachRentalOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db, Config{ChunkSize: 2, MeterWorkers: 4})
		other := b.replica(Config{ChunkSize: 2, MeterWorkers: 4})
		type machine struct {
			provider, id int64
			gpus         []int64
		}
		var machines []machine
		for range 3 {
			p, m, g := b.provider(t, 8)
			machines = append(machines, machine{p, m, g})
		}
		var ids []int64
		var big int64
		for i := range 30 {
			c := b.user(t, "customer")
			b.credit(t, c, 1_000_000_000)
			// Customer 0 rents five GPUs, more than a chunk of meters.
			n := 1
			if i == 0 {
				n, big = 5, c
			}
			for j := range n {
				m := machines[(i+j)%3]
				g := m.gpus[(i/3+j)%8 : (i/3+j)%8+1]
				ids = append(ids, b.rental(t, c, m.provider, m.id, g, 1_800_000, 1500))
			}
		}
		started := b.clock.Now()
		for range 5 {
			b.clock.Advance(37 * time.Second)
			var wg sync.WaitGroup
			for _, svc := range []*Service{b.svc, other} {
				wg.Go(func() { require.NoError(t, svc.Tick(b.ctx)) })
			}
			wg.Wait()
		}
		secs := int64(b.clock.Now().Sub(started) / time.Second)
		for _, id := range ids {
			var m models.RentalMeter
			require.NoError(t, db.NewSelect().Model(&m).Where("rental_id = ?", id).Scan(b.ctx))
			require.Equal(t, models.USDC(1_800_000*secs/3600), m.Charged, "rental %d", id)
			var charges int
			require.NoError(t, db.NewSelect().Model((*models.LedgerTransaction)(nil)).ColumnExpr("COUNT(*)").
				Where("rental_id = ? AND kind = ?", id, models.TxRentalCharge).Scan(b.ctx, &charges))
			require.Equal(t, 5, charges, "one charge a tick for rental %d, however many replicas and workers ticked", id)
		}
		requireBalancedLedger(t, b)

		shares, err := b.svc.shares(b.ctx, 4)
		require.NoError(t, err)
		require.Len(t, shares, 4)
		next := int64(0)
		for _, ranges := range shares {
			require.NotEmpty(t, ranges)
			for _, r := range ranges {
				require.Equal(t, next, r.from, "the ranges follow each other")
				require.Less(t, r.from, r.to)
				var n int
				require.NoError(t, db.NewSelect().Model((*models.RentalMeter)(nil)).ColumnExpr("COUNT(*)").
					Where("NOT closed AND customer_id >= ? AND customer_id < ?", r.from, r.to).Scan(b.ctx, &n))
				require.Equal(t, r.n, n)
				if n > 2 {
					require.True(t, r.from <= big && big < r.to && n == 5, "only the customer with five meters has a range bigger than a chunk")
				}
				next = r.to
			}
		}
		require.Equal(t, int64(math.MaxInt64), next, "the last range runs to the end")
	})
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// requireBalancedLedger checks the ledger's invariants over the whole
// database.
func requireBalancedLedger(t *testing.T, b *bundle) {
	t.Helper()
	billingtest.RequireBalancedLedger(t, b.ctx, b.db)
}

// A rental's hourly split over its GPUs does not depend on how often the
// ticks come: two identical rentals of three GPUs, metered every 30 s and
// every 450 s, leave the same per-GPU rows.
func TestPerGPURollupsDoNotDependOnTheTickCadence(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		fast, slow := setup(t, db, Config{}), setup(t, db, Config{})
		slow.serial = 1000
		rows := func(b *bundle, every time.Duration) []models.USDC {
			customer := b.user(t, "customer")
			b.credit(t, customer, 1_000_000_000)
			provider, machine, gpus := b.provider(t, 3)
			b.rental(t, customer, provider, machine, gpus, 1_234_567, 1700)
			for range int(2 * time.Hour / every) {
				b.clock.Advance(every)
				require.NoError(t, b.svc.Tick(b.ctx))
			}
			var hours []*models.EarningsHour
			require.NoError(t, db.NewSelect().Model(&hours).Where("gpu_id IN (?)", bun.List(gpus)).Order("hour", "gpu_id").Scan(b.ctx))
			var out []models.USDC
			for _, h := range hours {
				out = append(out, h.Gross, h.Fee)
			}
			return out
		}
		require.Equal(t, rows(fast, 30*time.Second), rows(slow, 450*time.Second))
	})
}

// Issue 24, point 1: a stop is billed to the customer's request. While
// the agent has not confirmed it (the rental is STOPPING), the meter bills
// no further than the request, however many ticks pass; the confirmation,
// dated at the request by the market, closes it there.
func TestAStopIsBilledToTheCustomersRequestWhileTheAgentHasNotConfirmed(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db, Config{})
		customer := b.user(t, "customer")
		b.credit(t, customer, 100_000_000)
		provider, machine, gpus := b.provider(t, 1)
		b.clock.Set(start)
		id := b.rental(t, customer, provider, machine, gpus, 3_600_000, 1500) // 1000 micro-USDC a second
		b.clock.Advance(100 * time.Second)
		require.NoError(t, b.svc.Tick(b.ctx))
		requested := b.clock.Now()
		_, err := db.NewUpdate().Model((*models.Rental)(nil)).Set("state = ?, stop_requested_at = ?, billable_until = ?", models.RentalStopping, requested, requested).
			Where("id = ?", id).Exec(b.ctx)
		require.NoError(t, err)
		for range 3 {
			b.clock.Advance(time.Minute)
			require.NoError(t, b.svc.Tick(b.ctx))
			require.Equal(t, models.USDC(100_000_000-100_000), b.balanceOf(t, models.AccountCustomerFunds, customer),
				"nothing after the stop request is billed")
		}
		b.end(t, id, models.RentalStopped, requested)
		require.NoError(t, b.svc.Tick(b.ctx))
		var meter models.RentalMeter
		require.NoError(t, db.NewSelect().Model(&meter).Where("rental_id = ?", id).Scan(b.ctx))
		require.True(t, meter.Closed)
		require.Equal(t, models.USDC(100_000), meter.Charged)
		require.True(t, meter.BilledUntil.Equal(requested))
		requireBalancedLedger(t, b)
	})
}

// A rental can end before what a tick billed already: its agent's end
// report, dated earlier, arrived after the tick, or its machine's last
// heartbeat was before it. The excess goes back to the customer, every leg
// reversed (the provider's earnings, the fee, the hourly rollups), and the
// rental costs exactly its seconds.
func TestARentalEndedBeforeWhatWasBilledGetsTheExcessBack(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db, Config{})
		customer := b.user(t, "customer")
		b.credit(t, customer, 100_000_000)
		provider, machine, gpus := b.provider(t, 2)
		b.clock.Set(start.Add(59 * time.Minute))                              // 09:59: the span crosses 10:00
		id := b.rental(t, customer, provider, machine, gpus, 1_800_000, 1500) // 1,000 micro-USDC a second for the two GPUs
		began := b.clock.Now()
		b.clock.Advance(100 * time.Second)
		require.NoError(t, b.svc.Tick(b.ctx))
		require.Equal(t, models.USDC(100_000_000-100_000), b.balanceOf(t, models.AccountCustomerFunds, customer))
		b.end(t, id, models.RentalCompleted, began.Add(40*time.Second))
		require.NoError(t, b.svc.Tick(b.ctx))
		require.Equal(t, models.USDC(100_000_000-40_000), b.balanceOf(t, models.AccountCustomerFunds, customer), "60 s given back")
		require.Equal(t, models.USDC(40_000-6_000), b.balanceOf(t, models.AccountProviderEarnings, provider))
		require.Equal(t, models.USDC(6_000), b.balanceOf(t, models.AccountPlatformFees, 0))
		var meter models.RentalMeter
		require.NoError(t, db.NewSelect().Model(&meter).Where("rental_id = ?", id).Scan(b.ctx))
		require.True(t, meter.Closed)
		require.Equal(t, models.USDC(40_000), meter.Charged)
		require.True(t, meter.BilledUntil.Equal(began.Add(40*time.Second)))
		requireBalancedLedger(t, b)
	})
}

// A rental that ended before what was billed, whose provider's earnings
// were paid out meanwhile: the excess cannot be taken back from the
// provider yet, so the meter stays open and the excess goes back to the
// customer at the first tick after the provider's earnings cover it; it is
// never lost.
func TestAnExcessTheProviderCannotGiveBackYetIsGivenBackLater(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db, Config{})
		customer := b.user(t, "customer")
		b.credit(t, customer, 100_000_000)
		provider, machine, gpus := b.provider(t, 2)
		id := b.rental(t, customer, provider, machine, gpus, 1_800_000, 1500) // 1,000 micro-USDC a second
		began := b.clock.Now()
		b.clock.Advance(100 * time.Second)
		require.NoError(t, b.svc.Tick(b.ctx)) // 100 s billed: the provider earns 85,000
		payOut := func(amount models.USDC) {
			t.Helper()
			require.NoError(t, db.InTx(b.ctx, func(ctx context.Context, tx bun.Tx) error {
				return post(ctx, tx, b.clock.Now(), []*posting{{tx: &models.LedgerTransaction{Kind: models.TxPayout, Reference: "test payout"},
					legs: []leg{{accountKey{models.AccountProviderEarnings, provider}, -amount}, {accountKey{models.AccountPaidOut, 0}, amount}}}})
			}))
		}
		payOut(85_000)
		b.end(t, id, models.RentalCompleted, began.Add(40*time.Second))
		require.NoError(t, b.svc.Tick(b.ctx))
		require.Equal(t, models.USDC(100_000_000-100_000), b.balanceOf(t, models.AccountCustomerFunds, customer), "not yet")
		var meter models.RentalMeter
		require.NoError(t, db.NewSelect().Model(&meter).Where("rental_id = ?", id).Scan(b.ctx))
		require.False(t, meter.Closed, "the meter stays open until the excess is given back")

		// The provider earns again (another customer's rental), enough to
		// give back the 51,000 it owes: the next tick does.
		other := b.user(t, "other")
		b.credit(t, other, 100_000_000)
		b.rental(t, other, provider, machine, gpus, 1_800_000, 1500)
		b.clock.Advance(100 * time.Second)
		require.NoError(t, b.svc.Tick(b.ctx))
		require.NoError(t, b.svc.Tick(b.ctx))
		require.Equal(t, models.USDC(100_000_000-40_000), b.balanceOf(t, models.AccountCustomerFunds, customer), "60 s given back")
		require.NoError(t, db.NewSelect().Model(&meter).Where("rental_id = ?", id).Scan(b.ctx))
		require.True(t, meter.Closed)
		require.Equal(t, models.USDC(40_000), meter.Charged)
		requireBalancedLedger(t, b)
	})
}
