package resolvers

import (
	"context"

	"github.com/gpunex/gpunex/graph/model"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/models"
)

// settlePayout is markPayoutPaid and markPayoutFailed: an admin settles a
// bank or manual payout with settle.
func (r *Resolver) settlePayout(ctx context.Context, input model.SettlePayoutInput,
	settle func(ctx context.Context, id int64, reference string) (*models.Payout, error),
) (*model.SettlePayoutPayload, error) {
	if _, err := requireAdmin(ctx); err != nil {
		return nil, err
	}
	id, err := parseID("input.id", input.ID)
	if err != nil {
		return nil, err
	}
	p, err := settle(ctx, id, input.Reference)
	return payload(err, func(ue []*fault.Problem) *model.SettlePayoutPayload {
		return &model.SettlePayoutPayload{Payout: p, UserErrors: ue}
	})
}

// boundedFirst is a list argument's size: its value held to [1, limit]
// (limit when absent).
func boundedFirst(first *int, limit int) int {
	if first == nil || *first > limit {
		return limit
	}
	return max(1, *first)
}
