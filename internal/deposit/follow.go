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

// DroppedAfterSlots is how far the finalized chain must be past the slot
// a SEEN transfer was seen at before a transaction the node no longer
// knows is judged dropped (NEVER_FINALIZED). A transaction names a recent
// blockhash, valid for 150 blocks; the blockhash is older than the block
// the transfer was seen in, so once 150 blocks are finalized past that
// slot it can never land. 1,000 slots (about 7 minutes) hold 150 blocks
// even with 85 % of the slots skipped, far beyond what the cluster skips.
const DroppedAfterSlots = 1_000

// Settle reads every SEEN transfer's transaction at finalized commitment
// and settles it. A transfer not yet finalized waits for a later run,
// unless it was seen on a fork the cluster dropped: the node knows it on
// no fork and the finalized chain is DroppedAfterSlots past where it was
// seen, so it can never land; it is then REFUSED (NEVER_FINALIZED) and its
// request waits again, or expires, as if it had never been seen.
func (s *Service) Settle(ctx context.Context) error {
	var ts []*models.DepositTransfer
	if err := s.deps.DB.NewSelect().Model(&ts).Where("state = ?", models.DepositTransferSeen).
		Order("id").Limit(settleBatch).Scan(ctx); err != nil {
		return fmt.Errorf("deposit: unable to list seen transfers: %w", err)
	}
	var (
		errs      []error
		finalized *uint64 // read once per run, for the first transfer that needs it
	)
	for _, t := range ts {
		r, err := s.deps.Chain.Receipt(ctx, t.Signature)
		if errors.Is(err, solana.ErrNotFinal) {
			if err := s.dropIfGone(ctx, t, &finalized); err != nil {
				errs = append(errs, err)
			}
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("deposit transfer %s: %w", t.Signature, err))
			continue
		}
		if err := s.settle(ctx, t, r.Slot, func(d *models.Deposit) verdict {
			return judge(r, d, destination{wallet: s.wallet, mint: s.mint, account: s.account}, t.SeenAt)
		}); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// dropIfGone refuses t (NEVER_FINALIZED) when it can no longer land: the
// node knows it on no fork, searching its whole history, which reaches
// back past the slot t was seen at, and the finalized chain is
// DroppedAfterSlots past that slot.
// finalized caches the finalized slot for the run.
func (s *Service) dropIfGone(ctx context.Context, t *models.DepositTransfer, finalized **uint64) error {
	st, err := s.deps.Chain.Status(ctx, t.Signature)
	if err != nil {
		return fmt.Errorf("deposit transfer %s: %w", t.Signature, err)
	}
	if st.State != solana.NotFound {
		return nil // on a fork the node still follows: it may finalize
	}
	if *finalized == nil {
		slot, err := s.deps.Chain.FinalizedSlot(ctx)
		if err != nil {
			return fmt.Errorf("deposit transfer %s: %w", t.Signature, err)
		}
		*finalized = &slot
	}
	seen := uint64(max(t.Slot, 0))
	if **finalized < seen+DroppedAfterSlots {
		return nil
	}
	// A node that no longer holds the blocks of that slot (a pruned
	// ledger, a provider without history) cannot say the transaction is on
	// no fork: the transfer stays SEEN for a node that can.
	first, err := s.deps.Chain.FirstAvailableSlot(ctx)
	if err != nil {
		return fmt.Errorf("deposit transfer %s: %w", t.Signature, err)
	}
	if first > seen {
		s.deps.Logger.WarnContext(ctx, "deposit: a transfer not found on chain is older than the node's history; it stays seen",
			"signature", t.Signature, "slot", seen, "first_available_slot", first)
		return nil
	}
	issue := models.DepositNeverFinalized
	return s.settle(ctx, t, seen, func(*models.Deposit) verdict {
		return verdict{state: models.DepositTransferRefused, issue: &issue}
	})
}

// settle records decide's verdict on t, found at slot, in one database
// transaction: t CREDITED or REFUSED (only if it is still SEEN: a replica
// that finds it settled does nothing), the DEPOSIT posting of what
// arrived, the request's credited total and state, and the customer's
// notification. decide judges t against its request, read in the
// transaction.
func (s *Service) settle(ctx context.Context, t *models.DepositTransfer, slot uint64, decide func(*models.Deposit) verdict) error {
	now := s.deps.Clock.Now()
	err := s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		d := new(models.Deposit)
		if err := tx.NewSelect().Model(d).Where("id = ?", t.DepositID).Scan(ctx); err != nil {
			return err
		}
		v := decide(d)
		res, err := tx.NewUpdate().Model((*models.DepositTransfer)(nil)).
			Set("state = ?", v.state).Set("amount_micros = ?", v.amount).Set("late = ?", v.late).
			Set("issue = ?", v.issue).Set("slot = ?", int64(min(slot, 1<<62))).Set("settled_at = ?", now).
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
