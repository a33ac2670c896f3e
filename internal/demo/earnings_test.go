package demo

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/models"
)

// A demo provider's past is HistoryWeeks weeks of hourly earnings, each
// week paid out in full two hours after it ended, and never a payout
// after now: in the first hours of a week, the week before is paid now.
func TestPastEarningsPayEachWeekOnceItEndedAndNeverLater(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc   string
		now    time.Time
		paidAt time.Duration // after the last week's end
	}{
		{"mid-week", time.Date(2026, 12, 2, 15, 30, 0, 0, time.UTC), payoutDelay},
		{"an hour into the week", time.Date(2026, 11, 30, 1, 0, 0, 0, time.UTC), time.Hour},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			past := pastEarnings(7, "provider@gpunex.demo", tc.now)
			thisWeek := models.WeekStart(tc.now)
			require.Len(t, past.Payouts, HistoryWeeks)
			require.True(t, past.Method.Since.Equal(thisWeek.AddDate(0, 0, -7*HistoryWeeks)))
			var net, paid models.USDC
			for _, h := range past.Hours {
				require.True(t, h.Hour.Before(thisWeek), "every hour is of a past week")
				net += h.Gross - h.Fee
			}
			for i, p := range past.Payouts {
				require.True(t, p.PeriodStart.Equal(thisWeek.AddDate(0, 0, -7*(HistoryWeeks-i))), "oldest first")
				require.False(t, p.PaidAt.After(tc.now))
				paid += p.Amount
			}
			require.Equal(t, net, paid, "each week is paid in full")
			last := past.Payouts[HistoryWeeks-1]
			require.Equal(t, tc.paidAt, last.PaidAt.Sub(last.PeriodEnd))
		})
	}
}
