package solana_test

import (
	"crypto/rand"
	"errors"
	"strings"
	"testing"

	solanago "github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/mr-tron/base58"
	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/billing/solana"
	"github.com/gpunex/gpunex/internal/billing/solana/solanatest"
	"github.com/gpunex/gpunex/internal/fault"
)

var (
	tokenProgram     = solanago.TokenProgramID
	token2022Program = solanago.Token2022ProgramID
)

// randomBase58 is base58 of n random bytes.
func randomBase58(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	b[0] |= 1 // no leading zero byte, which base58 writes as "1"
	return base58.Encode(b)
}

func TestParseWallet(t *testing.T) {
	t.Parallel()
	wallet := solana.NewKey().PublicKey()
	another := solana.NewKey().PublicKey()
	cases := []struct {
		desc    string
		in      string
		want    solana.PublicKey
		code    fault.ProblemCode
		message string // a part of the message, when refused
	}{
		{desc: "a wallet", in: wallet.String(), want: wallet},
		{desc: "another wallet", in: another.String(), want: another},
		{desc: "empty", in: "", code: fault.Required},
		{desc: "the mainnet USDC mint", in: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", code: fault.WalletIsMint, message: "is the USDC mint"},
		{desc: "the wallet's USDC account (derived, off the curve)", in: ata(t, wallet).String(), code: fault.WalletOffCurve, message: "give the wallet address, not a token account"},
		{desc: "the System program", in: "11111111111111111111111111111111", code: fault.WalletIsProgram, message: "System program"},
		{desc: "the SPL Token program", in: "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA", code: fault.WalletIsProgram, message: "SPL Token program"},
		{desc: "the Token-2022 program", in: "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb", code: fault.WalletIsProgram},
		{desc: "the Associated Token Account program", in: "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL", code: fault.WalletIsProgram},
		{desc: "base58 has no zero", in: "0" + wallet.String()[1:], code: fault.WalletNotBase58},
		{desc: "base58 has no capital O", in: "O" + wallet.String()[1:], code: fault.WalletNotBase58},
		{desc: "base58 has no lower-case l", in: wallet.String()[:43] + "l", code: fault.WalletNotBase58},
		{desc: "an Ethereum address", in: "0x52908400098527886E0F7030069857D2E4169EE7", code: fault.WalletEthereum, message: "is an Ethereum address"},
		{desc: "an Ethereum address in lower case", in: "0x52908400098527886e0f7030069857d2e4169ee7", code: fault.WalletEthereum},
		{desc: "0x and 39 hex digits is no Ethereum address", in: "0x52908400098527886E0F7030069857D2E4169EE", code: fault.WalletNotBase58},
		{desc: "31 bytes", in: randomBase58(31), code: fault.WalletWrongLength, message: "decodes to 31"},
		{desc: "33 bytes", in: randomBase58(33), code: fault.WalletWrongLength, message: "decodes to 33"},
		{desc: "a signature (64 bytes)", in: randomBase58(64), code: fault.WalletWrongLength},
		{desc: "a thousand characters", in: strings.Repeat("2", 1000), code: fault.WalletWrongLength},
		{desc: "a leading space", in: " " + wallet.String(), code: fault.WalletWhitespace},
		{desc: "a trailing line break", in: wallet.String() + "\n", code: fault.WalletWhitespace},
		{desc: "a space inside", in: wallet.String()[:20] + " " + wallet.String()[20:], code: fault.WalletWhitespace},
		{desc: "a tab", in: "\t" + wallet.String(), code: fault.WalletWhitespace},
		{desc: "a no-break space", in: wallet.String() + "\u00a0", code: fault.WalletWhitespace},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			got, err := solana.ParseWallet(tc.in, solana.USDCMint)
			if tc.code == "" {
				require.NoError(t, err)
				require.Equal(t, tc.want, got)
				return
			}
			var we *solana.WalletError
			require.ErrorAs(t, err, &we)
			require.Equal(t, tc.code, we.Code)
			require.Contains(t, we.Message, tc.message)
			require.Zero(t, got)
		})
	}
}

func TestParseWalletChecksAgainstTheGivenMint(t *testing.T) {
	t.Parallel()
	devnetMint := solana.NewKey().PublicKey()
	_, err := solana.ParseWallet(devnetMint.String(), devnetMint)
	require.ErrorContains(t, err, string(fault.WalletIsMint))
	_, err = solana.ParseWallet(solana.USDCMint.String(), devnetMint)
	require.NoError(t, err, "another cluster's mint is just an address there")
}

