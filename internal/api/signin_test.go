package api

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/fault"
)

// logIns is a mutation of n logIn fields, each under its own alias.
func logIns(n int) string {
	var b strings.Builder
	b.WriteString("mutation {")
	for i := range n {
		fmt.Fprintf(&b, ` l%d: logIn(input: {email: "ada@example.com", password: "guess number %d"}) { user { id } }`, i, i)
	}
	b.WriteString(" }")
	return b.String()
}

// Point 2 of issue 9: at most one logIn or signUp per operation, counted
// through aliases, fragments and inline fragments, refused with
// BAD_REQUEST before any resolver runs. The test server has no account
// service, so a resolver that ran would answer INTERNAL instead.
func TestSignInFieldsAreLimitedToOnePerOperation(t *testing.T) {
	t.Parallel()
	// Limits raised so the alias and complexity caps of point 1 do not
	// refuse the large batch first: this test is about the sign-in limit.
	srv := graphqlServer(t, Config{AliasLimit: 1000, ComplexityLimit: 100000})
	const logIn = `logIn(input: {email: "ada@example.com", password: "correct horse battery"}) { user { id } }`
	const signUp = `signUp(input: {email: "ada@example.com", password: "correct horse battery", name: "Ada"}) { user { id } }`
	for _, tc := range []struct {
		desc    string
		query   string
		refused bool
	}{
		{desc: "an alias batch of 2 logIn", query: logIns(2), refused: true},
		{desc: "an alias batch of 500 logIn", query: logIns(500), refused: true},
		{desc: "a logIn and a signUp", query: "mutation { " + logIn + " s: " + signUp + " }", refused: true},
		{desc: "two signUp", query: "mutation { a: " + signUp + " b: " + signUp + " }", refused: true},
		{desc: "one logIn in a fragment spread twice", query: "mutation { ...F ...F } fragment F on Mutation { " + logIn + " }", refused: true},
		{desc: "one logIn beside a fragment holding another", query: "mutation { a: " + logIn + " ...F } fragment F on Mutation { b: " + logIn + " }", refused: true},
		{desc: "one logIn in an inline fragment beside another", query: "mutation { a: " + logIn + " ... on Mutation { b: " + logIn + " } }", refused: true},
		{desc: "the same logIn written twice without an alias", query: "mutation { " + logIn + " " + logIn + " }", refused: true},
		{desc: "a single logIn", query: "mutation { " + logIn + " }"},
		{desc: "a single logIn under an alias", query: "mutation { me: " + logIn + " }"},
		{desc: "a single signUp", query: "mutation { " + signUp + " }"},
		{desc: "a single logIn through a fragment", query: "mutation { ...F } fragment F on Mutation { " + logIn + " }"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			a := post(t, srv, tc.query, false)
			if tc.refused {
				require.Equal(t, string(fault.BadRequest), a.code(), "%+v", a.Errors)
				require.Len(t, a.Errors, 1)
				require.Contains(t, a.Errors[0].Message, "at most once")
				require.True(t, len(a.Data) == 0 || string(a.Data) == "null", "no field resolved: %s", a.Data)
				return
			}
			require.NotEqual(t, string(fault.BadRequest), a.code(), "%+v", a.Errors)
		})
	}
}

// Queries are not sign-ins: the limit leaves them alone.
func TestSignInLimitIgnoresQueries(t *testing.T) {
	t.Parallel()
	srv := graphqlServer(t, Config{})
	require.Equal(t, "", post(t, srv, "{ a: health b: health }", false).code())
}
