package solanatest_test

import (
	"testing"

	solana "github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/programs/token"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/billing/solana/solanatest"
	"github.com/gpunex/gpunex/models"
)

// payout describes one hand-built transaction: a correct payout unless a
// field says otherwise. Built here with solana-go alone, not with package
// solana, so these tests show what the server refuses on its own.
type payout struct {
	payer, other solana.PrivateKey
	recipient    solana.PublicKey
	blockhash    solana.Hash

	mint          solana.PublicKey
	decimals      uint8
	amount        uint64
	destination   *solana.PublicKey
	source        *solana.PublicKey
	authority     *solana.PrivateKey
	feePayer      *solana.PrivateKey
	createData    []byte
	noCreate      bool
	plainTransfer bool
	extra         solana.Instruction
	signer        *solana.PrivateKey // signs for the payer's key instead
	zeroSignature bool
	tamper        bool // flip a byte of the message after signing
}

func (p payout) raw(t *testing.T) []byte {
	t.Helper()
	mint := p.mint
	if mint.IsZero() {
		mint = solanatest.USDCMint
	}
	decimals := p.decimals
	if decimals == 0 {
		decimals = 6
	}
	authority := p.payer
	if p.authority != nil {
		authority = *p.authority
	}
	feePayer := p.payer
	if p.feePayer != nil {
		feePayer = *p.feePayer
	}
	ata := func(wallet solana.PublicKey) solana.PublicKey {
		a, _, err := solana.FindAssociatedTokenAddress(wallet, mint)
		require.NoError(t, err)
		return a
	}
	destination, source := ata(p.recipient), ata(authority.PublicKey())
	if p.destination != nil {
		destination = *p.destination
	}
	if p.source != nil {
		source = *p.source
	}
	createData := []byte{1}
	if p.createData != nil {
		createData = p.createData
	}

	var ixs []solana.Instruction
	if !p.noCreate {
		ixs = append(ixs, solana.NewInstruction(solana.SPLAssociatedTokenAccountProgramID, solana.AccountMetaSlice{
			solana.Meta(feePayer.PublicKey()).WRITE().SIGNER(),
			solana.Meta(ata(p.recipient)).WRITE(),
			solana.Meta(p.recipient),
			solana.Meta(mint),
			solana.Meta(solana.SystemProgramID),
			solana.Meta(solana.TokenProgramID),
		}, createData))
	}
	if p.plainTransfer {
		ixs = append(ixs, token.NewTransferInstruction(p.amount, source, destination, authority.PublicKey(), nil).Build())
	} else {
		ixs = append(ixs, token.NewTransferCheckedInstruction(p.amount, decimals, source, mint, destination, authority.PublicKey(), nil).Build())
	}
	if p.extra != nil {
		ixs = append(ixs, p.extra)
	}
	tx, err := solana.NewTransaction(ixs, p.blockhash, solana.TransactionPayer(feePayer.PublicKey()))
	require.NoError(t, err)
	keys := map[solana.PublicKey]solana.PrivateKey{feePayer.PublicKey(): feePayer, authority.PublicKey(): authority}
	if p.signer != nil {
		keys[p.payer.PublicKey()] = *p.signer
	}
	_, err = tx.PartialSign(func(pk solana.PublicKey) *solana.PrivateKey {
		if p.zeroSignature {
			return nil
		}
		k, ok := keys[pk]
		if !ok {
			return nil
		}
		return &k
	})
	require.NoError(t, err)
	raw, err := tx.MarshalBinary()
	require.NoError(t, err)
	if p.tamper {
		raw[len(raw)-2] ^= 1 // inside TransferChecked's amount
	}
	return raw
}

// bundle is a server expecting payouts from payer, an RPC client of it,
// and a valid payout to start each case from.
type bundle struct {
	node   *solanatest.Server
	client *rpc.Client
	valid  payout
}

func setup(t *testing.T) bundle {
	t.Helper()
	payer, err := solana.NewRandomPrivateKey()
	require.NoError(t, err)
	other, err := solana.NewRandomPrivateKey()
	require.NoError(t, err)
	node := solanatest.New(t, solanatest.Config{Payer: payer.PublicKey()})
	client := rpc.New(node.URL())
	t.Cleanup(func() { _ = client.Close() })
	latest, err := client.GetLatestBlockhash(t.Context(), rpc.CommitmentConfirmed)
	require.NoError(t, err)
	return bundle{node: node, client: client, valid: payout{
		payer: payer, other: other,
		recipient: solana.NewWallet().PublicKey(),
		blockhash: latest.Value.Blockhash,
		amount:    1_250_000,
	}}
}

