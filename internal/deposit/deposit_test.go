package deposit_test

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/await"
	"github.com/gpunex/gpunex/internal/billing/solana"
	"github.com/gpunex/gpunex/internal/billing/solana/solanatest"
	"github.com/gpunex/gpunex/internal/deposit"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// Issue 26: a deposit request is a Solana Pay transfer request: the
// platform's wallet, the amount in USDC as a decimal, the USDC mint, a
// reference key of its own (base58 of a public key), the label and a
// message; an open request has no amount.
func TestADepositRequestIsASolanaPayTransferRequest(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		w := setup(t, db)
		user := w.customer(t)
		d := w.request(t, user, usdc("25.5"))
		require.Equal(t, models.DepositWaiting, d.State)
		require.Equal(t, start.Add(30*time.Minute), d.ExpiresAt)
		p := w.svc.Payment(d)
		u, err := url.Parse(p.URL)
		require.NoError(t, err)
		require.Equal(t, "solana", u.Scheme)
		require.Equal(t, w.platform.PublicKey().String(), u.Opaque)
		q := u.Query()
		require.Equal(t, "25.5", q.Get("amount"))
		require.Equal(t, solana.USDCMint.String(), q.Get("spl-token"))
		ref, err := solana.ParseMint(q.Get("reference"))
		require.NoError(t, err, "the reference is a base58 public key")
		require.Equal(t, d.Reference, ref.String())
		require.Equal(t, "GPUnex", q.Get("label"))
		require.Contains(t, p.URL, "&message=GPUnex%20deposit%20")

		open := w.request(t, user, nil)
		require.NotContains(t, w.svc.Payment(open).URL, "amount=")
		require.NotEqual(t, d.Reference, open.Reference, "each request has its own reference")
	})
}

// Bad requests are refused naming the field, and a server without a
// Solana node takes none.
func TestADepositRequestOutOfBoundsOrWithoutANodeIsRefused(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		w := setup(t, db)
		user := w.customer(t)
		for _, amount := range []string{"0.001", "1000000.000001"} {
			_, err := w.svc.Create(w.ctx, user, usdc(amount))
			v, ok := fault.AsValidation(err)
			require.True(t, ok, "%s: %v", amount, err)
			require.Equal(t, "input.amount", v.Problems[0].Field)
			require.Equal(t, fault.OutOfRange, v.Problems[0].Code)
		}
		none, err := deposit.New(deposit.Deps{DB: db, Bus: w.bus, Billing: w.billing, Clock: w.clock, Logger: slog.New(slog.DiscardHandler)}, testConfig)
		require.NoError(t, err)
		require.False(t, none.Terms().Available)
		_, err = none.Create(w.ctx, user, usdc("5"))
		v, ok := fault.AsValidation(err)
		require.True(t, ok, "%v", err)
		require.Equal(t, fault.Unavailable, v.Problems[0].Code)
		n, err := db.NewSelect().Model((*models.Deposit)(nil)).Where("user_id = ?", user).Count(w.ctx)
		require.NoError(t, err)
		require.Zero(t, n, "nothing was stored")
	})
}

