package platform_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/billing"
	"github.com/gpunex/gpunex/internal/billing/billingtest"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/market"
	"github.com/gpunex/gpunex/internal/platform/platformtest"
	"github.com/gpunex/gpunex/models"
)

// Issue 24's money property: random timelines of starts, deliveries,
// agent reports with hostile times (a month back, minutes ahead), customer
// stops, credits, metering ticks on two replicas, sweeps and payout runs,
// on both stacks. Afterwards, and at checkpoints along the way: every
// posting sums to zero, balances are their entries and never negative,
// charges are provider earnings plus fees to the micro-USDC, no payout is
// made twice for a period, and every rental was billed exactly its locked
// rate for the seconds between a start and an end the platform itself
// observed (the start no earlier than the heartbeat that delivered the
// job, nor than the report's arrival less the skew, nor later than that
// arrival; the end no later than the end's arrival or the stop request).
func TestMoneyPropertiesOverRandomTimelinesWithHostileAgents(t *testing.T) {
	t.Parallel()
	for _, seed := range []uint64{1, 2} {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			t.Parallel()
			eachOnItsOwnClock(t, time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC), func(t *testing.T, s *platformtest.Server, clk *clock.Manual) {
				moneyTimeline(t, s, clk, rand.New(rand.NewPCG(seed, 24)))
			})
		})
	}
}

// observed is what the test saw the platform observe of a rental.
type observed struct {
	deliveredBy   time.Time // the latest the START_JOB can have been delivered
	runningArrive *time.Time
	endArrive     *time.Time
}

