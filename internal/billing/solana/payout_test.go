package solana_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/billing/solana"
	"github.com/gpunex/gpunex/internal/billing/solana/solanatest"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/models"
)

const waitLong = 10 * time.Second

func TestHappyPathPreparesSendsAndConfirmsOneTransfer(t *testing.T) {
	t.Parallel()
	b := setup(t, "")
	ctx := t.Context()

	p, err := b.client.Prepare(ctx, b.recipient, 2_150_000, "payout 42")
	require.NoError(t, err)
	require.NotEmpty(t, p.Signature)
	require.NotEmpty(t, p.Raw)
	require.Equal(t, b.node.BlockHeight()+solanatest.BlockhashValidity, p.LastValidBlockHeight)
	require.Zero(t, b.node.Calls("sendTransaction"), "Prepare sends nothing")

	require.NoError(t, b.client.Send(ctx, p))
	require.NoError(t, b.client.WaitConfirmed(ctx, p, waitLong))
	st, err := b.client.Status(ctx, p.Signature)
	require.NoError(t, err)
	require.Equal(t, solana.Confirmed, st.State)

	got := b.node.Transfers()
	require.Len(t, got, 1)
	require.Equal(t, p.Signature, got[0].Signature)
	require.Equal(t, b.recipient, got[0].Recipient)
	require.Equal(t, ata(t, b.recipient), got[0].Destination)
	require.Equal(t, solana.USDCMint, got[0].Mint)
	require.Equal(t, models.USDC(2_150_000), got[0].Amount)
	require.Equal(t, "payout 42", got[0].Memo)
	require.Empty(t, b.node.Rejections())
}

func TestPayoutWithoutMemoHasTwoInstructions(t *testing.T) {
	t.Parallel()
	b := setup(t, "")
	p, err := b.client.Prepare(t.Context(), b.recipient, 1, "")
	require.NoError(t, err)
	require.NoError(t, b.client.Send(t.Context(), p))
	got := b.node.Transfers()
	require.Len(t, got, 1)
	require.Equal(t, models.USDC(1), got[0].Amount)
	require.Empty(t, got[0].Memo)
}

func TestResendingTheSamePreparedLandsOnce(t *testing.T) {
	t.Parallel()
	b := setup(t, "")
	ctx := t.Context()
	p, err := b.client.Prepare(ctx, b.recipient, 5_000_000, "payout 7")
	require.NoError(t, err)

	for range 3 {
		// The node answers AlreadyProcessed to the second and third;
		// Send counts that as success.
		require.NoError(t, b.client.Send(ctx, p))
	}
	require.NoError(t, b.client.WaitConfirmed(ctx, p, waitLong))
	require.Equal(t, 3, b.node.Calls("sendTransaction"))
	require.Len(t, b.node.Transfers(), 1)
}

func TestDroppedTransactionIsNotFoundUntilExpiredThenAFreshPreparePaysOnce(t *testing.T) {
	t.Parallel()
	b := setup(t, "")
	ctx := t.Context()
	b.node.Drop()
	old, err := b.client.Prepare(ctx, b.recipient, 3_000_000, "payout 9")
	require.NoError(t, err)
	require.NoError(t, b.client.Send(ctx, old), "a dropped transaction is accepted like any other")

	// Not found, and still valid up to its last valid block height: the
	// only safe move is to send the same bytes again.
	b.node.SetBlockHeight(old.LastValidBlockHeight)
	st, err := b.client.Status(ctx, old.Signature)
	require.NoError(t, err)
	require.Equal(t, solana.NotFound, st.State)
	expired, err := b.client.Expired(ctx, old)
	require.NoError(t, err)
	require.False(t, expired)
	action, _, err := b.client.Recover(ctx, old)
	require.NoError(t, err)
	require.Equal(t, solana.ActionResend, action)

	// One block later it can never land.
	b.node.AdvanceBlocks(1)
	expired, err = b.client.Expired(ctx, old)
	require.NoError(t, err)
	require.True(t, expired)
	action, st, err = b.client.Recover(ctx, old)
	require.NoError(t, err)
	require.Equal(t, solana.ActionRebuild, action)
	require.Equal(t, solana.NotFound, st.State)
	require.ErrorIs(t, b.client.WaitConfirmed(ctx, old, waitLong), solana.ErrExpired)
	require.ErrorIs(t, b.client.Send(ctx, old), solana.ErrBlockhashNotFound, "the chain refuses the old bytes for good")

	fresh, err := b.client.Prepare(ctx, b.recipient, 3_000_000, "payout 9")
	require.NoError(t, err)
	require.NotEqual(t, old.Signature, fresh.Signature)
	require.NoError(t, b.client.Send(ctx, fresh))
	require.NoError(t, b.client.WaitConfirmed(ctx, fresh, waitLong))

	got := b.node.Transfers()
	require.Len(t, got, 1, "paid once in total")
	require.Equal(t, fresh.Signature, got[0].Signature)
	require.Equal(t, models.USDC(3_000_000), got[0].Amount)
}

