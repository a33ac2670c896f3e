package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/gpunex/gpunex/internal/fault"
)

// presentError is the one place where errors become what a client sees.
// Domain errors keep their public message and code; errors gqlgen made
// itself (parse, validation, limits) keep theirs; anything else is logged
// and shown as "internal error" with code INTERNAL, leaking nothing. The
// code sent is always one of fault.Codes, the ErrorCode enum: a domain
// error with a code outside it is internal, a gqlgen error with a code
// outside it (or none) is BAD_REQUEST.
func presentError(logger *slog.Logger) graphql.ErrorPresenterFunc {
	return func(ctx context.Context, err error) *gqlerror.Error {
		gqlErr := graphql.DefaultErrorPresenter(ctx, err)
		var fe *fault.Error
		if errors.As(err, &fe) {
			if !fe.Code.Known() {
				return presentInternal(ctx, logger, gqlErr, err)
			}
			gqlErr.Message = fe.Message
			setCode(gqlErr, fe.Code)
			if fe.Code == fault.Internal {
				logger.ErrorContext(ctx, "api: internal error", "path", gqlErr.Path.String(), "err", err)
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
		return presentInternal(ctx, logger, gqlErr, err)
	}
}

// presentInternal logs err and shows it as "internal error", leaking
// nothing of it.
func presentInternal(ctx context.Context, logger *slog.Logger, gqlErr *gqlerror.Error, err error) *gqlerror.Error {
	logger.ErrorContext(ctx, "api: internal error", "path", gqlErr.Path.String(), "err", err)
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
