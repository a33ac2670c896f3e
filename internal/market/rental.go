package market

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/cursor"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// activeStates are the states of a rental that holds its GPUs.
var activeStates = []models.RentalState{models.RentalStarting, models.RentalRunning, models.RentalStopping}

// schedulerCandidates bounds the machines the scheduler tries for one
// startRental.
const schedulerCandidates = 20

// errTaken says another rental took a GPU the transaction chose.
var errTaken = errors.New("market: a GPU was taken meanwhile")

// errNoCapacity says the candidate has fewer free GPUs than asked now.
var errNoCapacity = errors.New("market: not enough free GPUs")

func unavailable(field, message string) error {
	v := &fault.Validation{}
	v.Add(field, fault.Unavailable, message)
	return v
}

// Start rents GPUs for customerID: the listing's, or the best-ranked
// machine's with enough free GPUs of the model (the scheduler). The price,
// location and tier are locked now. The GPUs are allocated in the same
// transaction as the rental, one gpu_allocations row each (the GPU is the
// primary key), so two rentals never hold one GPU: a rental that loses
// the race tries the next candidate, or gets UNAVAILABLE. The job is then
// queued for the machine's agent (START_JOB). A replica runs
// Config.StartConcurrency starts at once; one that waited its turn while a
// start of the same shape found nothing free gets that answer (soldOut).
func (s *Service) Start(ctx context.Context, customerID int64, in StartInput) (*models.Rental, error) {
	now := s.deps.Clock.Now()
	if err := validateStart(&in, now); err != nil {
		return nil, err
	}
	// Its turn among the replica's starts (Config.StartConcurrency).
	arrived := s.soldOut.tick()
	select {
	case s.starts <- struct{}{}:
		defer func() { <-s.starts }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	// A start of the same shape that began reading while this one waited
	// found nothing free: its answer is this one's too.
	shape := shapeOf(&in)
	if err := s.soldOut.answer(shape, arrived); err != nil {
		return nil, err
	}
	if err := s.ensureProfiles(ctx); err != nil {
		return nil, err
	}
	read := s.soldOut.tick()
	candidates, viaListing, err := s.candidates(ctx, &in)
	if err != nil {
		return nil, err
	}
	if len(candidates) == 0 {
		err := s.checkCount(ctx, in.GpuCount)
		switch {
		case err != nil:
		case viaListing:
			err = unavailable("input.listingId", "this listing cannot be rented now")
		default:
			err = unavailable("input.model", "no machine has that many free GPUs of the model matching the filter now")
		}
		s.soldOut.record(shape, read, err)
		return nil, err
	}
	customer, err := s.customerParty(ctx, customerID)
	if err != nil {
		return nil, err
	}
	providers := make([]int64, len(candidates))
	for i, c := range candidates {
		providers[i] = c.ProviderID
	}
	ties, err := s.ties(ctx, customer, providers)
	if err != nil {
		return nil, err
	}
	var lastErr error
	var eligible []*listingRow
	for _, c := range candidates {
		if why := ties[c.ProviderID]; why != "" {
			if viaListing {
				return nil, ownGPUs("input.listingId", why)
			}
			// The scheduler passes over the customer's own machines.
			lastErr = ownGPUs("input.model", why)
			continue
		}
		if c.GpuCount < in.GpuCount {
			lastErr = unavailable("input.gpuCount", fmt.Sprintf("the listing has %d free GPUs", c.GpuCount))
			continue
		}
		if err := maintenanceAllows(c, in.EndBy); err != nil {
			lastErr = err
			continue
		}
		eligible = append(eligible, c)
	}
	field := "input.model"
	if viaListing {
		field = "input.listingId"
	}
	attempts := 0
	for len(eligible) > 0 && attempts < s.cfg.StartAttempts {
		attempts++
		r, gpus, at, err := s.allocate(ctx, customerID, eligible, &in, field)
		switch {
		case errors.Is(err, errTaken):
			// Another start allocated a GPU this one chose, between its
			// choice and its insert: the same machine again.
			eligible = eligible[at:]
			continue
		case errors.Is(err, errNoCapacity):
			// Starts in flight hold part of candidate at's free GPUs:
			// the machines after it, in a new transaction.
			lastErr = unavailable("input.gpuCount", "another rental took the GPUs meanwhile")
			eligible = eligible[at+1:]
			continue
		case err != nil:
			return nil, err
		}
		s.deps.Logger.InfoContext(ctx, "market: rental started", "rental_id", r.ID, "machine_id", r.MachineID, "gpus", len(gpus))
		return r, nil
	}
	if err := s.checkCount(ctx, in.GpuCount); err != nil {
		return nil, err
	}
	if lastErr == nil || len(eligible) > 0 {
		lastErr = unavailable("input.gpuCount", "other rentals took the GPUs meanwhile; try again")
	}
	if !viaListing {
		if v, ok := fault.AsValidation(lastErr); ok && len(v.Problems) == 1 && (v.Problems[0].Field == "input.endBy" || v.Problems[0].Code == fault.OwnGPUs) {
			return nil, lastErr
		}
		return nil, unavailable("input.model", "no machine has that many free GPUs of the model matching the filter now")
	}
	return nil, lastErr
}

func unavailableCount(largest int) error {
	v := &fault.Validation{}
	v.Add("input.gpuCount", fault.OutOfRange, fmt.Sprintf("no machine has more than %d GPUs", largest))
	return v
}

// checkCount is the error of a start that asks more GPUs than any
// machine has (OUT_OF_RANGE, naming the largest), or nil. Start runs it
// only once no candidate could take the rental, to phrase its error: a
// start that succeeds reads no fleet-wide count.
func (s *Service) checkCount(ctx context.Context, n int) error {
	var ids []int64
	// Machine by machine, each counted by its live GPUs' index, stopping
	// at the first that has n: a start refused under contention asks
	// this, and grouping every GPU of the fleet first cost it 20 ms at
	// 100,000 GPUs.
	if err := s.deps.DB.NewRaw(`SELECT m.id FROM machines m WHERE (SELECT COUNT(*) FROM machine_gpus mg
		WHERE mg.machine_id = m.id AND mg.removed_at IS NULL) >= ? LIMIT 1`, n).Scan(ctx, &ids); err != nil {
		return fmt.Errorf("market: unable to count GPUs: %w", err)
	}
	if len(ids) > 0 {
		return nil
	}
	largest, err := s.largestMachine(ctx)
	if err != nil {
		return err
	}
	if n > largest {
		return unavailableCount(largest)
	}
	return nil
}

// largestMachine is the most GPUs any machine has.
func (s *Service) largestMachine(ctx context.Context) (int, error) {
	var n int
	err := s.deps.DB.NewRaw(`SELECT COALESCE(MAX(c), 0) FROM (SELECT COUNT(*) AS c FROM machine_gpus
		WHERE removed_at IS NULL GROUP BY machine_id) x`).Scan(ctx, &n)
	if err != nil {
		return 0, fmt.Errorf("market: unable to count GPUs: %w", err)
	}
	return n, nil
}

// candidates lists where in may run, best first; viaListing says in named
// a listing.
func (s *Service) candidates(ctx context.Context, in *StartInput) ([]*listingRow, bool, error) {
	q := listingQuery{sort: SortRank}
	if in.ListingID != nil {
		machineID, modelKey, _ := parseListingID(*in.ListingID)
		q.filter.Model, q.machineID, q.limit = &modelKey, &machineID, 1
		rows, err := s.listings(ctx, s.deps.DB, q)
		return rows, true, err
	}
	if in.Filter != nil {
		q.filter = *in.Filter
	}
	q.filter.Model = in.Model
	n := in.GpuCount
	if q.filter.MinGpus != nil && *q.filter.MinGpus > n {
		n = *q.filter.MinGpus
	}
	q.filter.MinGpus, q.limit = &n, schedulerCandidates
	rows, err := s.listings(ctx, s.deps.DB, q)
	return rows, false, err
}

// maintenanceAllows checks that a rental on c ends before the machine's
// next maintenance: the customer must accept an end before it.
func maintenanceAllows(c *listingRow, endBy *time.Time) error {
	if c.NextMaintenanceAt == nil {
		return nil
	}
	at := c.NextMaintenanceAt.UTC()
	v := &fault.Validation{}
	switch {
	case endBy == nil:
		v.Add("input.endBy", fault.Required, "the machine has maintenance from "+at.Format(time.RFC3339)+": accept an end before it")
	case endBy.After(at):
		v.Add("input.endBy", fault.OutOfRange, "must be at or before the machine's maintenance at "+at.Format(time.RFC3339))
	default:
		return nil
	}
	return v
}

// allocate stores the rental and allocates its GPUs in one transaction,
// on the first of cands with enough free GPUs that no other start is
// claiming, and says which (at). A candidate whose free GPUs other starts
// hold all is passed over in the same transaction (nothing of it is
// locked); one where they hold part ends the attempt with errNoCapacity
// at it, so the part this one claimed is let go at once.
func (s *Service) allocate(ctx context.Context, customerID int64, cands []*listingRow, in *StartInput, fundsField string) (*models.Rental, []*models.MachineGpu, int, error) {
	now := s.deps.Clock.Now()
	jobID, err := newJobID()
	if err != nil {
		return nil, nil, 0, err
	}
	var (
		r    *models.Rental
		gpus []*models.MachineGpu
		at   int
	)
	err = s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var c *listingRow
		for at, c = range cands {
			gpus = nil
			// Claimed: concurrent starts on one machine take different
			// free GPUs at once instead of all reaching for the lowest
			// and waiting on each other's allocation (the unique key
			// still refuses a GPU allocated twice: errTaken).
			if err := s.deps.DB.Claim(tx.NewSelect().Model(&gpus).Column("mg.id", "mg.uuid", "mg.idx").
				Join("JOIN gpu_bench_status AS gbs ON gbs.gpu_id = mg.id AND gbs.listing = ?", models.GpuListingListed).
				Where("mg.machine_id = ? AND mg.model_key = ? AND mg.removed_at IS NULL", c.MachineID, c.ModelKey).
				Where("NOT EXISTS (SELECT 1 FROM gpu_allocations ga WHERE ga.gpu_id = mg.id)").
				OrderExpr("mg.idx ASC").Limit(int64(in.GpuCount)), "mg").Scan(ctx); err != nil {
				return fmt.Errorf("market: unable to choose GPUs: %w", err)
			}
			if len(gpus) > 0 {
				break
			}
		}
		if len(gpus) < in.GpuCount {
			return errNoCapacity
		}
		r = &models.Rental{
			JobID: jobID, CustomerID: customerID, ProviderID: c.ProviderID, MachineID: c.MachineID, ModelKey: c.ModelKey,
			GpuCount: in.GpuCount, PricePerHour: models.USDC(c.PriceMicros), FeeBps: s.cfg.FeeBps, Image: in.Image, Command: in.Command,
			EnvNames: make([]string, 0, len(in.Env)), Location: c.listing().Location, Tier: models.ProviderTier(c.Tier),
			State: models.RentalStarting, EndsBy: in.EndBy, CreatedAt: now, UpdatedAt: now,
		}
		if r.Command == nil {
			r.Command = []string{}
		}
		for _, e := range in.Env {
			r.EnvNames = append(r.EnvNames, e.Name)
		}
		if s.deps.Funds != nil {
			if err := s.deps.Funds.Reserve(ctx, tx, customerID, models.USDC(c.PriceMicros)*models.USDC(in.GpuCount), fundsField); err != nil {
				return err
			}
		}
		// The job is queued with the rental, in its transaction: the
		// command's delivery is the platform's own record of when the
		// agent got it, the earliest the rental can be billed from.
		cmd, err := s.deps.Fleet.EnqueueTx(ctx, tx, c.MachineID, protocol.CommandStartJob, s.startJob(r, gpus, in))
		if err != nil {
			return err
		}
		r.StartCommandID = &cmd.ID
		if _, err := tx.NewInsert().Model(r).Returning("id").Exec(ctx); err != nil {
			return fmt.Errorf("market: unable to store the rental: %w", err)
		}
		held := make([]*models.RentalGpu, len(gpus))
		allocs := make([]*models.GpuAllocation, len(gpus))
		for i, g := range gpus {
			held[i] = &models.RentalGpu{RentalID: r.ID, GpuID: g.ID}
			allocs[i] = &models.GpuAllocation{GpuID: g.ID, RentalID: r.ID, MachineID: c.MachineID, CreatedAt: now}
		}
		if _, err := tx.NewInsert().Model(&held).Exec(ctx); err != nil {
			return fmt.Errorf("market: unable to record the rental's GPUs: %w", err)
		}
		if _, err := tx.NewInsert().Model(&allocs).Exec(ctx); err != nil {
			if s.deps.DB.IsUniqueViolation(err) {
				return errTaken
			}
			return fmt.Errorf("market: unable to allocate GPUs: %w", err)
		}
		s.announce(ctx, r)
		return nil
	})
	if err != nil {
		return nil, nil, at, err
	}
	return r, gpus, at, nil
}

