// Package billingtest holds what tests of the money path share: the test
// platform's paying bank account and the ledger's invariants. It imports
// nothing of billing itself, so billing's own tests can use it too.
package billingtest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/billing/bank"
)

// Debtor is the paying account of a test platform (a valid Dutch IBAN and
// its bank's BIC), as an operator's --bank-debtor-iban and
// --bank-debtor-bic give it.
func Debtor() bank.Party {
	iban, err := bank.ParseIBAN("NL91ABNA0417164300")
	if err != nil {
		panic(err)
	}
	bic, err := bank.ParseBIC("ABNANL2A")
	if err != nil {
		panic(err)
	}
	return bank.Party{Name: "GPUnex Test B.V.", IBAN: iban, BIC: bic}
}

// RequireBalancedLedger checks the ledger of db as a whole: every posting
// sums to zero, each balance is the sum of its entries and none but the
// outside world's deposits is below zero, what customers were charged is
// what providers earned plus the platform's fees and what the meters say,
// and the hourly rollups (per provider and per GPU) add up to the postings.
func RequireBalancedLedger(t testing.TB, ctx context.Context, db bun.IDB) {
	t.Helper()
	count := func(q string) int {
		var n int
		require.NoError(t, db.NewRaw(q).Scan(ctx, &n))
		return n
	}
	sum := func(q string) int64 {
		var v int64
		require.NoError(t, db.NewRaw(q).Scan(ctx, &v))
		return v
	}
	require.Zero(t, count(`SELECT COUNT(*) FROM (SELECT transaction_id FROM ledger_entries GROUP BY transaction_id
		HAVING SUM(amount_micros) <> 0) x`), "every posting sums to zero")
	require.Zero(t, count(`SELECT COUNT(*) FROM ledger_accounts la WHERE la.balance_micros <>
		COALESCE((SELECT SUM(le.amount_micros) FROM ledger_entries le WHERE le.account_id = la.id), 0)`), "each balance is the sum of its entries")
	require.Zero(t, count(`SELECT COUNT(*) FROM ledger_accounts WHERE balance_micros < 0 AND kind <> 'DEPOSITS'`), "no balance below zero")
	charged := -sum(`SELECT COALESCE(SUM(le.amount_micros), 0) FROM ledger_entries le JOIN ledger_transactions lt ON lt.id = le.transaction_id
		JOIN ledger_accounts la ON la.id = le.account_id WHERE lt.kind = 'RENTAL_CHARGE' AND la.kind = 'CUSTOMER_FUNDS'`)
	earned := sum(`SELECT COALESCE(SUM(le.amount_micros), 0) FROM ledger_entries le JOIN ledger_transactions lt ON lt.id = le.transaction_id
		JOIN ledger_accounts la ON la.id = le.account_id WHERE lt.kind = 'RENTAL_CHARGE' AND la.kind = 'PROVIDER_EARNINGS'`)
	fees := sum(`SELECT COALESCE(SUM(le.amount_micros), 0) FROM ledger_entries le JOIN ledger_transactions lt ON lt.id = le.transaction_id
		JOIN ledger_accounts la ON la.id = le.account_id WHERE lt.kind = 'RENTAL_CHARGE' AND la.kind = 'PLATFORM_FEES'`)
	require.Equal(t, charged, earned+fees, "charges = provider earnings + platform fees")
	require.Equal(t, charged, sum(`SELECT COALESCE(SUM(charged_micros), 0) FROM rental_meters`), "charges = what the meters say")
	require.Equal(t, charged, sum(`SELECT COALESCE(SUM(gross_micros), 0) FROM earnings_provider_hours`), "provider rollups = postings")
	require.Equal(t, charged, sum(`SELECT COALESCE(SUM(gross_micros), 0) FROM earnings_gpu_hours`), "GPU rollups = postings")
	require.Equal(t, fees, sum(`SELECT COALESCE(SUM(fee_micros), 0) FROM earnings_provider_hours`))
	require.Equal(t, fees, sum(`SELECT COALESCE(SUM(fee_micros), 0) FROM earnings_gpu_hours`))
}
