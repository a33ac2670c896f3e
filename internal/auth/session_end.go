package auth

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// sessionEndedChannel carries the ids of sessions that ended (log-out), so
// every replica closes the WebSockets they authenticated.
const sessionEndedChannel = "auth.session-ended"

func (s *Service) announceSessionEnd(ctx context.Context, id int64) {
	if s.deps.Bus == nil {
		return
	}
	if err := s.deps.Bus.Publish(ctx, sessionEndedChannel, strconv.AppendInt(nil, id, 10)); err != nil {
		// Sockets on other replicas still end: each re-checks its session
		// on every subscribe and when the session would expire.
		s.deps.Logger.WarnContext(ctx, "auth: unable to announce the end of a session", "session_id", id, "err", err)
	}
}

// ListenForSessionEnds calls ended with the id of every session that ends,
// on any replica, until ctx ends. After a gap in the subscription (an
// announcement may have been missed) resync runs, so the caller can check
// the sessions it holds. Without a bus it returns at once.
func (s *Service) ListenForSessionEnds(ctx context.Context, ended func(sessionID int64), resync func()) {
	if s.deps.Bus == nil {
		return
	}
	bus.Listen(ctx, s.deps.Bus, sessionEndedChannel, s.deps.Logger, resync, func(m bus.Message) {
		if id, err := strconv.ParseInt(string(m.Payload), 10, 64); err == nil {
			ended(id)
		}
	})
}

// SessionExpiry reports when session id expires; ok is false when it has
// ended or expired already. Use slides a session's expiry forward, so a
// socket holding it checks again at the time returned.
func (s *Service) SessionExpiry(ctx context.Context, id int64) (expires time.Time, ok bool, err error) {
	sess := new(models.Session)
	err = s.deps.DB.NewSelect().Model(sess).Column("expires_at").Where("id = ?", id).Scan(ctx)
	if store.IsNoRows(err) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, fmt.Errorf("auth: unable to look up session: %w", err)
	}
	if !s.deps.Clock.Now().Before(sess.ExpiresAt) {
		return time.Time{}, false, nil
	}
	return sess.ExpiresAt, true, nil
}
