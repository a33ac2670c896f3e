package api

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/fault"
)

// unmetered are the mutations the write limit does not count: sign-in
// fields have their own limits (per account and address), logOut only
// ends a session, and the agent's heartbeat comes at the server's own
// interval (its fast path does not pass here either).
var unmetered = map[string]bool{"logIn": true, "signUp": true, "logOut": true, "heartbeat": true}

// writeLimit counts the mutation fields of an operation against its
// caller (auth.Service.AllowWrites) before any resolver runs, so an
// operation over the limit is refused whole: none of its mutations runs.
// It is the one rate limit for writes; a mutation needs nothing of its
// own to be limited.
type writeLimit struct {
	auth *auth.Service
}

var (
	_ graphql.HandlerExtension        = writeLimit{}
	_ graphql.OperationContextMutator = writeLimit{}
)

func (writeLimit) ExtensionName() string                   { return "WriteLimit" }
func (writeLimit) Validate(graphql.ExecutableSchema) error { return nil }

// maxCountedWrites bounds the count of one operation; any count that
// large is refused anyway.
const maxCountedWrites = 1 << 20

func (w writeLimit) MutateOperationContext(ctx context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if w.auth == nil || oc.Operation == nil || oc.Operation.Operation != ast.Mutation {
		return nil
	}
	n := countRootFields(oc, maxCountedWrites, func(name string) bool { return !unmetered[name] })
	if err := w.auth.AllowWrites(ctx, n); err != nil {
		return coded(fault.CodeOf(err), gqlerror.Errorf("%s", publicMessage(err)))
	}
	return nil
}
