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
	var fragments ast.FragmentDefinitionList
	if oc.Doc != nil {
		fragments = oc.Doc.Fragments
	}
	c := signInCounter{fragments: fragments, memo: map[string]int{}}
	if c.count(oc.Operation.SelectionSet) > 1 {
		return coded(fault.BadRequest, gqlerror.Errorf("an operation may sign in or sign up at most once"))
	}
	return nil
}

// signInCounter counts the sign-in fields of a selection set, each
// fragment counted once however often it is spread. Counts stop growing
// at two, enough to refuse, so no spread multiplies them without end.
type signInCounter struct {
	fragments ast.FragmentDefinitionList
	memo      map[string]int
}

func (c *signInCounter) count(set ast.SelectionSet) int {
	n := 0
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			// Sign-in fields are fields of Mutation, the root: nothing
			// below a field can be one.
			if signInFields[s.Name] {
				n++
			}
		case *ast.InlineFragment:
			n += c.count(s.SelectionSet)
		case *ast.FragmentSpread:
			n += c.fragment(s.Name)
		}
		if n > 1 {
			return 2
		}
	}
	return n
}

func (c *signInCounter) fragment(name string) int {
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
