package fleet

import (
	"context"
	"fmt"
	"sync"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/ratelimit"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// admission decides whether an agent's request may go on, and which
// machine it is about: it resolves machine ids (from memory after the
// first time, so a steady heartbeat reads no SQL) and holds this
// replica's rate limits — heartbeats per machine, and per agent token
// whatever costs a query.
type admission struct {
	db *store.DB

	refs     sync.Map           // machine_uid -> machineRef
	machines *ratelimit.Buckets // heartbeats, per machine
	tokens   *ratelimit.Buckets // lookups and registrations, per agent token
}

// machineRef is what a heartbeat needs to know of its machine.
type machineRef struct {
	id, providerID int64
}

func newAdmission(deps Deps, cfg Config) *admission {
	return &admission{db: deps.DB,
		machines: ratelimit.New(deps.Clock, cfg.RatePerSecond, cfg.Burst),
		tokens:   ratelimit.New(deps.Clock, cfg.TokenRatePerSecond, cfg.TokenBurst)}
}

// errTokenRateLimited refuses an agent token that asks for too many
// lookups or registrations.
var errTokenRateLimited = fault.E(fault.RateLimited, "too many requests for this agent token; slow down")

// errHeartbeatRateLimited refuses a machine that beats too fast.
var errHeartbeatRateLimited = fault.E(fault.RateLimited, "too many heartbeats for this machine; slow down")

// allowLookup spends one of agent's token budget for a request that will
// query the database (a registration, a lookup).
func (a *admission) allowLookup(agent *auth.Agent) error {
	if !a.tokens.Allow(agent.TokenID) {
		return errTokenRateLimited
	}
	return nil
}

// allowHeartbeat spends one of ref's own heartbeat budget.
func (a *admission) allowHeartbeat(ref machineRef) error {
	if !a.machines.Allow(ref.id) {
		return errHeartbeatRateLimited
	}
	return nil
}

// remember caches a machine just registered, so its heartbeats resolve
// without a query.
func (a *admission) remember(uid string, ref machineRef) { a.refs.Store(uid, ref) }

// resolve finds agent's machine by its machine id: from memory after the
// first time, so a steady heartbeat reads no SQL. A lookup (a machine id
// this replica has not resolved, unknown ones included) spends the
// token's budget; a resolved machine is bounded by its own bucket.
func (a *admission) resolve(ctx context.Context, agent *auth.Agent, uid string) (machineRef, error) {
	if v, ok := a.refs.Load(uid); ok {
		ref := v.(machineRef)
		if ref.providerID != agent.ProviderID {
			return ref, errUnknownMachine()
		}
		return ref, nil
	}
	if err := a.allowLookup(agent); err != nil {
		return machineRef{}, err
	}
	var m models.Machine
	err := a.db.NewSelect().Model(&m).Column("id", "provider_id").Where("machine_uid = ?", uid).Scan(ctx)
	if store.IsNoRows(err) {
		return machineRef{}, errUnknownMachine()
	}
	if err != nil {
		return machineRef{}, fmt.Errorf("fleet: unable to look up machine: %w", err)
	}
	ref := machineRef{id: m.ID, providerID: m.ProviderID}
	a.remember(uid, ref)
	if ref.providerID != agent.ProviderID {
		return ref, errUnknownMachine()
	}
	return ref, nil
}

// errUnknownMachine answers a machine id that is not the agent's
// provider's: unknown and another provider's get the same answer, so an
// agent token cannot tell which machine ids exist (issue 9 point 9).
func errUnknownMachine() error {
	return fault.E(fault.NotFound, "unknown machine: register it first")
}
