package billing

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/billing/solana"
	"github.com/gpunex/gpunex/internal/billing/solana/solanatest"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

func TestPayoutsAreDueOnMondaysAndFirstBusinessDays(t *testing.T) {
	t.Parallel()
	lisbon, _ := time.LoadLocation("Europe/Lisbon")
	tokyo, _ := time.LoadLocation("Asia/Tokyo")
	ny, _ := time.LoadLocation("America/New_York")
	at := func(loc *time.Location, y int, m time.Month, d, h int) time.Time {
		return time.Date(y, m, d, h, 0, 0, 0, loc)
	}
	for _, c := range []struct {
		name              string
		kind              Schedule
		now               time.Time
		loc               *time.Location
		start, end, dueAt time.Time
	}{
		{"weekly, Monday morning in Lisbon", Weekly, at(lisbon, 2026, 12, 7, 9), lisbon,
			at(lisbon, 2026, 11, 30, 0), at(lisbon, 2026, 12, 7, 0), at(lisbon, 2026, 12, 7, 0)},
		{"weekly, Sunday night in Lisbon: still the week before's", Weekly, at(lisbon, 2026, 12, 6, 23), lisbon,
			at(lisbon, 2026, 11, 23, 0), at(lisbon, 2026, 11, 30, 0), at(lisbon, 2026, 11, 30, 0)},
		{"weekly, Monday 00:30 in Tokyo is Sunday in UTC", Weekly, at(tokyo, 2026, 12, 7, 0).Add(30 * time.Minute), tokyo,
			at(tokyo, 2026, 11, 30, 0), at(tokyo, 2026, 12, 7, 0), at(tokyo, 2026, 12, 7, 0)},
		{"weekly across a month end", Weekly, at(ny, 2026, 11, 2, 12), ny,
			at(ny, 2026, 10, 26, 0), at(ny, 2026, 11, 2, 0), at(ny, 2026, 11, 2, 0)},
		{"monthly: 1 August 2026 is a Saturday, due Monday the 3rd", Monthly, at(lisbon, 2026, 8, 3, 8), lisbon,
			at(lisbon, 2026, 7, 1, 0), at(lisbon, 2026, 8, 1, 0), at(lisbon, 2026, 8, 3, 0)},
		{"monthly: on the Saturday the month before's is not due yet", Monthly, at(lisbon, 2026, 8, 1, 12), lisbon,
			at(lisbon, 2026, 6, 1, 0), at(lisbon, 2026, 7, 1, 0), at(lisbon, 2026, 7, 1, 0)},
		{"monthly: a weekday first", Monthly, at(ny, 2026, 12, 1, 0), ny,
			at(ny, 2026, 11, 1, 0), at(ny, 2026, 12, 1, 0), at(ny, 2026, 12, 1, 0)},
		{"monthly across the year end (1 January 2028 is a Saturday)", Monthly, at(tokyo, 2028, 1, 3, 0), tokyo,
			at(tokyo, 2027, 12, 1, 0), at(tokyo, 2028, 1, 1, 0), at(tokyo, 2028, 1, 3, 0)},
	} {
		start, end, due := Due(c.kind, c.now, c.loc)
		require.True(t, start.Equal(c.start) && end.Equal(c.end) && due.Equal(c.dueAt), "%s: got %s–%s due %s", c.name, start, end, due)
	}
}

// passwords accepts "right password" for everyone.
type passwords struct{}

func (passwords) VerifyPassword(_ context.Context, _ int64, p string) error {
	if p == "right password" {
		return nil
	}
	var v fault.Validation
	v.Add("input.password", fault.InvalidCredentials, "the password is wrong")
	return &v
}

func problems(t *testing.T, err error) map[string]string {
	t.Helper()
	v, ok := fault.AsValidation(err)
	require.True(t, ok, "a validation error: %v", err)
	out := map[string]string{}
	for _, p := range v.Problems {
		out[p.Field] = string(p.Code)
	}
	return out
}

