package billing

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/billing/bank"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// BankConfig is the debtor side of bank payout files.
type BankConfig struct {
	Debtor   bank.Party
	Currency bank.Currency
	Rate     bank.Rate
}

// Ready reports whether bank payouts can be paid: a payout file needs
// the platform's own account, its IBAN and its bank's BIC. Without them
// the server takes no bank payout method (and says so at start-up).
func (c BankConfig) Ready() bool { return !c.Debtor.IBAN.IsZero() && !c.Debtor.BIC.IsZero() }

// bankOff is why bank payouts cannot be paid, for an operator.
const bankOff = "the platform has no paying bank account configured (gpunex serve --bank-debtor-iban and --bank-debtor-bic)"

// BankFile makes the ISO 20022 pain.001 file of every pending bank
// payout for the finance operator and moves them to PROCESSING (an admin
// then marks each paid with the bank's reference). Payouts the file
// cannot carry (a name outside the SEPA character set, say) stay pending
// and are named in the error.
func (s *Service) BankFile(ctx context.Context) ([]byte, []*models.Payout, error) {
	if !s.pcfg.Bank.Ready() {
		var v fault.Validation
		v.Add("kind", fault.InvalidState, "no bank payout file can be made: "+bankOff)
		return nil, nil, &v
	}
	var file []byte
	var claimed []*models.Payout
	err := s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		// The pending bank payouts are claimed (moved to PROCESSING) first,
		// in the file's transaction: of two admins asking at once, one
		// claims them and the other finds none, so no payout is written
		// into two files. The conditional update is the claim on both
		// databases; the file is built from the rows it returned.
		claimed = nil
		now := s.deps.Clock.Now()
		if err := tx.NewUpdate().Model(&claimed).Set("state = ?, updated_at = ?", models.PayoutProcessing, now).
			Where("kind = ? AND state = ?", models.PayoutBank, models.PayoutPending).Returning("*").Scan(ctx); err != nil && !store.IsNoRows(err) {
			return fmt.Errorf("billing: unable to claim the bank payouts: %w", err)
		}
		if len(claimed) == 0 {
			var v fault.Validation
			v.Add("kind", fault.InvalidState, "no bank payout is pending")
			return &v
		}
		slices.SortFunc(claimed, func(a, b *models.Payout) int { return cmp.Compare(a.ID, b.ID) })
		ids := make([]int64, len(claimed))
		for i, p := range claimed {
			ids[i] = p.ProviderID
		}
		var methods []*models.PayoutMethod
		if err := tx.NewSelect().Model(&methods).Where("provider_id IN (?)", bun.List(ids)).Scan(ctx); err != nil {
			return err
		}
		holder := map[int64]*models.PayoutMethod{}
		for _, m := range methods {
			holder[m.ProviderID] = m
		}
		batch := bank.Batch{MessageID: "GPX-" + now.UTC().Format("20060102150405"), CreatedAt: now, ExecutionDate: now,
			Debtor: s.pcfg.Bank.Debtor, Currency: s.pcfg.Bank.Currency, Rate: s.pcfg.Bank.Rate}
		for _, p := range claimed {
			m := holder[p.ProviderID]
			iban, err := bank.ParseIBAN(p.Destination)
			if err != nil || m == nil {
				return fmt.Errorf("billing: payout %d's account is unreadable", p.ID)
			}
			var bic bank.BIC
			if m.BIC != nil {
				bic, _ = bank.ParseBIC(*m.BIC)
			}
			batch.Payouts = append(batch.Payouts, bank.Payout{Reference: p.Reference, Amount: p.Amount,
				Creditor: bank.Party{Name: strOr(m.AccountHolder), IBAN: iban, BIC: bic}, Remittance: "GPUnex earnings " + p.Reference})
		}
		var err error
		file, err = bank.Pain001(batch)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return file, claimed, nil
}
