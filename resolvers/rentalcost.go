package resolvers

import (
	"context"
	"strconv"

	"github.com/gpunex/gpunex/graph/model"
	"github.com/gpunex/gpunex/internal/billing"
	"github.com/gpunex/gpunex/models"
)

// costOf is what rental has cost its customer: the cost the market
// attached where it loaded the rental for its customer (a page, the
// rental, a live event), or, for a rental loaded elsewhere (a mutation's
// payload), billing's figures read now.
func (r *rentalResolver) costOf(ctx context.Context, rental *models.Rental) (*models.RentalCost, error) {
	if rental.Cost != nil {
		return rental.Cost, nil
	}
	costs, err := r.Billing.Costs(ctx, []*models.Rental{rental})
	if err != nil {
		return nil, err
	}
	return costs[rental.ID], nil
}

// statementLine maps a line of a customer's statement.
func statementLine(l *billing.StatementLine) *model.StatementLine {
	out := &model.StatementLine{ID: strconv.FormatInt(l.EntryID, 10), PostedAt: l.At, Kind: string(l.Kind), Reference: l.Reference,
		Amount: l.Amount, Balance: l.Balance}
	if l.RentalID != nil {
		id := strconv.FormatInt(*l.RentalID, 10)
		out.RentalID = &id
	}
	return out
}