func TestPayoutMethodIsCheckedAndANewDestinationCoolsOff(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db, Config{})
		b.svc.deps.Passwords = passwords{}
		provider, _, _ := b.provider(t, 1)
		var user int64
		require.NoError(t, db.NewSelect().Model((*models.Provider)(nil)).Column("user_id").Where("id = ?", provider).Scan(b.ctx, &user))
		wallet := solana.NewKey().PublicKey().String()
		set := func(in MethodInput) error {
			_, err := b.svc.SetMethod(b.ctx, provider, user, in)
			return err
		}
		require.Equal(t, map[string]string{"input.password": "INVALID_CREDENTIALS"},
			problems(t, set(MethodInput{Schedule: Weekly, SolanaAddress: &wallet, Password: "wrong"})))
		// Each mistake by its own code, whatever the password.
		ata, err := solana.AssociatedTokenAddress(solana.NewKey().PublicKey(), solana.USDCMint)
		require.NoError(t, err)
		for bad, code := range map[string]string{
			"":                       "REQUIRED",
			solana.USDCMint.String(): "WALLET_IS_MINT",
			"notanaddress":           "WALLET_WRONG_LENGTH",
			"not base58 0OIl":        "WALLET_WHITESPACE",
			wallet[:20]:              "WALLET_WRONG_LENGTH",
			" " + wallet:             "WALLET_WHITESPACE",
			"0x52908400098527886E0F7030069857D2E4169EE7": "WALLET_ETHEREUM",
			ata.String(): "WALLET_OFF_CURVE",
		} {
			require.Equal(t, map[string]string{"input.solanaAddress": code},
				problems(t, set(MethodInput{Schedule: Weekly, SolanaAddress: &bad, Password: "right password"})), bad)
		}
		// Every problem at once: a wrong password does not hide the rest.
		eth := "0x52908400098527886E0F7030069857D2E4169EE7"
		require.Equal(t, map[string]string{"input.solanaAddress": "WALLET_ETHEREUM", "input.schedule": "INVALID", "input.password": "INVALID_CREDENTIALS"},
			problems(t, set(MethodInput{Schedule: "DAILY", SolanaAddress: &eth, Password: "wrong"})))
		badIBAN, bic := "DE89370400440532013001", "COBADEFFXXX"
		require.Equal(t, map[string]string{"input.iban": "INVALID", "input.accountHolder": "REQUIRED", "input.schedule": "INVALID"},
			problems(t, set(MethodInput{Schedule: "DAILY", IBAN: &badIBAN, BIC: &bic, Password: "right password"})))
		m, err := b.svc.MethodOf(b.ctx, provider)
		require.NoError(t, err)
		require.Nil(t, m, "nothing was set")

		got, err := b.svc.SetMethod(b.ctx, provider, user, MethodInput{Schedule: Weekly, SolanaAddress: &wallet, Password: "right password"})
		require.NoError(t, err)
		require.True(t, got.HoldUntil.Equal(b.clock.Now().Add(48*time.Hour)), "a new destination cools off")
		var kinds []string
		require.NoError(t, db.NewSelect().Model((*models.Notification)(nil)).Column("kind").Where("user_id = ?", user).Scan(b.ctx, &kinds))
		require.Equal(t, []string{KindPayoutMethodChanged}, kinds)

		b.clock.Advance(72 * time.Hour)
		got, err = b.svc.SetMethod(b.ctx, provider, user, MethodInput{Schedule: Monthly, SolanaAddress: &wallet, Password: "right password"})
		require.NoError(t, err)
		require.True(t, got.HoldUntil.Before(b.clock.Now()), "the same wallet on another schedule is no new destination")

		iban, holder := "de89 3704 0044 0532 0130 00", "Priya Provider"
		got, err = b.svc.SetMethod(b.ctx, provider, user, MethodInput{Schedule: Monthly, IBAN: &iban, BIC: &bic, AccountHolder: &holder, Password: "right password"})
		require.NoError(t, err)
		require.Equal(t, "DE••••••••••••••••3000", *got.IBANMasked)
		require.True(t, got.HoldUntil.After(b.clock.Now()), "a bank account is a new destination")
	})
}

// earn posts earnings to a provider as metering would.
func (b *bundle) earn(t *testing.T, provider int64, amount models.USDC) {
	t.Helper()
	require.NoError(t, b.db.InTx(b.ctx, func(ctx context.Context, tx bun.Tx) error {
		return post(ctx, tx, b.clock.Now(), []*posting{{
			tx:   &models.LedgerTransaction{Kind: models.TxAdjustment, Reference: "test earnings"},
			legs: []leg{{accountKey{models.AccountDeposits, 0}, -amount}, {accountKey{models.AccountProviderEarnings, provider}, amount}},
		}})
	}))
}

