package billing

import (
	"context"
	"encoding/csv"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// costOf is what billing says rental id cost.
func (b *bundle) costOf(t *testing.T, id int64) *models.RentalCost {
	t.Helper()
	r := new(models.Rental)
	require.NoError(t, b.db.NewSelect().Model(r).Where("id = ?", id).Scan(b.ctx))
	costs, err := b.svc.Costs(b.ctx, []*models.Rental{r})
	require.NoError(t, err)
	return costs[id]
}

// meterOf is the rental's meter row.
func (b *bundle) meterOf(t *testing.T, id int64) models.RentalMeter {
	t.Helper()
	var m models.RentalMeter
	require.NoError(t, b.db.NewSelect().Model(&m).Where("rental_id = ?", id).Scan(b.ctx))
	return m
}

// ledgerNetOf is the sum of the customer's funds entries posted for a
// rental: minus what the customer paid for it.
func ledgerNetOf(t *testing.T, ctx context.Context, db *store.DB, customer, rental int64) models.USDC {
	t.Helper()
	var sum int64
	require.NoError(t, db.NewSelect().TableExpr("ledger_entries AS le").
		Join("JOIN ledger_transactions AS lt ON lt.id = le.transaction_id").
		Join("JOIN ledger_accounts AS la ON la.id = le.account_id").
		ColumnExpr("COALESCE(SUM(le.amount_micros), 0)").
		Where("la.kind = ? AND la.owner_id = ? AND lt.rental_id = ?", models.AccountCustomerFunds, customer, rental).Scan(ctx, &sum))
	return models.USDC(sum)
}

// Issue 26: a rental's billed seconds and charge are the meter's, and
// equal what the ledger took from the customer's funds for it, while it
// runs and after it ends; a rental not metered yet costs nothing.
func TestRentalCostIsTheMetersBilledSecondsAndCharge(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db, Config{})
		customer := b.user(t, "customer")
		b.credit(t, customer, 100_000_000)
		provider, machine, gpus := b.provider(t, 2)
		id := b.rental(t, customer, provider, machine, gpus, 2_500_000, 1500)

		c := b.costOf(t, id)
		require.Equal(t, &models.RentalCost{}, c, "not metered yet")

		b.clock.Advance(95 * time.Second)
		require.NoError(t, b.svc.Tick(b.ctx))
		c = b.costOf(t, id)
		require.Equal(t, int64(95), c.BilledSeconds)
		require.Equal(t, models.USDC(5_000_000*95/3600), c.Charged)
		require.Equal(t, b.meterOf(t, id).Charged, c.Charged)
		require.Equal(t, -c.Charged, ledgerNetOf(t, b.ctx, db, customer, id))
		require.Zero(t, c.Refunded)

		b.clock.Advance(1000 * time.Second)
		b.end(t, id, models.RentalCompleted, b.clock.Now())
		require.NoError(t, b.svc.Tick(b.ctx))
		c = b.costOf(t, id)
		m := b.meterOf(t, id)
		require.True(t, m.Closed)
		require.Equal(t, int64(1095), c.BilledSeconds)
		require.True(t, c.BilledUntil.Equal(m.BilledUntil))
		require.Equal(t, models.USDC(5_000_000*1095/3600), c.Charged)
		require.Equal(t, m.Charged, c.Charged)
		require.Equal(t, -c.Charged, ledgerNetOf(t, b.ctx, db, customer, id))
	})
}

// Issue 26: a rental that ended before what a tick had billed shows the
// excess given back as refunded, and its charge net of it.
func TestRentalCostShowsARefund(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db, Config{})
		customer := b.user(t, "customer")
		b.credit(t, customer, 100_000_000)
		provider, machine, gpus := b.provider(t, 2)
		id := b.rental(t, customer, provider, machine, gpus, 1_800_000, 1500) // 1,000 micro-USDC a second
		began := b.clock.Now()
		b.clock.Advance(100 * time.Second)
		require.NoError(t, b.svc.Tick(b.ctx))
		b.end(t, id, models.RentalCompleted, began.Add(40*time.Second))
		require.NoError(t, b.svc.Tick(b.ctx))

		c := b.costOf(t, id)
		require.Equal(t, int64(40), c.BilledSeconds)
		require.Equal(t, models.USDC(40_000), c.Charged)
		require.Equal(t, models.USDC(60_000), c.Refunded)
		require.Equal(t, -c.Charged, ledgerNetOf(t, b.ctx, db, customer, id))
	})
}

