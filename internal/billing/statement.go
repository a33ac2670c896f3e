package billing

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/models"
)

// Statement is a provider's earnings account over one payout period, by
// the time each entry was posted: what it held before the period
// (Opening), the rentals' earnings and operators' adjustments posted in it
// (Earned), the payouts taken from it and returned to it in it (PaidOut,
// negative, net of returns), and what it held at the period's end
// (Closing = Opening + Earned + PaidOut). The period's payout carries
// Closing (when it meets the threshold): the two reconcile to the
// micro-USDC.
type Statement struct {
	PeriodStart, PeriodEnd            time.Time
	Opening, Earned, PaidOut, Closing models.USDC
}

// StatementOf is providerID's statement of the period [start, end).
func (s *Service) StatementOf(ctx context.Context, providerID int64, start, end time.Time) (*Statement, error) {
	return s.statement(ctx, s.deps.DB, providerID, start, end)
}

func (s *Service) statement(ctx context.Context, idb bun.IDB, providerID int64, start, end time.Time) (*Statement, error) {
	var rows []struct {
		Payout bool  `bun:"payout"`
		Before bool  `bun:"before"`
		Sum    int64 `bun:"sum"`
	}
	payoutKinds := []models.LedgerTxKind{models.TxPayout, models.TxPayoutReturn}
	if err := idb.NewSelect().TableExpr("ledger_entries AS le").
		Join("JOIN ledger_accounts AS la ON la.id = le.account_id").
		Join("JOIN ledger_transactions AS lt ON lt.id = le.transaction_id").
		ColumnExpr("lt.kind IN (?) AS payout", bun.List(payoutKinds)).
		ColumnExpr("le.created_at < ? AS before", start.UTC()).
		ColumnExpr("COALESCE(SUM(le.amount_micros), 0) AS sum").
		Where("la.kind = ? AND la.owner_id = ? AND le.created_at < ?", models.AccountProviderEarnings, providerID, end.UTC()).
		GroupExpr("1, 2").Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("billing: unable to read the earnings statement: %w", err)
	}
	st := &Statement{PeriodStart: start.UTC(), PeriodEnd: end.UTC()}
	for _, r := range rows {
		switch {
		case r.Before:
			st.Opening += models.USDC(r.Sum)
		case r.Payout:
			st.PaidOut += models.USDC(r.Sum)
		default:
			st.Earned += models.USDC(r.Sum)
		}
	}
	st.Closing = st.Opening + st.Earned + st.PaidOut
	return st, nil
}
