package billing

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/models"
)

// PastEarnings is earnings a provider made before metering saw them (the
// demo world's history): GrossPerHour of rentals of one model every hour
// from From to To, at FeeBps.
type PastEarnings struct {
	ModelKey     string
	From, To     time.Time
	GrossPerHour models.USDC
	FeeBps       int
}

// RecordPast lays down a provider's past (the demo world's history), once
// (only while the provider has no payout and no payout method): its
// earnings as hourly rollups and one ADJUSTMENT posting (from deposits to
// its earnings and the platform's fees, so the ledger stays balanced and
// says where the money came from), a weekly payout method to wallet set
// at the start, and a PAID payout of every whole week before the current
// one. It reports whether it wrote.
func (s *Service) RecordPast(ctx context.Context, providerID int64, wallet string, past []PastEarnings) (bool, error) {
	if len(past) == 0 {
		return false, nil
	}
	now := s.deps.Clock.Now()
	wrote := false
	err := s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		n, err := tx.NewSelect().Model((*models.Payout)(nil)).Where("provider_id = ?", providerID).Count(ctx)
		if err != nil || n > 0 {
			return err
		}
		m, err := tx.NewSelect().Model((*models.PayoutMethod)(nil)).Where("provider_id = ?", providerID).Count(ctx)
		if err != nil || m > 0 {
			return err
		}
		start := past[0].From
		hours := map[providerHourKey]*models.ProviderEarningsHour{}
		weekly := map[time.Time]models.USDC{}
		var gross, fee models.USDC
		for _, p := range past {
			start = minTime(start, p.From)
			for h := p.From.UTC().Truncate(time.Hour); h.Before(p.To) && h.Before(now); h = h.Add(time.Hour) {
				f := feeOn(p.GrossPerHour, p.FeeBps)
				k := providerHourKey{providerID, p.ModelKey, h}
				if hours[k] == nil {
					hours[k] = &models.ProviderEarningsHour{ProviderID: providerID, ModelKey: p.ModelKey, Hour: h}
				}
				hours[k].Gross += p.GrossPerHour
				hours[k].Fee += f
				gross += p.GrossPerHour
				fee += f
				week, _ := PeriodOf(Weekly, h, time.UTC)
				weekly[week] += p.GrossPerHour - f
			}
		}
		if gross == 0 {
			return nil
		}
		if err := upsertHours(ctx, tx, nil, hours); err != nil {
			return err
		}
		if err := post(ctx, tx, now, []*posting{{
			tx: &models.LedgerTransaction{Kind: models.TxAdjustment, Reference: fmt.Sprintf("demo history of provider %d", providerID)},
			legs: []leg{
				{accountKey{models.AccountDeposits, 0}, -gross},
				{accountKey{models.AccountProviderEarnings, providerID}, gross - fee},
				{accountKey{models.AccountPlatformFees, 0}, fee},
			},
		}}); err != nil {
			return err
		}
		if _, err := tx.NewInsert().Model(&models.PayoutMethod{ProviderID: providerID, Schedule: string(Weekly), Kind: string(models.PayoutSolana),
			SolanaAddress: &wallet, ChangedAt: start, HoldUntil: start}).Exec(ctx); err != nil {
			return err
		}
		thisWeek, _ := PeriodOf(Weekly, now, time.UTC)
		for week, amount := range weekly {
			if !week.Before(thisWeek) || amount <= 0 {
				continue
			}
			paidAt := week.AddDate(0, 0, 7).Add(2 * time.Hour)
			ref := fmt.Sprintf("GPX-%d-%s", providerID, week.Format("20060102"))
			paidRef := "demo payout " + ref
			p := &models.Payout{ProviderID: providerID, PeriodStart: week, PeriodEnd: week.AddDate(0, 0, 7), Amount: amount,
				Kind: models.PayoutManual, Destination: wallet, State: models.PayoutPaid, Reference: ref, PaidReference: &paidRef,
				CreatedAt: paidAt, UpdatedAt: paidAt, PaidAt: &paidAt}
			if _, err := tx.NewInsert().Model(p).Returning("id").Exec(ctx); err != nil {
				return err
			}
			pid := p.ID
			if err := post(ctx, tx, now, []*posting{{
				tx:   &models.LedgerTransaction{Kind: models.TxPayoutPaid, Reference: ref, PayoutID: &pid},
				legs: []leg{{accountKey{models.AccountProviderEarnings, providerID}, -amount}, {accountKey{models.AccountPaidOut, 0}, amount}},
			}}); err != nil {
				return err
			}
		}
		wrote = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("billing: unable to record the past: %w", err)
	}
	return wrote, nil
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