// startJob is the START_JOB that runs r's job on gpus.
func (s *Service) startJob(r *models.Rental, gpus []*models.MachineGpu, in *StartInput) protocol.StartJobPayload {
	job := protocol.StartJobPayload{JobID: r.JobID, Image: r.Image, Command: in.Command, GpuUUIDs: make([]string, len(gpus))}
	for i, g := range gpus {
		job.GpuUUIDs[i] = g.UUID
	}
	for _, e := range in.Env {
		job.Env = append(job.Env, e.Name+"="+e.Value)
	}
	if r.EndsBy != nil {
		job.TimeoutSeconds = int64(math.Ceil(r.EndsBy.Sub(s.deps.Clock.Now()).Seconds()))
	}
	return job
}

func newJobID() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("market: unable to make a job id: %w", err)
	}
	return "job_" + hex.EncodeToString(b), nil
}

// StopUnfunded stops a rental whose customer's funds are running out
// (billing's hook, called while the balance still pays for StopGrace): it
// is billed until its agent confirms the stop, StopGrace at most, so the
// provider is paid for the time the job ran. One that is stopping or has
// ended is left as it is.
func (s *Service) StopUnfunded(ctx context.Context, id int64) error {
	var customerID int64
	if err := s.deps.DB.NewSelect().Model((*models.Rental)(nil)).Column("customer_id").Where("id = ?", id).Scan(ctx, &customerID); err != nil {
		return fmt.Errorf("market: unable to find the rental: %w", err)
	}
	_, err := s.stop(ctx, customerID, id, s.cfg.StopGrace)
	if v, ok := fault.AsValidation(err); ok && len(v.Problems) == 1 && v.Problems[0].Code == fault.InvalidState {
		return nil
	}
	return err
}

