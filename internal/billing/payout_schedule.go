package billing

import (
	"context"
	"time"

	"github.com/gpunex/gpunex/models"
)

// Due is the payout period whose payout is due at or before now: for
// weekly the week before this one (due Monday 00:00), for monthly the
// month before (due on this month's first business day, Monday to
// Friday, 00:00), both in loc. Public holidays are not business-day
// exceptions (banks' calendars differ; document it to providers).
func Due(kind Schedule, now time.Time, loc *time.Location) (start, end, dueAt time.Time) {
	if kind == Monthly {
		thisMonth, _ := PeriodOf(Monthly, now, loc)
		due := firstBusinessDay(thisMonth)
		if now.Before(due) {
			thisMonth = thisMonth.AddDate(0, -1, 0)
			due = firstBusinessDay(thisMonth)
		}
		return thisMonth.AddDate(0, -1, 0), thisMonth, due
	}
	thisWeek, _ := PeriodOf(Weekly, now, loc)
	return thisWeek.AddDate(0, 0, -7), thisWeek, thisWeek
}

func firstBusinessDay(month time.Time) time.Time {
	d := month
	for d.Weekday() == time.Saturday || d.Weekday() == time.Sunday {
		d = d.AddDate(0, 0, 1)
	}
	return d
}

// NextPayout is when a provider's next payout is due and whether it will
// be made.
type NextPayout struct {
	PeriodStart, PeriodEnd, DueAt time.Time
	Available, Threshold          models.USDC
	ThresholdMet                  bool
	// HeldUntil is set while a new destination cools off.
	HeldUntil *time.Time
}

// Next is providerID's next payout (nil without a payout method).
func (s *Service) Next(ctx context.Context, providerID int64) (*NextPayout, error) {
	m, err := s.payoutMethod(ctx, providerID)
	if m == nil || err != nil {
		return nil, err
	}
	loc, err := s.zoneOf(ctx, providerID)
	if err != nil {
		return nil, err
	}
	now := s.deps.Clock.Now()
	kind := Schedule(m.Schedule)
	// The next due time after now: the current period's end.
	start, end := PeriodOf(kind, now, loc)
	due := end
	if kind == Monthly {
		due = firstBusinessDay(end)
	}
	avail, err := s.balance(ctx, s.deps.DB, models.AccountProviderEarnings, providerID)
	if err != nil {
		return nil, err
	}
	n := &NextPayout{PeriodStart: start, PeriodEnd: end, DueAt: due, Available: avail, Threshold: s.threshold(kind)}
	n.ThresholdMet = avail >= n.Threshold && avail > 0
	if m.HoldUntil.After(now) {
		n.HeldUntil = &m.HoldUntil
	}
	return n, nil
}

func (s *Service) threshold(kind Schedule) models.USDC {
	if kind == Monthly {
		return 1
	}
	return s.pcfg.Threshold
}