func (b bundle) send(t *testing.T, raw []byte) (solana.Signature, error) {
	t.Helper()
	return b.client.SendRawTransactionWithOpts(t.Context(), raw, rpc.TransactionOpts{})
}

func TestServerAcceptsACorrectPayoutAndRecordsIt(t *testing.T) {
	t.Parallel()
	b := setup(t)
	p := b.valid
	p.extra = solana.NewInstruction(solana.MemoProgramID, solana.AccountMetaSlice{solana.Meta(p.payer.PublicKey()).SIGNER()}, []byte("payout 1"))
	sig, err := b.send(t, p.raw(t))
	require.NoError(t, err)

	got := b.node.Transfers()
	require.Len(t, got, 1)
	ata, _, err := solana.FindAssociatedTokenAddress(p.recipient, solanatest.USDCMint)
	require.NoError(t, err)
	require.Equal(t, solanatest.Transfer{
		Signature: sig.String(), Recipient: p.recipient, Destination: ata,
		Mint: solanatest.USDCMint, Amount: models.USDC(1_250_000), Memo: "payout 1",
		Slot: got[0].Slot,
	}, got[0])
	require.Empty(t, b.node.Rejections())
}

func TestServerCountsASignatureOnceHoweverOftenSent(t *testing.T) {
	t.Parallel()
	b := setup(t)
	raw := b.valid.raw(t)
	_, err := b.send(t, raw)
	require.NoError(t, err)
	_, err = b.send(t, raw)
	require.ErrorContains(t, err, "already been processed")
	require.Len(t, b.node.Transfers(), 1)
}

func TestServerRefusesInvalidTransactions(t *testing.T) {
	t.Parallel()
	b := setup(t)
	v := b.valid
	otherMint := solana.NewWallet().PublicKey()
	attacker := solana.NewWallet().PublicKey()
	attackerATA, _, err := solana.FindAssociatedTokenAddress(attacker, solanatest.USDCMint)
	require.NoError(t, err)
	recipientWallet := v.recipient
	pda, _, err := solana.FindAssociatedTokenAddress(solana.NewWallet().PublicKey(), solanatest.USDCMint)
	require.NoError(t, err)
	unknownHash := solana.Hash{1, 2, 3}
	payerATA, _, err := solana.FindAssociatedTokenAddress(v.payer.PublicKey(), solanatest.USDCMint)
	require.NoError(t, err)

	cases := []struct {
		desc   string
		change func(p *payout)
		reason string
	}{
		{desc: "wrong mint", change: func(p *payout) { p.mint = otherMint }, reason: "mint"},
		{desc: "wrong decimals", change: func(p *payout) { p.decimals = 2 }, reason: "TransferChecked states 2 decimals, want 6"},
		{desc: "destination is the wallet, not its token account", change: func(p *payout) { p.destination = &recipientWallet }, reason: "TransferChecked's destination"},
		{desc: "destination is someone else's token account", change: func(p *payout) { p.destination = &attackerATA }, reason: "TransferChecked's destination"},
		{desc: "source is not the payer's token account", change: func(p *payout) { p.source = &attackerATA }, reason: "TransferChecked's source"},
		{desc: "unsigned", change: func(p *payout) { p.zeroSignature = true }, reason: "signature verification failure"},
		{desc: "signed by another key", change: func(p *payout) { p.signer = &p.other }, reason: "signature verification failure"},
		{desc: "changed after signing", change: func(p *payout) { p.tamper = true }, reason: "signature verification failure"},
		{desc: "another fee payer", change: func(p *payout) { p.feePayer = &p.other }, reason: "fee payer"},
		{desc: "another authority", change: func(p *payout) { p.authority, p.source = &p.other, &payerATA }, reason: "TransferChecked's authority"},
		{desc: "Create instead of CreateIdempotent", change: func(p *payout) { p.createData = []byte{} }, reason: "want CreateIdempotent"},
		{desc: "no CreateIdempotent", change: func(p *payout) { p.noCreate = true }, reason: "programs"},
		{desc: "Transfer instead of TransferChecked", change: func(p *payout) { p.plainTransfer = true }, reason: "want TransferChecked"},
		{desc: "zero amount", change: func(p *payout) { p.amount = 0 }, reason: "amount 0"},
		{desc: "an extra SOL transfer", change: func(p *payout) {
			p.extra = system.NewTransferInstruction(1, p.payer.PublicKey(), attacker).Build()
		}, reason: "programs"},
		{desc: "a recipient off the curve", change: func(p *payout) { p.recipient = pda }, reason: "off the curve"},
		{desc: "an unknown blockhash", change: func(p *payout) { p.blockhash = unknownHash }, reason: "Blockhash not found"},
	}
	for i, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			p := v
			p.amount += uint64(i) // a distinct transaction per case
			tc.change(&p)
			_, err := b.send(t, p.raw(t))
			require.ErrorContains(t, err, tc.reason)
			rejected := b.node.Rejections()
			require.NotEmpty(t, rejected)
			require.Contains(t, rejected[len(rejected)-1].Reason, tc.reason)
		})
	}
	require.Empty(t, b.node.Transfers())
	require.Len(t, b.node.Rejections(), len(cases))
}

