package market

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// problemOf returns the one validation problem of err.
func problemOf(t *testing.T, err error) fault.Problem {
	t.Helper()
	v, ok := fault.AsValidation(err)
	require.True(t, ok, "a validation error: %v", err)
	require.Len(t, v.Problems, 1, "%v", err)
	return v.Problems[0]
}

func TestRentalsAreNeverDoubleBooked(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		p := b.provider(t, providerSpec{city: "Lisbon"})
		m1 := b.machine(t, p, h100, 6, 90, 2_000_000)
		m2 := b.machine(t, p, h100, 4, 90, 2_000_000)
		customer := b.user(t, "customer")
		var wg sync.WaitGroup
		var mu sync.Mutex
		won, lost := 0, 0
		for range 50 {
			wg.Go(func() {
				_, err := b.svc.Start(b.ctx, customer, StartInput{Model: ptr(h100), GpuCount: 1, Image: "python:3.12"})
				mu.Lock()
				defer mu.Unlock()
				if err == nil {
					won++
					return
				}
				pr := problemOf(t, err)
				require.Equal(t, fault.Unavailable, pr.Code)
				lost++
			})
		}
		wg.Wait()
		require.Equal(t, 10, won, "exactly the 10 free GPUs are rented")
		require.Equal(t, 40, lost)
		var held []struct {
			GpuID int64 `bun:"gpu_id"`
			N     int   `bun:"n"`
		}
		require.NoError(t, db.NewSelect().TableExpr("rental_gpus AS rg").ColumnExpr("rg.gpu_id, COUNT(*) AS n").
			Join("JOIN rentals AS r ON r.id = rg.rental_id").Where("r.state IN (?)", bunIn(activeStates)).
			GroupExpr("rg.gpu_id").Scan(b.ctx, &held))
		require.Len(t, held, 10)
		for _, h := range held {
			require.Equal(t, 1, h.N, "GPU %d has one active rental", h.GpuID)
		}
		require.Equal(t, 10, b.allocations(t))
		require.Empty(t, b.list(t, Filter{}, SortRank), "an allocated GPU is not listed")
		require.Len(t, b.commands(t, m1.id, protocol.CommandStartJob), 6)
		require.Len(t, b.commands(t, m2.id, protocol.CommandStartJob), 4)
	})
}

