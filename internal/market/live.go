package market

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// CustomerChannel is the bus channel of a customer's rental changes.
func CustomerChannel(userID int64) string {
	return "user." + strconv.FormatInt(userID, 10) + ".rentals"
}

// ProviderChannel is the bus channel of the rentals on a provider's GPUs.
func ProviderChannel(providerID int64) string {
	return "provider." + strconv.FormatInt(providerID, 10) + ".rentals"
}

// changeEvent is what a rental change publishes: its id; subscribers
// load it once per replica (bus.Shared).
type changeEvent struct {
	RentalID int64 `json:"rentalId"`
}

// recentRentals is how many of a customer's rentals a rentalUpdated
// subscription without an id sends first.
const recentRentals = 20

// announce publishes r's change on its customer's and its provider's
// channels once the transaction of ctx commits.
func (s *Service) announce(ctx context.Context, r *models.Rental) {
	payload, _ := json.Marshal(changeEvent{RentalID: r.ID})
	customer, provider := CustomerChannel(r.CustomerID), ProviderChannel(r.ProviderID)
	store.AfterCommit(ctx, func() {
		pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		for _, ch := range []string{customer, provider} {
			if err := s.deps.Bus.Publish(pctx, ch, payload); err != nil {
				s.deps.Logger.WarnContext(ctx, "market: unable to publish a rental change", "rental_id", r.ID, "err", err)
			}
		}
	})
}

// Follow streams customerID's rentals: the current state first (rental
// id, or the newest rentals when id is nil), then each change with its
// log tail, until ctx ends. Another customer's id is NOT_FOUND. Each
// change is loaded once per replica for every subscriber of the customer;
// the rentals sent are shared and read-only.
func (s *Service) Follow(ctx context.Context, customerID int64, id *int64) (<-chan *models.Rental, error) {
	load := func(ctx context.Context) ([]*models.Rental, error) {
		if id != nil {
			r, err := s.Rental(ctx, customerID, *id)
			if err != nil {
				return nil, err
			}
			return []*models.Rental{r}, nil
		}
		page, err := s.Rentals(ctx, customerID, recentRentals, "")
		if err != nil {
			return nil, err
		}
		return page.Rentals, nil
	}
	var keep func(*models.Rental) bool
	if id != nil {
		want := *id
		keep = func(r *models.Rental) bool { return r.ID == want }
	}
	return s.customers.Follow(ctx, CustomerChannel(customerID), load, keep)
}

// FollowProvider streams the rentals on providerID's GPUs as the provider
// sees them: ProviderRentals first, then each change, until ctx ends.
func (s *Service) FollowProvider(ctx context.Context, providerID int64) (<-chan *ProviderRental, error) {
	return s.providers.Follow(ctx, ProviderChannel(providerID), func(ctx context.Context) ([]*ProviderRental, error) {
		return s.ProviderRentals(ctx, providerID)
	}, nil)
}

func decodeChange(msg bus.Message) (int64, bool) {
	var ev changeEvent
	if err := json.Unmarshal(msg.Payload, &ev); err != nil || ev.RentalID <= 0 {
		return 0, false
	}
	return ev.RentalID, true
}

// resolveCustomerEvent loads the rental a change names.
func (s *Service) resolveCustomerEvent(ctx context.Context, msg bus.Message) (*models.Rental, bool) {
	id, ok := decodeChange(msg)
	if !ok {
		return nil, false
	}
	r := new(models.Rental)
	if err := s.deps.DB.NewSelect().Model(r).Where("id = ?", id).Scan(ctx); err != nil {
		if ctx.Err() == nil {
			s.deps.Logger.WarnContext(ctx, "market: unable to load a rental for an event", "rental_id", id, "err", err)
		}
		return nil, false
	}
	if err := s.withCosts(ctx, []*models.Rental{r}); err != nil {
		if ctx.Err() == nil {
			s.deps.Logger.WarnContext(ctx, "market: unable to load a rental's cost for an event", "rental_id", id, "err", err)
		}
		return nil, false
	}
	return r, true
}

// AnnounceCharged publishes, on its customer's and its provider's
// channels, that a rental's charge changed (billing's OnCharged, after the
// tick committed), so rentalUpdated sends the rental with its new cost
// and providerRentalUpdated with what it has earned: loaded once per
// replica for every subscriber, like any change.
func (s *Service) AnnounceCharged(ctx context.Context, customerID, providerID, rentalID int64) {
	payload, _ := json.Marshal(changeEvent{RentalID: rentalID})
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	for _, ch := range []string{CustomerChannel(customerID), ProviderChannel(providerID)} {
		if err := s.deps.Bus.Publish(pctx, ch, payload); err != nil {
			s.deps.Logger.WarnContext(ctx, "market: unable to publish a rental's charge", "rental_id", rentalID, "err", err)
		}
	}
}

// resolveProviderEvent loads the provider's view of the rental a change
// names.
func (s *Service) resolveProviderEvent(ctx context.Context, msg bus.Message) (*ProviderRental, bool) {
	r, ok := s.resolveCustomerEvent(ctx, msg)
	if !ok {
		return nil, false
	}
	views, err := s.providerViews(ctx, []*models.Rental{r})
	if err != nil || len(views) != 1 {
		return nil, false
	}
	return views[0], true
}
