package billing

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/mail"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// settle ends a payout PAID (its amount leaves payouts in flight for paid
// out) or FAILED (it returns to the provider's earnings), once, and tells
// the provider.
func (s *Service) settle(ctx context.Context, id int64, paid bool, reference, failure string) error {
	return s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var p models.Payout
		if err := s.deps.DB.ForUpdate(tx.NewSelect().Model(&p).Where("id = ?", id)).Scan(ctx); err != nil {
			return err
		}
		if p.State == models.PayoutPaid || p.State == models.PayoutFailed {
			return nil
		}
		now := s.deps.Clock.Now()
		p.UpdatedAt = now
		pid := p.ID
		var pst *posting
		if paid {
			p.State, p.PaidAt = models.PayoutPaid, &now
			if reference != "" {
				p.PaidReference = &reference
			}
			pst = &posting{tx: &models.LedgerTransaction{Kind: models.TxPayoutPaid, Reference: p.Reference, PayoutID: &pid},
				legs: []leg{{accountKey{models.AccountPayoutsInFlight, p.ProviderID}, -p.Amount}, {accountKey{models.AccountPaidOut, 0}, p.Amount}}}
		} else {
			p.State, p.Failure = models.PayoutFailed, &failure
			pst = &posting{tx: &models.LedgerTransaction{Kind: models.TxPayoutReturn, Reference: p.Reference, PayoutID: &pid},
				legs: []leg{{accountKey{models.AccountPayoutsInFlight, p.ProviderID}, -p.Amount}, {accountKey{models.AccountProviderEarnings, p.ProviderID}, p.Amount}}}
		}
		if _, err := tx.NewUpdate().Model(&p).Column("state", "paid_at", "paid_reference", "failure", "updated_at").WherePK().Exec(ctx); err != nil {
			return err
		}
		if err := post(ctx, tx, now, []*posting{pst}); err != nil {
			return err
		}
		s.announce(ctx, p.ProviderID)
		return s.tellPayout(ctx, tx, &p)
	})
}

func (s *Service) tellPayout(ctx context.Context, tx bun.Tx, p *models.Payout) error {
	if s.deps.Notify == nil {
		return nil
	}
	var userID int64
	if err := tx.NewSelect().Model((*models.Provider)(nil)).Column("user_id").Where("id = ?", p.ProviderID).Scan(ctx, &userID); err != nil {
		return err
	}
	n := &models.Notification{UserID: userID, Params: map[string]string{"payoutId": strconv.FormatInt(p.ID, 10), "amount": p.Amount.String()}}
	// The SPA writes the notice in the reader's language from these params.
	destination := payoutDestination(p)
	n.Params["destination"] = destination
	if p.State == models.PayoutPaid {
		n.Params["reference"] = strOr(p.PaidReference)
		n.Kind, n.Title = KindPayoutPaid, "Payout sent"
		n.Body = fmt.Sprintf("%s USDC were paid to %s (reference %s).", p.Amount, destination, strOr(p.PaidReference))
	} else {
		n.Params["failure"] = strOr(p.Failure)
		n.Kind, n.Title = KindPayoutFailed, "Payout failed"
		n.Body = fmt.Sprintf("The payout of %s USDC failed and is back in your balance: %s", p.Amount, strOr(p.Failure))
	}
	if err := s.deps.Notify.Add(ctx, tx, n); err != nil {
		return err
	}
	return s.mailUser(ctx, tx, userID, func(email, name string) mail.Message {
		return payoutEmail(userID, email, name, p, s.TransactionURL(p))
	})
}

// mailUser enqueues, in tx, the email write makes for userID from their
// address and name (none without an outbox).
func (s *Service) mailUser(ctx context.Context, tx bun.Tx, userID int64, write func(email, name string) mail.Message) error {
	if s.deps.Outbox == nil {
		return nil
	}
	var to struct {
		Email string `bun:"email"`
		Name  string `bun:"name"`
	}
	if err := tx.NewSelect().Model((*models.User)(nil)).Column("email", "name").Where("id = ?", userID).Scan(ctx, &to); err != nil {
		return err
	}
	return s.deps.Outbox.Enqueue(ctx, tx, write(to.Email, to.Name))
}

// payoutDestination is where p went as the provider may be shown it, in
// a notice or an email: a Solana wallet's address, a bank account's IBAN
// masked.
func payoutDestination(p *models.Payout) string {
	if p.Kind == models.PayoutBank {
		return maskIBAN(p.Destination)
	}
	return p.Destination
}

// payoutEmail tells userID (at email, named name), in their language,
// that payout p was paid (with its reference and, for a Solana payout,
// its transaction at txURL) or failed (why, and that the amount is back
// in the balance). Each payout's outcome is mailed once.
func payoutEmail(userID int64, email, name string, p *models.Payout, txURL *string) mail.Message {
	kind := KindPayoutFailed
	if p.State == models.PayoutPaid {
		kind = KindPayoutPaid
	}
	msg := mail.ForUser(userID, func(lang models.Language) *mail.Email { return payoutLetter(lang, kind, name, p, txURL) })
	msg.To = email
	msg.DedupeKey = "payout:" + strconv.FormatInt(p.ID, 10) + ":" + string(p.State)
	return msg
}