func TestRentalLifecycle(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		p := b.provider(t, providerSpec{city: "Lisbon"})
		m := b.machine(t, p, h100, 4, 90, 2_500_000)
		customer := b.user(t, "customer")
		l := b.list(t, Filter{}, SortRank)[0]

		// Started: the price is locked, START_JOB carries the GPUs and env.
		r, err := b.svc.Start(b.ctx, customer, StartInput{ListingID: &l.ID, GpuCount: 2, Image: "ghcr.io/acme/train:v1",
			Command: []string{"train"}, Env: []EnvVar{{Name: "TOKEN", Value: "secret"}}})
		require.NoError(t, err)
		require.Equal(t, models.RentalStarting, r.State)
		require.Equal(t, models.USDC(2_500_000), r.PricePerHour)
		require.Equal(t, []string{"TOKEN"}, r.EnvNames)
		b.price(t, p, h100, 9_000_000)
		require.Equal(t, models.USDC(2_500_000), b.rental(t, r.ID).PricePerHour, "the price stays locked")
		cmds := b.commands(t, m.id, protocol.CommandStartJob)
		require.Len(t, cmds, 1)
		var job protocol.StartJobPayload
		require.NoError(t, json.Unmarshal([]byte(cmds[0].Payload), &job))
		require.Equal(t, r.JobID, job.JobID)
		require.Equal(t, []string{m.gpus[0].UUID, m.gpus[1].UUID}, job.GpuUUIDs)
		require.Equal(t, []string{"TOKEN=secret"}, job.Env)

		// Running, then completed: the GPUs are free again, rental_gpus stays.
		require.False(t, b.report(t, m, r, protocol.JobStarting, nil).Stop)
		b.clock.Advance(time.Second)
		require.False(t, b.report(t, m, r, protocol.JobRunning, nil).Stop)
		got := b.rental(t, r.ID)
		require.Equal(t, models.RentalRunning, got.State)
		require.NotNil(t, got.StartedAt)
		require.Equal(t, "log RUNNING", *got.LogTail)
		b.clock.Advance(time.Hour)
		b.report(t, m, r, protocol.JobCompleted, nil)
		got = b.rental(t, r.ID)
		require.Equal(t, models.RentalCompleted, got.State)
		require.Nil(t, got.Cause)
		require.Equal(t, b.clock.Now(), got.EndedAt.UTC())
		require.Equal(t, 0, b.allocations(t))
		n, err := db.NewSelect().Model((*models.RentalGpu)(nil)).Where("rental_id = ?", r.ID).Count(b.ctx)
		require.NoError(t, err)
		require.EqualValues(t, 2, n, "the rental keeps its GPUs' record")
		require.True(t, b.report(t, m, r, protocol.JobRunning, nil).Stop, "a late report of an ended rental is told to stop")

		// Failed, each cause: the GPUs are freed.
		for _, cause := range []protocol.JobCause{protocol.CauseCustomer, protocol.CauseProvider, protocol.CausePlatform} {
			r := b.start(t, customer, l, 1)
			b.report(t, m, r, protocol.JobFailed, &cause)
			got := b.rental(t, r.ID)
			require.Equal(t, models.RentalFailed, got.State)
			require.Equal(t, cause, *got.Cause)
			require.Equal(t, 0, b.allocations(t))
		}

		// Stopped by its customer: STOPPING, STOP_JOB, then STOPPED on the report.
		r = b.start(t, customer, l, 1)
		other := b.user(t, "other")
		_, err = b.svc.Stop(b.ctx, other, r.ID)
		require.Equal(t, fault.NotFound, fault.CodeOf(err), "another customer's rental")
		_, err = b.svc.Rental(b.ctx, other, r.ID)
		require.Equal(t, fault.NotFound, fault.CodeOf(err))
		stopped, err := b.svc.Stop(b.ctx, customer, r.ID)
		require.NoError(t, err)
		require.Equal(t, models.RentalStopping, stopped.State)
		require.Len(t, b.commands(t, m.id, protocol.CommandStopJob), 1)
		require.True(t, b.report(t, m, r, protocol.JobRunning, nil).Stop, "a stopping rental's agent is told to stop")
		b.report(t, m, r, protocol.JobCompleted, nil)
		require.Equal(t, models.RentalStopped, b.rental(t, r.ID).State)
		_, err = b.svc.Stop(b.ctx, customer, r.ID)
		require.Equal(t, fault.InvalidState, problemOf(t, err).Code)

		// A stop the agent never confirms ends after the grace.
		r = b.start(t, customer, l, 1)
		_, err = b.svc.Stop(b.ctx, customer, r.ID)
		require.NoError(t, err)
		require.NoError(t, b.svc.Tick(b.ctx))
		require.Equal(t, models.RentalStopping, b.rental(t, r.ID).State)
		b.clock.Advance(b.svc.Config().StopGrace)
		require.NoError(t, b.svc.Tick(b.ctx))
		require.Equal(t, models.RentalStopped, b.rental(t, r.ID).State)
		require.Equal(t, 0, b.allocations(t))

		// Another provider's agent cannot report on the job.
		q := b.provider(t, providerSpec{})
		r = b.start(t, customer, l, 1)
		_, err = b.svc.ReportJobStatus(b.ctx, q.agent, protocol.ReportJobStatusInput{MachineID: m.uid, JobID: r.JobID, State: protocol.JobRunning, At: b.clock.Now()})
		require.Error(t, err)
		require.Equal(t, models.RentalStarting, b.rental(t, r.ID).State)

		// Customers' rentals, newest first, paged.
		page, err := b.svc.Rentals(b.ctx, customer, 2, "")
		require.NoError(t, err)
		require.True(t, page.HasNextPage)
		require.Equal(t, r.ID, page.Rentals[0].ID)
		next, err := b.svc.Rentals(b.ctx, customer, 100, RentalCursor(page.Rentals[1]))
		require.NoError(t, err)
		require.Len(t, next.Rentals, 5)
		views, err := b.svc.ProviderRentals(b.ctx, p.id)
		require.NoError(t, err)
		require.Len(t, views, 7)
		require.Equal(t, r.ID, views[0].ID, "the running rental first")
		require.Equal(t, "host-"+m.uid, views[0].Hostname)
		require.Len(t, views[0].GpuUUIDs, 1)
	})
}

