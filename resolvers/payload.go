package resolvers

import (
	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/models"
)

// payload builds a mutation's payload from a service's result, the one
// way every mutation does it: a validation problem becomes the payload's
// userErrors (and a nil error; the service changed nothing and returned
// no data), any other error goes to the error presenter, and success gets
// an empty userErrors list. build receives the userErrors to set.
func payload[P any](err error, build func(userErrors []*protocol.UserError) *P) (*P, error) {
	if err == nil {
		return build([]*protocol.UserError{}), nil
	}
	v, ok := fault.AsValidation(err)
	if !ok {
		return nil, err
	}
	return build(userErrorsOf(v.Problems)), nil
}

// userErrorsOf maps validation problems to the payload's userErrors.
func userErrorsOf(problems []fault.Problem) []*protocol.UserError {
	out := make([]*protocol.UserError, 0, len(problems))
	for _, p := range problems {
		out = append(out, &protocol.UserError{Field: p.Field, Message: p.Message, Code: string(p.Code)})
	}
	return out
}

// parseID reads a numeric ID argument; a malformed one is BAD_USER_INPUT
// naming the argument.
func parseID(field, s string) (int64, error) {
	id, err := models.UnmarshalInt64ID(s)
	if err != nil {
		return 0, fault.E(fault.Invalid, "%s is not a valid ID", field)
	}
	return id, nil
}
