package deposit

import (
	"context"
	"strconv"
	"time"

	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// Channel is the bus channel of userID's deposit requests' changes.
func Channel(userID int64) string { return "user." + strconv.FormatInt(userID, 10) + ".deposits" }

// announce publishes that request id of userID changed, once the
// transaction of ctx commits (at once outside one).
func (s *Service) announce(ctx context.Context, userID, id int64) {
	store.AfterCommit(ctx, func() {
		pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := s.deps.Bus.Publish(pctx, Channel(userID), []byte(strconv.FormatInt(id, 10))); err != nil {
			s.deps.Logger.WarnContext(ctx, "deposit: unable to publish a change", "deposit_id", id, "err", err)
		}
	})
}

// resolveEvent loads the request an event names, with its transfers,
// once per replica for every subscription of its customer.
func (s *Service) resolveEvent(ctx context.Context, msg bus.Message) (*models.Deposit, bool) {
	id, err := strconv.ParseInt(string(msg.Payload), 10, 64)
	if err != nil || id <= 0 {
		return nil, false
	}
	d, err := s.load(ctx, id)
	if err != nil {
		if ctx.Err() == nil {
			s.deps.Logger.WarnContext(ctx, "deposit: unable to load a request for an event", "deposit_id", id, "err", err)
		}
		return nil, false
	}
	return d, d != nil
}

// Follow streams userID's requests: those still followed on chain first
// (oldest first), then each request again whenever it changes, until ctx
// ends. The requests sent are shared by every subscription of the
// customer on this replica: read-only.
func (s *Service) Follow(ctx context.Context, userID int64) (<-chan *models.Deposit, error) {
	return s.live.Follow(ctx, Channel(userID), func(ctx context.Context) ([]*models.Deposit, error) {
		var ds []*models.Deposit
		err := s.deps.DB.NewSelect().Model(&ds).Relation("Transfers", orderTransfers).
			Where("d.user_id = ? AND d.follow_until > ?", userID, s.deps.Clock.Now()).Order("d.id ASC").Limit(MaxList).Scan(ctx)
		return ds, err
	}, func(d *models.Deposit) bool { return d.UserID == userID })
}
