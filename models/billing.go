package models

import (
	"time"

	"github.com/uptrace/bun"
)

// LedgerAccountKind is what a ledger account holds.
type LedgerAccountKind string

// The account kinds. Customer funds and provider earnings belong to a
// user or a provider (OwnerID); the others are the platform's, one each.
const (
	// AccountCustomerFunds is a customer's prepaid balance (owner: user).
	AccountCustomerFunds LedgerAccountKind = "CUSTOMER_FUNDS"
	// AccountProviderEarnings is what a provider has earned and not been
	// paid (owner: provider).
	AccountProviderEarnings LedgerAccountKind = "PROVIDER_EARNINGS"
	// AccountPayoutsInFlight holds payouts being sent (owner: provider).
	AccountPayoutsInFlight LedgerAccountKind = "PAYOUTS_IN_FLIGHT"
	// AccountPlatformFees is the platform's fees.
	AccountPlatformFees LedgerAccountKind = "PLATFORM_FEES"
	// AccountDeposits is where customer funds come from outside (its
	// balance is minus all funds ever credited).
	AccountDeposits LedgerAccountKind = "DEPOSITS"
	// AccountPaidOut is where payouts go outside (its balance is all ever
	// paid).
	AccountPaidOut LedgerAccountKind = "PAID_OUT"
)

// LedgerAccount is one account of the double-entry ledger. Balance is
// the sum of its entries, kept in the transaction that posts them (and
// checked against them by the tests).
type LedgerAccount struct {
	bun.BaseModel `bun:"table:ledger_accounts,alias:la"`

	ID        int64             `bun:"id,pk,autoincrement"`
	Kind      LedgerAccountKind `bun:"kind,notnull"`
	OwnerID   int64             `bun:"owner_id,notnull"`
	Balance   USDC              `bun:"balance_micros,notnull"`
	UpdatedAt time.Time         `bun:"updated_at,notnull"`
}

// LedgerTxKind is why money moved.
type LedgerTxKind string

// The ledger transaction kinds.
const (
	TxDeposit      LedgerTxKind = "DEPOSIT"
	TxRentalCharge LedgerTxKind = "RENTAL_CHARGE"
	TxPayout       LedgerTxKind = "PAYOUT"
	TxPayoutPaid   LedgerTxKind = "PAYOUT_PAID"
	TxPayoutReturn LedgerTxKind = "PAYOUT_RETURN"
	// TxAdjustment is a correction an operator posts (a new entry, never
	// an edit).
	TxAdjustment LedgerTxKind = "ADJUSTMENT"
)

// LedgerTransaction is one posting: entries that sum to zero. It is
// never changed; a correction is a new transaction.
type LedgerTransaction struct {
	bun.BaseModel `bun:"table:ledger_transactions,alias:lt"`

	ID        int64        `bun:"id,pk,autoincrement"`
	Kind      LedgerTxKind `bun:"kind,notnull"`
	Reference string       `bun:"reference,notnull"`
	RentalID  *int64       `bun:"rental_id"`
	PayoutID  *int64       `bun:"payout_id"`
	// Note is why an admin posted it (a bank transfer's credit: the
	// reason given); ActorID is that admin. Both are nil on the rest.
	Note      *string   `bun:"note"`
	ActorID   *int64    `bun:"actor_id"`
	CreatedAt time.Time `bun:"created_at,notnull"`
}

// LedgerEntry is one side of a posting: an amount into (positive) or out
// of (negative) an account.
type LedgerEntry struct {
	bun.BaseModel `bun:"table:ledger_entries,alias:le"`

	ID            int64     `bun:"id,pk,autoincrement"`
	TransactionID int64     `bun:"transaction_id,notnull"`
	AccountID     int64     `bun:"account_id,notnull"`
	Amount        USDC      `bun:"amount_micros,notnull"`
	CreatedAt     time.Time `bun:"created_at,notnull"`
}

// RentalMeter is how much of a rental has been billed: the cumulative
// charge and fee up to BilledUntil. A tick computes the cumulative amount
// to its end and posts only the difference.
type RentalMeter struct {
	bun.BaseModel `bun:"table:rental_meters,alias:rm"`

	RentalID int64 `bun:"rental_id,pk"`
	// CustomerID is the rental's customer, copied when the meter opens.
	CustomerID  int64      `bun:"customer_id,notnull"`
	BilledUntil time.Time  `bun:"billed_until,notnull"`
	Charged     USDC       `bun:"charged_micros,notnull"`
	Fee         USDC       `bun:"fee_micros,notnull"`
	Closed      bool       `bun:"closed,notnull"`
	LowFundsAt  *time.Time `bun:"low_funds_at"`
	UpdatedAt   time.Time  `bun:"updated_at,notnull"`
}

// EarningsHour is one GPU's billed rental time in one UTC hour: what its
// customers were charged (Gross) and the platform's fee of it; the
// provider earned Gross − Fee.
type EarningsHour struct {
	bun.BaseModel `bun:"table:earnings_gpu_hours,alias:egh"`

	GpuID      int64     `bun:"gpu_id,pk"`
	Hour       time.Time `bun:"hour,pk"`
	ProviderID int64     `bun:"provider_id,notnull"`
	MachineID  int64     `bun:"machine_id,notnull"`
	ModelKey   string    `bun:"model_key,notnull"`
	Gross      USDC      `bun:"gross_micros,notnull"`
	Fee        USDC      `bun:"fee_micros,notnull"`
}