// payoutWorld is a provider with a weekly payout method whose cooling-off
// ended, and earnings, on a Monday after the period.
func payoutWorld(t *testing.T, db *store.DB, cfg Config, earned models.USDC) (*bundle, int64, string) {
	b := setup(t, db, cfg)
	b.svc.deps.Passwords = passwords{}
	provider, _, _ := b.provider(t, 1)
	var user int64
	require.NoError(t, db.NewSelect().Model((*models.Provider)(nil)).Column("user_id").Where("id = ?", provider).Scan(b.ctx, &user))
	wallet := solana.NewKey().PublicKey().String()
	_, err := b.svc.SetMethod(b.ctx, provider, user, MethodInput{Schedule: Weekly, SolanaAddress: &wallet, Password: "right password"})
	require.NoError(t, err)
	b.earn(t, provider, earned)
	b.clock.Set(time.Date(2026, 12, 7, 6, 0, 0, 0, time.UTC)) // Monday, after the 48 h
	return b, provider, wallet
}

func TestAManualPayoutIsMadeOncePerPeriodAndSettledByAnAdmin(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b, provider, wallet := payoutWorld(t, db, Config{}, 25_000_000)
		require.NoError(t, b.svc.RunPayouts(b.ctx))
		require.NoError(t, b.svc.RunPayouts(b.ctx), "a second run makes no second payout")
		ps, err := b.svc.Payouts(b.ctx, provider, 10)
		require.NoError(t, err)
		require.Len(t, ps, 1)
		p := ps[0]
		require.Equal(t, []any{models.PayoutManual, models.PayoutPending, models.USDC(25_000_000), wallet},
			[]any{p.Kind, p.State, p.Amount, p.Destination})
		require.True(t, p.PeriodStart.Equal(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)), "the week before, in UTC (no schedule)")
		require.Zero(t, b.balanceOf(t, models.AccountProviderEarnings, provider))
		require.Equal(t, p.Amount, b.balanceOf(t, models.AccountPayoutsInFlight, provider))

		// More earnings the same week: the period's payout exists.
		b.earn(t, provider, 30_000_000)
		b.clock.Advance(time.Hour)
		require.NoError(t, b.svc.RunPayouts(b.ctx))
		ps, _ = b.svc.Payouts(b.ctx, provider, 10)
		require.Len(t, ps, 1)

		_, err = b.svc.MarkPaid(b.ctx, p.ID, " ")
		require.Equal(t, map[string]string{"input.reference": "REQUIRED"}, problems(t, err))
		paid, err := b.svc.MarkPaid(b.ctx, p.ID, "solana tx 5xyz")
		require.NoError(t, err)
		require.Equal(t, models.PayoutPaid, paid.State)
		_, err = b.svc.MarkPaid(b.ctx, p.ID, "again")
		require.Equal(t, map[string]string{"id": "INVALID_STATE"}, problems(t, err), "paid once")
		require.Zero(t, b.balanceOf(t, models.AccountPayoutsInFlight, provider))
		require.Equal(t, p.Amount, b.balanceOf(t, models.AccountPaidOut, 0))
		requireBalancedLedger(t, b)

		// Next Monday: the rest is paid; one below the threshold is not.
		b.clock.Advance(7 * 24 * time.Hour)
		require.NoError(t, b.svc.RunPayouts(b.ctx))
		ps, _ = b.svc.Payouts(b.ctx, provider, 10)
		require.Len(t, ps, 2)
		require.Equal(t, models.USDC(30_000_000), ps[0].Amount)
		b.earn(t, provider, 9_999_999)
		b.clock.Advance(7 * 24 * time.Hour)
		require.NoError(t, b.svc.RunPayouts(b.ctx))
		ps, _ = b.svc.Payouts(b.ctx, provider, 10)
		require.Len(t, ps, 2, "under the 10 USDC threshold")
	})
}

func solanaWorld(t *testing.T, db *store.DB) (*bundle, int64, string, *solanatest.Server) {
	payer := solana.NewKey()
	node := solanatest.New(t, solanatest.Config{Payer: payer.PublicKey()})
	client, err := solana.New(solana.Config{RPCURL: node.URL(), Payer: payer, PollInterval: 5 * time.Millisecond})
	require.NoError(t, err)
	b, provider, wallet := payoutWorld(t, db, Config{Payouts: PayoutConfig{ConfirmTimeout: 300 * time.Millisecond}}, 42_123_456)
	b.svc.deps.Solana = client
	return b, provider, wallet, node
}

