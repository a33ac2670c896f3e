package fleet

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/fault/faulttest"
	"github.com/gpunex/gpunex/internal/notification"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// told is a fleet service that tells: the bundle's replica with a
// notification service, and two admins to tell.
type told struct {
	*bundle
	svc    *Service
	owner  int64 // the bundle's provider's user
	admins []int64
}

// setupTold is setupStack with a service that notifies, configured by
// cfg (which AllowSimulated decides).
func setupTold(t *testing.T, db *store.DB, cfg Config) *told {
	t.Helper()
	b := setupStack(t, db)
	logger := slog.New(slog.DiscardHandler)
	notify := notification.New(notification.Deps{DB: db, Bus: b.bus, Clock: b.clock, Logger: logger}, notification.Config{})
	tt := &told{bundle: b, svc: New(Deps{DB: db, Presence: b.presence, Bus: b.bus, Clock: b.clock, Logger: logger, Notify: notify}, cfg)}
	require.NoError(t, db.NewSelect().Model((*models.Provider)(nil)).Column("user_id").Where("id = ?", b.agent.ProviderID).Scan(b.ctx, &tt.owner))
	for _, name := range []string{"ada", "grace"} {
		u := &models.User{Email: name + "@gpunex.example", Name: name, PasswordHash: "x", CreatedAt: b.clock.Now(), UpdatedAt: b.clock.Now()}
		_, err := db.NewInsert().Model(u).Returning("id").Exec(b.ctx)
		require.NoError(t, err)
		_, err = db.NewInsert().Model(&models.UserRole{UserID: u.ID, Role: models.RoleAdmin, CreatedAt: b.clock.Now()}).Exec(b.ctx)
		require.NoError(t, err)
		tt.admins = append(tt.admins, u.ID)
	}
	return tt
}

// notices lists user's notifications of kind, oldest first.
func (tt *told) notices(t *testing.T, user int64, kind string) []models.Notification {
	t.Helper()
	var ns []models.Notification
	require.NoError(t, tt.db.NewSelect().Model(&ns).Where("user_id = ? AND kind = ?", user, kind).OrderExpr("id ASC").Scan(tt.ctx))
	return ns
}

// fleetState is what a refused registration must leave as it was.
type fleetState struct {
	Machines, Gpus, Changes, Intervals int
}

func stateOf(t *testing.T, db *store.DB) fleetState {
	t.Helper()
	count := func(model any, where string) int {
		q := db.NewSelect().Model(model)
		if where != "" {
			q = q.Where(where)
		}
		n, err := q.Count(context.Background())
		require.NoError(t, err)
		return int(n)
	}
	return fleetState{
		Machines:  count((*models.Machine)(nil), ""),
		Gpus:      count((*models.MachineGpu)(nil), "removed_at IS NULL"),
		Changes:   count((*models.MachineInventoryChange)(nil), ""),
		Intervals: count((*models.MachineStatusInterval)(nil), ""),
	}
}

// liveHolders lists the machine ids holding uuid, not removed.
func liveHolders(t *testing.T, db *store.DB, uuid string) []int64 {
	t.Helper()
	var ids []int64
	require.NoError(t, db.NewSelect().Model((*models.MachineGpu)(nil)).Column("machine_id").
		Where("uuid = ? AND removed_at IS NULL", uuid).Scan(context.Background(), &ids))
	return ids
}

func l4(uuid string, index int) protocol.GpuInventory {
	return protocol.GpuInventory{UUID: uuid, Index: index, Name: "NVIDIA L4", Simulated: true}
}