// Stop asks the agent to stop customerID's rental id: it is STOPPING
// until the agent reports, or StopGrace passes, then STOPPED, and it is
// billed to the request. Another customer's rental is NOT_FOUND; stopping
// a stopping rental changes nothing; an ended one is INVALID_STATE.
func (s *Service) Stop(ctx context.Context, customerID, id int64) (*models.Rental, error) {
	return s.stop(ctx, customerID, id, 0)
}

// stop is Stop billing up to billed after the request.
func (s *Service) stop(ctx context.Context, customerID, id int64, billed time.Duration) (*models.Rental, error) {
	r := new(models.Rental)
	already := false
	err := s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if err := s.deps.DB.ForUpdate(tx.NewSelect().Model(r).Where("id = ? AND customer_id = ?", id, customerID)).Scan(ctx); err != nil {
			if store.IsNoRows(err) {
				return fault.E(fault.NotFound, "no such rental")
			}
			return fmt.Errorf("market: unable to load the rental: %w", err)
		}
		switch {
		case r.State.Ended():
			v := &fault.Validation{}
			v.Add("id", fault.InvalidState, "the rental has ended already")
			return v
		case r.State == models.RentalStopping:
			already = true
			return nil
		}
		now := s.deps.Clock.Now()
		until := now.Add(billed)
		r.State, r.StopRequestedAt, r.BillableUntil, r.UpdatedAt = models.RentalStopping, &now, &until, now
		if _, err := tx.NewUpdate().Model(r).Column("state", "stop_requested_at", "billable_until", "updated_at").WherePK().Exec(ctx); err != nil {
			return fmt.Errorf("market: unable to stop the rental: %w", err)
		}
		s.announce(ctx, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !already {
		if _, err := s.deps.Fleet.Enqueue(ctx, r.MachineID, protocol.CommandStopJob, protocol.StopJobPayload{JobID: r.JobID}); err != nil {
			// The stop grace ends it anyway.
			s.deps.Logger.WarnContext(ctx, "market: unable to queue a stop", "rental_id", r.ID, "err", err)
		}
	}
	return r, nil
}

// end moves rental id, if still active, to state (STOPPED instead when
// its customer had asked to stop it), records when and why, and frees its
// GPUs, in one transaction; it returns the rental, or nil when it had
// ended already.
func (s *Service) end(ctx context.Context, id int64, state models.RentalState, cause *protocol.JobCause, message *string, at time.Time) (*models.Rental, error) {
	var out *models.Rental
	err := s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		r := new(models.Rental)
		if err := s.deps.DB.ForUpdate(tx.NewSelect().Model(r).Where("id = ?", id)).Scan(ctx); err != nil {
			return fmt.Errorf("market: unable to load the rental: %w", err)
		}
		if r.State.Ended() {
			return nil
		}
		if err := s.endTx(ctx, tx, r, state, cause, message, at); err != nil {
			return err
		}
		out = r
		return s.settleEnded(ctx, tx, r)
	})
	return out, err
}

