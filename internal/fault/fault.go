package fault

import (
	"errors"
	"fmt"
	"slices"
)

// Code classifies an error for clients. The values are the public
// extensions.code strings of the GraphQL contract, the ErrorCode enum of
// schema/root.graphqls: Codes lists them all, and the API's error presenter
// sends no other.
type Code string

// The codes domain services use.
const (
	Unauthenticated Code = "UNAUTHENTICATED"
	Forbidden       Code = "FORBIDDEN"
	NotFound        Code = "NOT_FOUND"
	Invalid         Code = "BAD_USER_INPUT"
	Conflict        Code = "CONFLICT"
	RateLimited     Code = "RATE_LIMITED"
	Internal        Code = "INTERNAL"
	// ServiceUnavailable is a dependency of the platform briefly out of
	// reach (IsOutage): the request may be retried after RetryAfter.
	ServiceUnavailable Code = "UNAVAILABLE"
)

// The codes of requests refused before any service runs. The API and gqlgen
// make them; services never return them. Their values are gqlgen's where
// gqlgen makes them (errcode.ParseFailed, errcode.ValidationFailed, the
// complexity and persisted-query extensions).
const (
	// BadRequest is a request the server could not take as GraphQL (an
	// undecodable body, a missing query) or any refusal that has no code of
	// its own.
	BadRequest              Code = "BAD_REQUEST"
	ParseFailed             Code = "GRAPHQL_PARSE_FAILED"
	ValidationFailed        Code = "GRAPHQL_VALIDATION_FAILED"
	ComplexityLimitExceeded Code = "COMPLEXITY_LIMIT_EXCEEDED"
	DepthLimitExceeded      Code = "DEPTH_LIMIT_EXCEEDED"
	PersistedQueryNotFound  Code = "PERSISTED_QUERY_NOT_FOUND"
)

// Codes returns every Code, in the order of the ErrorCode enum.
func Codes() []Code {
	return []Code{
		Unauthenticated, Forbidden, NotFound, Invalid, Conflict, RateLimited, Internal, ServiceUnavailable,
		BadRequest, ParseFailed, ValidationFailed, ComplexityLimitExceeded, DepthLimitExceeded, PersistedQueryNotFound,
	}
}

// Known reports whether c is one of Codes.
func (c Code) Known() bool { return slices.Contains(Codes(), c) }

// Error is a domain error with a code and a message safe to show to the
// caller. Err, when set, is the underlying cause for logs only.
type Error struct {
	Code    Code
	Message string
	Err     error
}

// Error returns the message, with the cause for logs.
func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// E returns a coded error with a public message.
func E(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// CodeOf returns the code of err: the code of the first *Error in its chain,
// Invalid for a *Validation, and Internal for anything else.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	var v *Validation
	if errors.As(err, &v) {
		return Invalid
	}
	return Internal
}

// Problem is one validation problem with one input field: the server's
// user error, which gqlgen binds to the schema's UserError, so its code
// is a ProblemCode from the service to the response.
type Problem struct {
	// Field is the dot-separated path of the input field, e.g. input.email.
	Field string
	// Code is the stable reason clients translate.
	Code ProblemCode
	// Message is an English explanation.
	Message string
}

// Validation collects the problems found with one input. A service returns
// it before changing anything; resolvers turn it into userErrors.
type Validation struct {
	Problems []Problem
}

// Error lists the problems.
func (v *Validation) Error() string {
	msg := "invalid input:"
	for _, p := range v.Problems {
		msg += fmt.Sprintf(" %s %s (%s);", p.Field, p.Code, p.Message)
	}
	return msg
}

// Add records a problem with field.
func (v *Validation) Add(field string, code ProblemCode, message string) {
	v.Problems = append(v.Problems, Problem{Field: field, Code: code, Message: message})
}

// Err returns v when it holds problems and nil otherwise, so a validator
// can end with `return v.Err()`.
func (v *Validation) Err() error {
	if v == nil || len(v.Problems) == 0 {
		return nil
	}
	return v
}

// AsValidation returns the validation problems in err's chain, if any.
func AsValidation(err error) (*Validation, bool) {
	var v *Validation
	if errors.As(err, &v) {
		return v, true
	}
	return nil, false
}
