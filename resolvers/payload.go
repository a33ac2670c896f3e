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
func payload[P any](err error, build func(userErrors []*fault.Problem) *P) (*P, error) {
	if err == nil {
		return build([]*fault.Problem{}), nil
	}
	v, ok := fault.AsValidation(err)
	if !ok {
		return nil, err
	}
	out := make([]*fault.Problem, len(v.Problems))
	for i := range v.Problems {
		out[i] = &v.Problems[i]
	}
	return build(out), nil
}

// The agent's payloads (HeartbeatPayload, ReportJobStatusPayload) are
// agent/protocol's types, which carry userErrors as protocol.UserError,
// the wire's copy with the code as a string (the agent does not link
// fault). These two functions are the one place the server crosses
// between the two: wireUserErrors fills an agent payload, and
// userErrorsOfWire answers its userErrors field to gqlgen as the schema's
// UserError, fault.Problem (package fault's doc says why).

// wireUserErrors writes the user errors into an agent payload's form.
func wireUserErrors(problems []*fault.Problem) []protocol.UserError {
	out := make([]protocol.UserError, len(problems))
	for i, p := range problems {
		out[i] = protocol.UserError{Field: p.Field, Message: p.Message, Code: string(p.Code)}
	}
	return out
}

// userErrorsOfWire reads an agent payload's user errors back as the
// schema's UserError. Their codes came from fault.ProblemCode through
// wireUserErrors, so the conversion only restores their type.
func userErrorsOfWire(wire []protocol.UserError) []*fault.Problem {
	out := make([]*fault.Problem, len(wire))
	for i, u := range wire {
		out[i] = &fault.Problem{Field: u.Field, Message: u.Message, Code: fault.ProblemCode(u.Code)}
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
