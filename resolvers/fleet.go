package resolvers

import (
	"context"
	"strconv"
	"time"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/fleet"
)

// heartbeatPayload maps the fleet's answer to the protocol's payload; a
// refused heartbeat (res nil) carries its userErrors and the configured
// interval.
func heartbeatPayload(res *fleet.HeartbeatResult, userErrors []*fault.Problem, interval time.Duration) *protocol.HeartbeatPayload {
	out := &protocol.HeartbeatPayload{IntervalSeconds: intervalSeconds(interval), Commands: []protocol.AgentCommand{},
		UserErrors: wireUserErrors(userErrors)}
	if res == nil {
		return out
	}
	out.Accepted, out.IntervalSeconds = res.Accepted, intervalSeconds(res.Interval)
	if res.Status != nil {
		st := protocol.MachineStatus(*res.Status)
		out.Status = &st
	}
	for _, c := range res.Commands {
		out.Commands = append(out.Commands, protocol.AgentCommand{ID: strconv.FormatInt(c.ID, 10), Kind: c.Kind, Payload: c.Payload})
	}
	return out
}

// intervalSeconds reports an interval to agents in whole seconds, at least
// one (tests run the server with sub-second intervals).
func intervalSeconds(d time.Duration) int { return max(1, int(d/time.Second)) }

// PreparedHeartbeat resolves protocol.HeartbeatMutation for the HTTP
// layer's prepared path (api.Prepare, registered where the server is
// assembled): the same resolver as the generic executor's, so both answer
// alike.
func (r *Resolver) PreparedHeartbeat(ctx context.Context, vars protocol.HeartbeatVariables) (*protocol.HeartbeatPayload, error) {
	return r.Mutation().Heartbeat(ctx, vars.Input)
}