// Issue 24, point 4: a GPU UUID registered on a second machine of the same
// provider was listed on both. A UUID is one GPU across the platform: the
// second registration is refused with TAKEN at the GPU's uuid, changes
// nothing, and the provider and every admin are told once per GPU and
// machine however often the agent retries.
func TestAGpuUUIDRegisteredOnAnotherMachineIsRefusedAndTheAdminsAreToldOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		tt := setupTold(t, db, Config{Interval: 10 * time.Second, AllowSimulated: true})
		other := &auth.Agent{TokenID: 2, ProviderID: seedProvider(t, db, tt.clock.Now(), "other")}
		before := stateOf(t, db)

		second := protocol.RegisterMachineInput{MachineID: "machine-0002", Hostname: "rig-2", AgentVersion: "1",
			Gpus: []protocol.GpuInventory{l4("GPU-7", 0), l4("GPU-1", 1)}}
		for range 3 { // an agent that retries
			_, err := tt.svc.Register(tt.ctx, tt.agent, second)
			faulttest.RequireProblem(t, err, "input.gpus.1.uuid", fault.Taken)
			v, _ := fault.AsValidation(err)
			require.Contains(t, v.Problems[0].Message, "your machine h (machine-0001)", "the provider's own machine is named")
		}
		// Another provider claiming the same UUID is refused too, without
		// being told whose machine has it.
		_, err := tt.svc.Register(tt.ctx, other, protocol.RegisterMachineInput{MachineID: "machine-0003", Hostname: "rig-3", AgentVersion: "1",
			Gpus: []protocol.GpuInventory{l4("GPU-1", 0)}})
		faulttest.RequireProblem(t, err, "input.gpus.0.uuid", fault.Taken)
		v, _ := fault.AsValidation(err)
		require.NotContains(t, v.Problems[0].Message, "machine-0001")

		require.Equal(t, before, stateOf(t, db), "a refused registration changes nothing of the fleet")
		require.Equal(t, []int64{tt.machineID}, liveHolders(t, db, "GPU-1"), "the GPU stays on its first machine, listed once")
		require.Empty(t, liveHolders(t, db, "GPU-7"), "nothing of the refused registration is kept")

		// Told once per GPU and machine: the provider with what to do, each
		// admin with both machines.
		own := tt.notices(t, tt.owner, KindGpuTaken)
		require.Len(t, own, 1)
		require.Equal(t, map[string]string{"providerId": fmt.Sprint(tt.agent.ProviderID), "provider": "p", "machineUid": "machine-0002",
			"hostname": "rig-2", "uuid": "GPU-1"}, own[0].Params)
		for _, admin := range tt.admins {
			review := tt.notices(t, admin, KindGpuTakenReview)
			require.Len(t, review, 2, "one for each machine that claimed it")
			require.Equal(t, "machine-0002", review[0].Params["machineUid"])
			require.Equal(t, "machine-0001", review[0].Params["holderMachineUid"])
			require.Equal(t, "p", review[0].Params["holderProvider"])
			require.Equal(t, "other", review[1].Params["provider"])
			require.Contains(t, review[1].Body, "GPU-1")
		}
		var kept []models.RegistrationRefusal
		require.NoError(t, db.NewSelect().Model(&kept).OrderExpr("id ASC").Scan(tt.ctx))
		require.Len(t, kept, 2)
		require.Equal(t, models.RefusalGpuTaken, kept[0].Reason)
		require.Equal(t, tt.machineID, *kept[0].HolderMachineID)

		// The machine registers once the GPU is left out, and the service
		// goes on serving.
		_, err = tt.svc.Register(tt.ctx, tt.agent, protocol.RegisterMachineInput{MachineID: "machine-0002", Hostname: "rig-2", AgentVersion: "1",
			Gpus: []protocol.GpuInventory{l4("GPU-7", 0)}})
		require.NoError(t, err)
	})
}

// Issue 24, point 4: a real operator moves cards. A GPU still present on
// machine A is refused on B; once A has re-registered without it (its row
// removed), B registers it, and A cannot take it back until B lets it go.
func TestAGpuMovesToAnotherMachineOnlyAfterLeavingTheFirst(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setupStack(t, db)
		register := func(uid string, gpus ...protocol.GpuInventory) (*models.Machine, error) {
			b.clock.Advance(time.Minute)
			return b.svc.Register(b.ctx, b.agent, protocol.RegisterMachineInput{MachineID: uid, Hostname: uid, AgentVersion: "1", Gpus: gpus})
		}
		mB, err := register("machine-000b", l4("GPU-2", 0))
		require.NoError(t, err)

		_, err = register("machine-000b", l4("GPU-2", 0), l4("GPU-1", 1))
		faulttest.RequireProblem(t, err, "input.gpus.1.uuid", fault.Taken)

		_, err = register(machineUID) // A without the card
		require.NoError(t, err)
		m, err := register("machine-000b", l4("GPU-2", 0), l4("GPU-1", 1))
		require.NoError(t, err)
		require.Len(t, m.Gpus, 2)
		require.Equal(t, []int64{mB.ID}, liveHolders(t, db, "GPU-1"))

		_, err = register(machineUID, l4("GPU-1", 0))
		faulttest.RequireProblem(t, err, "input.gpus.0.uuid", fault.Taken)

		_, err = register("machine-000b", l4("GPU-2", 0))
		require.NoError(t, err)
		m, err = register(machineUID, l4("GPU-1", 0))
		require.NoError(t, err, "back on A once B let it go")
		require.Len(t, m.Gpus, 1)
		require.Equal(t, []int64{b.machineID}, liveHolders(t, db, "GPU-1"))
		rows, err := db.NewSelect().Model((*models.MachineGpu)(nil)).Where("uuid = ?", "GPU-1").Count(b.ctx)
		require.NoError(t, err)
		require.EqualValues(t, 2, rows, "one row per machine it was on: A's came back")
	})
}

