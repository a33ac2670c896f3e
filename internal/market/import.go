package market

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/models"
)

// PastWeek is a week of usage the refresh did not see: Offers were
// offered (and Rented of them) for Span in the week starting Start.
type PastWeek struct {
	Start  time.Time
	Span   time.Duration
	Offers []*models.ModelSupply
}

// ImportUsage lays down past weeks of usage (a market's record from
// before the platform, or the demo world's weeks), with the refresh's
// arithmetic (AddUsage) and the models' current medians, in one
// transaction, and only while no usage before the current week exists:
// an import after the refresh has a past, or a second one, writes
// nothing. It reports whether it wrote.
//
// The weeks are checked first, every problem named in a
// *fault.Validation: each before the current week, a span of at most a
// week, offers of a model with a price, and rented GPUs between none and
// those offered (utilisation stays between 0 and 1, as the refresh's).
func (s *Service) ImportUsage(ctx context.Context, weeks []PastWeek) (bool, error) {
	thisWeek := models.WeekStart(s.deps.Clock.Now())
	if err := checkWeeks(weeks, thisWeek); err != nil {
		return false, err
	}
	var medians []*models.ModelMarketPrice
	if err := s.deps.DB.NewSelect().Model(&medians).Scan(ctx); err != nil {
		return false, fmt.Errorf("market: unable to load median prices: %w", err)
	}
	median := make(map[string]models.USDC, len(medians))
	for _, m := range medians {
		median[m.ModelKey] = m.Median
	}
	wrote := false
	err := s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		n, err := tx.NewSelect().Model((*models.MarketUsage)(nil)).Where("week_start < ?", thisWeek).Limit(1).Count(ctx)
		if err != nil || n > 0 {
			return err
		}
		for _, w := range weeks {
			if err := AddUsage(ctx, tx, models.WeekStart(w.Start), w.Span, w.Offers, median); err != nil {
				return err
			}
			wrote = true
		}
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("market: unable to import usage: %w", err)
	}
	return wrote, nil
}

// checkWeeks checks weeks to import before the week starting thisWeek.
func checkWeeks(weeks []PastWeek, thisWeek time.Time) error {
	var v fault.Validation
	for i, w := range weeks {
		field := fmt.Sprintf("weeks[%d]", i)
		if !models.WeekStart(w.Start).Before(thisWeek) {
			v.Add(field+".start", fault.InFuture, "a week before the current one")
		}
		if w.Span <= 0 || w.Span > 7*24*time.Hour {
			v.Add(field+".span", fault.OutOfRange, "more than nothing and at most a week")
		}
		for j, o := range w.Offers {
			offer := fmt.Sprintf("%s.offers[%d]", field, j)
			switch {
			case o.ModelKey == "":
				v.Add(offer+".modelKey", fault.Required, "the model offered")
			case o.Price <= 0:
				v.Add(offer+".price", fault.OutOfRange, "a price per hour above zero")
			case o.GPUs < 0 || o.Rented < 0 || o.Rented > o.GPUs:
				v.Add(offer+".rented", fault.OutOfRange, "between none and the GPUs offered")
			}
		}
	}
	return v.Err()
}
