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

// ProblemCodes returns every ProblemCode, in the order of the
// UserErrorCode enum.
func ProblemCodes() []ProblemCode {
	return []ProblemCode{
		Required, InvalidValue, TooShort, TooLong, OutOfRange, TooMany, Duplicate, InFuture,
		Taken, InvalidCredentials, UnknownTimeZone, UnknownModel, EmptyWindow, Overlap,
		AlreadyOpen, AlreadyProvider, InvalidState, UPSRequired, TooSoon, Unavailable,
		InsufficientFunds, OwnGPUs,
	}
}

// Known reports whether c is one of ProblemCodes.
func (c ProblemCode) Known() bool { return slices.Contains(ProblemCodes(), c) }