// payoutLetter writes payoutEmail's email of kind in lang. The reason of
// a failure is quoted as recorded (the chain's or the admin's words).
func payoutLetter(lang models.Language, kind, name string, p *models.Payout, txURL *string) *mail.Email {
	e := mail.Compose(lang, kind)
	amount := e.USDC(p.Amount)
	e.Subject(mail.Vars{"amount": amount}).Greeting(name)
	if p.Kind == models.PayoutBank {
		e.P("bank", mail.Vars{"amount": amount, "iban": maskIBAN(p.Destination)})
	} else {
		e.P("solana", mail.Vars{"amount": amount, "address": p.Destination})
	}
	if p.State == models.PayoutPaid {
		if ref := strOr(p.PaidReference); ref != "" {
			e.P("reference", mail.Vars{"reference": ref})
		}
		if txURL != nil {
			e.P("transaction", nil).URL(*txURL)
		}
		e.P("statement", nil)
	} else {
		e.P("reason", nil).Quote(strOr(p.Failure)).P("balance", nil).P("check", nil)
	}
	return e.SignOff()
}

// MarkPaid is an admin's confirmation that a bank or manual payout was
// paid, with the bank's or the transfer's reference.
func (s *Service) MarkPaid(ctx context.Context, id int64, reference string) (*models.Payout, error) {
	reference = strings.TrimSpace(reference)
	if reference == "" || len(reference) > 200 {
		var v fault.Validation
		v.Add("input.reference", fault.Required, "give the payment's reference (at most 200 characters)")
		return nil, &v
	}
	return s.adminSettle(ctx, id, true, reference, "")
}

// MarkFailed is an admin's report that a bank or manual payout failed:
// its amount returns to the provider's balance.
func (s *Service) MarkFailed(ctx context.Context, id int64, reason string) (*models.Payout, error) {
	reason = strings.TrimSpace(reason)
	if reason == "" || len(reason) > 500 {
		var v fault.Validation
		v.Add("input.reason", fault.Required, "say why it failed (at most 500 characters)")
		return nil, &v
	}
	return s.adminSettle(ctx, id, false, "", reason)
}

func (s *Service) adminSettle(ctx context.Context, id int64, paid bool, reference, reason string) (*models.Payout, error) {
	var p models.Payout
	if err := s.deps.DB.NewSelect().Model(&p).Where("id = ?", id).Scan(ctx); err != nil {
		if store.IsNoRows(err) {
			return nil, fault.E(fault.NotFound, "no such payout")
		}
		return nil, err
	}
	if p.Kind == models.PayoutSolana || p.State == models.PayoutPaid || p.State == models.PayoutFailed {
		var v fault.Validation
		v.Add("id", fault.InvalidState, "only a pending or processing bank or manual payout is settled by hand")
		return nil, &v
	}
	if err := s.settle(ctx, id, paid, reference, reason); err != nil {
		return nil, err
	}
	if err := s.deps.DB.NewSelect().Model(&p).Where("id = ?", id).Scan(ctx); err != nil {
		return nil, err
	}
	return &p, nil
}

// Payouts lists providerID's payouts, the latest period first (at most
// limit).
func (s *Service) Payouts(ctx context.Context, providerID int64, limit int) ([]*models.Payout, error) {
	var out []*models.Payout
	if err := s.deps.DB.NewSelect().Model(&out).ExcludeColumn("raw_tx").Where("provider_id = ?", providerID).
		Order("period_start DESC", "id DESC").Limit(int64(limit)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("billing: unable to list payouts: %w", err)
	}
	return out, nil
}

// AllPayouts lists payouts for admins, newest first, optionally in one
// state.
func (s *Service) AllPayouts(ctx context.Context, state *models.PayoutState, limit int) ([]*models.Payout, error) {
	var out []*models.Payout
	q := s.deps.DB.NewSelect().Model(&out).ExcludeColumn("raw_tx").
		ColumnExpr("p.name AS provider_name, p.application_id AS provider_application_id").
		Join("JOIN providers AS p ON p.id = po.provider_id").
		Order("po.id DESC").Limit(int64(limit))
	if state != nil {
		q = q.Where("po.state = ?", *state)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, fmt.Errorf("billing: unable to list payouts: %w", err)
	}
	return out, nil
}

// PayoutTotals is every state's count and amount of payouts, all
// providers together (the admins' list), in PayoutStates' order, a state
// without payouts counted as zero.
func (s *Service) PayoutTotals(ctx context.Context) ([]*models.PayoutTotal, error) {
	var rows []*models.PayoutTotal
	if err := s.deps.DB.NewSelect().Model((*models.Payout)(nil)).
		ColumnExpr("po.state AS state, COUNT(*) AS count, COALESCE(SUM(po.amount_micros), 0) AS amount").
		GroupExpr("po.state").Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("billing: unable to total the payouts: %w", err)
	}
	byState := map[models.PayoutState]*models.PayoutTotal{}
	for _, r := range rows {
		byState[r.State] = r
	}
	out := make([]*models.PayoutTotal, 0, len(models.PayoutStates))
	for _, st := range models.PayoutStates {
		if t, ok := byState[st]; ok {
			out = append(out, t)
		} else {
			out = append(out, &models.PayoutTotal{State: st})
		}
	}
	return out, nil
}

// PendingPayouts are providerID's payouts not yet settled, oldest first.
func (s *Service) PendingPayouts(ctx context.Context, providerID int64) ([]*models.Payout, error) {
	out := []*models.Payout{}
	if err := s.deps.DB.NewSelect().Model(&out).ExcludeColumn("raw_tx").Where("provider_id = ? AND state IN (?)", providerID,
		bun.List([]models.PayoutState{models.PayoutPending, models.PayoutProcessing})).Order("id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("billing: unable to list pending payouts: %w", err)
	}
	return out, nil
}
