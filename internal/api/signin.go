package api

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/gpunex/gpunex/internal/fault"
)

// signInFields are the mutations that check a password or hash a new one:
// each costs 64 MiB of argon2id and is one guess.
var signInFields = map[string]bool{"logIn": true, "signUp": true}

// signInLimit refuses an operation that selects more than one sign-in
// field (logIn or signUp, under any alias, in the operation or in the
// fragments it spreads), so one request is at most one guess and one hash.
// It runs after gqlgen validated the operation and before any resolver,
// behind operationLimit, which has already bounded the fragments and
// spreads it walks.
type signInLimit struct{}

var (
	_ graphql.HandlerExtension        = signInLimit{}
	_ graphql.OperationContextMutator = signInLimit{}
)

func (signInLimit) ExtensionName() string                   { return "SignInLimit" }
func (signInLimit) Validate(graphql.ExecutableSchema) error { return nil }

func (signInLimit) MutateOperationContext(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if oc.Operation == nil || oc.Operation.Operation != ast.Mutation {
		return nil
	}
	if countRootFields(oc, 2, func(name string) bool { return signInFields[name] }) > 1 {
		return coded(fault.BadRequest, gqlerror.Errorf("an operation may sign in or sign up at most once"))
	}
	return nil
}

// countRootFields counts the fields of oc's operation that match, under
// any alias, in the operation, its inline fragments and the fragments it
// spreads, each fragment counted once however often it is spread (its
// count multiplied). Counts stop growing at limit, so no spread
// multiplies them without end.
func countRootFields(oc *graphql.OperationContext, limit int, match func(name string) bool) int {
	var fragments ast.FragmentDefinitionList
	if oc.Doc != nil {
		fragments = oc.Doc.Fragments
	}
	c := rootFieldCounter{fragments: fragments, memo: map[string]int{}, limit: limit, match: match}
	return c.count(oc.Operation.SelectionSet)
}

type rootFieldCounter struct {
	fragments ast.FragmentDefinitionList
	memo      map[string]int
	limit     int
	match     func(name string) bool
}

func (c *rootFieldCounter) count(set ast.SelectionSet) int {
	n := 0
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			// Only root fields are counted: nothing below a field is a
			// field of the root type.
			if c.match(s.Name) {
				n++
			}
		case *ast.InlineFragment:
			n += c.count(s.SelectionSet)
		case *ast.FragmentSpread:
			n += c.fragment(s.Name)
		}
		if n >= c.limit {
			return c.limit
		}
	}
	return n
}

func (c *rootFieldCounter) fragment(name string) int {
	if n, ok := c.memo[name]; ok {
		return n
	}
	c.memo[name] = 0 // validation refuses cycles; this stops one anyway
	def := c.fragments.ForName(name)
	if def == nil {
		return 0
	}
	n := c.count(def.SelectionSet)
	c.memo[name] = n
	return n
}
