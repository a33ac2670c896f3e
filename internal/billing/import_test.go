package billing

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/billing/solana"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// pastOf is two weeks of earnings before start (Tuesday 2026-12-01 09:00
// UTC), 1 USDC an hour at a 15 % fee, with a weekly method to wallet and
// the payout of the whole week before this one.
func pastOf(wallet string) Past {
	lastWeek := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	past := Past{Reference: "record of provider 1 elsewhere",
		Method: &PastMethod{Schedule: Weekly, SolanaAddress: wallet, Since: lastWeek.AddDate(0, 0, -7)}}
	var net models.USDC
	for h := lastWeek.AddDate(0, 0, -7); h.Before(start.Truncate(time.Hour)); h = h.Add(time.Hour) {
		past.Hours = append(past.Hours, PastHour{ModelKey: "H100_SXM_80GB", Hour: h, Gross: 1_000_000, Fee: Fee(1_000_000, 1500)})
		if h.Before(lastWeek) {
			net += 1_000_000 - Fee(1_000_000, 1500)
		}
	}
	past.Payouts = []PastPayout{{PeriodStart: lastWeek.AddDate(0, 0, -7), PeriodEnd: lastWeek, Amount: net,
		Reference: "GPX-1-20261116", PaidAt: lastWeek.Add(2 * time.Hour), PaidReference: "tx 1"}}
	return past
}

// An imported past is earnings as metering rolls them up, one balanced
// ADJUSTMENT from deposits, the method as it was and its payouts PAID;
// importing again writes nothing.
func TestImportPastWritesABalancedPastOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db, Config{})
		provider, _, _ := b.provider(t, 1)
		wallet := solana.NewKey().PublicKey().String()
		past := pastOf(wallet)

		wrote, err := b.svc.ImportPast(b.ctx, provider, past)
		require.NoError(t, err)
		require.True(t, wrote)

		hours := models.USDC(len(past.Hours))
		gross, fee := hours*1_000_000, hours*Fee(1_000_000, 1500)
		paid := past.Payouts[0].Amount
		require.Equal(t, -gross, b.balanceOf(t, models.AccountDeposits, 0), "the earnings came from deposits")
		require.Equal(t, fee, b.balanceOf(t, models.AccountPlatformFees, 0))
		require.Equal(t, gross-fee-paid, b.balanceOf(t, models.AccountProviderEarnings, provider), "what was not paid out is available")
		require.Equal(t, paid, b.balanceOf(t, models.AccountPaidOut, 0))

		sum, err := b.svc.Summary(b.ctx, provider)
		require.NoError(t, err)
		require.Equal(t, gross-fee-paid, sum.Available)
		history, err := b.svc.History(b.ctx, provider, start.AddDate(0, 0, -21), start, ByWeek)
		require.NoError(t, err)
		var net models.USDC
		for _, h := range history {
			net += h.Gross - h.Fee
		}
		require.Equal(t, gross-fee, net, "the Earnings tab reads the imported hours")

		m, err := b.svc.MethodOf(b.ctx, provider)
		require.NoError(t, err)
		require.Equal(t, wallet, *m.SolanaAddress)
		require.True(t, m.HoldUntil.Equal(past.Method.Since), "the past's destination does not cool off")
		payouts, err := b.svc.Payouts(b.ctx, provider, 10)
		require.NoError(t, err)
		require.Len(t, payouts, 1)
		require.Equal(t, []any{models.PayoutPaid, models.PayoutManual, paid, wallet, "GPX-1-20261116", "tx 1"},
			[]any{payouts[0].State, payouts[0].Kind, payouts[0].Amount, payouts[0].Destination, payouts[0].Reference, *payouts[0].PaidReference})

		wrote, err = b.svc.ImportPast(b.ctx, provider, past)
		require.NoError(t, err)
		require.False(t, wrote, "a provider with a record here is not given another")
		require.Equal(t, -gross, b.balanceOf(t, models.AccountDeposits, 0))
	})
}

// A past against the rules is refused, naming the field, and nothing is
// written.
func TestImportPastRefusesAPastAgainstTheRules(t *testing.T) {
	t.Parallel()
	wallet := solana.NewKey().PublicKey().String()
	tests := []struct {
		desc  string
		edit  func(p *Past)
		field string
		code  fault.ProblemCode
	}{
		{"an hour after now", func(p *Past) { p.Hours[0].Hour = start.Add(time.Hour) }, "hours[0].hour", fault.InFuture},
		{"an hour that is not a whole hour", func(p *Past) { p.Hours[0].Hour = p.Hours[0].Hour.Add(time.Minute) }, "hours[0].hour", fault.InvalidValue},
		{"a fee above the gross", func(p *Past) { p.Hours[1].Fee = p.Hours[1].Gross + 1 }, "hours[1].fee", fault.OutOfRange},
		{"a negative gross", func(p *Past) { p.Hours[1].Gross = -1 }, "hours[1].fee", fault.OutOfRange},
		{"no reference", func(p *Past) { p.Reference = "" }, "reference", fault.Required},
		{"a wallet that is not one", func(p *Past) { p.Method.SolanaAddress = "not a wallet" }, "method.solanaAddress", fault.WalletWhitespace},
		{"no schedule", func(p *Past) { p.Method.Schedule = "" }, "method.schedule", fault.InvalidValue},
		{"payouts and no method", func(p *Past) { p.Method = nil }, "method", fault.Required},
		{"a payout paid before its period ended", func(p *Past) { p.Payouts[0].PaidAt = p.Payouts[0].PeriodEnd.Add(-time.Second) }, "payouts[0].paidAt", fault.OutOfRange},
		{"a payout paid after now", func(p *Past) {
			p.Payouts[0].PeriodEnd, p.Payouts[0].PaidAt = start, start.Add(time.Hour)
		}, "payouts[0].paidAt", fault.InFuture},
		{"overlapping payouts", func(p *Past) {
			second := p.Payouts[0]
			second.Amount, second.Reference = 1, "GPX-1-b"
			p.Payouts[0].Amount--
			p.Payouts = append(p.Payouts, second)
		}, "payouts[1].periodStart", fault.Overlap},
		{"more paid out than earned", func(p *Past) { p.Payouts[0].Amount = 1_000_000 * models.USDC(len(p.Hours)) }, "payouts", fault.OutOfRange},
		{"a payout of nothing", func(p *Past) { p.Payouts[0].Amount = 0 }, "payouts[0].amount", fault.OutOfRange},
	}
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db, Config{})
		provider, _, _ := b.provider(t, 1)
		for _, tc := range tests {
			past := pastOf(wallet)
			tc.edit(&past)
			_, err := b.svc.ImportPast(b.ctx, provider, past)
			v, ok := fault.AsValidation(err)
			require.True(t, ok, "%s: %v", tc.desc, err)
			require.Contains(t, v.Problems, fault.Problem{Field: tc.field, Code: tc.code, Message: problemMessage(v, tc.field)}, tc.desc)
		}
		m, err := b.svc.MethodOf(b.ctx, provider)
		require.NoError(t, err)
		require.Nil(t, m, "nothing was written")
		require.Zero(t, b.balanceOf(t, models.AccountDeposits, 0))
	})
}

// problemMessage is the message of v's problem with field ("" if none).
func problemMessage(v *fault.Validation, field string) string {
	for _, p := range v.Problems {
		if p.Field == field {
			return p.Message
		}
	}
	return ""
}
