package billing

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/billing/bank"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// RunPayouts is one payout run (the leader runs it every RunEvery): it
// creates the due payout of every provider whose method is past its
// cooling-off and whose balance meets the threshold (one per provider and
// period: a unique index, so a second run or a second replica creates
// none), then sends what can be sent: Solana payouts through the node
// (recovering any a crash left in PROCESSING first). Bank and manual
// payouts wait for an admin.
func (s *Service) RunPayouts(ctx context.Context) error {
	if err := s.createDue(ctx); err != nil {
		return err
	}
	if s.deps.Solana == nil {
		return nil
	}
	var open []*models.Payout
	if err := s.deps.DB.NewSelect().Model(&open).Where("kind = ? AND state IN (?)", models.PayoutSolana,
		bun.List([]models.PayoutState{models.PayoutPending, models.PayoutProcessing})).Order("id").Scan(ctx); err != nil {
		return fmt.Errorf("billing: unable to list open payouts: %w", err)
	}
	// Each payout waits for its own confirmation (a second or two on a
	// healthy cluster, up to ConfirmTimeout on a slow one): sent one after
	// the other, a run of a thousand payouts would take tens of minutes
	// and one transfer stuck unconfirmed would hold up every payout after
	// it. They are independent (each one's state moves by a conditional
	// update), so up to sendAtOnce go at once.
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
		slot = make(chan struct{}, sendAtOnce)
	)
	for _, p := range open {
		slot <- struct{}{}
		wg.Go(func() {
			defer func() { <-slot }()
			if err := s.sendSolana(ctx, p); err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("payout %d: %w", p.ID, err))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// sendAtOnce is how many Solana payouts one run sends and waits for at
// once: enough that a run of thousands ends within minutes, few enough
// for a rate-limited RPC node (each payout polls its status every
// solana.DefaultPollInterval while it waits).
const sendAtOnce = 8

// createDue creates the payouts due now.
func (s *Service) createDue(ctx context.Context) error {
	now := s.deps.Clock.Now()
	var methods []*models.PayoutMethod
	if err := s.deps.DB.NewSelect().Model(&methods).Where("hold_until <= ?", now).Order("provider_id").Scan(ctx); err != nil {
		return fmt.Errorf("billing: unable to list payout methods: %w", err)
	}
	for _, m := range methods {
		loc, err := s.zoneOf(ctx, m.ProviderID)
		if err != nil {
			return err
		}
		start, end, due := Due(Schedule(m.Schedule), now, loc)
		// A period is paid on its due day to a method that was ready then
		// (past its cooling-off): a method set later waits for the next
		// due day, as the provider guide promises, rather than paying the
		// period before at once, on any day.
		if now.Before(due) || m.HoldUntil.After(due) {
			continue
		}
		if err := s.createPayout(ctx, m, start, end, now); err != nil {
			return err
		}
	}
	return nil
}

// createPayout makes m's payout for the period [start, end), if none
// exists and the balance meets the threshold: the payout row and the
// posting that moves its amount from the provider's earnings to payouts
// in flight, in one transaction.
func (s *Service) createPayout(ctx context.Context, m *models.PayoutMethod, start, end, now time.Time) error {
	return s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		n, err := tx.NewSelect().Model((*models.Payout)(nil)).Where("provider_id = ? AND period_start = ?", m.ProviderID, start.UTC()).Count(ctx)
		if err != nil || n > 0 {
			return err
		}
		balance, ok, err := s.lockEarnings(ctx, tx, m.ProviderID)
		if err != nil || !ok {
			return err
		}
		// The period's payout carries what was posted before its end,
		// never what was earned since (that is the next period's), less
		// what payouts on request took since.
		st, err := s.statement(ctx, tx, m.ProviderID, start, end)
		if err != nil {
			return err
		}
		since, err := s.payoutsSince(ctx, tx, m.ProviderID, end)
		if err != nil {
			return err
		}
		amount := min(balance, st.Closing+since)
		if amount < s.threshold(Schedule(m.Schedule)) {
			return nil
		}
		_, err = s.payOut(ctx, tx, m, start, end, amount, now, fmt.Sprintf("GPX-%d-%s", m.ProviderID, start.Format("20060102")))
		return err
	})
}

// lockEarnings locks providerID's earnings account in tx and returns its
// balance; ok is false when the provider has never earned.
func (s *Service) lockEarnings(ctx context.Context, tx bun.Tx, providerID int64) (models.USDC, bool, error) {
	var acct models.LedgerAccount
	err := s.deps.DB.ForUpdate(tx.NewSelect().Model(&acct).Where("kind = ? AND owner_id = ?", models.AccountProviderEarnings, providerID)).Scan(ctx)
	switch {
	case store.IsNoRows(err):
		return 0, false, nil
	case err != nil:
		return 0, false, fmt.Errorf("billing: unable to lock the earnings: %w", err)
	}
	return acct.Balance, true, nil
}

