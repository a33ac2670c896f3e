package fleet

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/presence"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// reloaded is machine-0001 as a dashboard loads it after a reload: from a
// fresh replica (nothing in its memory), through the listing the
// provider's query and subscription use.
func (b *bundle) reloaded(t *testing.T) *models.Machine {
	t.Helper()
	ms, err := b.replica(Config{Interval: 10 * time.Second}).Machines(b.ctx, b.agent.ProviderID)
	require.NoError(t, err)
	require.Len(t, ms, 1)
	return ms[0]
}

func (b *bundle) beat(t *testing.T, svc *Service) time.Time {
	t.Helper()
	_, err := svc.Heartbeat(b.ctx, b.agent, protocol.HeartbeatInput{MachineID: machineUID})
	require.NoError(t, err)
	return b.clock.Now()
}

func (b *bundle) sweep(t *testing.T, svc *Service) int {
	t.Helper()
	n, err := svc.Sweep(b.ctx)
	require.NoError(t, err)
	return n
}

// failingPresence is a presence store whose reads fail: Redis down.
type failingPresence struct{ presence.Store }

func (failingPresence) GetMany(context.Context, []string) (map[string][]byte, error) {
	return nil, errors.New("presence: unreachable")
}

// An online machine's stored last_heartbeat_at is the first beat of its
// session; it is never shown for it. Without its presence record (expired
// before the sweeper ran, or unreadable) its last heartbeat is unknown,
// not hours old.
func TestAnOnlineMachineWithoutItsPresenceRecordHasNoLastHeartbeat(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		first := b.beat(t, b.svc)
		b.clock.Advance(5 * time.Hour)
		b.beat(t, b.svc) // a steady heartbeat: presence only
		require.True(t, b.machine(t).LastHeartbeatAt.Equal(first), "the column holds the session's first beat")

		unreadable := New(Deps{DB: db, Presence: failingPresence{b.presence}, Bus: b.bus, Clock: b.clock, Logger: slog.New(slog.DiscardHandler)}, Config{Interval: 10 * time.Second})
		for name, load := range map[string]func() (*models.Machine, error){
			"machine": func() (*models.Machine, error) { return unreadable.Machine(b.ctx, b.machineID) },
			"machines": func() (*models.Machine, error) {
				ms, err := unreadable.Machines(b.ctx, b.agent.ProviderID)
				if err != nil || len(ms) != 1 {
					return nil, err
				}
				return ms[0], nil
			},
		} {
			m, err := load()
			require.NoError(t, err, name)
			require.NotNil(t, m, name)
			require.Equal(t, protocol.MachineOnline, m.Status, name)
			require.Nil(t, m.LastHeartbeatAt, "%s: unreadable presence, not the stored %s", name, first)
		}

		existed, err := b.presence.Remove(b.ctx, presenceKey(b.machineID)) // expired, not swept yet
		require.NoError(t, err)
		require.True(t, existed)
		m := b.reloaded(t)
		require.Equal(t, protocol.MachineOnline, m.Status)
		require.Nil(t, m.LastHeartbeatAt, "absent presence, not the stored %s", first)
		for _, g := range m.Gpus {
			require.Nil(t, g.Telemetry)
		}
	})
}

// Issue 11, point 9: a machine that fell silent still tells, after a
// reload, when its last heartbeat arrived: the exact one, which the sweep
// before the one that found it gone had read.
func TestASilentMachineKeepsItsLastHeartbeatAfterAReload(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		b.beat(t, b.svc)
		b.sweep(t, b.svc) // the first sweep only starts trusting presence
		b.clock.Advance(10 * time.Second)
		b.beat(t, b.svc)
		b.clock.Advance(10 * time.Second)
		last := b.beat(t, b.svc)
		require.Equal(t, protocol.MachineOnline, b.reloaded(t).Status)
		require.True(t, b.reloaded(t).LastHeartbeatAt.Equal(last), "online: the live heartbeat")

		for _, after := range []time.Duration{5, 15, 25} { // within the grace period
			b.clock.Set(last.Add(after * time.Second))
			require.Zero(t, b.sweep(t, b.svc))
		}
		b.clock.Set(last.Add(35 * time.Second))
		require.Equal(t, 1, b.sweep(t, b.svc))

		m := b.reloaded(t)
		require.Equal(t, protocol.MachineOffline, m.Status)
		require.Equal(t, models.OfflineUnplanned, *m.OfflineReason)
		require.True(t, m.StatusChangedAt.Equal(last.Add(5*time.Second)), "offline from the end of the grace period")
		require.NotNil(t, m.LastHeartbeatAt, "an offline machine still says when it was last heard from")
		require.True(t, m.LastHeartbeatAt.Equal(last), "the last heartbeat itself: %s, not %s", m.LastHeartbeatAt, last)
		for _, g := range m.Gpus {
			require.Nil(t, g.Telemetry, "no telemetry while offline")
		}
	})
}

