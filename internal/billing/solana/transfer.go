package solana

import (
	"fmt"
	"unicode/utf8"

	solanago "github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/token"
)

// createIdempotent is the associated-token-account program's instruction
// index for CreateIdempotent, which solana-go v1.14.0 lacks (it has only
// Create, index 0, which fails when the account exists). CreateIdempotent
// succeeds whether or not the recipient already has the account, so one
// transaction shape serves first and later payouts alike.
const createIdempotent = 1

// MaxMemoBytes bounds a payout's memo: it is a reference (a payout id),
// and the transaction must stay under Solana's 1,232-byte packet.
const MaxMemoBytes = 200

// transfer is what one payout transaction does.
type transfer struct {
	payer     PublicKey
	recipient PublicKey
	mint      PublicKey
	decimals  uint8
	amount    uint64
	memo      string
}

// instructions returns the payout's instructions, in the order the test
// server (and a reviewer reading an explorer) expects: create the
// recipient's token account if missing, paid by the payer; move amount of
// mint from the payer's token account to it; then the memo, if any.
func (t transfer) instructions() ([]solanago.Instruction, error) {
	source, err := AssociatedTokenAddress(t.payer, t.mint)
	if err != nil {
		return nil, fmt.Errorf("payer's token account: %w", err)
	}
	destination, err := AssociatedTokenAddress(t.recipient, t.mint)
	if err != nil {
		return nil, fmt.Errorf("recipient's token account: %w", err)
	}
	create := solanago.NewInstruction(ataProgramID, solanago.AccountMetaSlice{
		solanago.Meta(t.payer).WRITE().SIGNER(),
		solanago.Meta(destination).WRITE(),
		solanago.Meta(t.recipient),
		solanago.Meta(t.mint),
		solanago.Meta(systemProgramID),
		solanago.Meta(tokenProgramID),
	}, []byte{createIdempotent})
	move, err := token.NewTransferCheckedInstruction(t.amount, t.decimals, source, t.mint, destination, t.payer, nil).ValidateAndBuild()
	if err != nil {
		return nil, fmt.Errorf("transferChecked: %w", err)
	}
	ixs := []solanago.Instruction{create, move}
	if t.memo != "" {
		// Built by hand: solana-go's memo package prefixes the text with
		// its length, which the Memo program would keep as part of it.
		ixs = append(ixs, solanago.NewInstruction(memoProgramID, solanago.AccountMetaSlice{
			solanago.Meta(t.payer).SIGNER(),
		}, []byte(t.memo)))
	}
	return ixs, nil
}

// checkMemo refuses a memo the Memo program would reject (not UTF-8) or
// that could push the transaction over the packet size.
func checkMemo(memo string) error {
	if !utf8.ValidString(memo) {
		return fmt.Errorf("memo is not valid UTF-8")
	}
	if len(memo) > MaxMemoBytes {
		return fmt.Errorf("memo has %d bytes, at most %d", len(memo), MaxMemoBytes)
	}
	return nil
}
