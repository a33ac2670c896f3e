package solana

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"filippo.io/edwards25519"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/mr-tron/base58"

	"github.com/gpunex/gpunex/internal/fault"
)

// WalletError is a refused payout address: a stable Code and an English
// Message that says what to give instead. It never carries the input
// beyond what the message quotes.
type WalletError struct {
	Code    fault.ProblemCode
	Message string
}

// Error returns the code and the message.
func (e *WalletError) Error() string { return string(e.Code) + ": " + e.Message }

// Validation returns e as one problem with field, so a resolver presents it
// as a userError through internal/fault like any other validation problem
// (the fine-grained Code stays in the message's place for logs).
func (e *WalletError) Validation(field string) *fault.Validation {
	v := &fault.Validation{}
	v.Add(field, e.Code, e.Message)
	return v
}

func walletErr(code fault.ProblemCode, format string, args ...any) *WalletError {
	return &WalletError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ethereumAddress is what an Ethereum address looks like: 0x and 40 hex
// digits (any case: EIP-55's checksum is in the case).
var ethereumAddress = regexp.MustCompile(`^0[xX][0-9a-fA-F]{40}$`)

// minWalletChars is the fewest characters 32 bytes take in base58 (32
// zero bytes: the System program's id).
const minWalletChars = 32

// maxWalletChars bounds the input before base58 decoding, whose cost grows
// with the square of the length: 32 bytes are at most 44 characters.
const maxWalletChars = 64

// ParseWallet reads a payout wallet address for USDC of mint: base58 of
// exactly 32 bytes that is a point on the ed25519 curve (a key someone
// holds), neither mint itself nor a well-known program id. An associated
// token account is off the curve and refused with a message asking for the
// wallet address instead. A token account created from a keypair is on
// the curve; only the chain can tell it apart (CheckNotTokenAccount).
// Errors are *WalletError.
func ParseWallet(s string, mint PublicKey) (PublicKey, error) {
	if s == "" {
		return PublicKey{}, walletErr(fault.Required, "a Solana wallet address is required")
	}
	if strings.IndexFunc(s, unicode.IsSpace) >= 0 {
		return PublicKey{}, walletErr(fault.WalletWhitespace, "the wallet address contains spaces or line breaks; paste only the address")
	}
	if ethereumAddress.MatchString(s) {
		return PublicKey{}, walletErr(fault.WalletEthereum, "%s is an Ethereum address; payouts are USDC on Solana: give your Solana wallet's address", s)
	}
	if len(s) > maxWalletChars || len(s) < minWalletChars {
		return PublicKey{}, walletErr(fault.WalletWrongLength, "a Solana address has 32 to 44 characters, this has %d", len(s))
	}
	b, err := base58.Decode(s)
	if err != nil {
		return PublicKey{}, walletErr(fault.WalletNotBase58, "the wallet address is not base58 (letters and digits without 0, O, I and l)")
	}
	if len(b) != len(PublicKey{}) {
		return PublicKey{}, walletErr(fault.WalletWrongLength, "a Solana address is 32 bytes, this decodes to %d", len(b))
	}
	pk := PublicKey(b)
	if err := checkWallet(pk, mint); err != nil {
		return PublicKey{}, err
	}
	return pk, nil
}

// checkWallet applies ParseWallet's rules to a decoded key; Prepare applies
// them again so a payout never goes to an address the parser would refuse.
func checkWallet(pk, mint PublicKey) error {
	if pk == mint {
		return walletErr(fault.WalletIsMint, "%s is the USDC mint, not a wallet; give the address of the wallet that should receive USDC", pk)
	}
	if name, ok := wellKnownPrograms[pk]; ok {
		return walletErr(fault.WalletIsProgram, "%s is the %s program, not a wallet; give the address of the wallet that should receive USDC", pk, name)
	}
	if !onCurve(pk) {
		return walletErr(fault.WalletOffCurve, "%s is not a wallet's address: no one holds a key for it. Check it for a typo, or if it is a token account, give the wallet address, not a token account", pk)
	}
	return nil
}

// wellKnownPrograms are ids a wallet field must never hold. The System
// program's id (32 zero bytes) is even on the curve.
var wellKnownPrograms = map[PublicKey]string{
	systemProgramID: "System",
	tokenProgramID:  "SPL Token",
	token2022ID:     "Token-2022",
	ataProgramID:    "Associated Token Account",
	memoProgramID:   "Memo",
}

// onCurve reports whether pk decodes to an ed25519 point, as the runtime's
// is_on_curve does (curve25519-dalek's decompress, which like
// edwards25519.Point.SetBytes accepts non-canonical encodings).
func onCurve(pk PublicKey) bool {
	_, err := new(edwards25519.Point).SetBytes(pk[:])
	return err == nil
}

// CheckNotTokenAccount asks the node (getAccountInfo) who owns pk and
// refuses an account of the SPL Token or Token-2022 program
// (fault.WalletTokenAccount), a program, or an account of any other program
// (fault.WalletNotSystemOwned): a wallet is owned by the System program, or does
// not exist yet, which is fine (the payout creates its token account).
// Errors other than *WalletError are the node's.
func CheckNotTokenAccount(ctx context.Context, client *rpc.Client, pk PublicKey) error {
	res, err := client.GetAccountInfo(ctx, pk)
	if errors.Is(err, rpc.ErrNotFound) {
		return nil
	}
	if err != nil {
		return rpcError("getAccountInfo", err)
	}
	acct := res.Value
	switch {
	case acct.Owner == tokenProgramID || acct.Owner == token2022ID:
		return walletErr(fault.WalletTokenAccount, "%s is a token account, not a wallet; give the wallet address, not a token account", pk)
	case acct.Executable:
		return walletErr(fault.WalletNotSystemOwned, "%s is a program, not a wallet; give the address of the wallet that should receive USDC", pk)
	case acct.Owner != systemProgramID:
		return walletErr(fault.WalletNotSystemOwned, "%s belongs to program %s, not to a wallet; give the address of the wallet that should receive USDC", pk, acct.Owner)
	}
	return nil
}