func TestASolanaPayoutIsSentOnceThroughTheNode(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b, provider, wallet, node := solanaWorld(t, db)
		require.NoError(t, b.svc.RunPayouts(b.ctx))
		require.NoError(t, b.svc.RunPayouts(b.ctx))
		ps, err := b.svc.Payouts(b.ctx, provider, 10)
		require.NoError(t, err)
		require.Len(t, ps, 1)
		require.Equal(t, models.PayoutPaid, ps[0].State)
		transfers := node.Transfers()
		require.Len(t, transfers, 1)
		require.Equal(t, []any{wallet, models.USDC(42_123_456), ps[0].Reference, *ps[0].Signature},
			[]any{transfers[0].Recipient.String(), transfers[0].Amount, transfers[0].Memo, transfers[0].Signature})
		require.Equal(t, models.USDC(42_123_456), b.balanceOf(t, models.AccountPaidOut, 0))
		requireBalancedLedger(t, b)
	})
}

// The node confirms too late for the run (a crash after sending looks the
// same): the payout stays PROCESSING with its signature, and the next run
// finds it on chain instead of paying again.
func TestASolanaPayoutUnconfirmedAtTheRunsEndIsRecoveredNotResent(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b, provider, _, node := solanaWorld(t, db)
		node.Delay(200)
		require.NoError(t, b.svc.RunPayouts(b.ctx))
		ps, _ := b.svc.Payouts(b.ctx, provider, 10)
		require.Equal(t, models.PayoutProcessing, ps[0].State)
		require.NotNil(t, ps[0].Signature, "stored before it was sent")
		// The chain confirms it meanwhile.
		for range 300 {
			st, err := b.svc.deps.Solana.Status(b.ctx, *ps[0].Signature)
			require.NoError(t, err)
			if st.State == solana.Confirmed {
				break
			}
		}
		require.NoError(t, b.svc.RunPayouts(b.ctx))
		ps, _ = b.svc.Payouts(b.ctx, provider, 10)
		require.Equal(t, models.PayoutPaid, ps[0].State)
		require.Len(t, node.Transfers(), 1)
		requireBalancedLedger(t, b)
	})
}

// A transfer the chain leaves unconfirmed holds up no other payout of the
// run: the others are sent and paid while it waits, and it is paid once
// the chain confirms it. Sent one after the other, the first payout's wait
// (up to ConfirmTimeout, an hour here) held up every payout after it.
func TestOneUnconfirmedSolanaPayoutHoldsUpNoOtherInTheRun(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b, first, _, node := solanaWorld(t, db)
		b.svc.pcfg.ConfirmTimeout = time.Hour
		providers := []int64{first}
		for range 3 {
			provider, _, _ := b.provider(t, 1)
			var user int64
			require.NoError(t, db.NewSelect().Model((*models.Provider)(nil)).Column("user_id").Where("id = ?", provider).Scan(b.ctx, &user))
			wallet := solana.NewKey().PublicKey().String()
			b.clock.Set(time.Date(2026, 12, 4, 6, 0, 0, 0, time.UTC)) // the week before, so the method is ready on Monday
			_, err := b.svc.SetMethod(b.ctx, provider, user, MethodInput{Schedule: Weekly, SolanaAddress: &wallet, Password: "right password"})
			require.NoError(t, err)
			b.earn(t, provider, 11_000_000)
			providers = append(providers, provider)
		}
		b.clock.Set(time.Date(2026, 12, 7, 6, 0, 0, 0, time.UTC)) // Monday
		node.Delay(math.MaxInt32)                                 // the first transfer sent stays "processed"
		ran := make(chan error, 1)
		go func() { ran <- b.svc.RunPayouts(b.ctx) }()

		states := func() map[models.PayoutState]int {
			n := map[models.PayoutState]int{}
			for _, p := range providers {
				ps, err := b.svc.Payouts(b.ctx, p, 10)
				require.NoError(t, err)
				for _, x := range ps {
					n[x.State]++
				}
			}
			return n
		}
		await.True(t, func() bool {
			n := states()
			return n[models.PayoutPaid] == 3 && n[models.PayoutProcessing] == 1
		}, "the three other payouts are not paid while one transfer waits")
		node.Confirm()
		require.NoError(t, <-ran)
		require.Equal(t, map[models.PayoutState]int{models.PayoutPaid: 4}, states())
		require.Len(t, node.Transfers(), 4, "each sent once")
		requireBalancedLedger(t, b)
	})
}

