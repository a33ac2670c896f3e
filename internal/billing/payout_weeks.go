package billing

import (
	"context"
	"fmt"
	"time"

	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/models"
)

// MaxPayoutWeeks is how many weeks PayoutWeeks reads at most: two years.
const MaxPayoutWeeks = 104

// PayoutWeek is what was paid to a provider in one week: the payouts paid
// in it (by when they were paid, not when they were made), summed.
type PayoutWeek struct {
	// Start is the week's Monday 00:00 in the provider's time zone.
	Start time.Time
	Paid  models.USDC
	Count int
}

// PayoutWeeks is providerID's last weeks of payouts paid, oldest first and
// this week last, in the provider's time zone (its payout periods' weeks),
// weeks without a payout included, so a chart of them has an even axis.
// weeks is 1 to MaxPayoutWeeks, else a *fault.Validation naming it.
func (s *Service) PayoutWeeks(ctx context.Context, providerID int64, weeks int) ([]*PayoutWeek, error) {
	if weeks < 1 || weeks > MaxPayoutWeeks {
		var v fault.Validation
		v.Add("weeks", fault.OutOfRange, fmt.Sprintf("weeks is 1 to %d", MaxPayoutWeeks))
		return nil, &v
	}
	loc, err := s.zoneOf(ctx, providerID)
	if err != nil {
		return nil, err
	}
	thisWeek, next := PeriodOf(Weekly, s.deps.Clock.Now(), loc)
	out := make([]*PayoutWeek, weeks)
	for i := range out {
		out[i] = &PayoutWeek{Start: time.Date(thisWeek.Year(), thisWeek.Month(), thisWeek.Day()-7*(weeks-1-i), 0, 0, 0, 0, loc)}
	}
	var paid []struct {
		PaidAt time.Time   `bun:"paid_at"`
		Amount models.USDC `bun:"amount_micros"`
	}
	if err := s.deps.DB.NewSelect().Model((*models.Payout)(nil)).Column("paid_at", "amount_micros").
		Where("provider_id = ? AND state = ? AND paid_at >= ? AND paid_at < ?", providerID, models.PayoutPaid, out[0].Start.UTC(), next.UTC()).
		Scan(ctx, &paid); err != nil {
		return nil, fmt.Errorf("billing: unable to read the payouts by week: %w", err)
	}
	for _, p := range paid {
		// The last week whose start is not after the payment.
		i := weeks - 1
		for i > 0 && out[i].Start.After(p.PaidAt) {
			i--
		}
		out[i].Paid += p.Amount
		out[i].Count++
	}
	return out, nil
}