// ProviderEarningsHour is a provider's billed rental time of one model in
// one UTC hour, summed over its GPUs: what earnings history reads.
type ProviderEarningsHour struct {
	bun.BaseModel `bun:"table:earnings_provider_hours,alias:eph"`

	ProviderID int64     `bun:"provider_id,pk"`
	ModelKey   string    `bun:"model_key,pk"`
	Hour       time.Time `bun:"hour,pk"`
	Gross      USDC      `bun:"gross_micros,notnull"`
	Fee        USDC      `bun:"fee_micros,notnull"`
}

// PayoutKind is how a payout is sent.
type PayoutKind string

// The payout kinds. MANUAL is a Solana payout without a Solana node
// configured: an admin sends it and marks it paid with its reference.
const (
	PayoutSolana PayoutKind = "SOLANA"
	PayoutBank   PayoutKind = "BANK"
	PayoutManual PayoutKind = "MANUAL"
)

// PayoutState is where a payout is.
type PayoutState string

// The payout states: PENDING (its amount moved from the provider's
// earnings to payouts in flight), PROCESSING (being sent: a transaction
// signed and stored, or a bank file made), PAID, or FAILED (the amount
// back in the provider's earnings).
const (
	PayoutPending    PayoutState = "PENDING"
	PayoutProcessing PayoutState = "PROCESSING"
	PayoutPaid       PayoutState = "PAID"
	PayoutFailed     PayoutState = "FAILED"
)

// PayoutStates is every payout state, in the order a payout goes through them.
var PayoutStates = []PayoutState{PayoutPending, PayoutProcessing, PayoutPaid, PayoutFailed}

// PayoutMethod is where and how often a provider is paid: a Solana
// wallet (SolanaAddress) or a bank account (IBAN, BIC, AccountHolder).
// Payouts wait until HoldUntil after a change of destination.
type PayoutMethod struct {
	bun.BaseModel `bun:"table:payout_methods,alias:pm"`

	ProviderID    int64     `bun:"provider_id,pk"`
	Schedule      string    `bun:"schedule,notnull"`
	Kind          string    `bun:"kind,notnull"`
	SolanaAddress *string   `bun:"solana_address"`
	IBAN          *string   `bun:"iban"`
	BIC           *string   `bun:"bic"`
	AccountHolder *string   `bun:"account_holder"`
	ChangedAt     time.Time `bun:"changed_at,notnull"`
	HoldUntil     time.Time `bun:"hold_until,notnull"`
}

// Payout is one payment of a provider's earnings for one period.
type Payout struct {
	bun.BaseModel `bun:"table:payouts,alias:po"`

	ID          int64       `bun:"id,pk,autoincrement"`
	ProviderID  int64       `bun:"provider_id,notnull"`
	PeriodStart time.Time   `bun:"period_start,notnull"`
	PeriodEnd   time.Time   `bun:"period_end,notnull"`
	Amount      USDC        `bun:"amount_micros,notnull"`
	Kind        PayoutKind  `bun:"kind,notnull"`
	Destination string      `bun:"destination,notnull"`
	State       PayoutState `bun:"state,notnull"`
	// Reference is the payout's own reference (memo, end-to-end id).
	Reference string `bun:"reference,notnull"`
	// Signature, RawTx (base64) and LastValidBlockHeight are a Solana
	// payout's signed transaction, stored before it is sent.
	Signature            *string `bun:"signature"`
	RawTx                *string `bun:"raw_tx"`
	LastValidBlockHeight *int64  `bun:"last_valid_block_height"`
	// PaidReference is the bank's or an admin's reference of the payment.
	PaidReference *string    `bun:"paid_reference"`
	Failure       *string    `bun:"failure"`
	CreatedAt     time.Time  `bun:"created_at,notnull"`
	UpdatedAt     time.Time  `bun:"updated_at,notnull"`
	PaidAt        *time.Time `bun:"paid_at"`

	// ProviderName and ProviderApplicationID name the provider paid, read
	// with the payout for the admins' list only (zero elsewhere).
	ProviderName          string `bun:"provider_name,scanonly"`
	ProviderApplicationID int64  `bun:"provider_application_id,scanonly"`
}

// PayoutProvider is the provider a payout pays, as the admins' list names
// it: linked to its application, where an admin reviews the provider.
type PayoutProvider struct {
	ID            int64
	Name          string
	ApplicationID int64
}

// PayoutTotal is how many payouts are in a state and what they amount to.
type PayoutTotal struct {
	State  PayoutState `bun:"state"`
	Count  int         `bun:"count"`
	Amount USDC        `bun:"amount"`
}

// RentalCost is what a rental has cost its customer, from the platform's
// own records: the meter's billed time and cumulative charge, and what the
// ledger gave back to the customer's funds for it. Charged is net of
// Refunded (the meter's cumulative figure).
type RentalCost struct {
	// BilledSeconds is the whole seconds billed, from the start to
	// BilledUntil.
	BilledSeconds int64
	// BilledUntil is how far the meter has billed (nil: not metered yet).
	BilledUntil *time.Time
	// Charged is what the customer has paid for the rental so far.
	Charged USDC
	// Refunded is what was posted back to the customer's funds for the
	// rental (billed time returned when it ended earlier than billed).
	Refunded USDC
	// Earned is what the rental has earned its provider so far: the
	// meter's charge less the platform's fee, net of refunds, as the
	// ledger credited the provider's earnings.
	Earned USDC
}
