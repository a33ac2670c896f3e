package fleet

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/presence"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

func TestSweeperMarksSilentMachinesOfflineOnlyAfterTheGracePeriod(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		ctx := context.Background()
		_, err := b.svc.Heartbeat(ctx, b.agent, protocol.HeartbeatInput{MachineID: "machine-0001"})
		require.NoError(t, err)
		require.Equal(t, protocol.MachineOnline, b.status(t))

		n, err := b.svc.Sweep(ctx) // the first sweep only starts trusting presence
		require.NoError(t, err)
		require.Zero(t, n)
		b.clock.Advance(29 * time.Second)
		_, err = b.svc.Heartbeat(ctx, b.agent, protocol.HeartbeatInput{MachineID: "machine-0001"})
		require.NoError(t, err)
		b.clock.Advance(29 * time.Second) // 29s of silence: within 3 intervals
		n, err = b.svc.Sweep(ctx)
		require.NoError(t, err)
		require.Zero(t, n)
		require.Equal(t, protocol.MachineOnline, b.status(t))

		b.clock.Advance(2 * time.Second) // 31s: offline
		n, err = b.svc.Sweep(ctx)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		require.Equal(t, protocol.MachineOffline, b.status(t))
	})
}

func TestAWipedPresenceStoreIsNotTakenForAnOutage(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		ctx := context.Background()
		_, err := b.svc.Heartbeat(ctx, b.agent, protocol.HeartbeatInput{MachineID: "machine-0001"})
		require.NoError(t, err)
		_, _ = b.svc.Sweep(ctx)
		b.clock.Advance(31 * time.Second)
		_, err = b.svc.Heartbeat(ctx, b.agent, protocol.HeartbeatInput{MachineID: "machine-0001"})
		require.NoError(t, err)

		// Redis restarts: every key, the epoch marker included, is gone.
		_, _ = b.presence.Remove(ctx, presenceKey(1))
		_, _ = b.presence.Remove(ctx, epochKey)
		n, err := b.svc.Sweep(ctx)
		require.NoError(t, err)
		require.Zero(t, n, "absent keys prove nothing right after a wipe")
		require.Equal(t, protocol.MachineOnline, b.status(t))

		b.clock.Advance(10 * time.Second) // the agent heartbeats again
		_, err = b.svc.Heartbeat(ctx, b.agent, protocol.HeartbeatInput{MachineID: "machine-0001"})
		require.NoError(t, err)
		b.clock.Advance(25 * time.Second)
		n, err = b.svc.Sweep(ctx)
		require.NoError(t, err)
		require.Zero(t, n)
		require.Equal(t, protocol.MachineOnline, b.status(t))
	})
}

func TestConcurrentTransitionsAreRecordedOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		ctx := context.Background()
		ref, err := b.svc.admission.resolve(ctx, b.agent, "machine-0001")
		require.NoError(t, err)
		errs := make(chan error, 4)
		for range 4 {
			go func() { errs <- b.svc.transition(ctx, ref, protocol.MachineOnline, nil, b.clock.Now(), b.clock.Now()) }()
		}
		for range 4 {
			require.NoError(t, <-errs)
		}
		n, err := db.NewSelect().Model((*models.MachineStatusInterval)(nil)).Where("machine_id = ? AND status = ?", ref.id, protocol.MachineOnline).Count(ctx)
		require.NoError(t, err)
		require.EqualValues(t, 1, n, "one online interval however many replicas saw the key appear")
	})
}

