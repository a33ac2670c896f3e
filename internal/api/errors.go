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
// and shown as "internal error" with code INTERNAL, leaking nothing.
func presentError(logger *slog.Logger) graphql.ErrorPresenterFunc {
	return func(ctx context.Context, err error) *gqlerror.Error {
		gqlErr := graphql.DefaultErrorPresenter(ctx, err)
		var fe *fault.Error
		if errors.As(err, &fe) {
			gqlErr.Message = fe.Message
			setCode(gqlErr, string(fe.Code))
			if fe.Code == fault.Internal {
				logger.ErrorContext(ctx, "api: internal error", "path", gqlErr.Path.String(), "err", err)
			}
			return gqlErr
		}
		if v, ok := fault.AsValidation(err); ok {
			gqlErr.Message = v.Error()
			setCode(gqlErr, string(fault.Invalid))
			return gqlErr
		}
		var ge *gqlerror.Error
		if errors.As(err, &ge) && ge.Err == nil {
			// Made by gqlgen: parse and validation errors, limits.
			if gqlErr.Extensions == nil || gqlErr.Extensions["code"] == nil {
				setCode(gqlErr, "BAD_REQUEST")
			}
			// gqlgen echoes an undecodable body in full (up to the body
			// limit, passwords and all); the decoder's reason is enough.
			if strings.HasPrefix(gqlErr.Message, "json request body could not be decoded") {
				gqlErr.Message, _, _ = strings.Cut(gqlErr.Message, " body:")
			}
			return gqlErr
		}
		logger.ErrorContext(ctx, "api: internal error", "path", gqlErr.Path.String(), "err", err)
		gqlErr.Message = "internal error"
		gqlErr.Err = nil
		gqlErr.Extensions = map[string]any{"code": string(fault.Internal)}
		return gqlErr
	}
}

func setCode(e *gqlerror.Error, code string) {
	if e.Extensions == nil {
		e.Extensions = map[string]any{}
	}
	e.Extensions["code"] = code
}

// recoverPanic turns a resolver panic into an internal error and logs the
// stack; the server keeps serving.
func recoverPanic(logger *slog.Logger) graphql.RecoverFunc {
	return func(ctx context.Context, p any) error {
		logger.ErrorContext(ctx, "api: panic in resolver", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		return fault.E(fault.Internal, "internal error")
	}
}
