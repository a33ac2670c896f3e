package billing

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// The admins' payouts list names the provider of each payout (and its
// application, where an admin reviews it), in any state's filter, and
// the totals count and sum every state, a state without payouts as zero.
func TestTheAdminsPayoutListNamesEachProviderAndTotalsEachState(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b, provider, _ := payoutWorld(t, db, Config{}, 25_000_000)
		var want models.Provider
		require.NoError(t, db.NewSelect().Model(&want).Where("id = ?", provider).Scan(b.ctx))

		require.NoError(t, b.svc.RunPayouts(b.ctx))
		first, err := b.svc.Payouts(b.ctx, provider, 10)
		require.NoError(t, err)
		_, err = b.svc.MarkPaid(b.ctx, first[0].ID, "bank ref 1")
		require.NoError(t, err)
		b.earn(t, provider, 30_000_000)
		b.clock.Advance(7 * 24 * time.Hour)
		require.NoError(t, b.svc.RunPayouts(b.ctx))

		all, err := b.svc.AllPayouts(b.ctx, nil, 10)
		require.NoError(t, err)
		require.Len(t, all, 2)
		for _, p := range all {
			require.Equal(t, []any{want.Name, want.ApplicationID}, []any{p.ProviderName, p.ProviderApplicationID}, "payout %d names its provider", p.ID)
		}
		pending := models.PayoutPending
		only, err := b.svc.AllPayouts(b.ctx, &pending, 10)
		require.NoError(t, err)
		require.Len(t, only, 1)
		require.Equal(t, []any{models.PayoutPending, models.USDC(30_000_000), want.Name}, []any{only[0].State, only[0].Amount, only[0].ProviderName})

		totals, err := b.svc.PayoutTotals(b.ctx)
		require.NoError(t, err)
		got := map[models.PayoutState][2]int64{}
		var order []models.PayoutState
		for _, tot := range totals {
			order = append(order, tot.State)
			got[tot.State] = [2]int64{int64(tot.Count), int64(tot.Amount)}
		}
		require.Equal(t, models.PayoutStates, order)
		require.Equal(t, map[models.PayoutState][2]int64{
			models.PayoutPending: {1, 30_000_000}, models.PayoutProcessing: {0, 0}, models.PayoutPaid: {1, 25_000_000}, models.PayoutFailed: {0, 0},
		}, got)
	})
}