// An agent token is bounded in what it asks of the database: registrations
// and lookups of machine ids this replica has not resolved, unknown ones
// included. Heartbeats of resolved machines spend only their own bucket,
// so a fleet replaying its buffers after an outage is not held back by the
// token it shares.
func TestAnAgentTokenIsRateLimitedInLookupsNotInItsMachinesHeartbeats(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t, "sqlite")
	clk := clock.NewManual(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
	pres := presence.NewMemory(clk)
	b := bus.NewMemory()
	t.Cleanup(func() { _ = b.Close(); _ = pres.Close() })
	svc := New(Deps{DB: db, Presence: pres, Bus: b, Clock: clk, Logger: slog.New(slog.DiscardHandler)},
		Config{Interval: 10 * time.Second, TokenRatePerSecond: 1, TokenBurst: 3})
	pid := seedProvider(t, db, clk.Now(), "p")
	ctx := context.Background()
	agent := &auth.Agent{TokenID: 1, ProviderID: pid}
	for _, uid := range []string{"machine-0001", "machine-0002"} {
		_, err := svc.Register(ctx, agent, protocol.RegisterMachineInput{MachineID: uid, Hostname: "h", AgentVersion: "1", Gpus: []protocol.GpuInventory{{UUID: "GPU-" + uid, Name: "NVIDIA L4"}}})
		require.NoError(t, err)
	}

	// A replay after an outage: 40 buffered beats of each machine at once,
	// far more than the token's burst of 3 (two of which registration
	// spent), all within each machine's own burst of 60.
	for i := range 40 {
		for _, uid := range []string{"machine-0001", "machine-0002"} {
			at := clk.Now().Add(-time.Duration(40-i) * time.Second)
			_, err := svc.Heartbeat(ctx, agent, protocol.HeartbeatInput{MachineID: uid, At: &at})
			require.NoError(t, err, "beat %d of %s", i, uid)
		}
	}

	// Lookups spend the token's budget: one is left, then refusals.
	_, err := svc.Heartbeat(ctx, agent, protocol.HeartbeatInput{MachineID: "machine-9998"})
	require.Equal(t, fault.NotFound, fault.CodeOf(err))
	writes := db.Writes()
	_, err = svc.Heartbeat(ctx, agent, protocol.HeartbeatInput{MachineID: "machine-9999"})
	require.Equal(t, fault.RateLimited, fault.CodeOf(err), "unknown machine ids are looked up at the token's pace")
	_, err = svc.Register(ctx, agent, protocol.RegisterMachineInput{MachineID: "machine-0003", Hostname: "h", AgentVersion: "1"})
	require.Equal(t, fault.RateLimited, fault.CodeOf(err), "registrations too")
	require.Equal(t, writes, db.Writes(), "refused requests change nothing")
	_, err = svc.Heartbeat(ctx, agent, protocol.HeartbeatInput{MachineID: "machine-0001"})
	require.NoError(t, err, "a resolved machine still beats")

	other := &auth.Agent{TokenID: 2, ProviderID: pid}
	_, err = svc.Heartbeat(ctx, other, protocol.HeartbeatInput{MachineID: "machine-9999"})
	require.Equal(t, fault.NotFound, fault.CodeOf(err), "another token has its own budget")

	clk.Advance(time.Second)
	_, err = svc.Heartbeat(ctx, agent, protocol.HeartbeatInput{MachineID: "machine-9999"})
	require.Equal(t, fault.NotFound, fault.CodeOf(err), "the budget refills at the token's rate")
}

// racingPresence lets a test act at the moment the sweeper reads a key:
// onGet runs once, on the first Get of key after it is armed, after the
// read (so the sweeper acts on what it read).
type racingPresence struct {
	presence.Store
	key   string
	armed bool
	onGet func()
}

func (r *racingPresence) Get(ctx context.Context, key string) ([]byte, bool, error) {
	v, ok, err := r.Store.Get(ctx, key)
	if r.armed && key == r.key {
		r.armed = false
		r.onGet()
	}
	return v, ok, err
}

func TestABeatThatRacesTheSweepersOfflineWriteLeavesTheMachineOnline(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		clk := clock.NewManual(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
		mem := presence.NewMemory(clk)
		t.Cleanup(func() { _ = mem.Close() })
		racing := &racingPresence{Store: mem}
		b := newBundle(t, db, clk, racing)
		ctx := context.Background()
		_, err := b.svc.Heartbeat(ctx, b.agent, protocol.HeartbeatInput{MachineID: machineUID})
		require.NoError(t, err)
		_, _ = b.svc.Sweep(ctx) // the first sweep only starts trusting presence
		b.clock.Advance(31 * time.Second)

		// The sweeper finds the key expired and reads it once more before
		// writing; the machine's beat lands right then: it appears, but
		// its transition finds the machine still online and does nothing.
		racing.key, racing.armed = presenceKey(b.machineID), true
		racing.onGet = func() {
			_, err := b.svc.Heartbeat(ctx, b.agent, protocol.HeartbeatInput{MachineID: machineUID})
			require.NoError(t, err)
		}
		n, err := b.svc.Sweep(ctx)
		require.NoError(t, err)
		require.False(t, racing.armed, "the beat raced the sweep")
		require.Equal(t, 1, n, "the sweep wrote the machine offline")
		require.Equal(t, protocol.MachineOnline, b.status(t), "and, reading presence after its write, brought it back: it heartbeats")

		// Later beats are steady ones and it stays online.
		b.clock.Advance(10 * time.Second)
		_, err = b.svc.Heartbeat(ctx, b.agent, protocol.HeartbeatInput{MachineID: machineUID})
		require.NoError(t, err)
		n, err = b.svc.Sweep(ctx)
		require.NoError(t, err)
		require.Zero(t, n)
		require.Equal(t, protocol.MachineOnline, b.status(t))
	})
}
