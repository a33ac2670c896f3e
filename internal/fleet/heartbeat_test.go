package fleet

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// transitions subscribes to the provider's machines channel and returns a
// function that drains the transitions announced so far, leaving out the
// telemetry samples (the memory bus delivers on Publish, and transitions
// publish before they return).
func (b *bundle) transitions(t *testing.T) func() []machineEvent {
	t.Helper()
	announced := b.announcements(t)
	return func() []machineEvent {
		var evs []machineEvent
		for _, ev := range announced() {
			if ev.Beat == nil {
				evs = append(evs, ev)
			}
		}
		return evs
	}
}

// announcements subscribes to the provider's machines channel and returns
// a function that drains everything announced so far.
func (b *bundle) announcements(t *testing.T) func() []machineEvent {
	t.Helper()
	msgs, err := b.bus.Subscribe(b.ctx, Channel(b.agent.ProviderID))
	require.NoError(t, err)
	return func() []machineEvent {
		var evs []machineEvent
		for {
			select {
			case m := <-msgs:
				var ev machineEvent
				require.NoError(t, json.Unmarshal(m.Payload, &ev))
				evs = append(evs, ev)
			default:
				return evs
			}
		}
	}
}

func TestAHeartbeatSampledLongerAgoThanTheGracePeriodIsAcknowledgedButChangesNoLiveState(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setupStack(t, db)
		announced := b.transitions(t)
		replay := func() *HeartbeatResult {
			t.Helper()
			at := b.clock.Now().Add(-b.svc.Config().Grace() - time.Second)
			writes := db.Writes()
			res, err := b.svc.Heartbeat(b.ctx, b.agent, protocol.HeartbeatInput{MachineID: machineUID, At: &at})
			require.NoError(t, err)
			require.True(t, res.Accepted, "acknowledged, so the agent drops it from its buffer")
			require.Nil(t, res.Status)
			require.Equal(t, writes, db.Writes(), "no SQL row")
			return res
		}

		// An offline machine's replayed sample brings it no closer to online.
		replay()
		_, live := b.live(t)
		require.False(t, live, "no presence written")
		require.Equal(t, protocol.MachineOffline, b.status(t))
		require.Len(t, b.intervals(t), 1)
		require.Empty(t, announced())

		// An online machine's replayed sample does not replace its latest.
		_, err := b.svc.Heartbeat(b.ctx, b.agent, protocol.HeartbeatInput{MachineID: machineUID})
		require.NoError(t, err)
		require.Len(t, announced(), 1)
		latest, live := b.live(t)
		require.True(t, live)
		b.clock.Advance(time.Second)
		replay()
		after, live := b.live(t)
		require.True(t, live)
		require.True(t, latest.At.Equal(after.At), "the live sample is still the latest one")
		require.Equal(t, protocol.MachineOnline, b.status(t))
		require.Len(t, b.intervals(t), 2)
		require.Empty(t, announced())
	})
}

func TestTheFirstHeartbeatOfAnOfflineMachineRecordsTheTransitionOnceAndASteadyOneWritesNoSQL(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setupStack(t, db)
		announced := b.transitions(t)
		registered := b.clock.Now()
		b.clock.Advance(time.Minute)
		first := b.clock.Now()

		res, err := b.svc.Heartbeat(b.ctx, b.agent, protocol.HeartbeatInput{MachineID: machineUID})
		require.NoError(t, err)
		require.Equal(t, protocol.MachineOnline, *res.Status)
		require.Equal(t, []machineEvent{{MachineID: b.machineID, Status: protocol.MachineOnline}}, announced())

		for range 5 {
			b.clock.Advance(10 * time.Second)
			var res *HeartbeatResult
			n := b.queries.Count(func() {
				res, err = b.svc.Heartbeat(b.ctx, b.agent, protocol.HeartbeatInput{MachineID: machineUID})
			})
			require.NoError(t, err)
			require.Equal(t, protocol.MachineOnline, *res.Status)
			require.Zero(t, n, "a steady heartbeat runs no SQL statement")
		}
		latest, live := b.live(t)
		require.True(t, live)
		require.True(t, latest.At.Equal(b.clock.Now()))

		m := b.machine(t)
		require.Equal(t, protocol.MachineOnline, m.Status)
		require.Nil(t, m.OfflineReason)
		require.True(t, m.StatusChangedAt.Equal(first))
		is := b.intervals(t)
		require.Len(t, is, 2, "one transition, recorded once")
		require.Equal(t, protocol.MachineOffline, is[0].Status)
		require.Equal(t, models.OfflineNeverSeen, *is[0].Reason)
		require.True(t, is[0].StartedAt.Equal(registered))
		require.True(t, is[0].EndedAt.Equal(first))
		require.Equal(t, protocol.MachineOnline, is[1].Status)
		require.True(t, is[1].StartedAt.Equal(first))
		require.Nil(t, is[1].EndedAt)
		require.Empty(t, announced(), "steady heartbeats announce no transition")
	})
}