// Issue 26: a customer pays the request from a wallet; the follow-up sees
// the transfer while it is only confirmed (SEEN: nothing credited yet),
// credits it once it is finalized, exactly once however often it runs,
// notifies the customer, and the customer's subscription shows WAITING,
// SEEN, CREDITED as they happen.
func TestAMatchingTransferGoesFromWaitingToSeenToCreditedOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		w := setup(t, db)
		user := w.customer(t)
		ctx, cancel := context.WithCancel(w.ctx)
		defer cancel()
		live, err := w.svc.Follow(ctx, user)
		require.NoError(t, err)

		d := w.request(t, user, usdc("25.5"))
		require.Equal(t, models.DepositWaiting, await.Receive(t, live).State)
		wallet := w.node.NewWallet(t, 100*models.MicrosPerUSDC)

		w.node.Hold()
		sig := w.pay(t, wallet, d)
		require.NoError(t, w.svc.Run(w.ctx))
		got := w.get(t, d)
		require.Equal(t, models.DepositSeen, got.State)
		require.Len(t, got.Transfers, 1)
		require.Equal(t, sig, got.Transfers[0].Signature)
		require.Equal(t, models.DepositTransferSeen, got.Transfers[0].State)
		require.Zero(t, w.balance(t, user), "nothing is credited before the transfer is finalized")
		ev := await.Receive(t, live)
		require.Equal(t, models.DepositSeen, ev.State)
		require.Len(t, ev.Transfers, 1, "the event carries the transfer")

		w.node.Finalize(sig)
		require.NoError(t, w.svc.Run(w.ctx))
		require.NoError(t, w.svc.Run(w.ctx))
		got = w.get(t, d)
		require.Equal(t, models.DepositCredited, got.State)
		require.Equal(t, *usdc("25.5"), got.Credited)
		tr := got.Transfers[0]
		require.Equal(t, models.DepositTransferCredited, tr.State)
		require.Equal(t, *usdc("25.5"), tr.Amount)
		require.Nil(t, tr.Issue)
		require.False(t, tr.Late)
		require.NotNil(t, tr.LedgerTransactionID)
		require.Equal(t, *usdc("25.5"), w.balance(t, user))
		require.Equal(t, 1, w.postings(t, "solana:"+sig))
		require.Equal(t, []string{deposit.KindCredited}, w.notices(t, user))
		ev = await.Receive(t, live)
		require.Equal(t, models.DepositCredited, ev.State)
		require.Equal(t, models.DepositTransferCredited, ev.Transfers[0].State)
		require.Equal(t, uint64(74_500_000), w.node.TokenBalance(wallet.Address(), solanatest.USDCMint), "the wallet paid 25.5 of its 100 USDC")
	})
}

// Issue 26: a transfer seen at confirmed on a fork the cluster then drops
// stays SEEN while it might still land, and once the finalized chain is
// far enough past it (deposit.DroppedAfterSlots) it is refused
// (NEVER_FINALIZED), the request waits again, nothing is credited, and the
// customer is told; the wallet's next transfer is credited as usual.
func TestATransferOnADroppedForkIsRefusedAndTheRequestWaitsAgain(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		w := setup(t, db)
		user := w.customer(t)
		d := w.request(t, user, usdc("10"))
		wallet := w.node.NewWallet(t, 100*models.MicrosPerUSDC)

		w.node.Hold()
		dropped := w.pay(t, wallet, d)
		require.NoError(t, w.svc.Run(w.ctx))
		require.Equal(t, models.DepositSeen, w.get(t, d).State)

		w.node.DropFork(dropped)
		require.Equal(t, uint64(100*models.MicrosPerUSDC), w.node.TokenBalance(wallet.Address(), solanatest.USDCMint), "the fork's transfer is undone")
		w.node.AdvanceBlocks(deposit.DroppedAfterSlots - 1)
		require.NoError(t, w.svc.Run(w.ctx))
		got := w.get(t, d)
		require.Equal(t, models.DepositSeen, got.State, "it might still land: it waits")
		require.Equal(t, models.DepositTransferSeen, got.Transfers[0].State)

		w.node.AdvanceBlocks(1)
		// A node whose ledger was pruned past that slot cannot tell.
		w.node.PruneHistory(uint64(got.Transfers[0].Slot) + 1)
		require.NoError(t, w.svc.Run(w.ctx))
		require.Equal(t, models.DepositTransferSeen, w.get(t, d).Transfers[0].State, "a node without the history cannot say it is on no fork")
		w.node.PruneHistory(0)
		require.NoError(t, w.svc.Run(w.ctx))
		require.NoError(t, w.svc.Run(w.ctx))
		got = w.get(t, d)
		require.Equal(t, models.DepositWaiting, got.State, "open again, as if nothing had been seen")
		require.Len(t, got.Transfers, 1)
		require.Equal(t, models.DepositTransferRefused, got.Transfers[0].State)
		require.Equal(t, models.DepositNeverFinalized, *got.Transfers[0].Issue)
		require.Zero(t, got.Transfers[0].Amount)
		require.Zero(t, w.balance(t, user))
		require.Zero(t, w.postings(t, "solana:"+dropped))
		require.Equal(t, []string{deposit.KindRefused}, w.notices(t, user))

		// The customer pays again; that transfer lands and is credited.
		paid := w.pay(t, wallet, d)
		require.NotEqual(t, dropped, paid)
		require.NoError(t, w.svc.Run(w.ctx))
		got = w.get(t, d)
		require.Equal(t, models.DepositCredited, got.State)
		require.Equal(t, *usdc("10"), w.balance(t, user))
		require.Equal(t, []string{deposit.KindRefused, deposit.KindCredited}, w.notices(t, user))
	})
}