func TestDroppedTransactionIsResentByWaitConfirmedAndLandsOnce(t *testing.T) {
	t.Parallel()
	b := setup(t, "")
	ctx := t.Context()
	b.node.Drop()
	p, err := b.client.Prepare(ctx, b.recipient, 1_000_000, "")
	require.NoError(t, err)
	require.NoError(t, b.client.Send(ctx, p))

	require.NoError(t, b.client.WaitConfirmed(ctx, p, waitLong))
	require.GreaterOrEqual(t, b.node.Calls("sendTransaction"), 2)
	got := b.node.Transfers()
	require.Len(t, got, 1)
	require.Equal(t, p.Signature, got[0].Signature)
}

// stored is a Prepared as the payout job's database would hold it.
func stored(t *testing.T, p *solana.Prepared) []byte {
	t.Helper()
	b, err := json.Marshal(p)
	require.NoError(t, err)
	return b
}

func loaded(t *testing.T, b []byte) *solana.Prepared {
	t.Helper()
	var p solana.Prepared
	require.NoError(t, json.Unmarshal(b, &p))
	return &p
}

// recoverPayout runs the recovery protocol from the package documentation
// the way the payout job will, returning the signature that paid.
func recoverPayout(t *testing.T, c *solana.Client, p *solana.Prepared, rebuild func() *solana.Prepared) string {
	t.Helper()
	ctx := t.Context()
	for range 100 {
		action, st, err := c.Recover(ctx, p)
		require.NoError(t, err)
		switch action {
		case solana.ActionPaid:
			return p.Signature
		case solana.ActionFailed:
			t.Fatalf("payout failed on chain: %s", st.Err)
		case solana.ActionWait:
			time.Sleep(time.Millisecond)
		case solana.ActionResend:
			require.NoError(t, c.Send(ctx, p))
		case solana.ActionRebuild:
			p = rebuild()
			require.NoError(t, c.Send(ctx, p))
		default:
			t.Fatalf("unexpected action %s", action)
		}
	}
	t.Fatal("recovery did not settle")
	return ""
}

func TestCrashBeforeSendRecoversByResendingTheStoredTransaction(t *testing.T) {
	t.Parallel()
	b := setup(t, "")
	p, err := b.client.Prepare(t.Context(), b.recipient, 4_200_000, "payout 11")
	require.NoError(t, err)
	row := stored(t, p)
	// The process dies here, before Send. A new one starts.
	restarted := newClient(t, b.node, b.payer, "")

	paid := recoverPayout(t, restarted, loaded(t, row), func() *solana.Prepared {
		t.Fatal("the stored transaction was still valid; rebuilding it could pay twice")
		return nil
	})
	require.Equal(t, p.Signature, paid)
	got := b.node.Transfers()
	require.Len(t, got, 1)
	require.Equal(t, p.Signature, got[0].Signature)
	require.Equal(t, models.USDC(4_200_000), got[0].Amount)
}

func TestCrashBeforeSendAfterExpiryRebuildsAndPaysOnce(t *testing.T) {
	t.Parallel()
	b := setup(t, "")
	p, err := b.client.Prepare(t.Context(), b.recipient, 4_200_000, "payout 12")
	require.NoError(t, err)
	row := stored(t, p)
	// Down for longer than a blockhash lives.
	b.node.ExpireBlockhashes()
	restarted := newClient(t, b.node, b.payer, "")

	var fresh *solana.Prepared
	paid := recoverPayout(t, restarted, loaded(t, row), func() *solana.Prepared {
		fresh, err = restarted.Prepare(t.Context(), b.recipient, 4_200_000, "payout 12")
		require.NoError(t, err)
		return fresh
	})
	require.NotNil(t, fresh)
	require.Equal(t, fresh.Signature, paid)
	require.Len(t, b.node.Transfers(), 1)
}