func TestGoingOfflineMarksTheMachineOfflinePlannedAndClearsPresence(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setupStack(t, db)
		_, err := b.svc.Heartbeat(b.ctx, b.agent, protocol.HeartbeatInput{MachineID: machineUID})
		require.NoError(t, err)
		announced := b.transitions(t)
		b.clock.Advance(15 * time.Second)
		stopped := b.clock.Now()

		yes := true
		res, err := b.svc.Heartbeat(b.ctx, b.agent, protocol.HeartbeatInput{MachineID: machineUID, GoingOffline: &yes})
		require.NoError(t, err)
		require.Equal(t, protocol.MachineOffline, *res.Status)

		_, live := b.live(t)
		require.False(t, live, "presence cleared")
		m := b.machine(t)
		require.Equal(t, protocol.MachineOffline, m.Status)
		require.Equal(t, models.OfflinePlanned, *m.OfflineReason)
		require.True(t, m.StatusChangedAt.Equal(stopped))
		is := b.intervals(t)
		require.Len(t, is, 3)
		require.True(t, is[1].EndedAt.Equal(stopped), "the uptime ends when the agent said it stopped")
		require.Equal(t, protocol.MachineOffline, is[2].Status)
		require.Equal(t, models.OfflinePlanned, *is[2].Reason)
		require.True(t, is[2].StartedAt.Equal(stopped))
		require.Equal(t, []machineEvent{{MachineID: b.machineID, Status: protocol.MachineOffline}}, announced())
	})
}

func TestAHeartbeatWhoseTransitionFailedBringsTheMachineOnlineWithTheNextOne(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setupStack(t, db)
		// A real failure of the transition's write: its interval table is
		// gone for one heartbeat (as a statement that times out or a lost
		// connection fails it), after presence took the beat.
		_, err := db.ExecContext(b.ctx, "ALTER TABLE machine_status_intervals RENAME TO machine_status_intervals_away")
		require.NoError(t, err)
		b.clock.Advance(10 * time.Second)
		_, err = b.svc.Heartbeat(b.ctx, b.agent, protocol.HeartbeatInput{MachineID: machineUID})
		require.Error(t, err, "the transition could not be written")
		_, err = db.ExecContext(b.ctx, "ALTER TABLE machine_status_intervals_away RENAME TO machine_status_intervals")
		require.NoError(t, err)
		require.Equal(t, protocol.MachineOffline, b.machine(t).Status)

		b.clock.Advance(10 * time.Second)
		res, err := b.svc.Heartbeat(b.ctx, b.agent, protocol.HeartbeatInput{MachineID: machineUID})
		require.NoError(t, err)
		require.Equal(t, protocol.MachineOnline, *res.Status)
		require.Equal(t, protocol.MachineOnline, b.machine(t).Status, "the next beat made the transition the failed one could not")
		is := b.intervals(t)
		require.Len(t, is, 2)
		require.Equal(t, protocol.MachineOnline, is[1].Status)
	})
}