// Issue 26: two replicas on one database; the first is killed after it
// marked the transfer seen and before it credited it. The second credits
// it; the first, restarted, and both running at once afterwards, credit
// nothing more.
func TestATransferIsCreditedOnceWhenAReplicaIsKilledBetweenSeeingAndCrediting(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		w := setup(t, db)
		user := w.customer(t)
		d := w.request(t, user, usdc("40"))
		sig := w.pay(t, w.node.NewWallet(t, 50*models.MicrosPerUSDC), d)

		killed := w.replica(t)
		errKilled := errors.New("killed after seeing")
		killed.SetAfterSee(func(context.Context) error { return errKilled })
		require.ErrorIs(t, killed.Run(w.ctx), errKilled)
		got := w.get(t, d)
		require.Equal(t, models.DepositSeen, got.State)
		require.Equal(t, models.DepositTransferSeen, got.Transfers[0].State)
		require.Zero(t, w.balance(t, user))

		other := w.replica(t)
		require.NoError(t, other.Run(w.ctx))
		require.Equal(t, *usdc("40"), w.balance(t, user))

		restarted := w.replica(t)
		var wg sync.WaitGroup
		errs := make([]error, 3)
		for i, s := range []*deposit.Service{restarted, other, w.svc} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = s.Run(w.ctx)
			}()
		}
		wg.Wait()
		require.NoError(t, errors.Join(errs...))
		require.Equal(t, *usdc("40"), w.balance(t, user))
		require.Equal(t, 1, w.postings(t, "solana:"+sig))
		require.Equal(t, models.DepositCredited, w.get(t, d).State)
		require.Equal(t, []string{deposit.KindCredited}, w.notices(t, user))
	})
}

// Issue 26: two replicas settling the same seen transfer at the same
// moment credit it once.
func TestTwoReplicasSettlingAtOnceCreditOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		w := setup(t, db)
		user := w.customer(t)
		d := w.request(t, user, usdc("3"))
		sig := w.pay(t, w.node.NewWallet(t, 3*models.MicrosPerUSDC), d)
		require.NoError(t, w.svc.See(w.ctx))
		replicas := []*deposit.Service{w.replica(t), w.replica(t), w.replica(t), w.replica(t)}
		var wg sync.WaitGroup
		errs := make([]error, len(replicas))
		for i, s := range replicas {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = s.Settle(w.ctx)
			}()
		}
		wg.Wait()
		require.NoError(t, errors.Join(errs...))
		require.Equal(t, *usdc("3"), w.balance(t, user))
		require.Equal(t, 1, w.postings(t, "solana:"+sig))
	})
}