// endTx ends r (active, loaded for update) within tx.
func (s *Service) endTx(ctx context.Context, tx bun.Tx, r *models.Rental, state models.RentalState, cause *protocol.JobCause, message *string, at time.Time) error {
	if r.State == models.RentalStopping {
		state, cause = models.RentalStopped, nil
	}
	if state == models.RentalStopped || state == models.RentalCompleted {
		cause = nil
	}
	now := s.deps.Clock.Now()
	at = at.UTC()
	// A stop is billed to its BillableUntil (the customer's request, or
	// the grace of a stop for funds), whenever the agent confirms it (or
	// the grace ends it); nothing ends before it began.
	if r.BillableUntil != nil && at.After(*r.BillableUntil) {
		at = r.BillableUntil.UTC()
	}
	if r.StartedAt != nil && at.Before(*r.StartedAt) {
		at = r.StartedAt.UTC()
	}
	if at.Before(r.CreatedAt) {
		at = r.CreatedAt
	}
	r.State, r.Cause, r.EndedAt, r.UpdatedAt = state, cause, &at, now
	if message != nil {
		r.Message = message
	}
	if _, err := tx.NewUpdate().Model(r).Column("state", "cause", "message", "ended_at", "updated_at").WherePK().Exec(ctx); err != nil {
		return fmt.Errorf("market: unable to end the rental: %w", err)
	}
	if _, err := tx.NewDelete().Model((*models.GpuAllocation)(nil)).Where("rental_id = ?", r.ID).Exec(ctx); err != nil {
		return fmt.Errorf("market: unable to free the rental's GPUs: %w", err)
	}
	s.announce(ctx, r)
	if len(s.ended) > 0 {
		ended := *r
		store.AfterCommit(ctx, func() {
			for _, fn := range s.ended {
				fn(ctx, &ended)
			}
		})
	}
	return nil
}

