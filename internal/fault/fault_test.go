package fault_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/fault"
)

func TestCodeOf(t *testing.T) {
	t.Parallel()
	cases := []struct {
		desc string
		err  error
		want fault.Code
	}{
		{desc: "coded error", err: fault.E(fault.NotFound, "no such user"), want: fault.NotFound},
		{desc: "wrapped coded error", err: fmt.Errorf("auth: %w", fault.E(fault.Forbidden, "no")), want: fault.Forbidden},
		{desc: "validation", err: (&fault.Validation{Problems: []fault.Problem{{Field: "input.email"}}}), want: fault.Invalid},
		{desc: "plain error is internal", err: errors.New("disk on fire"), want: fault.Internal},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, fault.CodeOf(tc.err))
		})
	}
}

func TestValidationErrIsNilWithoutProblems(t *testing.T) {
	t.Parallel()
	var v fault.Validation
	require.NoError(t, v.Err())
	v.Add("input.email", fault.Required, "email is required")
	err := v.Err()
	require.Error(t, err)
	got, ok := fault.AsValidation(fmt.Errorf("wrapped: %w", err))
	require.True(t, ok)
	require.Equal(t, "input.email", got.Problems[0].Field)
}

// The lists behind the ErrorCode and UserErrorCode enums hold each code
// once, and Known answers from them.
func TestCodeListsAreSetsAndKnownAnswersFromThem(t *testing.T) {
	t.Parallel()
	codes := fault.Codes()
	require.Len(t, codes, len(unique(codes)))
	for _, c := range codes {
		require.True(t, c.Known(), c)
	}
	require.False(t, fault.Code("TEAPOT").Known())
	require.False(t, fault.Code("").Known())

	problems := fault.ProblemCodes()
	require.Len(t, problems, len(unique(problems)))
	for _, c := range problems {
		require.True(t, c.Known(), c)
	}
	require.False(t, fault.ProblemCode("TEAPOT").Known())
}

func unique[T comparable](in []T) map[T]bool {
	out := map[T]bool{}
	for _, v := range in {
		out[v] = true
	}
	return out
}