func TestHealBringsOnlineAMachineThatHeartbeatsWhileSQLHoldsItOffline(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setupStack(t, db)
		b.clock.Advance(10 * time.Second)
		// What a beat leaves when its transition failed and its presence
		// key could not be cleared: presence holds the beat, SQL says
		// offline, and later beats do not appear.
		value, err := json.Marshal(beat{At: b.clock.Now()})
		require.NoError(t, err)
		_, err = b.presence.Touch(b.ctx, presenceKey(b.machineID), value, b.svc.cfg.Grace())
		require.NoError(t, err)
		_, err = b.svc.Heartbeat(b.ctx, b.agent, protocol.HeartbeatInput{MachineID: machineUID})
		require.NoError(t, err)
		require.Equal(t, protocol.MachineOffline, b.machine(t).Status, "the stuck state")

		n, err := b.svc.Heal(b.ctx)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		require.Equal(t, protocol.MachineOnline, b.machine(t).Status)
		n, err = b.svc.Heal(b.ctx)
		require.NoError(t, err)
		require.Zero(t, n, "an online machine is left alone")

		// A machine whose key is there but whose beat is older than the
		// grace is not brought back.
		_, err = b.svc.Heartbeat(b.ctx, b.agent, protocol.HeartbeatInput{MachineID: machineUID, GoingOffline: ptrTrue()})
		require.NoError(t, err)
		old, err := json.Marshal(beat{At: b.clock.Now().Add(-2 * b.svc.cfg.Grace())})
		require.NoError(t, err)
		_, err = b.presence.Touch(b.ctx, presenceKey(b.machineID), old, b.svc.cfg.Grace())
		require.NoError(t, err)
		n, err = b.svc.Heal(b.ctx)
		require.NoError(t, err)
		require.Zero(t, n)
		require.Equal(t, protocol.MachineOffline, b.machine(t).Status)
	})
}

func ptrTrue() *bool { v := true; return &v }

// TestCompactWritesEachOnlineMachinesLatestBeatIntoItsOpenInterval: the
// uptime record's checkpoint. Five machines, two to a statement: every
// online machine's open interval holds its own latest beat after one
// compaction of three statements; an offline machine's is left alone.
func TestCompactWritesEachOnlineMachinesLatestBeatIntoItsOpenInterval(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setupStack(t, db)
		b.svc.sweeper.compactBatch = 2
		uids := []string{machineUID}
		for i := 2; i <= 5; i++ {
			uid := fmt.Sprintf("machine-%04d", i)
			_, err := b.svc.Register(b.ctx, b.agent, protocol.RegisterMachineInput{MachineID: uid, Hostname: uid, AgentVersion: "1",
				Gpus: []protocol.GpuInventory{{UUID: fmt.Sprintf("GPU-%d", i), Name: "NVIDIA L4", Simulated: true}}})
			require.NoError(t, err)
			uids = append(uids, uid)
		}
		beat := func(uid string, offline bool) {
			in := protocol.HeartbeatInput{MachineID: uid}
			if offline {
				in.GoingOffline = ptrTrue()
			}
			_, err := b.svc.Heartbeat(b.ctx, b.agent, in)
			require.NoError(t, err)
		}
		for _, uid := range uids {
			beat(uid, false)
		}
		latest := map[string]time.Time{}
		for _, uid := range uids {
			b.clock.Advance(time.Second)
			beat(uid, false)
			latest[uid] = b.clock.Now()
		}
		beat(uids[4], true)

		statements := b.queries.Count(func() { require.NoError(t, b.svc.Compact(b.ctx)) })
		require.Equal(t, 1+2, statements, "a read of the online machines, then a statement per two of them")

		type open struct {
			UID        string     `bun:"machine_uid"`
			Status     string     `bun:"status"`
			LastSeenAt *time.Time `bun:"last_seen_at"`
		}
		var rows []open
		require.NoError(t, db.NewSelect().TableExpr("machine_status_intervals AS msi").
			Join("JOIN machines AS m ON m.id = msi.machine_id").ColumnExpr("m.machine_uid, msi.status, msi.last_seen_at").
			Where("msi.ended_at IS NULL").OrderExpr("m.machine_uid").Scan(b.ctx, &rows))
		require.Len(t, rows, 5)
		for _, r := range rows[:4] {
			require.Equal(t, string(protocol.MachineOnline), r.Status, r.UID)
			require.NotNil(t, r.LastSeenAt, "%s: compaction wrote its latest beat", r.UID)
			require.True(t, latest[r.UID].Equal(*r.LastSeenAt), "%s: last seen %s, its latest beat %s", r.UID, r.LastSeenAt, latest[r.UID])
		}
		require.Equal(t, string(protocol.MachineOffline), rows[4].Status, "machine-0005 went offline")
		require.Nil(t, rows[4].LastSeenAt, "an offline machine's open interval is not compacted")
	})
}
