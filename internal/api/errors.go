package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/fault"
)

// presentError is the one place where errors become what a client sees.
// An argument that could not be read as its type is BAD_USER_INPUT naming
// the argument (see presentCoercion); domain errors keep their public
// message and code; errors gqlgen made itself (parse, validation, limits)
// keep theirs; anything else is logged and shown as "internal error" with
// code INTERNAL, leaking nothing, except a dependency out of reach
// (fault.IsOutage: the database, Redis), which is UNAVAILABLE with
// extensions.retryAfterSeconds, logged as a warning, and told to outage.
// The code sent is always one of
// fault.Codes, the ErrorCode enum: a domain error with a code outside it
// is internal, a gqlgen error with a code outside it (or none) is
// BAD_REQUEST.
func presentError(logger *slog.Logger, outage func(context.Context)) graphql.ErrorPresenterFunc {
	return func(ctx context.Context, err error) *gqlerror.Error {
		gqlErr := graphql.DefaultErrorPresenter(ctx, err)
		if arg, ok := coercedArgument(ctx, gqlErr); ok {
			return presentCoercion(ctx, logger, gqlErr, arg, err)
		}
		var fe *fault.Error
		if errors.As(err, &fe) && fe.Code == fault.Internal && fault.IsOutage(err) {
			fe = nil // an outage wrapped as internal is still an outage
		}
		if fe != nil {
			if !fe.Code.Known() {
				return presentInternal(ctx, logger, gqlErr, err)
			}
			gqlErr.Message = fe.Message
			setCode(gqlErr, fe.Code)
			if fe.Code == fault.Internal {
				logInternal(ctx, logger, gqlErr, err)
			}
			return gqlErr
		}
		if v, ok := fault.AsValidation(err); ok {
			gqlErr.Message = v.Error()
			setCode(gqlErr, fault.Invalid)
			return gqlErr
		}
		var ge *gqlerror.Error
		if errors.As(err, &ge) && ge.Err == nil {
			// Made by gqlgen: parse and validation errors, limits.
			if code, _ := gqlErr.Extensions["code"].(string); !fault.Code(code).Known() {
				setCode(gqlErr, fault.BadRequest)
			}
			// gqlgen echoes an undecodable body in full (up to the body
			// limit, passwords and all); the decoder's reason is enough.
			if strings.HasPrefix(gqlErr.Message, "json request body could not be decoded") {
				gqlErr.Message, _, _ = strings.Cut(gqlErr.Message, " body:")
			}
			return gqlErr
		}
		// The request's own end (its client went away) is no outage; a
		// deadline the platform set itself and missed is, even then.
		if ce := ctx.Err(); fault.IsOutage(err) && (ce == nil || !errors.Is(err, ce)) {
			return presentOutage(ctx, logger, outage, gqlErr, err)
		}
		return presentInternal(ctx, logger, gqlErr, err)
	}
}

// presentOutage shows err, a dependency out of reach, as UNAVAILABLE with
// a retry hint, logs it as a warning (the dependency's own health checks
// say more) and, for an agent's request, tells outage: the platform could
// not take what a machine reported. Only agents' requests count (they
// need the database and Redis alone), so no other dependency's outage (a
// Solana node a user's request reached) nor any user can hold the
// sweeper back.
func presentOutage(ctx context.Context, logger *slog.Logger, outage func(context.Context), gqlErr *gqlerror.Error, err error) *gqlerror.Error {
	logger.WarnContext(ctx, "api: a dependency is out of reach", "path", gqlErr.Path.String(), "err", err)
	if auth.AgentFrom(ctx) != nil {
		outage(ctx)
	}
	gqlErr.Message = fault.OutageMessage
	gqlErr.Err = nil
	gqlErr.Extensions = map[string]any{"code": string(fault.ServiceUnavailable), "retryAfterSeconds": int(fault.RetryAfter / time.Second)}
	return gqlErr
}

