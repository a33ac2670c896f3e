package auth

import (
	"context"
	"strconv"

	"github.com/gpunex/gpunex/internal/fault"
)

// writeSubject is what the writes of ctx count against: the signed-in
// user, else the client address; empty for an agent, whose mutations
// (registerMachine, heartbeat) the fleet bounds per token and per machine
// (a provider restarting a hundred machines on one token registers a
// hundred at once), and when there is no caller at all (the operator's
// CLI, background work), neither of which this limit counts.
func writeSubject(ctx context.Context) string {
	if v := ViewerFrom(ctx); v != nil && v.User != nil {
		return "write:user:" + strconv.FormatInt(v.User.ID, 10)
	}
	if AgentFrom(ctx) != nil {
		return ""
	}
	if addr := ClientAddr(ctx); addr != "" {
		return "write:address:" + addr
	}
	return ""
}

// AllowWrites counts n mutations by the caller of ctx and refuses them
// all with RATE_LIMITED when they would pass Limits.Writes within
// Limits.WriteWindow, so one user cannot flood others (one request of a
// hundred aliased mutations is one hundred writes). Refused writes count
// too: a client that keeps flooding stays refused until it pauses. A
// store that fails lets the writes through, logged.
func (s *Service) AllowWrites(ctx context.Context, n int) error {
	sub := writeSubject(ctx)
	if sub == "" || n <= 0 {
		return nil
	}
	l := s.limiter
	count, err := l.store.Incr(ctx, "auth:"+sub, int64(n), l.limits.WriteWindow)
	if err != nil {
		l.storeFailed(ctx, err)
		return nil
	}
	if count > int64(l.limits.Writes) {
		return fault.E(fault.RateLimited, "too many changes: at most %d in %d s; try again shortly", l.limits.Writes, int(l.limits.WriteWindow.Seconds()))
	}
	return nil
}
