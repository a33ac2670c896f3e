package billing

import (
	"context"
	"strconv"
	"time"

	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/store"
)

// ProviderChannel is the bus channel of a provider's earnings changes.
func ProviderChannel(providerID int64) string {
	return "provider." + strconv.FormatInt(providerID, 10) + ".earnings"
}

// announce publishes that providerID's earnings changed, once the
// transaction of ctx commits (at once outside one).
func (s *Service) announce(ctx context.Context, providerID int64) {
	store.AfterCommit(ctx, func() {
		pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := s.deps.Bus.Publish(pctx, ProviderChannel(providerID), []byte(strconv.FormatInt(providerID, 10))); err != nil {
			s.deps.Logger.WarnContext(ctx, "billing: unable to publish an earnings change", "provider_id", providerID, "err", err)
		}
	})
}

// resolveEvent loads the summary an earnings change names, once per
// replica for every dashboard following the provider.
func (s *Service) resolveEvent(ctx context.Context, msg bus.Message) (*Summary, bool) {
	id, err := strconv.ParseInt(string(msg.Payload), 10, 64)
	if err != nil || id <= 0 {
		return nil, false
	}
	sum, err := s.Summary(ctx, id)
	if err != nil {
		if ctx.Err() == nil {
			s.deps.Logger.WarnContext(ctx, "billing: unable to load earnings for an event", "provider_id", id, "err", err)
		}
		return nil, false
	}
	return sum, true
}

// Follow streams providerID's earnings tracker: the current summary
// first, then a new one after every change, until ctx ends. Each change
// is computed once per replica for every subscriber of the provider (the
// summaries sent are shared and read-only).
func (s *Service) Follow(ctx context.Context, providerID int64) (<-chan *Summary, error) {
	return s.live.Follow(ctx, ProviderChannel(providerID), func(ctx context.Context) ([]*Summary, error) {
		sum, err := s.Summary(ctx, providerID)
		if err != nil {
			return nil, err
		}
		return []*Summary{sum}, nil
	}, nil)
}
