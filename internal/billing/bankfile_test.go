package billing

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/billing/bank"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// Issue 24, point 6: five concurrent createBankPayoutFile calls each
// returned a file paying the same payouts (3–5 of 5 under contention). A
// payout is now claimed in the file's transaction before it is written:
// one call gets the file, the others find nothing pending, and every
// payout is in exactly one file.
func TestConcurrentBankFilesPayEachPayoutOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		debtor, err := bank.ParseIBAN("NL91ABNA0417164300")
		require.NoError(t, err)
		bic, err := bank.ParseBIC("ABNANL2A")
		require.NoError(t, err)
		b := setup(t, db, Config{Payouts: PayoutConfig{Bank: BankConfig{Debtor: bank.Party{Name: "GPUnex B.V.", IBAN: debtor, BIC: bic},
			Currency: bank.EUR, Rate: bank.RateOne}}})
		now := b.clock.Now()
		ibans := []string{"DE89370400440532013000", "ES9121000418450200051332", "FR1420041010050500013M02606"}
		var refs []string
		for i, iban := range ibans {
			provider, _, _ := b.provider(t, 1)
			holder := fmt.Sprintf("Holder %d", i)
			_, err := db.NewInsert().Model(&models.PayoutMethod{ProviderID: provider, Schedule: "WEEKLY", Kind: "BANK", IBAN: &iban,
				AccountHolder: &holder, ChangedAt: now, HoldUntil: now}).Exec(b.ctx)
			require.NoError(t, err)
			ref := fmt.Sprintf("GPX-TEST-%d", i)
			refs = append(refs, ref)
			_, err = db.NewInsert().Model(&models.Payout{ProviderID: provider, PeriodStart: now.Add(-7 * 24 * time.Hour), PeriodEnd: now,
				Amount: models.USDC(10_000_000 * (i + 1)), Kind: models.PayoutBank, Destination: iban, State: models.PayoutPending,
				Reference: ref, CreatedAt: now, UpdatedAt: now}).Exec(b.ctx)
			require.NoError(t, err)
		}

		type result struct {
			file    []byte
			payouts []*models.Payout
			err     error
		}
		results := make(chan result, 5)
		var wg sync.WaitGroup
		for range 5 {
			wg.Go(func() {
				file, ps, err := b.svc.BankFile(b.ctx)
				results <- result{file, ps, err}
			})
		}
		wg.Wait()
		close(results)
		files, empty := 0, 0
		seen := map[string]int{}
		for r := range results {
			if r.err != nil {
				v, ok := fault.AsValidation(r.err)
				require.True(t, ok, "%v", r.err)
				require.Equal(t, fault.InvalidState, v.Problems[0].Code)
				empty++
				continue
			}
			files++
			require.Len(t, r.payouts, len(ibans))
			for _, ref := range refs {
				n := strings.Count(string(r.file), "<EndToEndId>"+ref+"</EndToEndId>")
				seen[ref] += n
			}
			for _, p := range r.payouts {
				require.Equal(t, models.PayoutProcessing, p.State)
			}
		}
		require.Equal(t, 1, files, "one file")
		require.Equal(t, 4, empty, "the others find nothing pending")
		for _, ref := range refs {
			require.Equal(t, 1, seen[ref], "payout %s is paid by one file", ref)
		}
		n, err := db.NewSelect().Model((*models.Payout)(nil)).Where("state = ?", models.PayoutProcessing).Count(b.ctx)
		require.NoError(t, err)
		require.EqualValues(t, len(ibans), n)
	})
}
