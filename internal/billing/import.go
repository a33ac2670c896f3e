package billing

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/billing/solana"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/models"
)

// Past is a provider's earnings and payouts from before the platform
// metered them, which ImportPast brings in once: a provider's record from
// elsewhere, or the months the demo world (internal/demo) lays down.
type Past struct {
	// Reference names the import in the ledger: the reference of the
	// ADJUSTMENT that brings the earnings in.
	Reference string
	// Hours are the earnings, an hour and a model each.
	Hours []PastHour
	// Method, when set, is the payout method the provider was paid by
	// through the past; it becomes its method. Payouts need one.
	Method *PastMethod
	// Payouts were paid out of those earnings, outside the platform,
	// oldest first.
	Payouts []PastPayout
}

// PastHour is Gross charged for rentals of the model ModelKey in the hour
// starting Hour (a whole hour), of which Fee was the platform's.
type PastHour struct {
	ModelKey   string
	Hour       time.Time
	Gross, Fee models.USDC
}

// PastMethod is a payout method of the past: payouts on Schedule to the
// Solana wallet SolanaAddress, since Since.
type PastMethod struct {
	Schedule      Schedule
	SolanaAddress string
	Since         time.Time
}

// PastPayout is a payout of the period [PeriodStart, PeriodEnd): Amount
// sent with Reference to the method's wallet and paid at PaidAt, with
// PaidReference (the payment's, optional).
type PastPayout struct {
	PeriodStart, PeriodEnd time.Time
	Amount                 models.USDC
	Reference              string
	PaidAt                 time.Time
	PaidReference          string
}

// ImportPast writes providerID's past, once: only while the provider has
// neither a payout nor a payout method (a record kept here is never given
// a second one); it reports whether it wrote. The hours become earnings
// rollups, as metering's, with one ADJUSTMENT posting from deposits to
// the provider's earnings and the platform's fees, so the ledger balances
// and says where the money came from. The method is stored as it was
// (its cooling-off guards a change of destination; this one is where the
// past's payouts went). Each payout is stored PAID and MANUAL (the
// platform sent nothing) with the posting that moves its amount from the
// earnings to paid out.
//
// The past is checked before anything is written, every problem named in
// a *fault.Validation: whole hours before now with a model, 0 ≤ fee ≤
// gross; a schedule and a wallet SetMethod would take, not since after
// now; payouts with a reference and a positive amount, of periods in
// order without overlap, paid after their period's end and by now, and
// all of them together no more than the imported net, so an import never
// pays out what the platform metered.
func (s *Service) ImportPast(ctx context.Context, providerID int64, past Past) (bool, error) {
	now := s.deps.Clock.Now()
	destination, err := checkPast(past, now)
	if err != nil {
		return false, err
	}
	var gross, fee models.USDC
	hours := map[providerHourKey]*models.ProviderEarningsHour{}
	for _, h := range past.Hours {
		k := providerHourKey{providerID, h.ModelKey, h.Hour.UTC()}
		if hours[k] == nil {
			hours[k] = &models.ProviderEarningsHour{ProviderID: providerID, ModelKey: h.ModelKey, Hour: k.hour}
		}
		hours[k].Gross += h.Gross
		hours[k].Fee += h.Fee
		gross += h.Gross
		fee += h.Fee
	}
	if gross == 0 {
		return false, nil
	}
	wrote := false
	err = s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		n, err := tx.NewSelect().Model((*models.Payout)(nil)).Where("provider_id = ?", providerID).Count(ctx)
		if err != nil || n > 0 {
			return err
		}
		m, err := tx.NewSelect().Model((*models.PayoutMethod)(nil)).Where("provider_id = ?", providerID).Count(ctx)
		if err != nil || m > 0 {
			return err
		}
		if err := upsertProviderHours(ctx, tx, hours); err != nil {
			return err
		}
		if err := post(ctx, tx, now, []*posting{{
			tx: &models.LedgerTransaction{Kind: models.TxAdjustment, Reference: past.Reference},
			legs: []leg{
				{accountKey{models.AccountDeposits, 0}, -gross},
				{accountKey{models.AccountProviderEarnings, providerID}, gross - fee},
				{accountKey{models.AccountPlatformFees, 0}, fee},
			},
		}}); err != nil {
			return err
		}
		if pm := past.Method; pm != nil {
			if _, err := tx.NewInsert().Model(&models.PayoutMethod{ProviderID: providerID, Schedule: string(pm.Schedule),
				Kind: string(models.PayoutSolana), SolanaAddress: &destination, ChangedAt: pm.Since, HoldUntil: pm.Since}).Exec(ctx); err != nil {
				return err
			}
		}
		for _, pp := range past.Payouts {
			paidAt := pp.PaidAt
			p := &models.Payout{ProviderID: providerID, PeriodStart: pp.PeriodStart.UTC(), PeriodEnd: pp.PeriodEnd.UTC(), Amount: pp.Amount,
				Kind: models.PayoutManual, Destination: destination, State: models.PayoutPaid, Reference: pp.Reference,
				CreatedAt: paidAt, UpdatedAt: paidAt, PaidAt: &paidAt}
			if pp.PaidReference != "" {
				ref := pp.PaidReference
				p.PaidReference = &ref
			}
			if _, err := tx.NewInsert().Model(p).Returning("id").Exec(ctx); err != nil {
				return err
			}
			pid := p.ID
			if err := post(ctx, tx, now, []*posting{{
				tx:   &models.LedgerTransaction{Kind: models.TxPayoutPaid, Reference: p.Reference, PayoutID: &pid},
				legs: []leg{{accountKey{models.AccountProviderEarnings, providerID}, -p.Amount}, {accountKey{models.AccountPaidOut, 0}, p.Amount}},
			}}); err != nil {
				return err
			}
		}
		wrote = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("billing: unable to import the past: %w", err)
	}
	return wrote, nil
}

