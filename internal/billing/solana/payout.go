package solana

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	solanago "github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/gpunex/gpunex/models"
)

// Prepared is one signed payout transaction. The caller stores all of it
// (Signature, Raw, LastValidBlockHeight) durably before calling Send: after
// a crash it is everything Recover needs, and Raw is what is sent again.
type Prepared struct {
	// Signature is the transaction's id on chain (base58).
	Signature string
	// Raw is the serialized signed transaction, sent as is.
	Raw []byte
	// LastValidBlockHeight is the last block height at which the
	// transaction can still land; after it, it never can.
	LastValidBlockHeight uint64
}

// State is where a transaction stands, as Status reports it.
type State int

// The states of a transaction. Unknown is the zero value and comes only
// with an error, so ignoring the error never reads as NotFound.
const (
	// Unknown: the node could not be asked.
	Unknown State = iota
	// NotFound: the node knows no such transaction (yet, or ever).
	NotFound
	// Pending: processed in a block not yet at the Client's commitment.
	// It may still be dropped with its fork, or confirmed.
	Pending
	// Confirmed: landed without error at the commitment: paid.
	Confirmed
	// Failed: landed with an error at the commitment: nothing moved but
	// the fee, and this signature can never land again.
	Failed
)

// String returns the state's name.
func (s State) String() string {
	switch s {
	case NotFound:
		return "not found"
	case Pending:
		return "pending"
	case Confirmed:
		return "confirmed"
	case Failed:
		return "failed"
	}
	return "unknown"
}

// Status is a transaction's State with what the node said about it.
type Status struct {
	State State
	// Slot is the slot it was processed in (Pending, Confirmed, Failed).
	Slot uint64
	// Err is the on-chain error of a Failed transaction as the node gives
	// it, in JSON: {"InstructionError":[1,{"Custom":1}]} is instruction 1
	// (TransferChecked) failing with SPL Token's InsufficientFunds.
	Err string
}