// Issue 26: the month's total is what the customer's rentals were charged
// since the first instant of the UTC month, refunds netted: a charge
// posted in the month before is not in it, and another customer's never.
func TestMonthChargesCountTheUTCMonthOnly(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db, Config{})
		b.clock.Set(time.Date(2026, 11, 30, 23, 50, 0, 0, time.UTC))
		customer, other := b.user(t, "customer"), b.user(t, "other")
		b.credit(t, customer, 100_000_000)
		b.credit(t, other, 100_000_000)
		provider, machine, gpus := b.provider(t, 2)
		id := b.rental(t, customer, provider, machine, gpus[:1], 3_600_000, 1500) // 1,000 micro-USDC a second
		b.rental(t, other, provider, machine, gpus[1:], 3_600_000, 1500)
		b.clock.Advance(5 * time.Minute) // 23:55 in November: 300 s
		require.NoError(t, b.svc.Tick(b.ctx))
		b.clock.Advance(10 * time.Minute) // 00:05 on 1 December: 600 s more
		require.NoError(t, b.svc.Tick(b.ctx))
		b.end(t, id, models.RentalStopped, b.clock.Now().Add(-100*time.Second))
		require.NoError(t, b.svc.Tick(b.ctx)) // 100 s given back in December

		from, total, err := b.svc.MonthCharges(b.ctx, customer)
		require.NoError(t, err)
		require.True(t, from.Equal(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)))
		require.Equal(t, models.USDC(600_000-100_000), total)
		require.Equal(t, models.USDC(300_000+600_000-100_000), b.costOf(t, id).Charged)
	})
}

// Issue 26: the customer's statement lists every line of the funds
// account (deposits, charges, a refund) oldest first with a running
// balance that ends at the account's balance across pages, and its CSV's
// rows are those lines.
func TestCustomerStatementRunsToTheBalanceAndItsCSVIsTheLedger(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db, Config{})
		customer, other := b.user(t, "customer"), b.user(t, "other")

		empty, err := b.svc.CustomerStatement(b.ctx, customer, 10, "")
		require.NoError(t, err)
		require.Empty(t, empty.Lines)
		require.Zero(t, empty.Balance)

		b.credit(t, customer, 10_000_000)
		b.credit(t, other, 5_000_000)
		provider, machine, gpus := b.provider(t, 1)
		id := b.rental(t, customer, provider, machine, gpus, 3_600_000, 1500)
		began := b.clock.Now()
		for range 3 {
			b.clock.Advance(30 * time.Second)
			require.NoError(t, b.svc.Tick(b.ctx))
		}
		b.end(t, id, models.RentalCompleted, began.Add(70*time.Second))
		require.NoError(t, b.svc.Tick(b.ctx))
		b.credit(t, customer, 2_000_000)

		var lines []*StatementLine
		after := ""
		pages := 0
		for {
			page, err := b.svc.CustomerStatement(b.ctx, customer, 2, after)
			require.NoError(t, err)
			pages++
			lines = append(lines, page.Lines...)
			require.Equal(t, b.balanceOf(t, models.AccountCustomerFunds, customer), page.Balance)
			if !page.HasNextPage {
				break
			}
			after = StatementCursor(page.Lines[len(page.Lines)-1])
		}
		require.Equal(t, 3, pages)
		// A deposit, three charges of 30 s, the 20 s given back, a deposit.
		kinds := []models.LedgerTxKind{}
		amounts := []models.USDC{}
		for _, l := range lines {
			kinds = append(kinds, l.Kind)
			amounts = append(amounts, l.Amount)
		}
		require.Equal(t, []models.LedgerTxKind{models.TxDeposit, models.TxRentalCharge, models.TxRentalCharge, models.TxRentalCharge,
			models.TxRentalCharge, models.TxDeposit}, kinds)
		require.Equal(t, []models.USDC{10_000_000, -30_000, -30_000, -30_000, 20_000, 2_000_000}, amounts)
		var running models.USDC
		for _, l := range lines {
			running += l.Amount
			require.Equal(t, running, l.Balance)
		}
		require.Equal(t, b.balanceOf(t, models.AccountCustomerFunds, customer), lines[len(lines)-1].Balance)
		require.Equal(t, models.USDC(12_000_000-70_000), lines[len(lines)-1].Balance)

		text, err := b.svc.CustomerStatementCSV(b.ctx, customer)
		require.NoError(t, err)
		rows, err := csv.NewReader(strings.NewReader(text)).ReadAll()
		require.NoError(t, err)
		require.Equal(t, []string{"posted_at", "kind", "reference", "rental_id", "amount_usdc", "balance_usdc"}, rows[0])
		require.Len(t, rows, len(lines)+1)
		for i, l := range lines {
			rental := ""
			if l.RentalID != nil {
				rental = strconv.FormatInt(*l.RentalID, 10)
			}
			require.Equal(t, []string{l.At.Format(time.RFC3339), string(l.Kind), l.Reference, rental, l.Amount.String(), l.Balance.String()}, rows[i+1])
		}

		_, err = b.svc.CustomerStatement(b.ctx, customer, 2, "not-a-cursor")
		require.Error(t, err)
	})
}