func TestWalletErrorIsAValidationProblem(t *testing.T) {
	t.Parallel()
	_, err := solana.ParseWallet("", solana.USDCMint)
	var we *solana.WalletError
	require.ErrorAs(t, err, &we)
	v := we.Validation("input.payoutWallet")
	require.Equal(t, fault.Invalid, fault.CodeOf(v))
	require.Equal(t, []fault.Problem{{Field: "input.payoutWallet", Code: fault.Required, Message: we.Message}}, v.Problems)

	_, err = solana.ParseWallet(strings.Repeat("2", 40)+"0", solana.USDCMint)
	require.ErrorAs(t, err, &we)
	require.Equal(t, fault.WalletNotBase58, we.Validation("w").Problems[0].Code, "the wallet's own code, for clients to translate")
}

func TestCheckNotTokenAccountAsksTheChain(t *testing.T) {
	t.Parallel()
	node := solanatest.New(t, solanatest.Config{Payer: solana.NewKey().PublicKey()})
	client := rpc.New(node.URL())
	t.Cleanup(func() { _ = client.Close() })

	accounts := map[string]solanatest.Account{
		"SPL Token account":     {Owner: tokenProgram, Lamports: 2_039_280},
		"Token-2022 account":    {Owner: token2022Program, Lamports: 2_074_080},
		"wallet with SOL":       {Owner: solanago.SystemProgramID, Lamports: 1_000_000_000},
		"program":               {Owner: solanago.BPFLoaderUpgradeableProgramID, Executable: true},
		"other program's state": {Owner: solanago.StakeProgramID, Lamports: 1},
	}
	keys := map[string]solana.PublicKey{"new wallet, never funded": solana.NewKey().PublicKey()}
	for desc, a := range accounts {
		keys[desc] = solana.NewKey().PublicKey()
		node.SetAccount(keys[desc], a)
	}
	cases := []struct {
		desc string
		code fault.ProblemCode
	}{
		{desc: "SPL Token account", code: fault.WalletTokenAccount},
		{desc: "Token-2022 account", code: fault.WalletTokenAccount},
		{desc: "program", code: fault.WalletNotSystemOwned},
		{desc: "other program's state", code: fault.WalletNotSystemOwned},
		{desc: "wallet with SOL"},
		{desc: "new wallet, never funded"},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			pk := keys[tc.desc]
			// Every one of them passes the offline checks: on the curve.
			_, err := solana.ParseWallet(pk.String(), solana.USDCMint)
			require.NoError(t, err)
			err = solana.CheckNotTokenAccount(t.Context(), client, pk)
			if tc.code == "" {
				require.NoError(t, err)
				return
			}
			var we *solana.WalletError
			require.ErrorAs(t, err, &we)
			require.Equal(t, tc.code, we.Code)
			if tc.code == fault.WalletTokenAccount {
				require.Contains(t, we.Message, "give the wallet address, not a token account")
			}
		})
	}
}

func TestCheckWalletParsesThenAsksTheChain(t *testing.T) {
	t.Parallel()
	b := setup(t, "")
	tokenAccount := solana.NewKey().PublicKey()
	b.node.SetAccount(tokenAccount, solanatest.Account{Owner: tokenProgram})

	got, err := b.client.CheckWallet(t.Context(), b.recipient.String())
	require.NoError(t, err)
	require.Equal(t, b.recipient, got)
	_, err = b.client.CheckWallet(t.Context(), tokenAccount.String())
	require.ErrorContains(t, err, string(fault.WalletTokenAccount))
	calls := b.node.Calls("getAccountInfo")
	_, err = b.client.CheckWallet(t.Context(), strings.Repeat("2", 40)+"0")
	require.ErrorContains(t, err, string(fault.WalletNotBase58))
	require.Equal(t, calls, b.node.Calls("getAccountInfo"), "refused offline, before asking the node")

	_, err = solana.New(solana.Config{RPCURL: "http://127.0.0.1:1", Payer: b.payer})
	require.NoError(t, err, "New does not dial")
	dead, err := solana.New(solana.Config{RPCURL: "http://127.0.0.1:1", Payer: b.payer})
	require.NoError(t, err)
	_, err = dead.CheckWallet(t.Context(), b.recipient.String())
	var we *solana.WalletError
	require.Error(t, err)
	require.False(t, errors.As(err, &we), "a node that cannot be reached is no verdict on the address")
}
