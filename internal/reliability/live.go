package reliability

import (
	"context"
	"strconv"
	"time"

	"github.com/gpunex/gpunex/internal/bus"
)

// ProviderChannel is the bus channel of a provider's reliability changes.
func ProviderChannel(providerID int64) string {
	return "provider." + strconv.FormatInt(providerID, 10) + ".reliability"
}

func (s *Service) announce(ctx context.Context, providerID int64) {
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := s.deps.Bus.Publish(pctx, ProviderChannel(providerID), []byte(strconv.FormatInt(providerID, 10))); err != nil {
		s.deps.Logger.WarnContext(ctx, "reliability: unable to publish a change", "provider_id", providerID, "err", err)
	}
}

// resolveEvent computes the provider's summary once per replica for every
// subscriber.
func (s *Service) resolveEvent(ctx context.Context, msg bus.Message) (*Summary, bool) {
	id, err := strconv.ParseInt(string(msg.Payload), 10, 64)
	if err != nil || id <= 0 {
		return nil, false
	}
	sum, err := s.Provider(ctx, id)
	if err != nil {
		return nil, false
	}
	return sum, true
}

// Follow streams providerID's reliability: now, then after every change.
func (s *Service) Follow(ctx context.Context, providerID int64) (<-chan *Summary, error) {
	return s.live.Follow(ctx, ProviderChannel(providerID), func(ctx context.Context) ([]*Summary, error) {
		sum, err := s.Provider(ctx, providerID)
		if err != nil {
			return nil, err
		}
		return []*Summary{sum}, nil
	}, nil)
}
