package fault

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
	"time"
)

// RetryAfter is how long a client told UNAVAILABLE is asked to wait
// before it tries again (extensions.retryAfterSeconds, the Retry-After
// header).
const RetryAfter = 5 * time.Second

// OutageMessage is what a client told UNAVAILABLE reads.
const OutageMessage = "a service the platform depends on is briefly unavailable; retry shortly"

// IsOutage reports whether err is a dependency of the platform out of
// reach (its database, Redis, a node it calls) rather than a fault of the
// request or a bug: a connection refused, reset or cut, one that ended in
// the middle of an answer (io.ErrUnexpectedEOF: pgx reports a server gone
// away so; a bare io.EOF is too common elsewhere to count), a driver's
// broken connection, PostgreSQL's connection exceptions (SQLSTATE class 08) and
// shutdowns (57P01–57P03), any error its driver says is safe to retry
// because nothing was sent (pgconn's SafeToRetry), and a deadline the
// platform set itself that passed (context.DeadlineExceeded: a dependency
// too slow to answer in time, as under overload; the caller tells it from
// a client's own end by the request's context). Such an error is
// answered UNAVAILABLE with a retry hint, never INTERNAL. The checks use
// the standard library and the drivers' interfaces, so fault imports no
// driver.
func IsOutage(err error) bool {
	if err == nil {
		return false
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return true
	}
	for _, e := range []error{context.DeadlineExceeded, syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.EPIPE, syscall.ECONNABORTED, syscall.EHOSTUNREACH, driver.ErrBadConn, io.ErrUnexpectedEOF} {
		if errors.Is(err, e) {
			return true
		}
	}
	var state interface{ SQLState() string }
	if errors.As(err, &state) {
		c := state.SQLState()
		if strings.HasPrefix(c, "08") || c == "57P01" || c == "57P02" || c == "57P03" {
			return true
		}
	}
	var retry interface{ SafeToRetry() bool }
	return errors.As(err, &retry) && retry.SafeToRetry()
}
