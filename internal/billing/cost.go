package billing

import (
	"context"
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/cursor"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/models"
)

// Costs is what each of rentals has cost its customer, by rental id, from
// the platform's own records, never the agent's: the meter's billed time
// and cumulative charge, and the entries the ledger posted back to the
// customer's funds for the rental. Two statements whatever the number of
// rentals; a rental not metered yet costs nothing so far.
func (s *Service) Costs(ctx context.Context, rentals []*models.Rental) (map[int64]*models.RentalCost, error) {
	idb := s.deps.DB
	out := make(map[int64]*models.RentalCost, len(rentals))
	if len(rentals) == 0 {
		return out, nil
	}
	ids := make([]int64, len(rentals))
	for i, r := range rentals {
		ids[i] = r.ID
		out[r.ID] = &models.RentalCost{}
	}
	var meters []*models.RentalMeter
	if err := idb.NewSelect().Model(&meters).Column("rental_id", "billed_until", "charged_micros", "fee_micros").
		Where("rental_id IN (?)", bun.List(ids)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("billing: unable to read the rentals' meters: %w", err)
	}
	byID := make(map[int64]*models.RentalMeter, len(meters))
	for _, m := range meters {
		byID[m.RentalID] = m
	}
	for _, r := range rentals {
		m := byID[r.ID]
		if m == nil || r.StartedAt == nil {
			continue
		}
		until := m.BilledUntil
		c := out[r.ID]
		c.BilledUntil, c.Charged, c.Earned = &until, m.Charged, m.Charged-m.Fee
		c.BilledSeconds = max(0, int64(until.Sub(*r.StartedAt)/time.Second))
	}
	var refunds []struct {
		RentalID int64 `bun:"rental_id"`
		Sum      int64 `bun:"sum"`
	}
	if err := idb.NewSelect().TableExpr("ledger_entries AS le").
		Join("JOIN ledger_transactions AS lt ON lt.id = le.transaction_id").
		Join("JOIN ledger_accounts AS la ON la.id = le.account_id").
		Join("JOIN rentals AS r ON r.id = lt.rental_id").
		ColumnExpr("lt.rental_id AS rental_id, COALESCE(SUM(le.amount_micros), 0) AS sum").
		Where("lt.rental_id IN (?) AND la.kind = ? AND la.owner_id = r.customer_id AND le.amount_micros > 0", bun.List(ids), models.AccountCustomerFunds).
		GroupExpr("lt.rental_id").Scan(ctx, &refunds); err != nil {
		return nil, fmt.Errorf("billing: unable to read the rentals' refunds: %w", err)
	}
	for _, r := range refunds {
		out[r.RentalID].Refunded = models.USDC(r.Sum)
	}
	return out, nil
}

// MonthCharges is what customerID's rentals were charged in the UTC
// calendar month holding now (from its first instant to now): the
// RENTAL_CHARGE entries posted to the customer's funds in it, refunds
// netted, so it is what the customer's balance paid for rentals this
// month. It returns the month's first instant with it.
func (s *Service) MonthCharges(ctx context.Context, customerID int64) (time.Time, models.USDC, error) {
	now := s.deps.Clock.Now().UTC()
	from := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	var sum int64
	if err := s.deps.DB.NewSelect().TableExpr("ledger_entries AS le").
		Join("JOIN ledger_transactions AS lt ON lt.id = le.transaction_id").
		Join("JOIN ledger_accounts AS la ON la.id = le.account_id").
		ColumnExpr("COALESCE(SUM(le.amount_micros), 0)").
		Where("la.kind = ? AND la.owner_id = ? AND lt.kind = ? AND le.created_at >= ?", models.AccountCustomerFunds, customerID, models.TxRentalCharge, from).
		Scan(ctx, &sum); err != nil {
		return from, 0, fmt.Errorf("billing: unable to read the month's charges: %w", err)
	}
	return from, models.USDC(-sum), nil
}

// StatementLine is one entry of a customer's funds account: when it was
// posted, why (its transaction's kind and reference, the rental it is
// for), the amount (positive into the funds) and the balance after it.
type StatementLine struct {
	EntryID   int64
	At        time.Time
	Kind      models.LedgerTxKind
	Reference string
	RentalID  *int64
	Amount    models.USDC
	Balance   models.USDC
}

// CustomerStatementPage is one page of a customer's statement, oldest
// first, and the funds account's balance now.
type CustomerStatementPage struct {
	Lines       []*StatementLine
	HasNextPage bool
	Balance     models.USDC
}

// MaxStatementPage bounds one page of a customer's statement.
const MaxStatementPage = 500

// StatementCursor is a statement line's cursor.
func StatementCursor(l *StatementLine) string { return cursor.Encode("statement", l.EntryID) }