func TestCrashAfterSendBeforeConfirmationFindsItAndDoesNotPayTwice(t *testing.T) {
	t.Parallel()
	b := setup(t, "")
	b.node.Delay(3)
	p, err := b.client.Prepare(t.Context(), b.recipient, 9_990_000, "payout 13")
	require.NoError(t, err)
	row := stored(t, p)
	require.NoError(t, b.client.Send(t.Context(), p))
	// The process dies here, before it saw the confirmation.
	restarted := newClient(t, b.node, b.payer, "")

	action, st, err := restarted.Recover(t.Context(), loaded(t, row))
	require.NoError(t, err)
	require.Equal(t, solana.ActionWait, action)
	require.Equal(t, solana.Pending, st.State)

	paid := recoverPayout(t, restarted, loaded(t, row), func() *solana.Prepared {
		t.Fatal("the sent transaction was found; rebuilding it could pay twice")
		return nil
	})
	require.Equal(t, p.Signature, paid)
	require.Equal(t, 1, b.node.Calls("sendTransaction"), "a pending transaction is not sent again")
	require.Len(t, b.node.Transfers(), 1)
}

func TestCrashAfterSendWaitConfirmedOnTheStoredTransactionPaysOnce(t *testing.T) {
	t.Parallel()
	b := setup(t, "")
	b.node.Delay(2)
	p, err := b.client.Prepare(t.Context(), b.recipient, 600_000, "")
	require.NoError(t, err)
	row := stored(t, p)
	require.NoError(t, b.client.Send(t.Context(), p))
	restarted := newClient(t, b.node, b.payer, "")

	require.NoError(t, restarted.WaitConfirmed(t.Context(), loaded(t, row), waitLong))
	require.Len(t, b.node.Transfers(), 1)
}

func TestSendErrorLeavesTheTransactionToBeSentAgain(t *testing.T) {
	t.Parallel()
	b := setup(t, "")
	ctx := t.Context()
	b.node.Fail()
	p, err := b.client.Prepare(ctx, b.recipient, 700_000, "")
	require.NoError(t, err)

	err = b.client.Send(ctx, p)
	var re *solana.RPCError
	require.ErrorAs(t, err, &re)
	require.Equal(t, "sendTransaction", re.Method)
	require.Equal(t, -32005, re.Code)

	action, _, err := b.client.Recover(ctx, p)
	require.NoError(t, err)
	require.Equal(t, solana.ActionResend, action)
	require.NoError(t, b.client.Send(ctx, p))
	require.NoError(t, b.client.WaitConfirmed(ctx, p, waitLong))
	require.Len(t, b.node.Transfers(), 1)
}

func TestOnChainFailureIsReportedAsFailed(t *testing.T) {
	t.Parallel()
	b := setup(t, "")
	ctx := t.Context()
	b.node.FailOnChain()
	p, err := b.client.Prepare(ctx, b.recipient, 800_000, "payout 14")
	require.NoError(t, err)
	require.NoError(t, b.client.Send(ctx, p))

	st, err := b.client.Status(ctx, p.Signature)
	require.NoError(t, err)
	require.Equal(t, solana.Failed, st.State)
	require.JSONEq(t, `{"InstructionError":[1,{"Custom":1}]}`, st.Err)

	action, _, err := b.client.Recover(ctx, p)
	require.NoError(t, err)
	require.Equal(t, solana.ActionFailed, action)

	err = b.client.WaitConfirmed(ctx, p, waitLong)
	require.ErrorIs(t, err, solana.ErrFailed)
	require.Contains(t, err.Error(), "InstructionError")
	require.Empty(t, b.node.Transfers())
	require.NoError(t, b.client.Send(ctx, p), "re-sending a failed transaction is harmless: already processed")
	require.Empty(t, b.node.Transfers())
}

