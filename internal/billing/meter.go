package billing

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// meterRow is an open meter with its rental.
type meterRow struct {
	RentalID   int64              `bun:"rental_id"`
	CustomerID int64              `bun:"customer_id"`
	ProviderID int64              `bun:"provider_id"`
	MachineID  int64              `bun:"machine_id"`
	ModelKey   string             `bun:"model_key"`
	GpuCount   int                `bun:"gpu_count"`
	Price      models.USDC        `bun:"price_micros"`
	FeeBps     int                `bun:"fee_bps"`
	State      models.RentalState `bun:"state"`
	StartedAt  time.Time          `bun:"started_at"`
	EndedAt    *time.Time         `bun:"ended_at"`
	// BillableUntil is a stopping rental's last billable moment (the
	// customer's request, or a stop for funds' grace): billing ends there
	// even while the agent has not confirmed the stop.
	BillableUntil *time.Time  `bun:"billable_until"`
	BilledUntil   time.Time   `bun:"billed_until"`
	Charged       models.USDC `bun:"charged_micros"`
	Fee           models.USDC `bun:"fee_micros"`
	LowFundsAt    *time.Time  `bun:"low_funds_at"`
}

// EndedLookback is how far back a rental that ended may be found without
// a meter (it started and ended between two ticks while metering was
// down): a week.
const EndedLookback = 7 * 24 * time.Hour

// openMetersSQL opens a meter for every rental that has started and has
// none: running ones, and those that ended within EndedLookback.
const openMetersSQL = openMetersOf + `
ON CONFLICT (rental_id) DO NOTHING`

// openMetersOfSQL is openMetersSQL for the rentals named.
const openMetersOfSQL = openMetersOf + ` AND r.id IN (?)
ON CONFLICT (rental_id) DO NOTHING`

const openMetersOf = `INSERT INTO rental_meters (rental_id, customer_id, billed_until, charged_micros, fee_micros, closed, updated_at)
SELECT r.id, r.customer_id, r.started_at, 0, 0, FALSE, ? FROM rentals r
WHERE r.started_at IS NOT NULL AND (r.state IN (?) OR r.ended_at >= ?)
AND NOT EXISTS (SELECT 1 FROM rental_meters m WHERE m.rental_id = r.id)`

// meterRowsOf reads the open meters with their rentals; meterRowsSQL and
// settleRowsSQL say which.
const meterRowsOf = `SELECT rm.rental_id, r.customer_id, r.provider_id, r.machine_id, r.model_key, r.gpu_count, r.price_micros,
	r.fee_bps, r.state, r.started_at, r.ended_at, r.billable_until, rm.billed_until, rm.charged_micros, rm.fee_micros, rm.low_funds_at
FROM rental_meters rm JOIN rentals r ON r.id = rm.rental_id
WHERE NOT rm.closed`

// meterRowsSQL is a chunk of the open meters of a range of customers
// (customer_id from, before to), after a (customer_id, rental_id): in the
// order of rental_meters_open_customer_idx, which is the order every
// transaction locks meters in.
const meterRowsSQL = meterRowsOf + ` AND rm.customer_id >= ? AND rm.customer_id < ? AND (rm.customer_id, rm.rental_id) > (?, ?)
ORDER BY rm.customer_id, rm.rental_id LIMIT ?`

// settleRowsSQL is the open meters of the rentals named (SettleEnded).
const settleRowsSQL = meterRowsOf + ` AND rm.rental_id IN (?) ORDER BY rm.customer_id, rm.rental_id`

// shareRowsSQL is the open meters per customer, in customer order: what
// Tick splits among its workers.
const shareRowsSQL = `SELECT customer_id, COUNT(*) AS n FROM rental_meters WHERE NOT closed GROUP BY customer_id ORDER BY customer_id`