// CustomerStatement is a page of every entry of customerID's funds account
// (deposits, rental charges and refunds, adjustments), oldest first, each
// with the running balance after it: first at most MaxStatementPage, after
// a StatementCursor. The running balance starts from the sum of the
// entries before the page, so the last line of the last page is the
// account's balance.
func (s *Service) CustomerStatement(ctx context.Context, customerID int64, first int, after string) (*CustomerStatementPage, error) {
	if first < 1 || first > MaxStatementPage {
		return nil, fault.E(fault.Invalid, "first must be between 1 and %d", MaxStatementPage)
	}
	var afterID int64
	if after != "" {
		id, ok := cursor.Decode("statement", after)
		if !ok {
			return nil, fault.E(fault.Invalid, "after is not a cursor of this list")
		}
		afterID = id
	}
	return s.statementLines(ctx, customerID, first, afterID)
}

func (s *Service) statementLines(ctx context.Context, customerID int64, first int, afterID int64) (*CustomerStatementPage, error) {
	var acct []*models.LedgerAccount
	if err := s.deps.DB.NewSelect().Model(&acct).Column("id", "balance_micros").
		Where("kind = ? AND owner_id = ?", models.AccountCustomerFunds, customerID).Scan(ctx); err != nil {
		return nil, fmt.Errorf("billing: unable to read the funds account: %w", err)
	}
	page := &CustomerStatementPage{Lines: []*StatementLine{}}
	if len(acct) == 0 {
		return page, nil
	}
	page.Balance = acct[0].Balance
	var opening int64
	if err := s.deps.DB.NewSelect().TableExpr("ledger_entries AS le").ColumnExpr("COALESCE(SUM(le.amount_micros), 0)").
		Where("le.account_id = ? AND le.id <= ?", acct[0].ID, afterID).Scan(ctx, &opening); err != nil {
		return nil, fmt.Errorf("billing: unable to read the statement's opening balance: %w", err)
	}
	var rows []struct {
		ID        int64               `bun:"id"`
		CreatedAt time.Time           `bun:"created_at"`
		Kind      models.LedgerTxKind `bun:"kind"`
		Reference string              `bun:"reference"`
		RentalID  *int64              `bun:"rental_id"`
		Amount    models.USDC         `bun:"amount_micros"`
	}
	q := s.deps.DB.NewSelect().TableExpr("ledger_entries AS le").
		Join("JOIN ledger_transactions AS lt ON lt.id = le.transaction_id").
		ColumnExpr("le.id, le.created_at, lt.kind, lt.reference, lt.rental_id, le.amount_micros").
		Where("le.account_id = ? AND le.id > ?", acct[0].ID, afterID).OrderExpr("le.id ASC")
	if first > 0 {
		q = q.Limit(int64(first + 1))
	}
	if err := q.Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("billing: unable to read the statement: %w", err)
	}
	if first > 0 && len(rows) > first {
		rows, page.HasNextPage = rows[:first], true
	}
	balance := models.USDC(opening)
	for _, r := range rows {
		balance += r.Amount
		page.Lines = append(page.Lines, &StatementLine{EntryID: r.ID, At: r.CreatedAt.UTC(), Kind: r.Kind, Reference: r.Reference,
			RentalID: r.RentalID, Amount: r.Amount, Balance: balance})
	}
	return page, nil
}

// CustomerStatementCSV is every line of customerID's statement as CSV
// (writeCSV's rule): posted_at (RFC 3339, UTC), kind, reference,
// rental_id, amount_usdc and balance_usdc.
func (s *Service) CustomerStatementCSV(ctx context.Context, customerID int64) (string, error) {
	page, err := s.statementLines(ctx, customerID, 0, 0)
	if err != nil {
		return "", err
	}
	rows := make([][]string, len(page.Lines))
	for i, l := range page.Lines {
		rental := ""
		if l.RentalID != nil {
			rental = strconv.FormatInt(*l.RentalID, 10)
		}
		rows[i] = []string{l.At.Format(time.RFC3339), string(l.Kind), l.Reference, rental, l.Amount.String(), l.Balance.String()}
	}
	return writeCSV([]string{"posted_at", "kind", "reference", "rental_id", "amount_usdc", "balance_usdc"}, rows)
}

// writeCSV is billing's one CSV rule, shared by a provider's earnings
// history and a customer's statement: a header row, then one row per
// record, RFC 4180 quoting, amounts as USDC with six decimals
// (models.USDC's String) and times in RFC 3339.
func writeCSV(header []string, rows [][]string) (string, error) {
	var b strings.Builder
	w := csv.NewWriter(&b)
	_ = w.Write(header)
	for _, r := range rows {
		_ = w.Write(r)
	}
	w.Flush()
	return b.String(), w.Error()
}
