package solana_test

import (
	"testing"
	"time"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/billing/solana"
	"github.com/gpunex/gpunex/internal/billing/solana/solanatest"
)

// bundle is what a payout test works with: the fake node, a Client paying
// from payer through it, and a recipient wallet.
type bundle struct {
	node      *solanatest.Server
	client    *solana.Client
	payer     solana.Key
	recipient solana.PublicKey
}

// setup starts a node expecting payouts from a fresh payer and a Client on
// it at commitment (confirmed when empty), polling every millisecond.
func setup(t *testing.T, commitment rpc.CommitmentType) bundle {
	t.Helper()
	payer := solana.NewKey()
	node := solanatest.New(t, solanatest.Config{Payer: payer.PublicKey()})
	return bundle{
		node:      node,
		client:    newClient(t, node, payer, commitment),
		payer:     payer,
		recipient: solana.NewKey().PublicKey(),
	}
}

// newClient is a Client of node for payer, as a restarted process makes.
func newClient(t *testing.T, node *solanatest.Server, payer solana.Key, commitment rpc.CommitmentType) *solana.Client {
	t.Helper()
	c, err := solana.New(solana.Config{
		RPCURL:       node.URL(),
		Payer:        payer,
		Commitment:   commitment,
		PollInterval: time.Millisecond,
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// ata is wallet's USDC account.
func ata(t *testing.T, wallet solana.PublicKey) solana.PublicKey {
	t.Helper()
	a, err := solana.AssociatedTokenAddress(wallet, solana.USDCMint)
	require.NoError(t, err)
	return a
}
