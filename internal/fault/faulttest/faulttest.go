// Package faulttest holds the assertions tests of any service make about
// its coded errors.
package faulttest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/fault"
)

// RequireProblem asserts that err is a validation error (BAD_USER_INPUT)
// with exactly one problem, on field with code and a message.
func RequireProblem(t testing.TB, err error, field string, code fault.ProblemCode) {
	t.Helper()
	require.Error(t, err)
	require.Equal(t, fault.Invalid, fault.CodeOf(err))
	v, ok := fault.AsValidation(err)
	require.True(t, ok, "want a *fault.Validation, got %T: %v", err, err)
	require.Len(t, v.Problems, 1, "%v", err)
	require.Equal(t, field, v.Problems[0].Field)
	require.Equal(t, code, v.Problems[0].Code)
	require.NotEmpty(t, v.Problems[0].Message)
}