func TestRentalInterruptedWhenItsMachineGoesOffline(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		p := b.provider(t, providerSpec{})
		m := b.machine(t, p, l4, 2, 80, 500_000)
		customer := b.user(t, "customer")
		l := b.list(t, Filter{}, SortRank)[0]
		running := b.start(t, customer, l, 1)
		b.report(t, m, running, protocol.JobRunning, nil)
		stopping := b.start(t, customer, l, 1)
		_, err := b.svc.Stop(b.ctx, customer, stopping.ID)
		require.NoError(t, err)

		// The sweeper marks the machine offline only after the grace.
		_, _ = b.fleet.Sweep(b.ctx) // the presence store starts being trusted
		b.clock.Advance(b.fleet.Config().Grace() + time.Second)
		n, err := b.fleet.Sweep(b.ctx)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		got := b.rental(t, running.ID)
		require.Equal(t, models.RentalInterrupted, got.State)
		require.Equal(t, protocol.CauseProvider, *got.Cause)
		require.NotNil(t, got.EndedAt)
		require.Equal(t, models.RentalStopped, b.rental(t, stopping.ID).State, "a rental its customer was stopping ends STOPPED")
		require.Equal(t, 0, b.allocations(t))
		require.True(t, b.report(t, m, running, protocol.JobRunning, nil).Stop, "the agent, back, is told to stop")
	})
}

func TestStartRentalRefusesBadInputAndChangesNothing(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		now := b.clock.Now()
		p := b.provider(t, providerSpec{})
		m := b.machine(t, p, h100, 2, 90, 2_000_000)
		customer := b.user(t, "customer")
		l := b.list(t, Filter{}, SortRank)[0]
		ok := StartInput{ListingID: &l.ID, GpuCount: 1, Image: "python:3.12"}
		long := make([]byte, MaxEnvValBytes+1)
		for i := range long {
			long[i] = 'x'
		}
		for _, tc := range []struct {
			desc  string
			edit  func(in *StartInput)
			field string
			code  fault.ProblemCode
		}{
			{"an image that does not parse", func(in *StartInput) { in.Image = "Not A/Valid::image" }, "input.image", fault.InvalidValue},
			{"no image", func(in *StartInput) { in.Image = " " }, "input.image", fault.Required},
			{"an env name with a dash", func(in *StartInput) { in.Env = []EnvVar{{Name: "MY-VAR", Value: "1"}} }, "input.env.0.name", fault.InvalidValue},
			{"an env name starting with a digit", func(in *StartInput) { in.Env = []EnvVar{{Name: "1X", Value: "1"}} }, "input.env.0.name", fault.InvalidValue},
			{"an env name twice", func(in *StartInput) { in.Env = []EnvVar{{Name: "A", Value: "1"}, {Name: "A", Value: "2"}} }, "input.env.1.name", fault.Duplicate},
			{"an env value too long", func(in *StartInput) { in.Env = []EnvVar{{Name: "A", Value: string(long)}} }, "input.env.0.value", fault.TooLong},
			{"no GPU", func(in *StartInput) { in.GpuCount = 0 }, "input.gpuCount", fault.OutOfRange},
			{"more GPUs than any machine has", func(in *StartInput) { in.GpuCount = 3 }, "input.gpuCount", fault.OutOfRange},
			{"neither listing nor model", func(in *StartInput) { in.ListingID = nil }, "input.listingId", fault.Required},
			{"a listing id that is not one", func(in *StartInput) { in.ListingID = ptr("nope") }, "input.listingId", fault.InvalidValue},
			{"an unknown model", func(in *StartInput) { in.ListingID, in.Model = nil, ptr("GTX_280") }, "input.model", fault.UnknownModel},
			{"an end in the past", func(in *StartInput) { in.EndBy = ptr(now.Add(-time.Hour)) }, "input.endBy", fault.OutOfRange},
			{"a model no machine rents now", func(in *StartInput) { in.ListingID, in.Model = nil, ptr(l4) }, "input.model", fault.Unavailable},
		} {
			in := ok
			tc.edit(&in)
			_, err := b.svc.Start(b.ctx, customer, in)
			pr := problemOf(t, err)
			require.Equal(t, tc.field, pr.Field, tc.desc)
			require.Equal(t, tc.code, pr.Code, tc.desc)
		}

		// A delisted GPU, then an offline machine: the listing is gone.
		_, err := db.NewUpdate().Model((*models.GpuBenchStatus)(nil)).Set("listing = ?", models.GpuListingDelisted).Where("gpu_id = ?", m.gpus[0].ID).Exec(b.ctx)
		require.NoError(t, err)
		in := ok
		in.GpuCount = 2
		_, err = b.svc.Start(b.ctx, customer, in)
		require.Equal(t, fault.Unavailable, problemOf(t, err).Code, "one of the two GPUs is delisted")
		_, err = db.NewUpdate().Model((*models.Machine)(nil)).Set("status = ?", protocol.MachineOffline).Where("id = ?", m.id).Exec(b.ctx)
		require.NoError(t, err)
		_, err = b.svc.Start(b.ctx, customer, ok)
		require.Equal(t, fault.Unavailable, problemOf(t, err).Code, "the machine is offline")

		count, err := db.NewSelect().Model((*models.Rental)(nil)).Count(b.ctx)
		require.NoError(t, err)
		require.Zero(t, count, "nothing changed")
		require.Empty(t, b.commands(t, m.id, protocol.CommandStartJob))
	})
}