// checkPast checks a past to import as of now (see ImportPast) and
// returns the method's wallet as ParseWallet writes it.
func checkPast(past Past, now time.Time) (string, error) {
	var v fault.Validation
	if past.Reference == "" {
		v.Add("reference", fault.Required, "name the import in the ledger")
	}
	var net models.USDC
	for i, h := range past.Hours {
		field := fmt.Sprintf("hours[%d]", i)
		switch {
		case h.ModelKey == "":
			v.Add(field+".modelKey", fault.Required, "the model the hour was earned with")
		case !h.Hour.Equal(h.Hour.Truncate(time.Hour)):
			v.Add(field+".hour", fault.InvalidValue, "an hour's start")
		case !h.Hour.Before(now):
			v.Add(field+".hour", fault.InFuture, "an hour before now")
		case h.Gross < 0 || h.Fee < 0 || h.Fee > h.Gross:
			v.Add(field+".fee", fault.OutOfRange, "gross and fee at least zero, the fee at most the gross")
		}
		net += h.Gross - h.Fee
	}
	var destination string
	if pm := past.Method; pm != nil {
		if pm.Schedule != Weekly && pm.Schedule != Monthly {
			v.Add("method.schedule", fault.InvalidValue, "WEEKLY or MONTHLY")
		}
		pk, err := solana.ParseWallet(pm.SolanaAddress, solana.USDCMint)
		var we *solana.WalletError
		switch {
		case errors.As(err, &we):
			v.Add("method.solanaAddress", we.Code, we.Message)
		case err != nil:
			return "", fmt.Errorf("billing: unable to check the Solana address: %w", err)
		default:
			destination = pk.String()
		}
		if pm.Since.After(now) {
			v.Add("method.since", fault.InFuture, "a method of the past")
		}
	} else if len(past.Payouts) > 0 {
		v.Add("method", fault.Required, "the method the payouts went to")
	}
	var paid models.USDC
	for i, p := range past.Payouts {
		field := fmt.Sprintf("payouts[%d]", i)
		switch {
		case p.Reference == "":
			v.Add(field+".reference", fault.Required, "the payout's reference")
		case p.Amount <= 0:
			v.Add(field+".amount", fault.OutOfRange, "more than zero")
		case !p.PeriodStart.Before(p.PeriodEnd):
			v.Add(field+".periodEnd", fault.EmptyWindow, "after the period's start")
		case i > 0 && p.PeriodStart.Before(past.Payouts[i-1].PeriodEnd):
			v.Add(field+".periodStart", fault.Overlap, "after the period of the payout before")
		case p.PaidAt.Before(p.PeriodEnd):
			v.Add(field+".paidAt", fault.OutOfRange, "at or after the period's end")
		case p.PaidAt.After(now):
			v.Add(field+".paidAt", fault.InFuture, "a payout of the past")
		}
		paid += p.Amount
	}
	if paid > net {
		v.Add("payouts", fault.OutOfRange, fmt.Sprintf("%s USDC paid out of %s USDC earned", paid, net))
	}
	return destination, v.Err()
}