// settleEnded has the rentals rs, just ended in tx, billed to their end in
// tx (Deps.Meter), those that started: once per transaction, with all of
// them. It runs under a savepoint: should billing fail (a balance moved
// by a concurrent charge, a lock given up), the rentals end all the same
// and the next metering tick, which bills every ended rental to its end,
// settles them.
func (s *Service) settleEnded(ctx context.Context, tx bun.Tx, rs ...*models.Rental) error {
	if s.deps.Meter == nil {
		return nil
	}
	var ids []int64
	for _, r := range rs {
		if r.StartedAt != nil {
			ids = append(ids, r.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	if err := tx.RunInTx(ctx, nil, func(ctx context.Context, sp bun.Tx) error {
		return s.deps.Meter.SettleEnded(ctx, sp, ids)
	}); err != nil {
		s.deps.Logger.WarnContext(ctx, "market: the ended rentals' bills are left to the next metering tick", "rental_ids", ids, "err", err)
	}
	return nil
}

// Rental returns customerID's rental id; another's is NOT_FOUND.
func (s *Service) Rental(ctx context.Context, customerID, id int64) (*models.Rental, error) {
	r := new(models.Rental)
	if err := s.deps.DB.NewSelect().Model(r).Where("id = ? AND customer_id = ?", id, customerID).Scan(ctx); err != nil {
		if store.IsNoRows(err) {
			return nil, fault.E(fault.NotFound, "no such rental")
		}
		return nil, fmt.Errorf("market: unable to load the rental: %w", err)
	}
	if err := s.withCosts(ctx, []*models.Rental{r}); err != nil {
		return nil, err
	}
	return r, nil
}

// withCosts attaches what each of rs has cost its customer (Deps.Costs),
// in one call whatever their number.
func (s *Service) withCosts(ctx context.Context, rs []*models.Rental) error {
	if s.deps.Costs == nil || len(rs) == 0 {
		return nil
	}
	costs, err := s.deps.Costs.Costs(ctx, rs)
	if err != nil {
		return fmt.Errorf("market: unable to read the rentals' costs: %w", err)
	}
	for _, r := range rs {
		r.Cost = costs[r.ID]
	}
	return nil
}

// RentalPage is one page of a customer's rentals, newest first.
type RentalPage struct {
	Rentals     []*models.Rental
	HasNextPage bool
}

// RentalCursor is a rental's cursor in a customer's list.
func RentalCursor(r *models.Rental) string { return cursor.Encode("rental", r.ID) }

// Rentals returns a page of customerID's rentals, newest first: first at
// most MaxPageSize, after a RentalCursor.
func (s *Service) Rentals(ctx context.Context, customerID int64, first int, after string) (*RentalPage, error) {
	if first < 1 || first > MaxPageSize {
		return nil, fault.E(fault.Invalid, "first must be between 1 and %d", MaxPageSize)
	}
	q := s.deps.DB.NewSelect().Model((*models.Rental)(nil)).Where("customer_id = ?", customerID)
	if after != "" {
		id, ok := cursor.Decode("rental", after)
		if !ok {
			return nil, fault.E(fault.Invalid, "after is not a cursor of this list")
		}
		q = q.Where("id < ?", id)
	}
	var rs []*models.Rental
	if err := q.OrderExpr("id DESC").Limit(int64(first+1)).Scan(ctx, &rs); err != nil {
		return nil, fmt.Errorf("market: unable to list rentals: %w", err)
	}
	page := &RentalPage{Rentals: rs}
	if len(rs) > first {
		page.Rentals, page.HasNextPage = rs[:first], true
	}
	if err := s.withCosts(ctx, page.Rentals); err != nil {
		return nil, err
	}
	return page, nil
}

// MaxProviderRentals bounds Provider.rentals.
const MaxProviderRentals = 100

// ProviderRentals returns the rentals on providerID's GPUs: active ones
// first, then the latest ended, newest first within each, at most
// MaxProviderRentals, each with what it has earned the provider (its
// Cost). A few statements whatever their number.
func (s *Service) ProviderRentals(ctx context.Context, providerID int64) ([]*ProviderRental, error) {
	var rs []*models.Rental
	if err := s.deps.DB.NewSelect().Model(&rs).Where("provider_id = ?", providerID).
		OrderExpr("CASE WHEN state IN (?) THEN 0 ELSE 1 END ASC, id DESC", bun.List(activeStates)).
		Limit(MaxProviderRentals).Scan(ctx); err != nil {
		return nil, fmt.Errorf("market: unable to list the provider's rentals: %w", err)
	}
	if err := s.withCosts(ctx, rs); err != nil {
		return nil, err
	}
	return s.providerViews(ctx, rs)
}

// providerViews adds each rental's hostname and GPU uuids.
func (s *Service) providerViews(ctx context.Context, rs []*models.Rental) ([]*ProviderRental, error) {
	out := make([]*ProviderRental, len(rs))
	if len(rs) == 0 {
		return out, nil
	}
	ids := make([]int64, len(rs))
	machineIDs := map[int64]bool{}
	for i, r := range rs {
		ids[i] = r.ID
		machineIDs[r.MachineID] = true
	}
	var gpus []struct {
		RentalID int64  `bun:"rental_id"`
		UUID     string `bun:"uuid"`
		Index    int    `bun:"idx"`
	}
	if err := s.deps.DB.NewSelect().TableExpr("rental_gpus AS rg").ColumnExpr("rg.rental_id, mg.uuid, mg.idx").
		Join("JOIN machine_gpus AS mg ON mg.id = rg.gpu_id").Where("rg.rental_id IN (?)", bun.List(ids)).
		OrderExpr("rg.rental_id, mg.idx").Scan(ctx, &gpus); err != nil {
		return nil, fmt.Errorf("market: unable to load the rentals' GPUs: %w", err)
	}
	mids := make([]int64, 0, len(machineIDs))
	for id := range machineIDs {
		mids = append(mids, id)
	}
	var machines []*models.Machine
	if err := s.deps.DB.NewSelect().Model(&machines).Column("id", "hostname").Where("id IN (?)", bun.List(mids)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("market: unable to load the rentals' machines: %w", err)
	}
	host := map[int64]string{}
	for _, m := range machines {
		host[m.ID] = m.Hostname
	}
	uuids, indexes := map[int64][]string{}, map[int64][]int{}
	for _, g := range gpus {
		uuids[g.RentalID] = append(uuids[g.RentalID], g.UUID)
		indexes[g.RentalID] = append(indexes[g.RentalID], g.Index)
	}
	for i, r := range rs {
		u, x := uuids[r.ID], indexes[r.ID]
		if u == nil {
			u, x = []string{}, []int{}
		}
		out[i] = &ProviderRental{Rental: *r, Hostname: host[r.MachineID], GpuUUIDs: u, GpuIndexes: x}
	}
	return out, nil
}
