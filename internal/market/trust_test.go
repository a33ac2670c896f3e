package market

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// reportAt sends an agent's job report claiming time at.
func (b *bundle) reportAt(t *testing.T, m machine, r *models.Rental, state protocol.JobState, at time.Time) error {
	t.Helper()
	_, err := b.svc.ReportJobStatus(b.ctx, m.owner.agent, protocol.ReportJobStatusInput{MachineID: m.uid, JobID: r.JobID, State: state, At: at})
	return err
}

// Issue 24, point 1: the agent is the seller's software. A report dated a
// month back once charged a customer 19.999969 of 20 USDC five seconds
// later; a completion dated ahead freed the GPUs while the meter billed on
// to that future time; a stop the agent never confirmed was billed until
// the sweep ended it. The bill now runs on the times the platform itself
// observed, and the agent's claims are kept beside it as evidence.
func TestTheBillRunsOnWhatThePlatformObservedNotOnTheAgentsTimes(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		p := b.provider(t, providerSpec{city: "Lisbon"})
		m := b.machine(t, p, h100, 4, 90, 2_000_000)
		customer := b.user(t, "customer")
		l := b.list(t, Filter{}, SortRank)[0]
		skew := b.svc.Config().ReportSkew
		require.Equal(t, DefaultReportSkew, skew)

		t.Run("a job not delivered yet cannot be reported", func(t *testing.T) {
			r := b.start(t, customer, l, 1)
			err := b.reportAt(t, m, r, protocol.JobRunning, b.clock.Now())
			pr := problemOf(t, err)
			require.Equal(t, "input.jobId", pr.Field)
			require.Equal(t, fault.InvalidState, pr.Code)
			got := b.rental(t, r.ID)
			require.Equal(t, models.RentalStarting, got.State, "nothing changed")
			require.Nil(t, got.StartedAt)
			require.Nil(t, got.AgentStartedAt)
			b.deliver(t, m)
			require.NoError(t, b.reportAt(t, m, r, protocol.JobCompleted, b.clock.Now()))
		})

		t.Run("a start dated a month back is billed from the delivery", func(t *testing.T) {
			r := b.start(t, customer, l, 1)
			b.clock.Advance(2 * time.Second)
			delivered := b.clock.Now()
			require.Len(t, b.deliver(t, m), 1)
			b.clock.Advance(3 * time.Second)
			claim := delivered.Add(-30 * 24 * time.Hour)
			require.NoError(t, b.reportAt(t, m, r, protocol.JobRunning, claim))
			got := b.rental(t, r.ID)
			require.Equal(t, models.RentalRunning, got.State)
			require.Equal(t, delivered, got.StartedAt.UTC(), "no earlier than the heartbeat that delivered START_JOB")
			require.Equal(t, claim, got.AgentStartedAt.UTC(), "the claim is kept as evidence")
			require.NoError(t, b.reportAt(t, m, r, protocol.JobCompleted, b.clock.Now()))
		})

		t.Run("a start reported long after the delivery is billed from the arrival less the skew", func(t *testing.T) {
			r := b.start(t, customer, l, 1)
			delivered := b.clock.Now()
			b.deliver(t, m)
			b.clock.Advance(time.Minute)
			arrival := b.clock.Now()
			require.NoError(t, b.reportAt(t, m, r, protocol.JobRunning, delivered.Add(time.Second)))
			require.Equal(t, arrival.Add(-skew), b.rental(t, r.ID).StartedAt.UTC(), "the report's own time, no earlier than its arrival less %s", skew)
			require.NoError(t, b.reportAt(t, m, r, protocol.JobCompleted, b.clock.Now()))
		})

		t.Run("a start or an end dated ahead is billed from and to the arrival", func(t *testing.T) {
			r := b.start(t, customer, l, 1)
			b.deliver(t, m)
			arrival := b.clock.Now()
			require.NoError(t, b.reportAt(t, m, r, protocol.JobRunning, arrival.Add(4*time.Minute)))
			require.Equal(t, arrival, b.rental(t, r.ID).StartedAt.UTC())
			b.clock.Advance(time.Hour)
			end := b.clock.Now()
			claim := end.Add(4 * time.Minute)
			require.NoError(t, b.reportAt(t, m, r, protocol.JobCompleted, claim))
			got := b.rental(t, r.ID)
			require.Equal(t, models.RentalCompleted, got.State)
			require.Equal(t, end, got.EndedAt.UTC(), "no later than the platform received the end")
			require.Equal(t, claim, got.AgentEndedAt.UTC())
			require.Equal(t, 0, b.allocations(t), "the GPUs are free")
		})

		t.Run("a stop is billed to the customer's request however late the agent confirms", func(t *testing.T) {
			r := b.start(t, customer, l, 1)
			b.deliver(t, m)
			require.NoError(t, b.reportAt(t, m, r, protocol.JobRunning, b.clock.Now()))
			b.clock.Advance(10 * time.Minute)
			requested := b.clock.Now()
			_, err := b.svc.Stop(b.ctx, customer, r.ID)
			require.NoError(t, err)
			b.clock.Advance(100 * time.Second)
			require.NoError(t, b.reportAt(t, m, r, protocol.JobCompleted, b.clock.Now()))
			got := b.rental(t, r.ID)
			require.Equal(t, models.RentalStopped, got.State)
			require.Equal(t, requested, got.EndedAt.UTC())
		})

		t.Run("a stop the agent never confirms is billed to the request, not to the sweep", func(t *testing.T) {
			r := b.start(t, customer, l, 1)
			b.deliver(t, m)
			require.NoError(t, b.reportAt(t, m, r, protocol.JobRunning, b.clock.Now()))
			b.clock.Advance(time.Minute)
			requested := b.clock.Now()
			_, err := b.svc.Stop(b.ctx, customer, r.ID)
			require.NoError(t, err)
			b.clock.Advance(b.svc.Config().StopGrace + time.Minute)
			require.NoError(t, b.svc.Tick(b.ctx))
			got := b.rental(t, r.ID)
			require.Equal(t, models.RentalStopped, got.State)
			require.Equal(t, requested, got.EndedAt.UTC())
		})

		t.Run("an end dated before the start ends at the start", func(t *testing.T) {
			r := b.start(t, customer, l, 1)
			b.deliver(t, m)
			require.NoError(t, b.reportAt(t, m, r, protocol.JobRunning, b.clock.Now()))
			started := b.rental(t, r.ID).StartedAt.UTC()
			b.clock.Advance(time.Minute)
			require.NoError(t, b.reportAt(t, m, r, protocol.JobCompleted, started.Add(-time.Hour)))
			require.Equal(t, started, b.rental(t, r.ID).EndedAt.UTC(), "nothing is billed, nothing negative either")
		})
	})
}
