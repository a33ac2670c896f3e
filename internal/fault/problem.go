package fault

import "slices"

// ProblemCode is the stable reason of one validation Problem, the
// UserErrorCode enum of schema/root.graphqls: clients translate a user
// error by its code (and field), so a code is added here and to the enum
// together, and ProblemCodes lists them all.
type ProblemCode string

// Problem codes any field may get; internal/validate reports these.
const (
	// Required: the field is missing or empty.
	Required ProblemCode = "REQUIRED"
	// InvalidValue: the value is not of the accepted form (an address that
	// is not an email, a control character, an identifier out of pattern).
	InvalidValue ProblemCode = "INVALID"
	// TooShort and TooLong: the value has fewer or more characters than
	// allowed.
	TooShort ProblemCode = "TOO_SHORT"
	TooLong  ProblemCode = "TOO_LONG"
	// OutOfRange: a number outside its bounds, or not a finite number.
	OutOfRange ProblemCode = "OUT_OF_RANGE"
	// TooMany: a list longer than allowed, or a limit on held things reached.
	TooMany ProblemCode = "TOO_MANY"
	// Duplicate: a list holds the same entry twice.
	Duplicate ProblemCode = "DUPLICATE"
	// InFuture: a time later than the server's clock allows.
	InFuture ProblemCode = "IN_FUTURE"
)

// Problem codes of one domain rule each.
const (
	// Taken: the value (an email) belongs to another account.
	Taken ProblemCode = "TAKEN"
	// InvalidCredentials: the email and password do not match an account.
	InvalidCredentials ProblemCode = "INVALID_CREDENTIALS"
	// UnknownTimeZone: not an IANA time zone name.
	UnknownTimeZone ProblemCode = "UNKNOWN_TIME_ZONE"
	// UnknownModel: a GPU model the catalogue does not list.
	UnknownModel ProblemCode = "UNKNOWN_MODEL"
	// EmptyWindow: an availability window that ends before it starts.
	EmptyWindow ProblemCode = "EMPTY_WINDOW"
	// Overlap: an availability window overlaps another on the same day.
	Overlap ProblemCode = "OVERLAP"
	// AlreadyOpen: the user already has an application under review.
	AlreadyOpen ProblemCode = "ALREADY_OPEN"
	// AlreadyProvider: the user is already an approved provider.
	AlreadyProvider ProblemCode = "ALREADY_PROVIDER"
	// InvalidState: the application's status does not allow the action.
	InvalidState ProblemCode = "INVALID_STATE"
	// UPSRequired: the Enterprise tier needs UPS protection.
	UPSRequired ProblemCode = "UPS_REQUIRED"
	// TooSoon: asked again before a cooldown ended.
	TooSoon ProblemCode = "TOO_SOON"
	// Unavailable: the GPUs asked for cannot be rented now (taken by
	// another rental meanwhile, delisted, offline, out of schedule).
	Unavailable ProblemCode = "UNAVAILABLE"
	// InsufficientFunds: the customer's prepaid balance does not cover
	// what is asked (a rental's minimum prepaid time).
	InsufficientFunds ProblemCode = "INSUFFICIENT_FUNDS"
	// OwnGPUs: a provider's own GPUs, or those of a provider tied to the
	// customer, which it may not rent (wash rentals).
	OwnGPUs ProblemCode = "OWN_GPUS"
)

// Problem codes of a payout wallet address (internal/billing/solana's
// ParseWallet and CheckNotTokenAccount), one per thing to fix, so a
// provider is told which (an empty field is Required).
const (
	// WalletWhitespace: spaces or line breaks in the address.
	WalletWhitespace ProblemCode = "WALLET_WHITESPACE"
	// WalletNotBase58: a character outside Solana's base58 alphabet.
	WalletNotBase58 ProblemCode = "WALLET_NOT_BASE58"
	// WalletWrongLength: base58 of other than 32 bytes.
	WalletWrongLength ProblemCode = "WALLET_WRONG_LENGTH"
	// WalletEthereum: an Ethereum address (0x and 40 hex digits).
	WalletEthereum ProblemCode = "WALLET_ETHEREUM"
	// WalletOffCurve: 32 bytes no one holds a key for: a program-derived
	// address (an associated token account) or a mistyped address.
	WalletOffCurve ProblemCode = "WALLET_OFF_CURVE"
	// WalletIsMint: the USDC mint itself.
	WalletIsMint ProblemCode = "WALLET_IS_MINT"
	// WalletIsProgram: a well-known program's id.
	WalletIsProgram ProblemCode = "WALLET_IS_PROGRAM"
	// WalletTokenAccount: the chain says it is a token account.
	WalletTokenAccount ProblemCode = "WALLET_TOKEN_ACCOUNT"
	// WalletNotSystemOwned: the chain says another program owns it.
	WalletNotSystemOwned ProblemCode = "WALLET_NOT_SYSTEM_OWNED"
)

// ProblemCodes returns every ProblemCode, in the order of the
// UserErrorCode enum.
func ProblemCodes() []ProblemCode {
	return []ProblemCode{
		Required, InvalidValue, TooShort, TooLong, OutOfRange, TooMany, Duplicate, InFuture,
		Taken, InvalidCredentials, UnknownTimeZone, UnknownModel, EmptyWindow, Overlap,
		AlreadyOpen, AlreadyProvider, InvalidState, UPSRequired, TooSoon, Unavailable,
		InsufficientFunds, OwnGPUs,
		WalletWhitespace, WalletNotBase58, WalletWrongLength, WalletEthereum, WalletOffCurve, WalletIsMint,
		WalletIsProgram, WalletTokenAccount, WalletNotSystemOwned,
	}
}

// Known reports whether c is one of ProblemCodes.
func (c ProblemCode) Known() bool { return slices.Contains(ProblemCodes(), c) }