// Issue 26: what is not the transfer asked for is handled as stated, and
// nothing is credited twice: a transfer of another token, one that names
// the reference but pays another account (a forged answer), one that
// failed on chain (injected, and for want of funds) credit nothing and
// are REFUSED with their issue; one of too small an amount, or of an
// open request, is credited for what arrived (and says so); one that
// arrives after the request expired is credited and said to be late.
func TestTransfersAreJudgedByWhatArrivedInThePlatformsAccount(t *testing.T) {
	t.Parallel()
	type want struct {
		state    models.DepositTransferState
		issue    models.DepositIssue // "" for none
		late     bool
		credited string
		notice   string
		request  models.DepositState
	}
	cases := []struct {
		desc    string
		amount  *models.USDC
		prepare func(t *testing.T, w *world) []solanatest.PayOption
		want    want
	}{
		{"another token than USDC", usdc("10"), func(t *testing.T, w *world) []solanatest.PayOption {
			w.node.Fund(w.platform.PublicKey(), otherMint, 0)
			return nil
		}, want{models.DepositTransferRefused, models.DepositWrongMint, false, "0", deposit.KindRefused, models.DepositWaiting}},
		{"a forged reference: it pays another account", usdc("10"), func(t *testing.T, w *world) []solanatest.PayOption {
			thief := solana.NewKey().PublicKey()
			w.node.Fund(thief, solanatest.USDCMint, 0)
			return []solanatest.PayOption{solanatest.PayTo(thief)}
		}, want{models.DepositTransferRefused, models.DepositWrongDestination, false, "0", deposit.KindRefused, models.DepositWaiting}},
		{"failed on chain", usdc("10"), func(t *testing.T, w *world) []solanatest.PayOption {
			w.node.FailOnChain()
			return nil
		}, want{models.DepositTransferRefused, models.DepositFailedOnChain, false, "0", deposit.KindRefused, models.DepositWaiting}},
		{"failed on chain for want of funds", usdc("500"), nil,
			want{models.DepositTransferRefused, models.DepositFailedOnChain, false, "0", deposit.KindRefused, models.DepositWaiting}},
		{"too small an amount", usdc("10"), func(t *testing.T, w *world) []solanatest.PayOption {
			return []solanatest.PayOption{solanatest.PayAmount(4_250_000)}
		}, want{models.DepositTransferCredited, models.DepositUnderpaid, false, "4.25", deposit.KindCreditedOtherAmount, models.DepositCredited}},
		{"more than asked", usdc("10"), func(t *testing.T, w *world) []solanatest.PayOption {
			return []solanatest.PayOption{solanatest.PayAmount(12_000_000)}
		}, want{models.DepositTransferCredited, models.DepositOverpaid, false, "12", deposit.KindCreditedOtherAmount, models.DepositCredited}},
		{"an open request", nil, func(t *testing.T, w *world) []solanatest.PayOption {
			return []solanatest.PayOption{solanatest.PayAmount(7_250_000)}
		}, want{models.DepositTransferCredited, "", false, "7.25", deposit.KindCredited, models.DepositCredited}},
		{"after the request expired", usdc("10"), func(t *testing.T, w *world) []solanatest.PayOption {
			w.clock.Advance(31 * time.Minute)
			require.NoError(t, w.svc.Run(w.ctx))
			return nil
		}, want{models.DepositTransferCredited, "", true, "10", deposit.KindCreditedLate, models.DepositCredited}},
	}
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		for _, c := range cases {
			t.Run(c.desc, func(t *testing.T) {
				w := setup(t, db)
				user := w.customer(t)
				wallet := w.node.NewWallet(t, 100*models.MicrosPerUSDC)
				w.node.Fund(wallet.Address(), otherMint, 100*uint64(models.MicrosPerUSDC))
				d := w.request(t, user, c.amount)
				var opts []solanatest.PayOption
				if c.prepare != nil {
					opts = c.prepare(t, w)
				}
				if c.want.issue == models.DepositWrongMint {
					opts = append(opts, solanatest.PayMint(otherMint))
				}
				sig := w.pay(t, wallet, d, opts...)
				for range 3 {
					require.NoError(t, w.svc.Run(w.ctx))
				}
				got := w.get(t, d)
				require.Len(t, got.Transfers, 1)
				tr := got.Transfers[0]
				require.Equal(t, sig, tr.Signature)
				require.Equal(t, c.want.state, tr.State)
				if c.want.issue == "" {
					require.Nil(t, tr.Issue)
				} else {
					require.NotNil(t, tr.Issue)
					require.Equal(t, c.want.issue, *tr.Issue)
				}
				require.Equal(t, c.want.late, tr.Late)
				credited := *usdc(c.want.credited)
				require.Equal(t, credited, got.Credited)
				require.Equal(t, credited, w.balance(t, user))
				wantPostings := 0
				if credited > 0 {
					wantPostings = 1
				}
				require.Equal(t, wantPostings, w.postings(t, "solana:"+sig), "credited at most once")
				require.Equal(t, []string{c.want.notice}, w.notices(t, user))
				require.Equal(t, c.want.request, got.State)
			})
		}
	})
}

// A request past its expiry with nothing seen is EXPIRED, and stays
// followed for late transfers until LateFor after it.
func TestARequestExpiresAndIsFollowedForLateTransfers(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		w := setup(t, db)
		user := w.customer(t)
		d := w.request(t, user, usdc("1"))
		w.clock.Advance(30 * time.Minute)
		require.NoError(t, w.svc.Run(w.ctx))
		require.Equal(t, models.DepositExpired, w.get(t, d).State)

		w.clock.Advance(24 * time.Hour)
		w.pay(t, w.node.NewWallet(t, models.MicrosPerUSDC), d)
		require.NoError(t, w.svc.Run(w.ctx))
		got := w.get(t, d)
		require.Equal(t, models.DepositExpired, got.State, "no longer followed")
		require.Empty(t, got.Transfers)
		require.Zero(t, w.balance(t, user))
	})
}