// Prepare builds and signs one payout of amount (micro-USDC, more than
// zero) to the wallet recipient: CreateIdempotent of the recipient's
// associated token account (the payer funds it if it is missing), then
// TransferChecked from the payer's associated token account, then the memo
// (the payout's reference) if memo is not empty. It applies ParseWallet's
// rules to recipient and asks the node that it is no token account, then
// fetches a recent blockhash. Nothing is sent: store the result, then Send.
func (c *Client) Prepare(ctx context.Context, recipient PublicKey, amount models.USDC, memo string) (*Prepared, error) {
	if amount <= 0 {
		return nil, fmt.Errorf("solana: prepare: amount %d micro-USDC, want more than zero", amount)
	}
	if err := checkWallet(recipient, c.mint); err != nil {
		return nil, fmt.Errorf("solana: prepare: %w", err)
	}
	if recipient == c.Payer() {
		return nil, errors.New("solana: prepare: the recipient is the payer itself")
	}
	if err := checkMemo(memo); err != nil {
		return nil, fmt.Errorf("solana: prepare: %w", err)
	}
	if err := CheckNotTokenAccount(ctx, c.rpc, recipient); err != nil {
		return nil, fmt.Errorf("solana: prepare: %w", err)
	}
	ixs, err := transfer{
		payer: c.Payer(), recipient: recipient, mint: c.mint,
		decimals: c.decimals, amount: uint64(amount), memo: memo,
	}.instructions()
	if err != nil {
		return nil, fmt.Errorf("solana: prepare: %w", err)
	}
	latest, err := c.rpc.GetLatestBlockhash(ctx, c.commitment)
	if err != nil {
		return nil, rpcError("getLatestBlockhash", err)
	}
	if latest == nil || latest.Value == nil {
		return nil, errors.New("solana: getLatestBlockhash: empty answer")
	}
	tx, err := solanago.NewTransaction(ixs, latest.Value.Blockhash, solanago.TransactionPayer(c.Payer()))
	if err != nil {
		return nil, fmt.Errorf("solana: prepare: %w", err)
	}
	payer := c.Payer()
	if _, err := tx.Sign(func(pk PublicKey) *solanago.PrivateKey {
		if pk == payer {
			return c.payer.private()
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("solana: prepare: sign: %w", err)
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("solana: prepare: encode: %w", err)
	}
	return &Prepared{
		Signature:            tx.Signatures[0].String(),
		Raw:                  raw,
		LastValidBlockHeight: latest.Value.LastValidBlockHeight,
	}, nil
}

// Send submits p's stored bytes (sendTransaction, base64, with preflight at
// the Client's commitment). Sending the same Prepared again is safe: the
// signature is the transaction's id, so it lands at most once, and a node
// that answers it is already processed counts as success here. An error
// means it may or may not have reached the cluster: ask Recover, never
// Prepare anew on the strength of a send error alone.
func (c *Client) Send(ctx context.Context, p *Prepared) error {
	if p == nil || len(p.Raw) == 0 {
		return errors.New("solana: send: nothing prepared")
	}
	sig, err := c.rpc.SendRawTransactionWithOpts(ctx, p.Raw, rpc.TransactionOpts{
		PreflightCommitment: c.commitment,
	})
	if err != nil {
		err = rpcError("sendTransaction", err)
		if re, ok := errors.AsType[*RPCError](err); ok && re.alreadyProcessed() {
			c.log.InfoContext(ctx, "solana payout already on chain", "signature", p.Signature)
			return nil
		}
		c.log.WarnContext(ctx, "solana payout send failed", "signature", p.Signature, "error", err)
		return err
	}
	if sig.String() != p.Signature {
		return fmt.Errorf("solana: send: the node answered signature %s for %s", sig, p.Signature)
	}
	c.log.InfoContext(ctx, "solana payout sent", "signature", p.Signature)
	return nil
}

// Status asks the node about signature (getSignatureStatuses with
// searchTransactionHistory, so an old transaction is found too). A
// transaction processed below the Client's commitment is Pending, even if
// it failed there: its fork may be dropped and it may land elsewhere.
func (c *Client) Status(ctx context.Context, signature string) (Status, error) {
	sig, err := solanago.SignatureFromBase58(signature)
	if err != nil {
		return Status{}, fmt.Errorf("solana: status: signature %q: %w", signature, err)
	}
	out, err := c.rpc.GetSignatureStatuses(ctx, true, sig)
	if err != nil {
		return Status{}, rpcError("getSignatureStatuses", err)
	}
	if len(out.Value) != 1 {
		return Status{}, fmt.Errorf("solana: getSignatureStatuses: %d answers for one signature", len(out.Value))
	}
	return statusOf(out.Value[0], c.commitment)
}

// statusOf maps one getSignatureStatuses answer at commitment.
func statusOf(v *rpc.SignatureStatusesResult, commitment rpc.CommitmentType) (Status, error) {
	if v == nil {
		return Status{State: NotFound}, nil
	}
	level := v.ConfirmationStatus
	if level == "" {
		// Nodes before 1.5.5 omit it; null confirmations means rooted.
		level = rpc.ConfirmationStatusProcessed
		if v.Confirmations == nil {
			level = rpc.ConfirmationStatusFinalized
		}
	}
	reached := level == rpc.ConfirmationStatusFinalized ||
		(level == rpc.ConfirmationStatusConfirmed && commitment == rpc.CommitmentConfirmed)
	if !reached {
		return Status{State: Pending, Slot: v.Slot}, nil
	}
	if v.Err != nil {
		b, err := json.Marshal(v.Err)
		if err != nil {
			b = fmt.Appendf(nil, "%v", v.Err)
		}
		return Status{State: Failed, Slot: v.Slot, Err: string(b)}, nil
	}
	return Status{State: Confirmed, Slot: v.Slot}, nil
}

// Expired reports whether p can no longer land: the finalized block height
// is past p.LastValidBlockHeight. Finalized, not the Client's commitment,
// because only a finalized height can never be rolled back to one at
// which p is still valid.
func (c *Client) Expired(ctx context.Context, p *Prepared) (bool, error) {
	h, err := c.rpc.GetBlockHeight(ctx, rpc.CommitmentFinalized)
	if err != nil {
		return false, rpcError("getBlockHeight", err)
	}
	return h > p.LastValidBlockHeight, nil
}

// Action is what the recovery protocol says to do with a stored Prepared.
type Action int

// The actions of the recovery protocol (see the package documentation).
const (
	// ActionNone is the zero value, returned only with an error.
	ActionNone Action = iota
	// ActionPaid: Confirmed. Record the payout as paid.
	ActionPaid
	// ActionFailed: Failed on chain. Record the failure with Status.Err;
	// a new transaction is safe once its cause is fixed.
	ActionFailed
	// ActionWait: Pending. Look again later.
	ActionWait
	// ActionResend: not on chain, not expired. Send the stored Prepared
	// again (never a new one: the old one may still land).
	ActionResend
	// ActionRebuild: not on chain and expired, so it never will be.
	// Prepare a new transaction, store it, Send it.
	ActionRebuild
)

// String returns the action's name.
func (a Action) String() string {
	switch a {
	case ActionPaid:
		return "paid"
	case ActionFailed:
		return "failed"
	case ActionWait:
		return "wait"
	case ActionResend:
		return "resend"
	case ActionRebuild:
		return "rebuild"
	}
	return "none"
}

// Recover applies the recovery protocol to a stored Prepared: it reads the
// block height first and the signature's status second, and says what to
// do. The order matters: had the status been read first, p could land
// between the two reads (NotFound, then expired, yet paid); read after
// expiry, NotFound is final.
func (c *Client) Recover(ctx context.Context, p *Prepared) (Action, Status, error) {
	expired, err := c.Expired(ctx, p)
	if err != nil {
		return ActionNone, Status{}, err
	}
	st, err := c.Status(ctx, p.Signature)
	if err != nil {
		return ActionNone, Status{}, err
	}
	switch st.State {
	case Confirmed:
		return ActionPaid, st, nil
	case Failed:
		return ActionFailed, st, nil
	case Pending:
		return ActionWait, st, nil
	case NotFound:
		if expired {
			return ActionRebuild, st, nil
		}
		return ActionResend, st, nil
	}
	return ActionNone, st, fmt.Errorf("solana: recover: unexpected state %s", st.State)
}

// WaitConfirmed follows the recovery protocol for p until it ends or
// timeout passes, sending p's bytes again whenever the node does not know
// it and it has not expired (nodes drop transactions; re-sending the same
// bytes is safe). It returns nil once p is Confirmed, an error wrapping
// ErrFailed (with the on-chain error) if it failed, one wrapping
// ErrExpired if it can never land (Prepare anew), and otherwise, at the
// timeout or when ctx ends, the context's error with the last problem seen:
// the outcome is then unknown and the caller keeps p for later recovery.
func (c *Client) WaitConfirmed(ctx context.Context, p *Prepared, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last error
	for {
		action, st, err := c.Recover(ctx, p)
		switch {
		case err != nil:
			last = err
		case action == ActionPaid:
			return nil
		case action == ActionFailed:
			return fmt.Errorf("%w: %s: %s", ErrFailed, p.Signature, st.Err)
		case action == ActionRebuild:
			return fmt.Errorf("%w: %s", ErrExpired, p.Signature)
		case action == ActionResend:
			if err := c.Send(ctx, p); err != nil {
				last = err
			}
		}
		select {
		case <-ctx.Done():
			if last != nil {
				return fmt.Errorf("solana: wait for %s: %w (last: %w)", p.Signature, ctx.Err(), last)
			}
			return fmt.Errorf("solana: wait for %s: %w", p.Signature, ctx.Err())
		case <-time.After(c.poll):
		}
	}
}