// Issue 24, point 4: registrations racing for one UUID cannot both
// succeed. Each checks before it writes; the unique index on live UUIDs
// refuses the loser's row, which runs again and gets TAKEN as if it had
// come second.
func TestConcurrentRegistrationsOfOneGpuUUIDLeaveOneMachineWithIt(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setupStack(t, db)
		const racers = 6
		errs := make([]error, racers)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range racers {
			wg.Go(func() {
				<-start
				_, errs[i] = b.svc.Register(b.ctx, b.agent, protocol.RegisterMachineInput{MachineID: fmt.Sprintf("machine-race-%d", i),
					Hostname: "h", AgentVersion: "1", Gpus: []protocol.GpuInventory{l4("GPU-X", 0)}})
			})
		}
		close(start)
		wg.Wait()
		won := 0
		for _, err := range errs {
			if err == nil {
				won++
				continue
			}
			faulttest.RequireProblem(t, err, "input.gpus.0.uuid", fault.Taken)
		}
		require.Equal(t, 1, won)
		require.Len(t, liveHolders(t, db, "GPU-X"), 1)

		// The index itself, past the service's check: a second live row
		// of a UUID is a unique violation; a removed one is history.
		now := b.clock.Now()
		_, err := db.NewInsert().Model(&models.MachineGpu{MachineID: b.machineID, UUID: "GPU-X", Name: "NVIDIA L4", AddedAt: now}).Exec(b.ctx)
		require.True(t, db.IsUniqueViolation(err), "%v", err)
		_, err = db.NewInsert().Model(&models.MachineGpu{MachineID: b.machineID, UUID: "GPU-X", Name: "NVIDIA L4", AddedAt: now, RemovedAt: &now}).Exec(b.ctx)
		require.NoError(t, err)
	})
}

// Issue 24, point 4: GPUs registered as simulated were listed and billed.
// A production fleet (AllowSimulated unset, gpunex serve without --demo)
// refuses any simulated GPU with INVALID at its simulated field, for a new
// machine and for one registered before; nothing changes and the provider
// and the admins are told once per machine.
func TestAProductionFleetRefusesSimulatedGPUsAndTellsOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		tt := setupTold(t, db, Config{Interval: 10 * time.Second})
		before := stateOf(t, db)
		hostile := protocol.RegisterMachineInput{MachineID: "machine-0009", Hostname: "sim-9", AgentVersion: "1",
			Gpus: []protocol.GpuInventory{{UUID: "GPU-90", Name: "NVIDIA H100 80GB HBM3"}, l4("GPU-91", 1)}}
		for range 3 {
			_, err := tt.svc.Register(tt.ctx, tt.agent, hostile)
			faulttest.RequireProblem(t, err, "input.gpus.1.simulated", fault.InvalidValue)
		}
		// machine-0001 registered simulated before the rule: it cannot
		// re-register so.
		_, err := tt.svc.Register(tt.ctx, tt.agent, protocol.RegisterMachineInput{MachineID: machineUID, Hostname: "h", AgentVersion: "2",
			Gpus: []protocol.GpuInventory{l4("GPU-1", 0)}})
		faulttest.RequireProblem(t, err, "input.gpus.0.simulated", fault.InvalidValue)
		require.Equal(t, before, stateOf(t, db))
		require.Equal(t, "1", tt.machine(t).AgentVersion)

		own := tt.notices(t, tt.owner, KindSimulatedRefused)
		require.Len(t, own, 2, "once per machine")
		require.Equal(t, "sim-9", own[0].Params["hostname"])
		for _, admin := range tt.admins {
			require.Len(t, tt.notices(t, admin, KindSimulatedRefusedReview), 2)
		}

		// A malformed registration that is also simulated is answered with
		// every problem, and not kept: there is no machine to name.
		_, err = tt.svc.Register(tt.ctx, tt.agent, protocol.RegisterMachineInput{MachineID: "bad", Hostname: "h", AgentVersion: "1",
			Gpus: []protocol.GpuInventory{l4("GPU-92", 0)}})
		v, ok := fault.AsValidation(err)
		require.True(t, ok)
		require.Len(t, v.Problems, 2)
		require.Len(t, tt.notices(t, tt.owner, KindSimulatedRefused), 2)

		// Real hardware registers.
		m, err := tt.svc.Register(tt.ctx, tt.agent, protocol.RegisterMachineInput{MachineID: "machine-0009", Hostname: "rig-9", AgentVersion: "1",
			Gpus: []protocol.GpuInventory{{UUID: "GPU-90", Name: "NVIDIA H100 80GB HBM3"}}})
		require.NoError(t, err)
		require.False(t, m.Simulated)
	})
}

