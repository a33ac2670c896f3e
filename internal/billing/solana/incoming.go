package solana

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	solanago "github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// Money in: a customer pays a Solana Pay transfer request that carries a
// reference key made for it alone; the wallet appends the key to the
// transfer's accounts, so the node lists the transaction under it. These
// read what the chain says, and judge nothing: the deposit package's rules
// decide what a transaction is worth.

// NewReference makes a reference key for one transfer request: the
// public key of a fresh keypair (whose private half is dropped), as the
// Solana Pay spec suggests, so no two requests share one.
func NewReference() (PublicKey, error) {
	k, err := solanago.NewRandomPrivateKey()
	if err != nil {
		return PublicKey{}, fmt.Errorf("solana: reference: %w", err)
	}
	return k.PublicKey(), nil
}

// Mention is one transaction that names an address, as
// getSignaturesForAddress lists it.
type Mention struct {
	Signature string
	Slot      uint64
	// Finalized: at finalized commitment (else confirmed, which may still
	// be rolled back).
	Finalized bool
	// Failed: it landed with an error (nothing moved but the fee).
	Failed bool
}

// MaxMentions bounds the transactions Mentions lists for one address: a
// reference key belongs to one request, which few transactions answer.
const MaxMentions = 100

// Mentions lists the transactions naming address at confirmed
// commitment or above, newest first, at most MaxMentions.
func (c *Client) Mentions(ctx context.Context, address PublicKey) ([]Mention, error) {
	limit := MaxMentions
	out, err := c.rpc.GetSignaturesForAddressWithOpts(ctx, address, &rpc.GetSignaturesForAddressOpts{
		Limit:      &limit,
		Commitment: rpc.CommitmentConfirmed,
	})
	if err != nil {
		return nil, rpcError("getSignaturesForAddress", err)
	}
	ms := make([]Mention, 0, len(out))
	for _, s := range out {
		if s == nil {
			continue
		}
		ms = append(ms, Mention{
			Signature: s.Signature.String(),
			Slot:      s.Slot,
			Finalized: s.ConfirmationStatus == rpc.ConfirmationStatusFinalized,
			Failed:    s.Err != nil,
		})
	}
	return ms, nil
}

// Receipt is a finalized transaction as the chain recorded it: whether it
// failed, the accounts it names, when its block was made, and every token
// account's balance before and after it.
type Receipt struct {
	Signature string
	Slot      uint64
	// BlockTime is when its block was produced (nil: the node does not
	// know).
	BlockTime *time.Time
	// Err is its on-chain error in the node's JSON; empty when it
	// succeeded.
	Err string
	// AccountKeys are the accounts its message names, in order.
	AccountKeys []PublicKey
	// Tokens are the token accounts whose balances the node recorded.
	Tokens []TokenChange
}

// TokenChange is one token account's balance around a transaction, in
// the mint's base units (micro-USDC for USDC).
type TokenChange struct {
	Account, Mint, Owner PublicKey
	Pre, Post            uint64
}

// FinalizedSlot is the slot of the latest finalized block (getSlot at
// finalized): a slot the cluster can never roll back past.
func (c *Client) FinalizedSlot(ctx context.Context) (uint64, error) {
	slot, err := c.rpc.GetSlot(ctx, rpc.CommitmentFinalized)
	if err != nil {
		return 0, rpcError("getSlot", err)
	}
	return slot, nil
}

// FirstAvailableSlot is the oldest slot whose block the node still holds
// (getFirstAvailableBlock): a transaction older than it may be unknown to
// the node and yet on chain.
func (c *Client) FirstAvailableSlot(ctx context.Context) (uint64, error) {
	slot, err := c.rpc.GetFirstAvailableBlock(ctx)
	if err != nil {
		return 0, rpcError("getFirstAvailableBlock", err)
	}
	return slot, nil
}

// ErrNotFinal means the transaction is not (yet) finalized, or unknown.
var ErrNotFinal = errors.New("solana: the transaction is not finalized")