func TestRentalMustEndBeforeMaintenance(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		now := b.clock.Now()
		p := b.provider(t, providerSpec{})
		m := b.machine(t, p, h100, 1, 90, 2_000_000)
		starts := now.Add(3 * time.Hour)
		_, err := db.NewInsert().Model(&models.MaintenanceWindow{ProviderID: p.id, MachineID: &m.id, StartsAt: starts, EndsAt: starts.Add(time.Hour), CreatedAt: now}).Exec(b.ctx)
		require.NoError(t, err)
		customer := b.user(t, "customer")
		l := b.list(t, Filter{}, SortRank)[0]
		require.Equal(t, starts, l.NextMaintenanceAt.UTC())
		in := StartInput{ListingID: &l.ID, GpuCount: 1, Image: "python:3.12"}
		_, err = b.svc.Start(b.ctx, customer, in)
		require.Equal(t, fault.Problem{Field: "input.endBy", Code: fault.Required}, stripMessage(problemOf(t, err)))
		in.EndBy = ptr(starts.Add(time.Minute))
		_, err = b.svc.Start(b.ctx, customer, in)
		require.Equal(t, fault.Problem{Field: "input.endBy", Code: fault.OutOfRange}, stripMessage(problemOf(t, err)))
		in.EndBy = ptr(starts)
		r, err := b.svc.Start(b.ctx, customer, in)
		require.NoError(t, err)
		require.Equal(t, starts, r.EndsBy.UTC())
		var job protocol.StartJobPayload
		require.NoError(t, json.Unmarshal([]byte(b.commands(t, m.id, protocol.CommandStartJob)[0].Payload), &job))
		require.Equal(t, int64(3*3600), job.TimeoutSeconds, "the job's timeout ends it before the maintenance")
	})
}

func stripMessage(p fault.Problem) fault.Problem { p.Message = ""; return p }

// On PostgreSQL a start claims its GPUs, passing over those another start
// is claiming at that moment (SKIP LOCKED): starts on one machine run side
// by side, each on other GPUs, instead of all reaching for the lowest free
// GPU and then waiting on, and losing to, whichever took it first (200
// starts for 50 GPUs took 2.6 s at p50 so). SQLite's writers hold the
// whole database one at a time, so the case is PostgreSQL's alone.
func TestAStartPassesOverTheGPUsAnotherStartIsClaiming(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t, "postgres")
	b := setup(t, db)
	p := b.provider(t, providerSpec{city: "Lisbon"})
	m := b.machine(t, p, h100, 4, 90, 2_000_000)
	customer := b.user(t, "customer")
	gpusOf := func(r *models.Rental) []int {
		var idx []int
		require.NoError(t, db.NewSelect().TableExpr("rental_gpus AS rg").ColumnExpr("mg.idx").
			Join("JOIN machine_gpus AS mg ON mg.id = rg.gpu_id").Where("rg.rental_id = ?", r.ID).OrderExpr("mg.idx").Scan(b.ctx, &idx))
		return idx
	}

	// Another start, in its transaction, has claimed GPU 0 and not yet
	// committed.
	tx, err := db.BeginTx(b.ctx, nil)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback() }()
	var claimed []int64
	require.NoError(t, db.Claim(tx.NewSelect().TableExpr("machine_gpus AS mg").Column("mg.id").
		Where("mg.machine_id = ? AND mg.idx = 0", m.id), "mg").Scan(b.ctx, &claimed))
	require.Len(t, claimed, 1)

	r := b.start(t, customer, b.list(t, Filter{}, SortRank)[0], 2)
	require.Equal(t, []int{1, 2}, gpusOf(r), "the start took the GPUs nobody was claiming")

	// The other start gave its claim up: GPU 0 is free for the next.
	require.NoError(t, tx.Rollback())
	r = b.start(t, customer, b.list(t, Filter{}, SortRank)[0], 1)
	require.Equal(t, []int{0}, gpusOf(r))
}

