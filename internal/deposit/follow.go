package deposit

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/billing/solana"
	"github.com/gpunex/gpunex/models"
)

// settleBatch bounds the transfers one Settle reads.
const settleBatch = 500

// Run is one follow-up: See, then Settle. Each step is safe to repeat and
// to run on two replicas at once; a run that stops between them (a
// replica killed) leaves SEEN transfers the next run settles.
func (s *Service) Run(ctx context.Context) error {
	if s.deps.Chain == nil {
		return nil
	}
	seeErr := s.See(ctx)
	if s.afterSee != nil {
		if err := s.afterSee(ctx); err != nil {
			return errors.Join(seeErr, err)
		}
	}
	return errors.Join(seeErr, s.Settle(ctx))
}

// See expires the requests whose time ran out with nothing seen, then asks
// the chain about every request still followed and stores each new
// transaction naming its reference as a SEEN transfer (once per
// signature, whoever sees it first). A request one of them answers is
// SEEN until they are settled. A node that fails for one request does
// not stop the others; the errors are returned together.
func (s *Service) See(ctx context.Context) error {
	now := s.deps.Clock.Now()
	if err := s.expire(ctx); err != nil {
		return err
	}
	var ds []*models.Deposit
	if err := s.deps.DB.NewSelect().Model(&ds).Where("follow_until > ?", now).Order("id").Scan(ctx); err != nil {
		return fmt.Errorf("deposit: unable to list followed requests: %w", err)
	}
	var errs []error
	for _, d := range ds {
		ref, err := solana.ParseMint(d.Reference)
		if err != nil {
			errs = append(errs, fmt.Errorf("deposit %d: reference: %w", d.ID, err))
			continue
		}
		ms, err := s.deps.Chain.Mentions(ctx, ref)
		if err != nil {
			errs = append(errs, fmt.Errorf("deposit %d: %w", d.ID, err))
			continue
		}
		for _, m := range slices.Backward(ms) { // oldest first
			if err := s.seen(ctx, d, m); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// expire marks EXPIRED the waiting requests past their expiry.
func (s *Service) expire(ctx context.Context) error {
	now := s.deps.Clock.Now()
	var ds []*models.Deposit
	if err := s.deps.DB.NewSelect().Model(&ds).Column("id", "user_id").
		Where("state = ? AND expires_at <= ?", models.DepositWaiting, now).Scan(ctx); err != nil {
		return fmt.Errorf("deposit: unable to list expired requests: %w", err)
	}
	for _, d := range ds {
		res, err := s.deps.DB.NewUpdate().Model((*models.Deposit)(nil)).
			Set("state = ?", models.DepositExpired).Set("updated_at = ?", now).
			Where("id = ? AND state = ?", d.ID, models.DepositWaiting).Exec(ctx)
		if err != nil {
			return fmt.Errorf("deposit: unable to expire request %d: %w", d.ID, err)
		}
		if n, _ := res.RowsAffected(); n > 0 {
			s.announce(ctx, d.UserID, d.ID)
		}
	}
	return nil
}

// seen stores m as a SEEN transfer of d unless some replica did already,
// and marks d SEEN while nothing of it is credited.
func (s *Service) seen(ctx context.Context, d *models.Deposit, m solana.Mention) error {
	now := s.deps.Clock.Now()
	err := s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		t := &models.DepositTransfer{DepositID: d.ID, Signature: m.Signature, State: models.DepositTransferSeen,
			Slot: int64(min(m.Slot, 1<<62)), SeenAt: now}
		res, err := tx.NewInsert().Model(t).On("CONFLICT (signature) DO NOTHING").Exec(ctx)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		if _, err := tx.NewUpdate().Model((*models.Deposit)(nil)).
			Set("state = ?", models.DepositSeen).Set("updated_at = ?", now).
			Where("id = ? AND state IN (?)", d.ID, bun.List([]models.DepositState{models.DepositWaiting, models.DepositExpired})).Exec(ctx); err != nil {
			return err
		}
		s.announce(ctx, d.UserID, d.ID)
		return nil
	})
	if err != nil {
		return fmt.Errorf("deposit %d: unable to store transfer %s: %w", d.ID, m.Signature, err)
	}
	return nil
}

// Settle reads every SEEN transfer's transaction at finalized commitment
// and settles it (a transfer not yet finalized waits for a later run).
func (s *Service) Settle(ctx context.Context) error {
	var ts []*models.DepositTransfer
	if err := s.deps.DB.NewSelect().Model(&ts).Where("state = ?", models.DepositTransferSeen).
		Order("id").Limit(settleBatch).Scan(ctx); err != nil {
		return fmt.Errorf("deposit: unable to list seen transfers: %w", err)
	}
	var errs []error
	for _, t := range ts {
		r, err := s.deps.Chain.Receipt(ctx, t.Signature)
		if errors.Is(err, solana.ErrNotFinal) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("deposit transfer %s: %w", t.Signature, err))
			continue
		}
		if err := s.settle(ctx, t, r); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// settle judges t's finalized transaction r and records the verdict in
// one database transaction: t CREDITED or REFUSED (only if it is still
// SEEN: a replica that finds it settled does nothing), the DEPOSIT
// posting of what arrived, the request's credited total and state, and
// the customer's notification.
func (s *Service) settle(ctx context.Context, t *models.DepositTransfer, r *solana.Receipt) error {
	now := s.deps.Clock.Now()
	err := s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		d := new(models.Deposit)
		if err := tx.NewSelect().Model(d).Where("id = ?", t.DepositID).Scan(ctx); err != nil {
			return err
		}
		v := judge(r, d, destination{wallet: s.wallet, mint: s.mint, account: s.account}, t.SeenAt)
		res, err := tx.NewUpdate().Model((*models.DepositTransfer)(nil)).
			Set("state = ?", v.state).Set("amount_micros = ?", v.amount).Set("late = ?", v.late).
			Set("issue = ?", v.issue).Set("slot = ?", int64(min(r.Slot, 1<<62))).Set("settled_at = ?", now).
			Where("id = ? AND state = ?", t.ID, models.DepositTransferSeen).Exec(ctx)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err // settled elsewhere
		}
		t.State, t.Amount, t.Late, t.Issue, t.SettledAt = v.state, v.amount, v.late, v.issue, &now
		state := d.State
		if v.state == models.DepositTransferCredited {
			id, err := s.deps.Billing.PostDeposit(ctx, tx, d.UserID, v.amount, "solana:"+t.Signature)
			if err != nil {
				return err
			}
			t.LedgerTransactionID = &id
			if _, err := tx.NewUpdate().Model((*models.DepositTransfer)(nil)).Set("ledger_transaction_id = ?", id).
				Where("id = ?", t.ID).Exec(ctx); err != nil {
				return err
			}
			d.Credited += v.amount
			state = models.DepositCredited
		} else if state != models.DepositCredited {
			pending, err := tx.NewSelect().Model((*models.DepositTransfer)(nil)).
				Where("deposit_id = ? AND state = ?", d.ID, models.DepositTransferSeen).Count(ctx)
			if err != nil {
				return err
			}
			switch {
			case pending > 0:
				state = models.DepositSeen
			case d.Credited > 0:
				state = models.DepositCredited
			case now.Before(d.ExpiresAt):
				state = models.DepositWaiting
			default:
				state = models.DepositExpired
			}
		}
		if _, err := tx.NewUpdate().Model((*models.Deposit)(nil)).
			Set("state = ?", state).Set("credited_micros = ?", d.Credited).Set("updated_at = ?", now).
			Where("id = ?", d.ID).Exec(ctx); err != nil {
			return err
		}
		d.State = state
		if err := s.notify(ctx, tx, d, t); err != nil {
			return err
		}
		s.announce(ctx, d.UserID, d.ID)
		return nil
	})
	if err != nil {
		return fmt.Errorf("deposit: unable to settle transfer %s: %w", t.Signature, err)
	}
	return nil
}