func moneyTimeline(t *testing.T, s *platformtest.Server, clk *clock.Manual, rng *rand.Rand) {
	ctx := context.Background()
	p := s.Platform
	type rig struct {
		uid   string
		agent *auth.Agent
	}
	var rigs []rig
	for i, price := range []int64{1_800_000, 3_600_000} {
		prov := s.NewProvider(t, fmt.Sprintf("prop-%d", i))
		uid := fmt.Sprintf("prop-machine-%d-%d", i, rng.IntN(1_000_000))
		marketMachine(t, s, prov, uid, 3, 90, price)
		var user int64
		require.NoError(t, p.DB.NewSelect().Model((*models.Provider)(nil)).Column("user_id").Where("id = ?", prov.ID).Scan(ctx, &user))
		wallet := []string{"9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin", "HN7cABqLq46Es1jh92dQQisAq662SmxELLLsHHe4YWrH"}[i]
		_, err := p.DB.NewInsert().Model(&models.PayoutMethod{ProviderID: prov.ID, Schedule: "WEEKLY", Kind: "SOLANA", SolanaAddress: &wallet,
			ChangedAt: clk.Now(), HoldUntil: clk.Now()}).Exec(ctx)
		require.NoError(t, err)
		rigs = append(rigs, rig{uid: uid, agent: &auth.Agent{TokenID: 1, ProviderID: prov.ID}})
	}
	var customers []int64
	for i := range 3 {
		email := platformtest.UniqueEmail(fmt.Sprintf("prop-customer-%d", i))
		s.NewAPIClient(t, "").SignUp(email, "correct horse battery", "Customer")
		u, err := p.Auth.UserByEmail(ctx, email)
		require.NoError(t, err)
		_, err = p.Billing.Credit(ctx, u.ID, models.USDC(2_000_000+rng.Int64N(8_000_000)), fmt.Sprintf("opening %s", email))
		require.NoError(t, err)
		customers = append(customers, u.ID)
	}
	// A second billing replica over the same database ticks too.
	replica := billing.New(billing.Deps{DB: p.DB, Bus: p.Bus, Clock: clk}, p.Billing.Config())
	replica.SetStop(p.Market.StopUnfunded, p.Market.Config().StopGrace)

	seen := map[int64]*observed{}
	rentals := func(states ...models.RentalState) []*models.Rental {
		var rs []*models.Rental
		q := p.DB.NewSelect().Model(&rs).Order("id")
		if len(states) > 0 {
			q = q.Where("state IN (?)", bun.List(states))
		}
		require.NoError(t, q.Scan(ctx))
		return rs
	}
	rigOf := func(r *models.Rental) rig {
		for _, g := range rigs {
			if g.agent.ProviderID == r.ProviderID {
				return g
			}
		}
		t.Fatalf("no rig for rental %d", r.ID)
		return rig{}
	}
	hostile := func() time.Time {
		switch rng.IntN(4) {
		case 0:
			return clk.Now().Add(-30 * 24 * time.Hour)
		case 1:
			return clk.Now().Add(4 * time.Minute)
		case 2:
			return clk.Now().Add(-time.Duration(rng.Int64N(int64(time.Hour))))
		default:
			return clk.Now()
		}
	}
	for step := range 240 {
		switch op := rng.IntN(14); op {
		case 0, 1: // a customer rents a GPU
			c := customers[rng.IntN(len(customers))]
			r, err := p.Market.Start(ctx, c, market.StartInput{Model: ptrTo("H100_SXM_80GB"), GpuCount: 1, Image: "python:3.12"})
			if err == nil {
				seen[r.ID] = &observed{}
			}
		case 2, 3: // an agent's heartbeat takes its commands
			g := rigs[rng.IntN(len(rigs))]
			_, err := p.Fleet.Heartbeat(ctx, g.agent, protocol.HeartbeatInput{MachineID: g.uid})
			require.NoError(t, err)
			for _, r := range rentals(models.RentalStarting) {
				if r.ProviderID == g.agent.ProviderID && seen[r.ID] != nil && seen[r.ID].deliveredBy.IsZero() {
					seen[r.ID].deliveredBy = clk.Now()
				}
			}
		case 4, 5: // an agent says a job runs, dated as it likes
			if rs := rentals(models.RentalStarting); len(rs) > 0 {
				r := rs[rng.IntN(len(rs))]
				g := rigOf(r)
				_, err := p.Market.ReportJobStatus(ctx, g.agent, protocol.ReportJobStatusInput{MachineID: g.uid, JobID: r.JobID,
					State: protocol.JobRunning, At: hostile()})
				if err == nil && seen[r.ID] != nil {
					now := clk.Now()
					seen[r.ID].runningArrive = &now
				}
			}
		case 6: // an agent says a job ended, dated as it likes
			if rs := rentals(models.RentalRunning, models.RentalStopping); len(rs) > 0 {
				r := rs[rng.IntN(len(rs))]
				g := rigOf(r)
				_, err := p.Market.ReportJobStatus(ctx, g.agent, protocol.ReportJobStatusInput{MachineID: g.uid, JobID: r.JobID,
					State: protocol.JobCompleted, At: hostile()})
				require.NoError(t, err)
				now := clk.Now()
				seen[r.ID].endArrive = &now
			}
		case 7: // a customer stops a rental
			if rs := rentals(models.RentalRunning); len(rs) > 0 {
				r := rs[rng.IntN(len(rs))]
				_, err := p.Market.Stop(ctx, r.CustomerID, r.ID)
				require.NoError(t, err)
			}
		case 8: // funds come in
			_, err := p.Billing.Credit(ctx, customers[rng.IntN(len(customers))], models.USDC(rng.Int64N(3_000_000)+1), fmt.Sprintf("top-up %d", step))
			require.NoError(t, err)
		case 9, 10: // metering, on either replica
			b := p.Billing
			if rng.IntN(2) == 0 {
				b = replica
			}
			require.NoError(t, b.Tick(ctx))
		case 11: // the market's sweep and a payout run
			require.NoError(t, p.Market.Tick(ctx))
			require.NoError(t, p.Billing.RunPayouts(ctx))
		default: // time passes
			clk.Advance(time.Duration(1+rng.Int64N(int64(20*time.Minute/time.Second))) * time.Second)
		}
		if step%60 == 59 {
			requireMoneyInvariants(t, s)
		}
	}
	// Everything ends: customers stop what runs, the sweep ends the stops,
	// the meters close.
	for _, r := range rentals(models.RentalStarting, models.RentalRunning) {
		_, err := p.Market.Stop(ctx, r.CustomerID, r.ID)
		require.NoError(t, err)
	}
	clk.Advance(p.Market.Config().StopGrace + time.Minute)
	require.NoError(t, p.Market.Tick(ctx))
	require.NoError(t, p.Billing.Tick(ctx))
	require.NoError(t, replica.Tick(ctx))
	requireMoneyInvariants(t, s)

	// Every rental was billed exactly the seconds the platform observed.
	var starts []*models.AgentCommand
	require.NoError(t, p.DB.NewSelect().Model(&starts).Where("kind = ?", protocol.CommandStartJob).Scan(ctx))
	delivered := map[int64]*time.Time{}
	for _, c := range starts {
		delivered[c.ID] = c.DeliveredAt
	}
	billedSome := 0
	for _, r := range rentals() {
		require.True(t, r.State.Ended(), "rental %d ended", r.ID)
		var meters []*models.RentalMeter
		require.NoError(t, p.DB.NewSelect().Model(&meters).Where("rental_id = ?", r.ID).Scan(ctx))
		if r.StartedAt == nil {
			require.Empty(t, meters, "rental %d never ran and is not billed", r.ID)
			continue
		}
		o := seen[r.ID]
		require.NotNil(t, o.runningArrive)
		d := delivered[*r.StartCommandID]
		require.NotNil(t, d, "rental %d ran without its job delivered", r.ID)
		require.False(t, r.StartedAt.Before(*d), "rental %d billed from %s, before the delivery %s", r.ID, r.StartedAt, d)
		require.False(t, r.StartedAt.Before(o.runningArrive.Add(-market.DefaultReportSkew)), "rental %d billed from before its report arrived less the skew", r.ID)
		require.False(t, r.StartedAt.After(*o.runningArrive), "rental %d billed from after its report arrived", r.ID)
		if o.endArrive != nil {
			require.False(t, r.EndedAt.After(*o.endArrive), "rental %d billed to after its end arrived", r.ID)
		}
		if r.BillableUntil != nil {
			require.False(t, r.EndedAt.After(*r.BillableUntil), "rental %d billed past its stop", r.ID)
		}
		require.Len(t, meters, 1)
		m := meters[0]
		require.True(t, m.Closed, "rental %d's meter closed", r.ID)
		secs := int64(r.EndedAt.Sub(*r.StartedAt) / time.Second)
		want := models.USDC(int64(r.PricePerHour) * int64(r.GpuCount) * secs / 3600)
		require.Equal(t, want, m.Charged, "rental %d: %d s at %s/h", r.ID, secs, r.PricePerHour)
		if m.Charged > 0 {
			billedSome++
		}
	}
	require.NotZero(t, billedSome, "the timeline billed something")
	t.Logf("%d rentals, %d billed; %d customer charges posted", len(rentals()), billedSome,
		count(t, s, `SELECT COUNT(*) FROM ledger_transactions WHERE kind = 'RENTAL_CHARGE'`))
	var twice int
	require.NoError(t, p.DB.NewRaw(`SELECT COUNT(*) FROM (SELECT provider_id, period_start FROM payouts GROUP BY provider_id, period_start HAVING COUNT(*) > 1) x`).
		Scan(ctx, &twice))
	require.Zero(t, twice, "no payout twice for a period")
}

// requireMoneyInvariants checks the ledger as a whole.
func requireMoneyInvariants(t *testing.T, s *platformtest.Server) {
	t.Helper()
	billingtest.RequireBalancedLedger(t, context.Background(), s.Platform.DB)
}

func count(t *testing.T, s *platformtest.Server, q string) int {
	t.Helper()
	var n int
	require.NoError(t, s.Platform.DB.NewRaw(q).Scan(context.Background(), &n))
	return n
}

// eachOnItsOwnClock is platformtest.Each with a manual clock per stack,
// from start: the stacks run in parallel, and a clock one of them moved
// must not move the other's.
func eachOnItsOwnClock(t *testing.T, start time.Time, fn func(t *testing.T, s *platformtest.Server, clk *clock.Manual)) {
	t.Helper()
	for _, st := range platformtest.Stacks {
		t.Run(st.Name, func(t *testing.T) {
			t.Parallel()
			clk := clock.NewManual(start)
			fn(t, platformtest.Start(t, st, platformtest.Options{Clock: clk}), clk)
		})
	}
}
