package api

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"
)

// parserTokenLimit bounds the tokens of a document gqlgen parses.
const parserTokenLimit = 15000

// operationLimit refuses an operation that passes one of its limits
// (complexity, depth, fragments, spreads, aliases). It replaces gqlgen's
// FixedComplexityLimit, whose walk expands every fragment spread again: a
// document of fragments each spreading the next twice cost time
// exponential in their number.
//
// It checks twice, each pass linear in the document. Before gqlgen
// parses and validates (as an OperationParameterMutator), a document not
// in the query cache is parsed and its shape as written measured
// (measureDocument), because validation itself is superlinear in the
// number of fields and fragments. After validation (as an
// OperationContextMutator, before anything executes), the operation's
// cost and depth with fragments expanded are measured with each fragment
// measured once (measureOperation).
type operationLimit struct {
	limits operationLimits
	// queries is gqlgen's cache of validated documents: a document in it
	// has passed measureDocument before.
	queries graphql.Cache[*ast.QueryDocument]
}

var (
	_ graphql.HandlerExtension          = operationLimit{}
	_ graphql.OperationParameterMutator = operationLimit{}
	_ graphql.OperationContextMutator   = operationLimit{}
)

func (operationLimit) ExtensionName() string                   { return "OperationLimit" }
func (operationLimit) Validate(graphql.ExecutableSchema) error { return nil }

func (l operationLimit) MutateOperationParameters(ctx context.Context, params *graphql.RawParams) *gqlerror.Error {
	if l.queries != nil {
		if _, ok := l.queries.Get(ctx, params.Query); ok {
			return nil
		}
	}
	doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: params.Query}, parserTokenLimit)
	if err != nil {
		return nil // gqlgen parses it again and reports the error
	}
	return measureDocument(doc, l.limits)
}

func (l operationLimit) MutateOperationContext(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if oc.Operation == nil || oc.Doc == nil {
		return nil
	}
	_, err := measureOperation(oc.Operation, oc.Doc.Fragments, l.limits)
	return err
}