func TestProcessedBelowTheCommitmentIsPending(t *testing.T) {
	t.Parallel()
	b := setup(t, rpc.CommitmentFinalized)
	ctx := t.Context()
	b.node.Delay(2)
	p, err := b.client.Prepare(ctx, b.recipient, 100, "")
	require.NoError(t, err)
	require.NoError(t, b.client.Send(ctx, p))
	for range 2 {
		st, err := b.client.Status(ctx, p.Signature)
		require.NoError(t, err)
		require.Equal(t, solana.Pending, st.State)
	}
	st, err := b.client.Status(ctx, p.Signature)
	require.NoError(t, err)
	require.Equal(t, solana.Confirmed, st.State)
}

func TestStatusFindsTransactionsOlderThanTheStatusCache(t *testing.T) {
	t.Parallel()
	b := setup(t, "")
	ctx := t.Context()
	p, err := b.client.Prepare(ctx, b.recipient, 100, "")
	require.NoError(t, err)
	require.NoError(t, b.client.Send(ctx, p))
	b.node.AdvanceBlocks(10 * solanatest.StatusCacheBlocks)

	// Found only because Status asks with searchTransactionHistory.
	st, err := b.client.Status(ctx, p.Signature)
	require.NoError(t, err)
	require.Equal(t, solana.Confirmed, st.State)
}

func TestWaitConfirmedTimesOutWithTheOutcomeUnknown(t *testing.T) {
	t.Parallel()
	b := setup(t, "")
	ctx := t.Context()
	b.node.Delay(1 << 30)
	p, err := b.client.Prepare(ctx, b.recipient, 100, "")
	require.NoError(t, err)
	require.NoError(t, b.client.Send(ctx, p))

	err = b.client.WaitConfirmed(ctx, p, 20*time.Millisecond)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.False(t, errors.Is(err, solana.ErrExpired) || errors.Is(err, solana.ErrFailed))
}

func TestPrepareRefusesWhatMustNotBePaid(t *testing.T) {
	t.Parallel()
	b := setup(t, "")
	tokenAccount := solana.NewKey().PublicKey()
	b.node.SetAccount(tokenAccount, solanatest.Account{Owner: tokenProgram, Lamports: 2_039_280})
	cases := []struct {
		desc      string
		recipient solana.PublicKey
		amount    models.USDC
		memo      string
		want      string
	}{
		{desc: "zero amount", recipient: b.recipient, amount: 0, want: "more than zero"},
		{desc: "negative amount", recipient: b.recipient, amount: -1, want: "more than zero"},
		{desc: "an associated token account", recipient: ata(t, b.recipient), amount: 1, want: string(fault.WalletOffCurve)},
		{desc: "the mint", recipient: solana.USDCMint, amount: 1, want: string(fault.WalletIsMint)},
		{desc: "a token account made from a keypair", recipient: tokenAccount, amount: 1, want: string(fault.WalletTokenAccount)},
		{desc: "the payer itself", recipient: b.payer.PublicKey(), amount: 1, want: "payer itself"},
		{desc: "a memo that is not UTF-8", recipient: b.recipient, amount: 1, memo: "\xff", want: "UTF-8"},
		{desc: "a memo too long", recipient: b.recipient, amount: 1, memo: strings.Repeat("x", solana.MaxMemoBytes+1), want: "at most"},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			_, err := b.client.Prepare(t.Context(), tc.recipient, tc.amount, tc.memo)
			require.ErrorContains(t, err, tc.want)
		})
	}
	require.Zero(t, b.node.Calls("getLatestBlockhash"), "refused before a blockhash is fetched")
}

func TestNewRefusesABadConfig(t *testing.T) {
	t.Parallel()
	key := solana.NewKey()
	cases := []struct {
		desc string
		cfg  solana.Config
		want string
	}{
		{desc: "no URL", cfg: solana.Config{Payer: key}, want: "not an http(s) URL"},
		{desc: "websocket URL", cfg: solana.Config{RPCURL: "wss://api.mainnet-beta.solana.com", Payer: key}, want: "not an http(s) URL"},
		{desc: "no payer", cfg: solana.Config{RPCURL: "https://api.mainnet-beta.solana.com"}, want: "no payer key"},
		{desc: "processed commitment", cfg: solana.Config{RPCURL: "https://api.mainnet-beta.solana.com", Payer: key, Commitment: rpc.CommitmentProcessed}, want: "commitment"},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			_, err := solana.New(tc.cfg)
			require.ErrorContains(t, err, tc.want)
		})
	}
}