func TestAFailedSolanaPayoutReturnsToTheBalance(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b, provider, _, node := solanaWorld(t, db)
		node.FailOnChain()
		require.NoError(t, b.svc.RunPayouts(b.ctx))
		ps, _ := b.svc.Payouts(b.ctx, provider, 10)
		require.Equal(t, models.PayoutFailed, ps[0].State)
		require.NotNil(t, ps[0].Failure)
		require.Equal(t, models.USDC(42_123_456), b.balanceOf(t, models.AccountProviderEarnings, provider), "back in the balance")
		require.Zero(t, b.balanceOf(t, models.AccountPayoutsInFlight, provider))
		require.Empty(t, node.Transfers())
		requireBalancedLedger(t, b)
	})
}

// Issue 24, point 6: the first weekly payout of a provider whose method
// was just set was made at once, on a Friday, labelled for the week
// before, and carried what was earned that week. A payout is made on the
// due day the guide promises (weekly: Monday, for the week before) to a
// method ready by then, carries exactly what was posted before its
// period's end, and reconciles with the period's statement.
func TestAWeeklyPayoutIsMadeOnMondayForTheWeekBeforeWithWhatWasPostedBeforeItsEnd(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db, Config{})
		b.svc.deps.Passwords = passwords{}
		provider, _, _ := b.provider(t, 1)
		var user int64
		require.NoError(t, db.NewSelect().Model((*models.Provider)(nil)).Column("user_id").Where("id = ?", provider).Scan(b.ctx, &user))
		b.clock.Set(time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)) // Wednesday: the method is set
		wallet := solana.NewKey().PublicKey().String()
		_, err := b.svc.SetMethod(b.ctx, provider, user, MethodInput{Schedule: Weekly, SolanaAddress: &wallet, Password: "right password"})
		require.NoError(t, err)
		b.clock.Set(time.Date(2026, 12, 3, 15, 0, 0, 0, time.UTC)) // Thursday: earned this week
		b.earn(t, provider, 25_000_000)

		b.clock.Set(time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)) // Friday, past the cooling-off
		require.NoError(t, b.svc.RunPayouts(b.ctx))
		ps, err := b.svc.Payouts(b.ctx, provider, 10)
		require.NoError(t, err)
		require.Empty(t, ps, "no payout on a Friday, and none of this week's earnings for the week before")

		b.clock.Set(time.Date(2026, 12, 7, 0, 30, 0, 0, time.UTC)) // Monday, after the period's end
		b.earn(t, provider, 4_000_000)                             // posted in the new week
		require.NoError(t, b.svc.RunPayouts(b.ctx))
		ps, err = b.svc.Payouts(b.ctx, provider, 10)
		require.NoError(t, err)
		require.Len(t, ps, 1)
		p := ps[0]
		require.True(t, p.PeriodStart.Equal(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)), "the week before: %s", p.PeriodStart)
		require.True(t, p.PeriodEnd.Equal(time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)))
		require.Equal(t, models.USDC(25_000_000), p.Amount, "what was posted before the period's end, not the 4 USDC since")
		require.Equal(t, models.USDC(4_000_000), b.balanceOf(t, models.AccountProviderEarnings, provider), "the rest waits for its own period")

		st, err := b.svc.StatementOf(b.ctx, provider, p.PeriodStart, p.PeriodEnd)
		require.NoError(t, err)
		require.Equal(t, Statement{PeriodStart: p.PeriodStart.UTC(), PeriodEnd: p.PeriodEnd.UTC(), Earned: 25_000_000, Closing: 25_000_000}, *st)
		require.Equal(t, st.Closing, p.Amount, "the statement reconciles to the payout")

		// The next week's statement opens with what this payout left and
		// shows the payout taken out.
		next, err := b.svc.StatementOf(b.ctx, provider, p.PeriodEnd, p.PeriodEnd.AddDate(0, 0, 7))
		require.NoError(t, err)
		require.Equal(t, models.USDC(25_000_000), next.Opening)
		require.Equal(t, models.USDC(-25_000_000), next.PaidOut)
		require.Equal(t, models.USDC(4_000_000), next.Earned)
		require.Equal(t, models.USDC(4_000_000), next.Closing)
		requireBalancedLedger(t, b)
	})
}

