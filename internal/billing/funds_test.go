package billing

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// The Funds page's "runs out on" is the balance's seconds at the running
// rate from now, exactly, at any balance up to a million USDC and beyond
// (issue 26: 499.94 USDC at 1.49 USDC/h once showed a time two hours
// past, micro-USDC times time.Hour having overflowed int64).
func TestTheBalanceRunsOutWhenItsSecondsAtTheRunningRateAreSpent(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db, Config{})
		provider, machine, gpus := b.provider(t, 2)
		for _, c := range []struct {
			desc    string
			balance models.USDC
			price   models.USDC // per GPU-hour, on both GPUs
			lasts   time.Duration
		}{
			{"a few USDC", 3_000_000, 1_500_000, time.Hour},
			{"the reported case", 499_940_000, 745_000, 1_207_908 * time.Second},                                               // 335 h 31 min 48 s
			{"a million USDC", 1_000_000_000_000, 1_490_000, 1_208_053_691 * time.Second},                                      // 38 years
			{"two million at a micro-USDC an hour outlast a time.Duration", 2_000_000_000_000, 1, 9_223_372_036 * time.Second}, // 292 years: the most a time.Duration holds,
		} {
			customer := b.user(t, "customer")
			for left := c.balance; left > 0; left -= min(left, MaxCredit) {
				b.credit(t, customer, min(left, MaxCredit))
			}
			id := b.rental(t, customer, provider, machine, gpus, c.price, 1500)

			f, err := b.svc.FundsOf(b.ctx, customer)
			require.NoError(t, err)
			require.Equal(t, c.balance, f.Balance, c.desc)
			require.Equal(t, 2*c.price, f.PerHour, c.desc)
			require.NotNil(t, f.RunsOutAt, c.desc)
			require.Equal(t, b.clock.Now().Add(c.lasts), *f.RunsOutAt, "%s: runs out after %s", c.desc, c.lasts)
			b.end(t, id, models.RentalStopped, b.clock.Now())
		}
	})
}
