package client

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/gpunex/gpunex/agent/protocol"
)

// Codes a server error carries in extensions.code (or that the client
// derives from the HTTP status when the answer has none).
const (
	CodeUnauthenticated = "UNAUTHENTICATED"
	CodeForbidden       = "FORBIDDEN"
	CodeNotFound        = "NOT_FOUND"
	CodeRateLimited     = "RATE_LIMITED"
	CodeInternal        = "INTERNAL"
	// CodeUnavailable: a service the server depends on is briefly out of
	// reach; nothing was done and the request may be sent again after
	// extensions.retryAfterSeconds.
	CodeUnavailable = "UNAVAILABLE"
)

// ErrUnauthenticated is what an UNAUTHENTICATED answer Is: the token is
// unknown or was revoked. Retrying cannot help; a new token is the fix.
var ErrUnauthenticated = errors.New("client: the server refused the agent token")

// unauthenticatedFix is the way out every UNAUTHENTICATED error names.
const unauthenticatedFix = "create a new agent token on the Agent tokens page of the dashboard and restart the agent with it " +
	"(GPUNEX_TOKEN, e.g. in /etc/gpunex/agent.env, or --token)"

// Error is a request the server did not answer with data: a top-level
// GraphQL error, an HTTP error status, or no answer at all.
type Error struct {
	// Op is the operation, "registerMachine" or "heartbeat".
	Op string
	// Code is the error's extensions.code, or one derived from the HTTP
	// status (401 UNAUTHENTICATED, 403 FORBIDDEN, 429 RATE_LIMITED); empty
	// when there was no answer or the answer said nothing more.
	Code string
	// Message is the server's message (without the token), or a
	// description of the HTTP answer.
	Message string
	// StatusCode is the HTTP status; 0 when no answer came.
	StatusCode int
	// RetryAfter is the server's Retry-After, zero when it sent none.
	RetryAfter time.Duration
	// Err is the transport or decoding error when there was no usable
	// answer.
	Err error
}

// Error describes the failure and, for a refused token, the fix.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "client: %s: ", e.Op)
	switch {
	case e.Err != nil && e.StatusCode == 0:
		fmt.Fprintf(&b, "no answer from the server: %v", e.Err)
	case e.Err != nil:
		fmt.Fprintf(&b, "unreadable answer (HTTP %d): %v", e.StatusCode, e.Err)
	default:
		if e.Code != "" {
			b.WriteString(e.Code)
		} else {
			fmt.Fprintf(&b, "HTTP %d", e.StatusCode)
		}
		if e.Message != "" {
			b.WriteString(": ")
			b.WriteString(e.Message)
		}
	}
	if e.Code == CodeUnauthenticated {
		b.WriteString("; " + unauthenticatedFix)
	}
	return b.String()
}

// Unwrap returns the transport error.
func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrUnauthenticated) true for UNAUTHENTICATED.
func (e *Error) Is(target error) bool {
	return target == ErrUnauthenticated && e.Code == CodeUnauthenticated
}

// Retryable reports whether the same request may work later: no answer or
// an unreadable one, RATE_LIMITED, INTERNAL, UNAVAILABLE, 408, 429 and 5xx
// answers.
// UNAUTHENTICATED and FORBIDDEN never are, whatever the status.
func (e *Error) Retryable() bool {
	switch e.Code {
	case CodeUnauthenticated, CodeForbidden:
		return false
	case CodeRateLimited, CodeInternal, CodeUnavailable:
		return true
	}
	if e.Err != nil {
		return true
	}
	return e.StatusCode == http.StatusRequestTimeout || e.StatusCode == http.StatusTooManyRequests || e.StatusCode >= 500
}

// RejectedError is an answer whose payload carries userErrors: the server
// understood the request and refused its input; nothing was changed.
type RejectedError struct {
	// Op is the operation, "registerMachine" or "heartbeat".
	Op string
	// UserErrors are the problems, as the server listed them.
	UserErrors []protocol.UserError
}

// Error lists every problem with its field.
func (e *RejectedError) Error() string {
	parts := make([]string, len(e.UserErrors))
	for i, u := range e.UserErrors {
		parts[i] = fmt.Sprintf("%s: %s (%s)", u.Field, u.Message, u.Code)
	}
	return fmt.Sprintf("client: %s: the server refused the input: %s", e.Op, strings.Join(parts, "; "))
}

// outcome is what the run loop does after a failed request.
type outcome int

const (
	// retry later, with backoff; the heartbeat stays buffered.
	outcomeRetry outcome = iota
	// drop the heartbeat: the server will never take it.
	outcomeDrop
	// register again, then retry.
	outcomeRegister
	// stop the run loop.
	outcomeFatal
)

// classify decides what a failed heartbeat means for the loop.
func classify(err error) outcome {
	var rej *RejectedError
	if errors.As(err, &rej) {
		if rej.Op == "registerMachine" {
			return outcomeFatal // registering again was refused: nothing later can work
		}
		return outcomeDrop
	}
	var e *Error
	if !errors.As(err, &e) {
		return outcomeRetry // detector or local failures: try again later
	}
	switch {
	case e.Code == CodeUnauthenticated || e.Code == CodeForbidden:
		return outcomeFatal
	case e.Code == CodeNotFound:
		return outcomeRegister
	case e.Retryable():
		return outcomeRetry
	}
	return outcomeDrop
}

// retryAfter is the wait the server asked for, if any.
func retryAfter(err error) time.Duration {
	var e *Error
	if errors.As(err, &e) {
		return e.RetryAfter
	}
	return 0
}

// fatal wraps an error that ends Run so it names what to do.
func fatal(err error) error {
	var e *Error
	if errors.As(err, &e) {
		switch e.Code {
		case CodeUnauthenticated:
			return fmt.Errorf("the agent token no longer works, stopping: %w", err)
		case CodeForbidden:
			return fmt.Errorf("the server forbids this agent, stopping (is this machine id registered by another provider? the id is in the data directory's machine-id file): %w", err)
		}
	}
	return fmt.Errorf("stopping: %w", err)
}