// A machine with any simulated GPU is simulated (it was: with every GPU),
// so a machine that mixes them is not rentable hardware.
func TestOneSimulatedGpuMakesTheMachineSimulated(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setupStack(t, db)
		m, err := b.svc.Register(b.ctx, b.agent, protocol.RegisterMachineInput{MachineID: machineUID, Hostname: "h", AgentVersion: "1",
			Gpus: []protocol.GpuInventory{{UUID: "GPU-1", Name: "NVIDIA L4"}, l4("GPU-2", 1)}})
		require.NoError(t, err)
		require.True(t, m.Simulated)
		m, err = b.svc.Register(b.ctx, b.agent, protocol.RegisterMachineInput{MachineID: machineUID, Hostname: "h", AgentVersion: "1",
			Gpus: []protocol.GpuInventory{{UUID: "GPU-1", Name: "NVIDIA L4"}}})
		require.NoError(t, err)
		require.False(t, m.Simulated)
	})
}

// runIdentityMigration runs migration 20261206000002's file of direction
// on db, as the migrator does.
func runIdentityMigration(t *testing.T, db *store.DB, direction string) {
	t.Helper()
	sql, err := os.ReadFile(filepath.Join("..", "store", "migrations", db.Backend(), "20261206000002_gpu_identity.tx."+direction+".sql"))
	require.NoError(t, err)
	require.NoError(t, db.InTx(t.Context(), func(ctx context.Context, tx bun.Tx) error {
		for stmt := range strings.SplitSeq(string(sql), "--bun:split") {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("%s: %w", stmt, err)
			}
		}
		return nil
	}))
}

// Migration 20261206000002 finds a UUID live on several machines (what the
// incident left): the oldest row keeps it, the others are removed with a
// REMOVED inventory change, before the unique index is built; a machine
// with any simulated GPU becomes simulated.
func TestTheMigrationLeavesEachGpuOnItsFirstMachine(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setupStack(t, db)
		_, err := b.svc.Register(b.ctx, b.agent, protocol.RegisterMachineInput{MachineID: "machine-0002", Hostname: "h2", AgentVersion: "1",
			Gpus: []protocol.GpuInventory{{UUID: "GPU-2", Name: "NVIDIA L4"}}})
		require.NoError(t, err)
		runIdentityMigration(t, db, "down")

		var second models.Machine
		require.NoError(t, db.NewSelect().Model(&second).Where("machine_uid = ?", "machine-0002").Scan(b.ctx))
		now := b.clock.Now()
		dup := &models.MachineGpu{MachineID: second.ID, UUID: "GPU-1", Index: 1, Name: "NVIDIA L4", AddedAt: now}
		_, err = db.NewInsert().Model(dup).Returning("id").Exec(b.ctx)
		require.NoError(t, err, "without the index, the incident's duplicate")
		_, err = db.NewInsert().Model(&models.MachineGpu{MachineID: second.ID, UUID: "GPU-3", Index: 2, Name: "NVIDIA L4", Simulated: true, AddedAt: now}).Exec(b.ctx)
		require.NoError(t, err, "a simulated GPU beside real ones, which made no simulated machine")

		runIdentityMigration(t, db, "up")
		require.Equal(t, []int64{b.machineID}, liveHolders(t, db, "GPU-1"), "the first machine keeps it")
		var gone models.MachineGpu
		require.NoError(t, db.NewSelect().Model(&gone).Where("id = ?", dup.ID).Scan(b.ctx))
		require.NotNil(t, gone.RemovedAt)
		var change models.MachineInventoryChange
		require.NoError(t, db.NewSelect().Model(&change).Where("machine_id = ? AND gpu_uuid = ?", second.ID, "GPU-1").Scan(b.ctx))
		require.Equal(t, "REMOVED", change.Change)
		require.WithinDuration(t, time.Now(), change.At, time.Hour, "removed when the migration ran")
		require.NoError(t, db.NewSelect().Model(&second).WherePK().Scan(b.ctx))
		require.True(t, second.Simulated, "one simulated GPU makes the machine simulated")

		_, err = db.NewInsert().Model(&models.MachineGpu{MachineID: second.ID, UUID: "GPU-1", Index: 2, Name: "NVIDIA L4", AddedAt: now}).Exec(b.ctx)
		require.True(t, db.IsUniqueViolation(err), "the index holds: %v", err)
	})
}