// A sweeper that did not see the machine's last heartbeat (it just took
// over) records the latest that heartbeat can have been: within one
// interval of it, never before it.
func TestASweeperThatMissedTheLastHeartbeatRecordsTheLatestItCanHaveBeen(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		taker := b.replica(Config{Interval: 10 * time.Second})
		b.sweep(t, taker) // starts trusting presence
		b.clock.Advance(time.Second)
		last := b.beat(t, b.svc) // no sweep sees it
		b.clock.Advance(30 * time.Second)
		require.Equal(t, 1, b.sweep(t, taker))

		m := b.reloaded(t)
		require.Equal(t, protocol.MachineOffline, m.Status)
		require.True(t, m.LastHeartbeatAt.Equal(b.clock.Now().Add(-30*time.Second)))
		require.False(t, m.LastHeartbeatAt.Before(last))
		require.LessOrEqual(t, m.LastHeartbeatAt.Sub(last), 10*time.Second)
	})
}

// A sweep that does not trust presence yet (just after a start, a wipe or
// an outage) still reads the heartbeats, so the first one that does
// records a silent machine's real last beat, not the latest it can have
// been (what an interrupted rental is billed to).
func TestASweepThatDoesNotTrustPresenceYetStillKeepsTheLastHeartbeat(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		last := b.beat(t, b.svc)
		taker := b.replica(Config{Interval: 10 * time.Second})
		b.clock.Advance(time.Second)
		b.sweep(t, taker) // not trusted yet: it only reads
		b.clock.Advance(30 * time.Second)
		require.Equal(t, 1, b.sweep(t, taker))

		m := b.reloaded(t)
		require.Equal(t, protocol.MachineOffline, m.Status)
		require.True(t, m.LastHeartbeatAt.Equal(last), "%s, not %s", m.LastHeartbeatAt, last)
	})
}

// A planned stop's last heartbeat is the agent's going-offline message;
// coming back, the live heartbeat shows again; and no steady heartbeat
// writes SQL for any of it.
func TestAPlannedStopKeepsTheLastHeartbeatAndAReturnShowsTheLiveOne(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setupStack(t, db)
		b.beat(t, b.svc)
		b.clock.Advance(10 * time.Second)
		require.Zero(t, b.queries.Count(func() { b.beat(t, b.svc) }), "a steady heartbeat runs no SQL statement")
		b.clock.Advance(4 * time.Second)
		yes := true
		_, err := b.svc.Heartbeat(b.ctx, b.agent, protocol.HeartbeatInput{MachineID: machineUID, GoingOffline: &yes})
		require.NoError(t, err)
		stopped := b.clock.Now()

		b.clock.Advance(time.Hour)
		m := b.reloaded(t)
		require.Equal(t, models.OfflinePlanned, *m.OfflineReason)
		require.True(t, m.LastHeartbeatAt.Equal(stopped))

		back := b.beat(t, b.svc)
		b.clock.Advance(10 * time.Second)
		latest := b.beat(t, b.svc)
		m = b.reloaded(t)
		require.Equal(t, protocol.MachineOnline, m.Status)
		require.True(t, m.StatusChangedAt.Equal(back))
		require.True(t, m.LastHeartbeatAt.Equal(latest), "online: the live heartbeat, not the one the transition kept")
	})
}

// Issue 11, point 11: a machine counts for the agent token it last
// registered with.
func TestAMachineBelongsToTheTokenItLastRegisteredWith(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setupStack(t, db)
		require.Equal(t, b.agent.TokenID, *b.machine(t).AgentTokenID)

		other := &auth.Agent{TokenID: 7, ProviderID: b.agent.ProviderID}
		_, err := b.svc.Register(b.ctx, other, protocol.RegisterMachineInput{MachineID: machineUID, Hostname: "h", AgentVersion: "1",
			Gpus: []protocol.GpuInventory{{UUID: "GPU-1", Name: "NVIDIA L4", Simulated: true}}})
		require.NoError(t, err)
		require.Equal(t, int64(7), *b.machine(t).AgentTokenID, "re-registered with another token")
	})
}