func TestServerRefusesAnExpiredBlockhash(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.node.ExpireBlockhashes()
	_, err := b.send(t, b.valid.raw(t))
	require.ErrorContains(t, err, "Blockhash not found")
	require.Empty(t, b.node.Transfers())
}

func TestServerFaults(t *testing.T) {
	t.Parallel()
	status := func(t *testing.T, b bundle, sig solana.Signature) *rpc.SignatureStatusesResult {
		t.Helper()
		out, err := b.client.GetSignatureStatuses(t.Context(), true, sig)
		require.NoError(t, err)
		return out.Value[0]
	}
	t.Run("Drop returns the signature and never lands it", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.node.Drop()
		raw := b.valid.raw(t)
		sig, err := b.send(t, raw)
		require.NoError(t, err)
		require.Nil(t, status(t, b, sig))
		require.Empty(t, b.node.Transfers())
		_, err = b.send(t, raw)
		require.NoError(t, err, "sent again, it lands")
		require.NotNil(t, status(t, b, sig))
		require.Len(t, b.node.Transfers(), 1)
	})
	t.Run("Delay answers processed for n polls", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.node.Delay(2)
		sig, err := b.send(t, b.valid.raw(t))
		require.NoError(t, err)
		require.Equal(t, rpc.ConfirmationStatusProcessed, status(t, b, sig).ConfirmationStatus)
		require.Equal(t, rpc.ConfirmationStatusProcessed, status(t, b, sig).ConfirmationStatus)
		require.Equal(t, rpc.ConfirmationStatusFinalized, status(t, b, sig).ConfirmationStatus)
		require.Equal(t, 3, b.node.Lookups(sig.String()))
	})
	t.Run("Confirm ends a Delay at the next poll", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.node.Delay(1 << 30)
		sig, err := b.send(t, b.valid.raw(t))
		require.NoError(t, err)
		require.Equal(t, rpc.ConfirmationStatusProcessed, status(t, b, sig).ConfirmationStatus)
		require.Equal(t, []string{sig.String()}, b.node.Held())
		b.node.Confirm()
		require.Empty(t, b.node.Held())
		require.Equal(t, rpc.ConfirmationStatusFinalized, status(t, b, sig).ConfirmationStatus)
		require.Equal(t, 2, b.node.Lookups(sig.String()))
		require.Zero(t, b.node.Lookups(solana.Signature{}.String()), "a signature never asked about")
	})
	t.Run("Fail refuses the next send only", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.node.Fail()
		raw := b.valid.raw(t)
		_, err := b.send(t, raw)
		require.ErrorContains(t, err, "unhealthy")
		_, err = b.send(t, raw)
		require.NoError(t, err)
		require.Len(t, b.node.Transfers(), 1)
	})
	t.Run("FailOnChain lands with an instruction error and pays nothing", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.node.FailOnChain()
		sig, err := b.send(t, b.valid.raw(t))
		require.NoError(t, err)
		st := status(t, b, sig)
		require.NotNil(t, st.Err)
		require.Empty(t, b.node.Transfers())
	})
	t.Run("the status cache forgets without searchTransactionHistory", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		raw := b.valid.raw(t)
		sig, err := b.send(t, raw)
		require.NoError(t, err)
		b.node.AdvanceBlocks(solanatest.StatusCacheBlocks + 1)
		out, err := b.client.GetSignatureStatuses(t.Context(), false, sig)
		require.NoError(t, err)
		require.Nil(t, out.Value[0])
		require.NotNil(t, status(t, b, sig))
	})
}

func TestServerAnswersUnknownMethodsWithAnError(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, err := b.client.GetBalance(t.Context(), solana.NewWallet().PublicKey(), rpc.CommitmentConfirmed)
	require.ErrorContains(t, err, "Method not found")
}