// payoutsSince is what payouts took from providerID's earnings (negative)
// and what failed ones returned, posted at or after t.
func (s *Service) payoutsSince(ctx context.Context, idb bun.IDB, providerID int64, t time.Time) (models.USDC, error) {
	var sum int64
	if err := idb.NewSelect().TableExpr("ledger_entries AS le").
		Join("JOIN ledger_accounts AS la ON la.id = le.account_id").
		Join("JOIN ledger_transactions AS lt ON lt.id = le.transaction_id").
		ColumnExpr("COALESCE(SUM(le.amount_micros), 0)").
		Where("la.kind = ? AND la.owner_id = ? AND le.created_at >= ? AND lt.kind IN (?)", models.AccountProviderEarnings, providerID, t.UTC(),
			bun.List([]models.LedgerTxKind{models.TxPayout, models.TxPayoutReturn})).Scan(ctx, &sum); err != nil {
		return 0, fmt.Errorf("billing: unable to read the payouts since the period's end: %w", err)
	}
	return models.USDC(sum), nil
}

// payOut stores a payout of amount to m's destination for [start, end)
// with its reference and moves the amount from the provider's earnings to
// payouts in flight, in tx; nil when a bank payout would be under a cent
// or the period's payout exists already.
func (s *Service) payOut(ctx context.Context, tx bun.Tx, m *models.PayoutMethod, start, end time.Time, amount models.USDC, now time.Time, reference string) (*models.Payout, error) {
	p := &models.Payout{ProviderID: m.ProviderID, PeriodStart: start.UTC(), PeriodEnd: end.UTC(), State: models.PayoutPending,
		CreatedAt: now, UpdatedAt: now, Reference: reference}
	switch {
	case m.Kind == string(models.PayoutBank):
		_, settled, err := bank.Convert(amount, s.pcfg.Bank.Rate)
		if err != nil || settled <= 0 {
			return nil, nil // under a cent: it stays for the next period
		}
		p.Amount, p.Kind, p.Destination = settled, models.PayoutBank, *m.IBAN
	case s.deps.Solana != nil:
		p.Amount, p.Kind, p.Destination = amount, models.PayoutSolana, *m.SolanaAddress
	default:
		p.Amount, p.Kind, p.Destination = amount, models.PayoutManual, *m.SolanaAddress
	}
	if _, err := tx.NewInsert().Model(p).Returning("id").Exec(ctx); err != nil {
		if s.deps.DB.IsUniqueViolation(err) {
			return nil, nil
		}
		return nil, err
	}
	pid := p.ID
	return p, post(ctx, tx, now, []*posting{{
		tx: &models.LedgerTransaction{Kind: models.TxPayout, Reference: p.Reference, PayoutID: &pid},
		legs: []leg{
			{accountKey{models.AccountProviderEarnings, m.ProviderID}, -p.Amount},
			{accountKey{models.AccountPayoutsInFlight, m.ProviderID}, p.Amount},
		},
	}})
}

// RequestPayout pays providerID's whole available balance now, on the
// provider's request, to its payout method: a payout of the instant it was
// asked, carrying what was posted to its earnings up to then, sent by the next payout run (Solana)
// or left for an admin (bank, manual). It is refused (INVALID_STATE on
// the field named) without a method, while a new destination cools off,
// while another payout is on its way, and under the weekly threshold (the
// least worth a transfer). The period's scheduled payout then carries
// only what is left of that period.
func (s *Service) RequestPayout(ctx context.Context, providerID int64) (*models.Payout, error) {
	var out *models.Payout
	err := s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		refuse := func(field string, code fault.ProblemCode, msg string) error {
			var v fault.Validation
			v.Add(field, code, msg)
			return &v
		}
		var m models.PayoutMethod
		err := s.deps.DB.ForUpdate(tx.NewSelect().Model(&m).Where("provider_id = ?", providerID)).Scan(ctx)
		if store.IsNoRows(err) {
			return refuse("method", fault.InvalidState, "set a payout method first")
		}
		if err != nil {
			return fmt.Errorf("billing: unable to read the payout method: %w", err)
		}
		now := s.deps.Clock.Now().UTC().Truncate(time.Microsecond)
		if m.HoldUntil.After(now) {
			return refuse("method", fault.InvalidState, "payouts to a new destination are held until "+m.HoldUntil.UTC().Format(time.RFC3339))
		}
		open, err := tx.NewSelect().Model((*models.Payout)(nil)).Where("provider_id = ? AND state IN (?)", providerID,
			bun.List([]models.PayoutState{models.PayoutPending, models.PayoutProcessing})).Count(ctx)
		if err != nil {
			return fmt.Errorf("billing: unable to read open payouts: %w", err)
		}
		if open > 0 {
			return refuse("amount", fault.InvalidState, "a payout is already on its way: ask again once it is paid")
		}
		balance, _, err := s.lockEarnings(ctx, tx, providerID)
		if err != nil {
			return err
		}
		if balance < s.pcfg.Threshold {
			return refuse("amount", fault.OutOfRange, fmt.Sprintf("the available %s USDC is under the %s USDC a payout needs", balance, s.pcfg.Threshold))
		}
		// A payout on request is for the instant it was asked (its period
		// starts and ends then), apart from every scheduled period, which
		// starts at midnight.
		p, err := s.payOut(ctx, tx, &m, now, now, balance, now, fmt.Sprintf("GPX-%d-%s", providerID, now.Format("20060102T150405")))
		if err != nil {
			return err
		}
		if p == nil {
			return refuse("amount", fault.OutOfRange, "the available balance is under a cent in the bank account's currency")
		}
		out = p
		return nil
	})
	return out, err
}
