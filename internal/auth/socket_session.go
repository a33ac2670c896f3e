package auth

import (
	"context"
	"time"
)

// SessionTimeLeft is SessionExpiry measured on the service's clock: how
// long session id has before it expires, ok false when it has ended or
// expired already. A socket holding the session schedules its next check
// with it; the clock being the service's, a test moving a manual clock
// moves the socket's expiry too.
func (s *Service) SessionTimeLeft(ctx context.Context, id int64) (left time.Duration, ok bool, err error) {
	expires, ok, err := s.SessionExpiry(ctx, id)
	if err != nil || !ok {
		return 0, false, err
	}
	return expires.Sub(s.deps.Clock.Now()), true, nil
}
