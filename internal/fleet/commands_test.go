package fleet

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// enqueueThree queues three commands for machine-0001 on svc and returns
// them in the order queued.
func (b *bundle) enqueueThree(t *testing.T, svc *Service) []*models.AgentCommand {
	t.Helper()
	var queued []*models.AgentCommand
	for _, c := range []struct {
		kind    protocol.CommandKind
		payload any
	}{
		{protocol.CommandStartJob, map[string]string{"job": "j-1"}},
		{protocol.CommandSetInterval, map[string]int{"seconds": 5}},
		{protocol.CommandStopJob, map[string]string{"job": "j-1"}},
	} {
		cmd, err := svc.Enqueue(b.ctx, b.machineID, c.kind, c.payload)
		require.NoError(t, err)
		queued = append(queued, cmd)
		b.clock.Advance(time.Second)
	}
	return queued
}

// listening is a replica of cfg that the machine has heartbeated to once,
// running its background work until the test ends, returned once it
// listens for commands.
func (b *bundle) listening(t *testing.T, cfg Config) *Service {
	t.Helper()
	r := b.replica(cfg)
	_, err := r.Heartbeat(b.ctx, b.agent, protocol.HeartbeatInput{MachineID: machineUID})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(b.ctx)
	done := make(chan struct{})
	go func() { defer close(done); r.RunBackground(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case <-b.bus.subscribed:
	case <-await.Timeout(t):
		t.Fatal("the replica never listened for commands")
	}
	return r
}

// requireDelivered checks that got are the queued commands, in order, and
// that SQL records them delivered.
func (b *bundle) requireDelivered(t *testing.T, queued, got []*models.AgentCommand) {
	t.Helper()
	require.Len(t, got, len(queued))
	for i, c := range got {
		require.Equal(t, queued[i].ID, c.ID)
		require.Equal(t, queued[i].Kind, c.Kind)
		require.JSONEq(t, queued[i].Payload, c.Payload)
	}
	n, err := b.db.NewSelect().Model((*models.AgentCommand)(nil)).Where("machine_id = ? AND delivered_at IS NULL", b.machineID).Count(context.Background())
	require.NoError(t, err)
	require.Zero(t, n, "all marked delivered")
}

func TestEnqueuedCommandsAreDeliveredInOrderExactlyOnceByTheNextHeartbeat(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setupStack(t, db)
		_, err := b.svc.Heartbeat(b.ctx, b.agent, protocol.HeartbeatInput{MachineID: machineUID})
		require.NoError(t, err)
		queued := b.enqueueThree(t, b.svc)

		res, err := b.svc.Heartbeat(b.ctx, b.agent, protocol.HeartbeatInput{MachineID: machineUID})
		require.NoError(t, err)
		b.requireDelivered(t, queued, res.Commands)

		b.clock.Advance(10 * time.Second)
		n := b.queries.Count(func() {
			res, err = b.svc.Heartbeat(b.ctx, b.agent, protocol.HeartbeatInput{MachineID: machineUID})
		})
		require.NoError(t, err)
		require.Empty(t, res.Commands, "delivered once")
		require.Zero(t, n, "with nothing queued, the heartbeat is steady again")
	})
}

// A command whose announcement the bus lost still rides a heartbeat on
// another replica: the bus ends a subscription that lost events (a Redis
// pub/sub connection broke), and each replica reloads the machines with
// commands waiting from SQL whenever its subscription starts.
func TestACommandWhoseAnnouncementWasLostIsDeliveredAfterTheResubscribe(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setupStack(t, db)
		// Stored by another replica while this one's subscription was
		// down: no announcement reaches it.
		lost := &models.AgentCommand{MachineID: b.machineID, Kind: protocol.CommandStartJob, Payload: `{"job":"j-lost"}`, CreatedAt: b.clock.Now()}
		_, err := db.NewInsert().Model(lost).Returning("id").Exec(b.ctx)
		require.NoError(t, err)

		delivering := b.listening(t, Config{Interval: 10 * time.Second})
		await.True(t, func() bool { return delivering.commands.waiting(b.machineID) },
			"the replica finds the command when it subscribes")
		res, err := delivering.Heartbeat(b.ctx, b.agent, protocol.HeartbeatInput{MachineID: machineUID})
		require.NoError(t, err)
		b.requireDelivered(t, []*models.AgentCommand{lost}, res.Commands)
	})
}

func TestACommandQueuedOnOneReplicaIsDeliveredByAnotherSharingTheDatabaseAndBus(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setupStack(t, db)
		queuing := b.svc
		delivering := b.listening(t, Config{Interval: 10 * time.Second})

		queued := b.enqueueThree(t, queuing)
		await.True(t, func() bool { return delivering.commands.waiting(b.machineID) },
			"the replica hears that commands wait")

		res, err := delivering.Heartbeat(b.ctx, b.agent, protocol.HeartbeatInput{MachineID: machineUID})
		require.NoError(t, err)
		b.requireDelivered(t, queued, res.Commands)

		// The agent moves to the replica that queued them: nothing twice.
		res, err = queuing.Heartbeat(b.ctx, b.agent, protocol.HeartbeatInput{MachineID: machineUID})
		require.NoError(t, err)
		require.Empty(t, res.Commands)
		res, err = delivering.Heartbeat(b.ctx, b.agent, protocol.HeartbeatInput{MachineID: machineUID})
		require.NoError(t, err)
		require.Empty(t, res.Commands)
	})
}
