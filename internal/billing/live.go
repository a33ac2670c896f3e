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

func decodeProviderEvent(_ context.Context, msg bus.Message) (int64, bool) {
	id, err := strconv.ParseInt(string(msg.Payload), 10, 64)
	return id, err == nil && id > 0
}
