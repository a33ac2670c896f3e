package models

import (
	"time"

	"github.com/uptrace/bun"
)

// DepositState is where a customer's deposit request stands.
type DepositState string

// The deposit states. A request is WAITING until a transfer answering it
// is seen on chain, SEEN while that transfer is not yet finalized and
// checked, CREDITED once something it brought was credited, and EXPIRED
// when its time ran out with nothing credited (a transfer that still
// arrives later is credited all the same, and said to be late).
const (
	DepositWaiting  DepositState = "WAITING"
	DepositSeen     DepositState = "SEEN"
	DepositCredited DepositState = "CREDITED"
	DepositExpired  DepositState = "EXPIRED"
)

// Deposit is one Solana Pay transfer request of a customer: USDC to the
// platform's wallet, found on chain by Reference, a public key made for
// this request alone.
type Deposit struct {
	bun.BaseModel `bun:"table:deposits,alias:d"`

	ID     int64 `bun:"id,pk,autoincrement"`
	UserID int64 `bun:"user_id,notnull"`
	// Reference is the request's reference key, base58.
	Reference string `bun:"reference,notnull"`
	// Amount is what was asked; nil: an open amount.
	Amount *USDC        `bun:"amount_micros"`
	State  DepositState `bun:"state,notnull"`
	// Credited is what the request's transfers have credited so far.
	Credited  USDC      `bun:"credited_micros,notnull"`
	CreatedAt time.Time `bun:"created_at,notnull"`
	// ExpiresAt is when the request lapses: a transfer arriving after it
	// is still credited, and said to be late.
	ExpiresAt time.Time `bun:"expires_at,notnull"`
	// FollowUntil is how long the chain is still asked about the request.
	FollowUntil time.Time `bun:"follow_until,notnull"`
	UpdatedAt   time.Time `bun:"updated_at,notnull"`

	// Transfers are the transactions found answering the request, oldest
	// first (loaded with the request).
	Transfers []*DepositTransfer `bun:"rel:has-many,join:id=deposit_id"`
}

// DepositTransferState is where one transaction answering a deposit
// request stands.
type DepositTransferState string

// The transfer states: SEEN (found on chain, not yet finalized and
// checked), CREDITED (what arrived was credited, once) and REFUSED
// (nothing of it could be credited; Issue says why).
const (
	DepositTransferSeen     DepositTransferState = "SEEN"
	DepositTransferCredited DepositTransferState = "CREDITED"
	DepositTransferRefused  DepositTransferState = "REFUSED"
)

// DepositIssue is what was wrong with a transfer answering a deposit
// request.
type DepositIssue string

// The issues. A credited transfer may have arrived for another amount
// than asked (UNDERPAID, OVERPAID: what arrived was credited). A refused
// one failed on chain, moved another token, paid another account, or
// brought nothing to the platform's account, or was seen on a fork the
// cluster dropped and can no longer land (NEVER_FINALIZED).
const (
	DepositUnderpaid        DepositIssue = "UNDERPAID"
	DepositOverpaid         DepositIssue = "OVERPAID"
	DepositFailedOnChain    DepositIssue = "FAILED_ON_CHAIN"
	DepositWrongMint        DepositIssue = "WRONG_MINT"
	DepositWrongDestination DepositIssue = "WRONG_DESTINATION"
	DepositNothingArrived   DepositIssue = "NOTHING_ARRIVED"
	DepositNeverFinalized   DepositIssue = "NEVER_FINALIZED"
)

// DepositTransfer is one transaction found answering a deposit request,
// unique by Signature: whatever replica finds it, however often, it is
// credited at most once.
type DepositTransfer struct {
	bun.BaseModel `bun:"table:deposit_transfers,alias:dt"`

	ID        int64                `bun:"id,pk,autoincrement"`
	DepositID int64                `bun:"deposit_id,notnull"`
	Signature string               `bun:"signature,notnull"`
	State     DepositTransferState `bun:"state,notnull"`
	// Amount is what arrived in the platform's USDC account (credited
	// when CREDITED).
	Amount USDC `bun:"amount_micros,notnull"`
	// Late is set when the transaction's block came after the request
	// expired.
	Late  bool          `bun:"late,notnull"`
	Issue *DepositIssue `bun:"issue"`
	Slot  int64         `bun:"slot,notnull"`
	// LedgerTransactionID is the DEPOSIT posting that credited it.
	LedgerTransactionID *int64     `bun:"ledger_transaction_id"`
	SeenAt              time.Time  `bun:"seen_at,notnull"`
	SettledAt           *time.Time `bun:"settled_at"`
}

// DepositPayment is how to pay a deposit request: the Solana Pay
// transfer request URL a wallet opens (or scans as a QR code), and its
// parts for paying by hand.
type DepositPayment struct {
	URL string
	// Recipient is the platform's wallet; the USDC lands in its
	// associated token account for Mint.
	Recipient string
	Mint      string
	Amount    *USDC
	Reference string
	Label     string
	Message   string
}