// Receipt reads signature's transaction at finalized commitment
// (getTransaction, base64, legacy and version 0 messages): ErrNotFinal
// when the node does not have it there yet.
func (c *Client) Receipt(ctx context.Context, signature string) (*Receipt, error) {
	sig, err := solanago.SignatureFromBase58(signature)
	if err != nil {
		return nil, fmt.Errorf("solana: receipt: signature %q: %w", signature, err)
	}
	version := uint64(0)
	out, err := c.rpc.GetTransaction(ctx, sig, &rpc.GetTransactionOpts{
		Encoding:                       solanago.EncodingBase64,
		Commitment:                     rpc.CommitmentFinalized,
		MaxSupportedTransactionVersion: &version,
	})
	if errors.Is(err, rpc.ErrNotFound) {
		return nil, ErrNotFinal
	}
	if err != nil {
		return nil, rpcError("getTransaction", err)
	}
	if out.Transaction == nil || out.Meta == nil {
		return nil, fmt.Errorf("solana: getTransaction %s: no transaction or meta in the answer", signature)
	}
	tx, err := out.Transaction.GetTransaction()
	if err != nil {
		return nil, fmt.Errorf("solana: getTransaction %s: %w", signature, err)
	}
	if len(tx.Signatures) == 0 || tx.Signatures[0] != sig {
		return nil, fmt.Errorf("solana: getTransaction %s answered another transaction", signature)
	}
	// A version 0 message may load more accounts from lookup tables; the
	// node lists them after the message's own, writable first.
	keys := append([]PublicKey{}, tx.Message.AccountKeys...)
	keys = append(keys, out.Meta.LoadedAddresses.Writable...)
	keys = append(keys, out.Meta.LoadedAddresses.ReadOnly...)
	r := &Receipt{Signature: signature, Slot: out.Slot, AccountKeys: keys}
	if out.BlockTime != nil {
		t := out.BlockTime.Time().UTC()
		r.BlockTime = &t
	}
	if out.Meta.Err != nil {
		b, err := json.Marshal(out.Meta.Err)
		if err != nil {
			b = fmt.Appendf(nil, "%v", out.Meta.Err)
		}
		r.Err = string(b)
	}
	if r.Tokens, err = tokenChanges(keys, out.Meta.PreTokenBalances, out.Meta.PostTokenBalances); err != nil {
		return nil, fmt.Errorf("solana: getTransaction %s: %w", signature, err)
	}
	return r, nil
}

// tokenChanges pairs the pre- and post-balances of each token account; an
// account missing on one side (opened or closed by the transaction) has
// zero there.
func tokenChanges(keys []PublicKey, pre, post []rpc.TokenBalance) ([]TokenChange, error) {
	var out []TokenChange
	at := map[uint16]int{}
	add := func(b rpc.TokenBalance, isPost bool) error {
		if int(b.AccountIndex) >= len(keys) {
			return fmt.Errorf("token balance of account %d of %d", b.AccountIndex, len(keys))
		}
		if b.UiTokenAmount == nil {
			return fmt.Errorf("token balance of account %d has no amount", b.AccountIndex)
		}
		n, err := strconv.ParseUint(b.UiTokenAmount.Amount, 10, 64)
		if err != nil {
			return fmt.Errorf("token balance of account %d: amount %q: %w", b.AccountIndex, b.UiTokenAmount.Amount, err)
		}
		i, ok := at[b.AccountIndex]
		if !ok {
			tc := TokenChange{Account: keys[b.AccountIndex], Mint: b.Mint}
			if b.Owner != nil {
				tc.Owner = *b.Owner
			}
			out = append(out, tc)
			i = len(out) - 1
			at[b.AccountIndex] = i
		}
		if isPost {
			out[i].Post = n
		} else {
			out[i].Pre = n
		}
		return nil
	}
	for _, b := range pre {
		if err := add(b, false); err != nil {
			return nil, err
		}
	}
	for _, b := range post {
		if err := add(b, true); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// DepositAccount is where deposits land: the associated token account of
// the platform's wallet (the payer) for the Client's mint.
func (c *Client) DepositAccount() (PublicKey, error) {
	return AssociatedTokenAddress(c.Payer(), c.mint)
}