// A provider can ask for its available balance now: refused without a
// method, while a new destination cools off, under the threshold and while
// another payout is on its way; otherwise paid at once to its method, and
// the period's scheduled payout then carries only what was earned in the
// period after it.
func TestAProviderIsPaidItsBalanceOnRequestAndThePeriodsPayoutCarriesTheRest(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db, Config{})
		b.svc.deps.Passwords = passwords{}
		provider, _, _ := b.provider(t, 1)
		var user int64
		require.NoError(t, db.NewSelect().Model((*models.Provider)(nil)).Column("user_id").Where("id = ?", provider).Scan(b.ctx, &user))
		b.clock.Set(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)) // Tuesday
		_, err := b.svc.RequestPayout(b.ctx, provider)
		require.Equal(t, map[string]string{"method": "INVALID_STATE"}, problems(t, err), "no method yet")
		wallet := solana.NewKey().PublicKey().String()
		_, err = b.svc.SetMethod(b.ctx, provider, user, MethodInput{Schedule: Weekly, SolanaAddress: &wallet, Password: "right password"})
		require.NoError(t, err)
		b.earn(t, provider, 30_000_000)
		_, err = b.svc.RequestPayout(b.ctx, provider)
		require.Equal(t, map[string]string{"method": "INVALID_STATE"}, problems(t, err), "a new destination cools off")

		b.clock.Set(time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)) // Thursday, past the 48 h
		p, err := b.svc.RequestPayout(b.ctx, provider)
		require.NoError(t, err)
		require.Equal(t, []any{models.PayoutManual, models.PayoutPending, models.USDC(30_000_000), wallet},
			[]any{p.Kind, p.State, p.Amount, p.Destination})
		require.True(t, p.PeriodStart.Equal(b.clock.Now()) && p.PeriodEnd.Equal(b.clock.Now()), "the instant it was asked")
		require.Zero(t, b.balanceOf(t, models.AccountProviderEarnings, provider))
		b.earn(t, provider, 12_000_000)
		_, err = b.svc.RequestPayout(b.ctx, provider)
		require.Equal(t, map[string]string{"amount": "INVALID_STATE"}, problems(t, err), "one payout on its way at a time")
		_, err = b.svc.MarkPaid(b.ctx, p.ID, "manual 1")
		require.NoError(t, err)

		// Friday: 5 USDC more, then Monday's run pays the week's rest: 17.
		b.clock.Set(time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC))
		b.earn(t, provider, 5_000_000)
		b.clock.Set(time.Date(2026, 12, 7, 1, 0, 0, 0, time.UTC))
		require.NoError(t, b.svc.RunPayouts(b.ctx))
		ps, err := b.svc.Payouts(b.ctx, provider, 10)
		require.NoError(t, err)
		require.Len(t, ps, 2)
		week := ps[1] // by period start: the request's instant is later than the week's Monday
		require.True(t, week.PeriodStart.Equal(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)), "%s", week.PeriodStart)
		require.Equal(t, models.USDC(17_000_000), week.Amount, "the week's payout carries what is left, not the 30 paid on request")
		st, err := b.svc.StatementOf(b.ctx, provider, week.PeriodStart, week.PeriodEnd)
		require.NoError(t, err)
		require.Equal(t, st.Closing, week.Amount)
		require.Equal(t, models.USDC(-30_000_000), st.PaidOut)

		// Under the threshold: refused.
		b.earn(t, provider, 9_000_000)
		_, err = b.svc.RequestPayout(b.ctx, provider)
		require.Equal(t, map[string]string{"amount": "INVALID_STATE"}, problems(t, err), "the week's payout is on its way")
		_, err = b.svc.MarkPaid(b.ctx, week.ID, "manual 2")
		require.NoError(t, err)
		_, err = b.svc.RequestPayout(b.ctx, provider)
		require.Equal(t, map[string]string{"amount": "OUT_OF_RANGE"}, problems(t, err), "9 USDC is under the 10 a payout needs")
		requireBalancedLedger(t, b)
	})
}