// Tick meters every open rental up to now, in chunks of
// Config.ChunkSize, each in one transaction: for each rental the
// cumulative charge from its start to now (or its end) at its locked rate,
// per second, and the fee at its locked rate on that; it posts only the
// difference from what was charged before, with the hourly rollups per GPU
// and per provider and model in the same transaction. So ticks are
// idempotent and never drift, a crash between ticks loses nothing (the
// next computes from the stored cumulative figures), and two replicas
// ticking at once do not bill twice: the meters are locked (FOR UPDATE on
// PostgreSQL; SQLite's transactions are IMMEDIATE) and the second finds
// nothing left. A customer whose balance cannot pay is billed up to the
// second the balance covers; the rental is then stopped (Deps.Stop) and
// the customer told; a customer whose balance is about to run out is told
// once per rental.
//
// On PostgreSQL the open meters are metered by Config.MeterWorkers
// transactions at once, each over the rentals of its share of the
// customers (a range of customer ids holding about as many open meters as
// each other share), so a customer's balance is read and charged by one of
// them only; what they share (the platform's fee account, the providers'
// earnings and hourly rollups) is written last in each transaction, rows
// in one order, so they wait on each other only for a commit and never
// deadlock.
func (s *Service) Tick(ctx context.Context) error {
	now := s.deps.Clock.Now()
	if _, err := s.deps.DB.ExecContext(ctx, openMetersSQL, now, bun.List(activeStates), now.Add(-EndedLookback)); err != nil {
		return fmt.Errorf("billing: unable to open meters: %w", err)
	}
	workers := s.cfg.MeterWorkers
	if s.deps.DB.Backend() != "postgres" {
		// SQLite has one writer: a second would only wait.
		workers = 1
	}
	shares, err := s.shares(ctx, workers)
	if err != nil {
		return err
	}
	errs := make([]error, len(shares))
	var wg sync.WaitGroup
	for i, ranges := range shares {
		wg.Go(func() { errs[i] = s.tickShare(ctx, now, ranges) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// share is a range of customers (from, before to) and how many open
// meters they had when Tick began.
type share struct {
	from, to int64
	n        int
}

// shares splits the customers with open meters into at most workers
// shares of about as many meters each, and each share into ranges of
// about Config.ChunkSize meters, a customer never split: a chunk's query
// then reads its range's meters only, whatever plan the database picks.
func (s *Service) shares(ctx context.Context, workers int) ([][]share, error) {
	var counts []struct {
		CustomerID int64 `bun:"customer_id"`
		N          int   `bun:"n"`
	}
	if err := s.deps.DB.NewRaw(shareRowsSQL).Scan(ctx, &counts); err != nil {
		return nil, fmt.Errorf("billing: unable to count open meters: %w", err)
	}
	total := 0
	for _, c := range counts {
		total += c.N
	}
	var out [][]share
	var ranges []share
	from, sum, inRange := int64(0), 0, 0
	for i, c := range counts {
		if inRange > 0 && inRange+c.N > s.cfg.ChunkSize {
			// The range so far, without c, fits one chunk.
			ranges = append(ranges, share{from, c.CustomerID, inRange})
			from, inRange = c.CustomerID, 0
		}
		sum += c.N
		inRange += c.N
		if i == len(counts)-1 {
			break
		}
		if len(out) < workers-1 && sum*workers >= total*(len(out)+1) {
			if inRange > 0 {
				ranges = append(ranges, share{from, c.CustomerID + 1, inRange})
				from, inRange = c.CustomerID+1, 0
			}
			out = append(out, ranges)
			ranges = nil
		}
	}
	// The last range runs to the end: what opens after the count is
	// metered by the next tick, but nothing is left out.
	return append(out, append(ranges, share{from, math.MaxInt64, inRange})), nil
}

// tickShare meters the open meters of ranges' customers, range after
// range, chunk after chunk.
func (s *Service) tickShare(ctx context.Context, now time.Time, ranges []share) error {
	for _, sh := range ranges {
		var afterCustomer, afterRental int64
		for {
			res, err := s.meterChunk(ctx, now, sh, afterCustomer, afterRental)
			if err != nil {
				return err
			}
			s.afterChunk(ctx, res)
			// A range counted within a chunk is read whole by one (the
			// count is taken after the meters opened); only a customer
			// with more open meters than a chunk takes several.
			if res.n < s.cfg.ChunkSize || sh.n <= s.cfg.ChunkSize {
				break
			}
			afterCustomer, afterRental = res.lastCustomer, res.last
		}
	}
	return nil
}

// chunkResult is what one chunk did, for what follows its commit.
type chunkResult struct {
	n int
	// last and lastCustomer are the last meter's rental and customer.
	last, lastCustomer int64
	providers          []int64
	exhausted          []int64
	// charged are the rentals whose charge changed, for OnCharged.
	charged []ChargedRental
}

// ChargedRental names a rental whose charge a tick changed and its
// customer.
type ChargedRental struct {
	RentalID, CustomerID, ProviderID int64
}

type gpuHourKey struct {
	gpu  int64
	hour time.Time
}

type providerHourKey struct {
	provider int64
	model    string
	hour     time.Time
}

func (s *Service) meterChunk(ctx context.Context, now time.Time, sh share, afterCustomer, afterRental int64) (*chunkResult, error) {
	res := &chunkResult{}
	err := s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		*res = chunkResult{}
		q := meterRowsSQL
		if s.deps.DB.Backend() == "postgres" {
			q += " FOR UPDATE OF rm"
		}
		var rows []*meterRow
		if err := tx.NewRaw(q, sh.from, sh.to, afterCustomer, afterRental, s.cfg.ChunkSize).Scan(ctx, &rows); err != nil {
			return fmt.Errorf("billing: unable to read meters: %w", err)
		}
		res.n = len(rows)
		if len(rows) == 0 {
			return nil
		}
		res.last, res.lastCustomer = rows[len(rows)-1].RentalID, rows[len(rows)-1].CustomerID
		return s.meter(ctx, tx, now, rows, res)
	})
	return res, err
}

// SettleEnded meters the rentals ids, which tx has just ended, to their
// end inside tx: what a tick billed past an end is given back (every leg
// reversed) in the transaction that ends the rental, and what is owed up
// to the end is charged, so no statement ever shows a rental billed past
// its end. It opens the meter of a rental that started and has none yet.
// Call it once per transaction with every rental it ended, after the
// rentals' own rows: the meters are locked in one statement, in the order
// Tick locks them (by customer, then rental), before any account. What
// follows a tick's commit (events, OnCharged) follows tx's.
func (s *Service) SettleEnded(ctx context.Context, tx bun.Tx, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	now := s.deps.Clock.Now()
	if _, err := tx.NewRaw(openMetersOfSQL, now, bun.List(activeStates), now.Add(-EndedLookback), bun.List(ids)).Exec(ctx); err != nil {
		return fmt.Errorf("billing: unable to open meters: %w", err)
	}
	q := settleRowsSQL
	if s.deps.DB.Backend() == "postgres" {
		q += " FOR UPDATE OF rm"
	}
	var rows []*meterRow
	if err := tx.NewRaw(q, bun.List(ids)).Scan(ctx, &rows); err != nil {
		return fmt.Errorf("billing: unable to read meters: %w", err)
	}
	if len(rows) == 0 {
		return nil
	}
	res := &chunkResult{n: len(rows), last: rows[len(rows)-1].RentalID}
	if err := s.meter(ctx, tx, now, rows, res); err != nil {
		return err
	}
	store.AfterCommit(ctx, func() { s.afterChunk(context.WithoutCancel(ctx), res) })
	return nil
}

// meter bills rows (locked by the caller) up to now in tx, recording in
// res what follows the commit.
func (s *Service) meter(ctx context.Context, tx bun.Tx, now time.Time, rows []*meterRow, res *chunkResult) error {
	keys := []accountKey{{models.AccountPlatformFees, 0}}
	rentalIDs := make([]int64, len(rows))
	for i, r := range rows {
		rentalIDs[i] = r.RentalID
		keys = append(keys, accountKey{models.AccountCustomerFunds, r.CustomerID}, accountKey{models.AccountProviderEarnings, r.ProviderID})
	}
	ids, balances, err := accountsWithBalances(ctx, tx, now, keys)
	if err != nil {
		return err
	}
	var rgs []*models.RentalGpu
	if err := tx.NewSelect().Model(&rgs).Where("rental_id IN (?)", bun.List(rentalIDs)).Order("rental_id", "gpu_id").Scan(ctx); err != nil {
		return fmt.Errorf("billing: unable to read rentals' GPUs: %w", err)
	}
	gpusOf := map[int64][]int64{}
	for _, g := range rgs {
		gpusOf[g.RentalID] = append(gpusOf[g.RentalID], g.GpuID)
	}
	burn, err := s.burnRates(ctx, tx, rows)
	if err != nil {
		return err
	}

	var postings []*posting
	var meters []*models.RentalMeter
	gpuHours := map[gpuHourKey]*models.EarningsHour{}
	provHours := map[providerHourKey]*models.ProviderEarningsHour{}
	providers := map[int64]bool{}
	for _, r := range rows {
		customer := accountKey{models.AccountCustomerFunds, r.CustomerID}
		earnings := accountKey{models.AccountProviderEarnings, r.ProviderID}
		c := s.charge(r, now, balances[ids[customer]])
		if c.refund && balances[ids[earnings]] < c.fee-c.gross {
			// The provider's earnings were paid out already: what it
			// owes cannot be taken back now. The meter stays where it is
			// and open, so a later tick gives the customer the excess
			// back as soon as the provider's earnings cover it; each tick
			// until then says so to the operator.
			s.deps.Logger.ErrorContext(ctx, "billing: a rental ended before what was billed and its provider's balance cannot give the excess back yet",
				"rental_id", r.RentalID, "excess", (-c.gross).String())
			c = charge{fromSecs: c.fromSecs, toSecs: c.fromSecs, billedUntil: r.BilledUntil}
		}
		balances[ids[customer]] -= c.gross
		balances[ids[earnings]] += c.gross - c.fee
		m := &models.RentalMeter{RentalID: r.RentalID, CustomerID: r.CustomerID, BilledUntil: c.billedUntil, Charged: r.Charged + c.gross, Fee: r.Fee + c.fee,
			Closed: c.closed, LowFundsAt: r.LowFundsAt, UpdatedAt: now}
		if c.gross != 0 || c.fee != 0 {
			ref := "rental " + strconv.FormatInt(r.RentalID, 10) + " to " + c.billedUntil.UTC().Format(time.RFC3339)
			if c.refund {
				ref = "rental " + strconv.FormatInt(r.RentalID, 10) + " ended at " + c.billedUntil.UTC().Format(time.RFC3339) + ": excess returned"
			}
			rid := r.RentalID
			postings = append(postings, &posting{
				tx: &models.LedgerTransaction{Kind: models.TxRentalCharge, Reference: ref, RentalID: &rid},
				legs: []leg{
					{customer, -c.gross},
					{accountKey{models.AccountProviderEarnings, r.ProviderID}, c.gross - c.fee},
					{accountKey{models.AccountPlatformFees, 0}, c.fee},
				},
			})
			providers[r.ProviderID] = true
			res.charged = append(res.charged, ChargedRental{RentalID: r.RentalID, CustomerID: r.CustomerID, ProviderID: r.ProviderID})
			s.rollUp(r, c, gpusOf[r.RentalID], gpuHours, provHours)
		}
		// A rental being stopped already was told and stopped once.
		// One is stopped while the balance still pays for the stop
		// (s.stopLead of everything the customer runs), so the time
		// its job runs until the agent confirms is paid for.
		stopping := r.State == models.RentalStopping
		left := balances[ids[customer]]
		if !c.exhausted && r.EndedAt == nil && !stopping && s.stopLead > 0 &&
			left < models.USDC(int64(burn[r.CustomerID])*int64(s.stopLead/time.Second)/3600) {
			c.exhausted = true
		}
		if c.exhausted && r.EndedAt == nil && !stopping {
			res.exhausted = append(res.exhausted, r.RentalID)
		}
		if r.EndedAt == nil && !c.exhausted && m.LowFundsAt == nil && left < models.USDC(int64(perHourOf(r))*int64(s.cfg.LowFunds/time.Second)/3600) {
			m.LowFundsAt = &now
			if err := s.notifyLowFunds(ctx, tx, r, left); err != nil {
				return err
			}
		}
		if c.exhausted && r.EndedAt == nil && !stopping {
			if err := s.notifyExhausted(ctx, tx, r); err != nil {
				return err
			}
		}
		meters = append(meters, m)
	}
	// What is this transaction's alone first (its meters, its rentals'
	// GPUs' hours, its ledger rows); what concurrent ticks share last
	// (the accounts' balances, then the providers' hours), so they hold
	// those rows only until the commit, and take them in one order.
	if _, err := tx.NewInsert().Model(&meters).On("CONFLICT (rental_id) DO UPDATE").
		Set("billed_until = EXCLUDED.billed_until, charged_micros = EXCLUDED.charged_micros, fee_micros = EXCLUDED.fee_micros").
		Set("closed = EXCLUDED.closed, low_funds_at = EXCLUDED.low_funds_at, updated_at = EXCLUDED.updated_at").Exec(ctx); err != nil {
		return fmt.Errorf("billing: unable to update meters: %w", err)
	}
	if err := upsertGpuHours(ctx, tx, gpuHours); err != nil {
		return err
	}
	delta, err := writePostings(ctx, tx, now, postings, ids)
	if err != nil {
		return err
	}
	if err := s.lockAccounts(ctx, tx, delta); err != nil {
		return err
	}
	if err := addBalances(ctx, tx, now, delta); err != nil {
		return err
	}
	if err := upsertProviderHours(ctx, tx, provHours); err != nil {
		return err
	}
	for p := range providers {
		res.providers = append(res.providers, p)
	}
	slices.Sort(res.providers)
	return nil
}

// lockAccounts locks the accounts whose balance delta changes, in id
// order, before their balances are updated: one UPDATE … FROM VALUES takes
// its rows in the order of its plan, and two ticks' workers updating the
// platform's fee account and a provider's earnings in opposite orders would
// deadlock. store.DB.ForUpdate's FOR NO KEY UPDATE does not wait on the
// key-share locks the entries' foreign keys hold on the same rows in other
// workers' transactions (FOR UPDATE would, and deadlock). It is the
// metering's, not every posting's: only metering transactions run at once
// sharing more than one account (a deposit, a credit or a payout shares
// at most one with any other), so only they can take two in opposite
// orders. On SQLite, one writer at a time, there is nothing to lock.
func (s *Service) lockAccounts(ctx context.Context, tx bun.Tx, delta map[int64]models.USDC) error {
	lock := changedAccounts(delta)
	if s.deps.DB.Backend() != "postgres" || len(lock) == 0 {
		return nil
	}
	var got []int64
	q := tx.NewSelect().Model((*models.LedgerAccount)(nil)).Column("id").Where("id IN (?)", bun.List(lock)).Order("id")
	if err := s.deps.DB.ForUpdate(q).Scan(ctx, &got); err != nil {
		return fmt.Errorf("billing: unable to lock accounts: %w", err)
	}
	return nil
}

// afterChunk publishes the providers' earnings changes and stops the
// rentals whose funds ran out, once the chunk committed.
func (s *Service) afterChunk(ctx context.Context, res *chunkResult) {
	for _, p := range res.providers {
		s.announce(ctx, p)
	}
	if s.onCharged != nil {
		for _, c := range res.charged {
			s.onCharged(ctx, c)
		}
	}
	if s.deps.Stop == nil {
		return
	}
	for _, id := range res.exhausted {
		if err := s.deps.Stop(ctx, id); err != nil {
			s.deps.Logger.WarnContext(ctx, "billing: unable to stop a rental whose funds ran out", "rental_id", id, "err", err)
		}
	}
}

func perHourOf(r *meterRow) models.USDC { return r.Price * models.USDC(r.GpuCount) }

// burnRates is, per customer of rows, what the customer's rentals that
// run or start (not those stopping) cost per hour together.
func (s *Service) burnRates(ctx context.Context, tx bun.Tx, rows []*meterRow) (map[int64]models.USDC, error) {
	customers := map[int64]bool{}
	for _, r := range rows {
		customers[r.CustomerID] = true
	}
	ids := make([]int64, 0, len(customers))
	for id := range customers {
		ids = append(ids, id)
	}
	var rates []struct {
		CustomerID int64 `bun:"customer_id"`
		PerHour    int64 `bun:"per_hour"`
	}
	if err := tx.NewSelect().Model((*models.Rental)(nil)).ColumnExpr("customer_id, SUM(price_micros * gpu_count) AS per_hour").
		Where("customer_id IN (?) AND state IN (?)", bun.List(ids), bun.List([]models.RentalState{models.RentalStarting, models.RentalRunning})).
		GroupExpr("customer_id").Scan(ctx, &rates); err != nil {
		return nil, fmt.Errorf("billing: unable to read the customers' running rentals: %w", err)
	}
	out := make(map[int64]models.USDC, len(rates))
	for _, r := range rates {
		out[r.CustomerID] = models.USDC(r.PerHour)
	}
	return out, nil
}

// charge is what one tick bills of a rental.
type charge struct {
	// fromSecs and toSecs are the billed span, in whole seconds since
	// the rental started.
	fromSecs, toSecs int64
	gross, fee       models.USDC
	billedUntil      time.Time
	// exhausted: the balance could not pay up to the end.
	exhausted bool
	// closed: the rental ended and nothing more will be billed.
	closed bool
	// refund: the rental ended before what was billed (toSecs <
	// fromSecs); gross and fee are negative, what is given back.
	refund bool
}

// cumulative is what a rental costs from its start for secs seconds:
// rate × GPUs × secs / 3600, rounded down to the micro-USDC.
func cumulative(r *meterRow, secs int64) models.USDC {
	return models.USDC(int64(perHourOf(r)) * secs / 3600)
}

// Fee is the platform's fee of bps basis points on gross, rounded down:
// what metering takes of a cumulative charge, and what an imported past
// (ImportPast) is worked out with.
func Fee(gross models.USDC, bps int) models.USDC { return gross * models.USDC(bps) / 10_000 }

// charge works out what to bill r up to now (or its end), given the
// customer's balance.
func (s *Service) charge(r *meterRow, now time.Time, balance models.USDC) charge {
	end := now
	if r.EndedAt != nil && r.EndedAt.Before(end) {
		end = *r.EndedAt
	}
	if r.BillableUntil != nil && r.BillableUntil.Before(end) {
		end = *r.BillableUntil
	}
	c := charge{fromSecs: int64(r.BilledUntil.Sub(r.StartedAt) / time.Second)}
	if endSecs := max(0, int64(end.Sub(r.StartedAt)/time.Second)); r.EndedAt != nil && endSecs < c.fromSecs {
		// It ended before what a tick had billed already (its agent's
		// end report arrived after that tick, dated earlier, or its
		// machine's last heartbeat was before it): the excess is given
		// back, every leg reversed, the meter moved back to the end.
		target := cumulative(r, endSecs)
		c.toSecs, c.refund = endSecs, true
		c.gross = target - r.Charged
		c.fee = Fee(target, r.FeeBps) - r.Fee
		c.billedUntil = r.StartedAt.Add(time.Duration(endSecs) * time.Second)
		c.closed = !r.EndedAt.After(now)
		return c
	}
	c.toSecs = max(c.fromSecs, int64(end.Sub(r.StartedAt)/time.Second))
	target := cumulative(r, c.toSecs)
	if target-r.Charged > max(balance, 0) {
		// Bill up to the last second the balance pays for.
		rate := int64(perHourOf(r))
		c.toSecs = max(c.fromSecs, (int64(r.Charged+max(balance, 0))*3600)/rate)
		target = cumulative(r, c.toSecs)
		c.exhausted = true
	}
	c.gross = max(0, target-r.Charged)
	c.fee = max(0, Fee(target, r.FeeBps)-r.Fee)
	c.billedUntil = r.StartedAt.Add(time.Duration(c.toSecs) * time.Second)
	c.closed = r.EndedAt != nil && !r.EndedAt.After(now)
	return c
}

// rollUp spreads a charge over the UTC hours it covers and over the
// rental's GPUs. Each part is a difference of cumulative figures at its
// ends (the hour's: cumulative(to) − cumulative(from); a GPU's: its share
// of the cumulative, cum/n plus one micro-USDC for the first cum mod n
// GPUs), so the parts add up to the charge exactly and do not depend on
// how often the ticks come.
func (s *Service) rollUp(r *meterRow, c charge, gpus []int64, gpuHours map[gpuHourKey]*models.EarningsHour, provHours map[providerHourKey]*models.ProviderEarningsHour) {
	if len(gpus) == 0 {
		gpus = []int64{0}
	}
	n := models.USDC(len(gpus))
	share := func(cum models.USDC, i int) models.USDC {
		v := cum / n
		if models.USDC(i) < cum%n {
			v++
		}
		return v
	}
	sign, lo, hi := models.USDC(1), c.fromSecs, c.toSecs
	if c.refund {
		// A refund takes back the hours of (to, from]: the same parts,
		// subtracted.
		sign, lo, hi = -1, c.toSecs, c.fromSecs
	}
	for from := lo; from < hi; {
		at := r.StartedAt.Add(time.Duration(from) * time.Second)
		hour := at.UTC().Truncate(time.Hour)
		to := min(hi, from+int64(hour.Add(time.Hour).Sub(at)/time.Second))
		if to <= from {
			to = from + 1
		}
		cumFrom, cumTo := cumulative(r, from), cumulative(r, to)
		feeFrom, feeTo := Fee(cumFrom, r.FeeBps), Fee(cumTo, r.FeeBps)
		if cumTo != cumFrom || feeTo != feeFrom {
			pk := providerHourKey{r.ProviderID, r.ModelKey, hour}
			ph := provHours[pk]
			if ph == nil {
				ph = &models.ProviderEarningsHour{ProviderID: r.ProviderID, ModelKey: r.ModelKey, Hour: hour}
				provHours[pk] = ph
			}
			ph.Gross += sign * (cumTo - cumFrom)
			ph.Fee += sign * (feeTo - feeFrom)
			for i, g := range gpus {
				gk := gpuHourKey{g, hour}
				gh := gpuHours[gk]
				if gh == nil {
					gh = &models.EarningsHour{GpuID: g, Hour: hour, ProviderID: r.ProviderID, MachineID: r.MachineID, ModelKey: r.ModelKey}
					gpuHours[gk] = gh
				}
				gh.Gross += sign * (share(cumTo, i) - share(cumFrom, i))
				gh.Fee += sign * (share(feeTo, i) - share(feeFrom, i))
			}
		}
		from = to
	}
}

// upsertGpuHours adds the chunk's hourly figures per GPU to their
// rollup in one statement.
func upsertGpuHours(ctx context.Context, tx bun.Tx, gpuHours map[gpuHourKey]*models.EarningsHour) error {
	if len(gpuHours) > 0 {
		rows := make([]*models.EarningsHour, 0, len(gpuHours))
		for _, h := range gpuHours {
			rows = append(rows, h)
		}
		slices.SortFunc(rows, func(a, b *models.EarningsHour) int {
			if a.GpuID != b.GpuID {
				return int(a.GpuID - b.GpuID)
			}
			return a.Hour.Compare(b.Hour)
		})
		if _, err := tx.NewInsert().Model(&rows).On("CONFLICT (gpu_id, hour) DO UPDATE").
			Set("gross_micros = egh.gross_micros + EXCLUDED.gross_micros, fee_micros = egh.fee_micros + EXCLUDED.fee_micros").Exec(ctx); err != nil {
			return fmt.Errorf("billing: unable to roll up GPU hours: %w", err)
		}
	}
	return nil
}

// upsertProviderHours adds the chunk's hourly figures per provider and
// model to their rollup in one statement, rows in key order.
func upsertProviderHours(ctx context.Context, tx bun.Tx, provHours map[providerHourKey]*models.ProviderEarningsHour) error {
	if len(provHours) > 0 {
		rows := make([]*models.ProviderEarningsHour, 0, len(provHours))
		for _, h := range provHours {
			rows = append(rows, h)
		}
		slices.SortFunc(rows, func(a, b *models.ProviderEarningsHour) int {
			if a.ProviderID != b.ProviderID {
				return int(a.ProviderID - b.ProviderID)
			}
			if a.ModelKey != b.ModelKey {
				if a.ModelKey < b.ModelKey {
					return -1
				}
				return 1
			}
			return a.Hour.Compare(b.Hour)
		})
		if _, err := tx.NewInsert().Model(&rows).On("CONFLICT (provider_id, model_key, hour) DO UPDATE").
			Set("gross_micros = eph.gross_micros + EXCLUDED.gross_micros, fee_micros = eph.fee_micros + EXCLUDED.fee_micros").Exec(ctx); err != nil {
			return fmt.Errorf("billing: unable to roll up provider hours: %w", err)
		}
	}
	return nil
}

// Notification kinds billing sends a customer.
const (
	KindFundsLow       = "billing.funds_low"
	KindFundsExhausted = "billing.funds_exhausted"
)

func (s *Service) notifyLowFunds(ctx context.Context, tx bun.Tx, r *meterRow, left models.USDC) error {
	if s.deps.Notify == nil {
		return nil
	}
	return s.deps.Notify.Add(ctx, tx, &models.Notification{UserID: r.CustomerID, Kind: KindFundsLow,
		Title: "Your balance is running low",
		Body:  fmt.Sprintf("Your balance of %s USDC pays for less than %s more of rental %d. Add funds to keep it running.", left, s.cfg.LowFunds, r.RentalID),
		Params: map[string]string{"rentalId": strconv.FormatInt(r.RentalID, 10), "balance": left.String(),
			"perHour": perHourOf(r).String()}})
}

func (s *Service) notifyExhausted(ctx context.Context, tx bun.Tx, r *meterRow) error {
	if s.deps.Notify == nil {
		return nil
	}
	return s.deps.Notify.Add(ctx, tx, &models.Notification{UserID: r.CustomerID, Kind: KindFundsExhausted,
		Title:  "A rental stopped: your balance ran out",
		Body:   fmt.Sprintf("Rental %d was stopped because your balance ran out. Add funds to rent again.", r.RentalID),
		Params: map[string]string{"rentalId": strconv.FormatInt(r.RentalID, 10)}})
}