// coercedArgument reports whether gqlErr is an argument's value that could
// not be read as its type, and returns the argument's path below the field
// (input.at, input.gpus.3.uuid).
//
// gqlgen reads a field's arguments before its resolver runs, each scalar
// through its unmarshal function (a DateTime, a USDC, an enum's
// UnmarshalGQL, graphql.UnmarshalInt for an Int out of range), and wraps a
// failure with graphql.ErrorOnPath under path contexts named after the
// argument and its members, so the error's path runs past the path of the
// field being resolved (heartbeat.input.at under heartbeat). A resolver's
// error, a marshaller's and a recovered panic carry the field's own path.
// Inline literals and variables are read the same way, on every transport.
func coercedArgument(ctx context.Context, gqlErr *gqlerror.Error) (string, bool) {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || gqlErr.Err == nil {
		return "", false
	}
	field := fc.Path()
	if len(gqlErr.Path) <= len(field) {
		return "", false
	}
	for i, e := range field {
		if gqlErr.Path[i] != e {
			return "", false
		}
	}
	arg := gqlErr.Path[len(field):]
	if _, ok := arg[0].(ast.PathName); !ok {
		return "", false
	}
	var b strings.Builder
	for i, e := range arg {
		if i > 0 {
			b.WriteByte('.')
		}
		switch e := e.(type) {
		case ast.PathName:
			b.WriteString(string(e))
		case ast.PathIndex:
			b.WriteString(strconv.Itoa(int(e)))
		}
	}
	return b.String(), true
}

// presentCoercion shows an argument gqlgen could not read as the client's
// mistake: BAD_USER_INPUT, extensions.field naming the argument as
// userErrors do, a message that starts with that name, and the error's
// path set back to the field's (a response path; the argument is not in
// the response). The reason is the unmarshaller's own message when it is
// public (a fault.Error coded BAD_USER_INPUT, as this project's scalars
// and enums return, or gqlgen's integer range errors); other causes (Go
// type names, strconv's wording) are not shown. It is logged at DEBUG
// only: it says nothing about the server.
func presentCoercion(ctx context.Context, logger *slog.Logger, gqlErr *gqlerror.Error, arg string, err error) *gqlerror.Error {
	logger.DebugContext(ctx, "api: argument not coerced", "path", gqlErr.Path.String(), "err", err)
	reason := "is not a valid value for its type"
	var fe *fault.Error
	var ie *graphql.IntegerError
	var ne *strconv.NumError
	switch {
	case errors.As(err, &fe) && fe.Code == fault.Invalid:
		reason = fe.Message
	case errors.As(err, &ie):
		reason = ie.Message
	case errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange):
		reason = "is out of range"
	}
	gqlErr.Message = arg + ": " + reason
	gqlErr.Path = graphql.GetFieldContext(ctx).Path()
	gqlErr.Err = nil
	gqlErr.Extensions = map[string]any{"code": string(fault.Invalid), "field": arg}
	return gqlErr
}

// presentInternal logs err and shows it as "internal error", leaking
// nothing of it.
func presentInternal(ctx context.Context, logger *slog.Logger, gqlErr *gqlerror.Error, err error) *gqlerror.Error {
	logInternal(ctx, logger, gqlErr, err)
	gqlErr.Message = "internal error"
	gqlErr.Err = nil
	gqlErr.Extensions = map[string]any{"code": string(fault.Internal)}
	return gqlErr
}

// setCode sets extensions.code, as a plain string: the metrics and the
// prepared path read it back as one.
func setCode(e *gqlerror.Error, code fault.Code) {
	if e.Extensions == nil {
		e.Extensions = map[string]any{}
	}
	e.Extensions["code"] = string(code)
}

// recoverPanic turns a resolver panic into an internal error and logs the
// stack; the server keeps serving.
func recoverPanic(logger *slog.Logger) graphql.RecoverFunc {
	return func(ctx context.Context, p any) error {
		logger.ErrorContext(ctx, "api: panic in resolver", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		return fault.E(fault.Internal, "internal error")
	}
}

// logInternal logs an internal error at ERROR, except the one a request
// gets when its client went away (a reload, a closed tab): its context is
// canceled and so is the work it started, which is no fault of the
// server's, so that is a DEBUG line.
func logInternal(ctx context.Context, logger *slog.Logger, gqlErr *gqlerror.Error, err error) {
	logFailure(ctx, logger, err, "api: internal error", "path", gqlErr.Path.String())
}

// logFailure logs msg with err (and args) at ERROR, or at DEBUG when the
// failure is only ctx's client going away (clientLeft).
func logFailure(ctx context.Context, logger *slog.Logger, err error, msg string, args ...any) {
	level := slog.LevelError
	if clientLeft(ctx, err) {
		level = slog.LevelDebug
	}
	logger.Log(ctx, level, msg, append(args, "err", err)...)
}

// clientLeft reports whether err is the end of ctx's own work because its
// client went away (a reload, a closed tab, a socket that closed while an
// operation on it was being checked): no fault of the server's, and so
// never logged at ERROR.
func clientLeft(ctx context.Context, err error) bool {
	return errors.Is(err, context.Canceled) && ctx.Err() != nil
}