// A scheduler start whose best machines' free GPUs other starts are all
// claiming takes the next machine in the same transaction, instead of a
// transaction per machine passed over (a start refused under contention
// cost eight transactions before).
func TestAStartPassesOverMachinesOthersAreClaimingInOneTransaction(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t, "postgres")
	b := setup(t, db)
	p := b.provider(t, providerSpec{city: "Lisbon"})
	best := b.machine(t, p, h100, 2, 99, 1_000_000)
	second := b.machine(t, p, h100, 2, 98, 1_000_000)
	last := b.machine(t, p, h100, 2, 60, 2_000_000)
	customer := b.user(t, "customer")
	ranked := b.list(t, Filter{Model: ptr(h100)}, SortRank)
	require.Len(t, ranked, 3)
	require.Equal(t, []int64{best.id, second.id, last.id}, []int64{ranked[0].MachineID, ranked[1].MachineID, ranked[2].MachineID})

	// Other starts, in their transactions, claim every GPU of the two
	// best machines and have not committed.
	tx, err := db.BeginTx(b.ctx, nil)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback() }()
	var claimed []int64
	require.NoError(t, db.Claim(tx.NewSelect().TableExpr("machine_gpus AS mg").Column("mg.id").
		Where("mg.machine_id IN (?)", bun.List([]int64{best.id, second.id})), "mg").Scan(b.ctx, &claimed))
	require.Len(t, claimed, 4)

	queries := storetest.CountQueries(db)
	var r *models.Rental
	stmts := queries.Record(func() {
		r, err = b.svc.Start(b.ctx, customer, StartInput{Model: ptr(h100), GpuCount: 1, Image: "docker.io/library/python:3.12", Command: []string{"python", "-V"}})
	})
	require.NoError(t, err)
	require.Equal(t, last.id, r.MachineID, "the start took the machine nobody was claiming")
	require.Equal(t, 1, begins(stmts), "one transaction for the three machines tried: %q", stmts)

	// With the last machine's GPUs taken too, a start is refused
	// UNAVAILABLE, still in one transaction.
	stmts = queries.Record(func() {
		_, err = b.svc.Start(b.ctx, customer, StartInput{Model: ptr(h100), GpuCount: 2, Image: "docker.io/library/python:3.12", Command: []string{"python", "-V"}})
	})
	v, ok := fault.AsValidation(err)
	require.True(t, ok, "%v", err)
	require.Equal(t, fault.Unavailable, v.Problems[0].Code)
	require.LessOrEqual(t, begins(stmts), 1, "%q", stmts)
}

// begins counts the transactions begun among stmts.
func begins(stmts []string) int {
	n := 0
	for _, s := range stmts {
		if strings.HasPrefix(strings.TrimSpace(s), "BEGIN") {
			n++
		}
	}
	return n
}

// Issue 27, point 4: a replica runs Config.StartConcurrency starts at
// once and the others wait their turn. A start that waits while every
// slot is taken rents nothing until one frees; one whose request is given
// up while it waits (the client went away) ends with its context's error
// and rents nothing; bad input is refused at once, without waiting.
func TestAStartWaitsItsTurnAmongTheReplicasStarts(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		p := b.provider(t, providerSpec{city: "Lisbon"})
		b.machine(t, p, h100, 2, 90, 2_000_000)
		customer := b.user(t, "customer")
		listing := b.list(t, Filter{}, SortRank)[0]
		in := StartInput{ListingID: &listing.ID, GpuCount: 1, Image: "docker.io/library/python:3.12", Command: []string{"python", "-V"}}
		rentals := func() int {
			n, err := db.NewSelect().Model((*models.Rental)(nil)).Count(b.ctx)
			require.NoError(t, err)
			return int(n)
		}

		// Every slot is taken, as by starts in flight.
		for range b.svc.Config().StartConcurrency {
			b.svc.starts <- struct{}{}
		}
		bad := in
		bad.GpuCount = 0
		_, err := b.svc.Start(b.ctx, customer, bad)
		v, ok := fault.AsValidation(err)
		require.True(t, ok, "bad input is refused without waiting: %v", err)
		require.Equal(t, "input.gpuCount", v.Problems[0].Field)

		gone, cancel := context.WithCancel(b.ctx)
		done := make(chan error, 1)
		go func() {
			_, err := b.svc.Start(gone, customer, in)
			done <- err
		}()
		waiting := make(chan *models.Rental, 1)
		go func() {
			r, err := b.svc.Start(b.ctx, customer, in)
			assert.NoError(t, err)
			waiting <- r
		}()
		cancel()
		require.ErrorIs(t, <-done, context.Canceled)
		require.Zero(t, rentals(), "nothing rented while every slot is taken")

		<-b.svc.starts // a start in flight ends
		r := <-waiting
		require.NotNil(t, r)
		require.Equal(t, models.RentalStarting, r.State)
		require.Equal(t, 1, rentals())
	})
}
