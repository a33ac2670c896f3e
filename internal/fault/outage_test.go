package fault_test

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/fault"
)

// sqlStateError is a driver error that names its SQLSTATE, as pgconn's
// PgError does.
type sqlStateError string

func (e sqlStateError) Error() string    { return "sqlstate " + string(e) }
func (e sqlStateError) SQLState() string { return string(e) }

// retryError is a driver error that says whether it is safe to retry, as
// pgconn's errors do.
type retryError bool

func (e retryError) Error() string     { return fmt.Sprintf("safe to retry: %v", bool(e)) }
func (e retryError) SafeToRetry() bool { return bool(e) }

// refusedDial is the error of dialing a loopback port nothing listens on
// any more: a *net.OpError, as a database or Redis that went away gives.
func refusedDial(t *testing.T) error {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	conn, err := net.Dial("tcp", addr)
	if conn != nil {
		_ = conn.Close()
	}
	require.Error(t, err, "a closed port accepted a connection")
	var op *net.OpError
	require.ErrorAs(t, err, &op)
	return err
}

// A dependency out of reach is an outage; a fault of the request, a bug or
// a client that went away is not.
func TestIsOutage(t *testing.T) {
	t.Parallel()
	dial := refusedDial(t)
	cases := []struct {
		desc string
		err  error
		want bool
	}{
		{desc: "a refused dial", err: dial, want: true},
		{desc: "a refused dial, wrapped", err: fmt.Errorf("store: unable to reach postgres: %w", dial), want: true},
		{desc: "a bare *net.OpError", err: &net.OpError{Op: "read", Net: "tcp", Err: errors.New("i/o")}, want: true},
		{desc: "ECONNREFUSED, wrapped", err: fmt.Errorf("redis: %w", syscall.ECONNREFUSED), want: true},
		{desc: "ECONNRESET, wrapped", err: fmt.Errorf("auth: unable to look up session: %w", syscall.ECONNRESET), want: true},
		{desc: "a broken driver connection, wrapped", err: fmt.Errorf("billing: %w", driver.ErrBadConn), want: true},
		{desc: "a bare io.EOF is too common elsewhere to count", err: fmt.Errorf("decode: %w", io.EOF), want: false},
		{desc: "a connection ended mid-answer, io.ErrUnexpectedEOF", err: fmt.Errorf("q: %w", io.ErrUnexpectedEOF), want: true},
		{desc: "SQLSTATE 08006, connection failure", err: fmt.Errorf("q: %w", sqlStateError("08006")), want: true},
		{desc: "SQLSTATE 57P01, admin shutdown", err: fmt.Errorf("q: %w", sqlStateError("57P01")), want: true},
		{desc: "SQLSTATE 57P03, cannot connect now", err: fmt.Errorf("q: %w", sqlStateError("57P03")), want: true},
		{desc: "SQLSTATE 23505, unique violation", err: fmt.Errorf("q: %w", sqlStateError("23505")), want: false},
		{desc: "SQLSTATE 40001, serialization failure", err: fmt.Errorf("q: %w", sqlStateError("40001")), want: false},
		{desc: "pgconn's PgError 57P01", err: fmt.Errorf("q: %w", &pgconn.PgError{Code: "57P01"}), want: true},
		{desc: "pgconn's PgError 23505", err: fmt.Errorf("q: %w", &pgconn.PgError{Code: "23505"}), want: false},
		{desc: "safe to retry", err: fmt.Errorf("q: %w", retryError(true)), want: true},
		{desc: "not safe to retry", err: fmt.Errorf("q: %w", retryError(false)), want: false},
		{desc: "an internal fault wrapping a refused dial", err: &fault.Error{Code: fault.Internal, Message: "x", Err: dial}, want: true},
		{desc: "nil", err: nil, want: false},
		{desc: "a plain error", err: errors.New("disk on fire"), want: false},
		{desc: "context.Canceled", err: context.Canceled, want: false},
		{desc: "context.Canceled, wrapped", err: fmt.Errorf("billing: %w", context.Canceled), want: false},
		{desc: "context.DeadlineExceeded (a deadline the platform set passed: too slow to answer)", err: context.DeadlineExceeded, want: true},
		{desc: "context.DeadlineExceeded, wrapped as pgconn does", err: fmt.Errorf("timeout: %w", context.DeadlineExceeded), want: true},
		{desc: "an internal fault without a cause", err: fault.E(fault.Internal, "internal error"), want: false},
		{desc: "a validation", err: &fault.Validation{Problems: []fault.Problem{{Field: "input.email", Code: fault.Required}}}, want: false},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, fault.IsOutage(tc.err), "%v", tc.err)
		})
	}
}

// UNAVAILABLE is one of the ErrorCode enum's codes.
func TestServiceUnavailableIsAKnownCode(t *testing.T) {
	t.Parallel()
	require.Equal(t, fault.Code("UNAVAILABLE"), fault.ServiceUnavailable)
	require.Contains(t, fault.Codes(), fault.ServiceUnavailable)
	require.True(t, fault.ServiceUnavailable.Known())
	require.Positive(t, fault.RetryAfter)
	require.NotEmpty(t, fault.OutageMessage)
}
