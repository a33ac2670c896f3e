package resolvers

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/graph/model"
	"github.com/gpunex/gpunex/internal/api"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/models"
)

// Prepared lists the documents the HTTP layer answers without gqlgen's
// generic executor: the agent's heartbeat, the one operation every
// machine sends every few seconds. See api.Prepared for the contract.
func (r *Resolver) Prepared() []api.Prepared {
	return []api.Prepared{{Document: protocol.HeartbeatMutation, Payload: preparedHeartbeatPayload{}, Run: r.preparedHeartbeat}}
}

// preparedHeartbeat answers protocol.HeartbeatMutation: the variables are
// decoded straight into the generated input type, the same resolver runs,
// and the payload is written in the document's selection order.
func (r *Resolver) preparedHeartbeat(ctx context.Context, variables []byte) ([]byte, bool, error) {
	var vars struct {
		Input *model.HeartbeatInput `json:"input"`
	}
	if !api.DecodeVariables(variables, &vars) || !plainHeartbeat(vars.Input) {
		return nil, false, nil
	}
	p, err := r.Mutation().Heartbeat(ctx, *vars.Input)
	if err != nil {
		return nil, true, err
	}
	out := preparedHeartbeatPayload{Accepted: p.Accepted, Status: p.Status, IntervalSeconds: p.IntervalSeconds,
		Commands: make([]preparedCommand, len(p.Commands)), UserErrors: make([]preparedUserError, len(p.UserErrors))}
	for i, c := range p.Commands {
		out.Commands[i] = preparedCommand{ID: strconv.FormatInt(c.ID, 10), Kind: c.Kind, Payload: c.Payload}
	}
	for i, e := range p.UserErrors {
		out.UserErrors[i] = preparedUserError(*e)
	}
	b, err := json.Marshal(out)
	return b, true, err
}

// plainHeartbeat says whether a decoded input has every non-null field
// the schema requires; a missing one decodes as a zero value, and only
// the generic executor words that error as GraphQL does.
func plainHeartbeat(in *model.HeartbeatInput) bool {
	if in == nil || in.MachineID == "" || in.Gpus == nil {
		return false
	}
	for _, g := range in.Gpus {
		if g == nil || g.UUID == "" {
			return false
		}
	}
	return true
}

// preparedHeartbeatPayload is HeartbeatPayload as protocol.HeartbeatMutation
// selects it, in its order.
type preparedHeartbeatPayload struct {
	Accepted        bool                  `json:"accepted"`
	Status          *models.MachineStatus `json:"status"`
	IntervalSeconds int                   `json:"intervalSeconds"`
	Commands        []preparedCommand     `json:"commands"`
	UserErrors      []preparedUserError   `json:"userErrors"`
}

type preparedCommand struct {
	ID      string                  `json:"id"`
	Kind    models.AgentCommandKind `json:"kind"`
	Payload string                  `json:"payload"`
}

type preparedUserError struct {
	Field   string            `json:"field"`
	Message string            `json:"message"`
	Code    fault.ProblemCode `json:"code"`
}
