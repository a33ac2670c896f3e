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

// Issue 24, point 6: without the platform's paying account configured,
// createBankPayoutFile answered INTERNAL while bank payout methods were
// still taken. Such a server takes no bank method (INVALID_STATE on
// input.iban, nothing stored) and a payout file is refused saying what is
// missing.
func TestWithoutThePlatformsBankAccountBankPayoutsAreRefusedSayingWhy(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db, Config{})
		b.svc.pcfg.Bank = BankConfig{Rate: bank.RateOne} // as gpunex serve without --bank-debtor-iban
		b.svc.deps.Passwords = passwords{}
		provider, _, _ := b.provider(t, 1)
		var user int64
		require.NoError(t, db.NewSelect().Model((*models.Provider)(nil)).Column("user_id").Where("id = ?", provider).Scan(b.ctx, &user))
		iban, bic, holder := "DE89370400440532013000", "COBADEFFXXX", "Priya Provider"
		_, err := b.svc.SetMethod(b.ctx, provider, user, MethodInput{Schedule: Monthly, IBAN: &iban, BIC: &bic, AccountHolder: &holder, Password: "right password"})
		require.Equal(t, map[string]string{"input.iban": "INVALID_STATE"}, problems(t, err))
		m, err := b.svc.MethodOf(b.ctx, provider)
		require.NoError(t, err)
		require.Nil(t, m, "nothing stored")
		wallet := "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"
		_, err = b.svc.SetMethod(b.ctx, provider, user, MethodInput{Schedule: Monthly, SolanaAddress: &wallet, Password: "right password"})
		require.NoError(t, err, "a wallet is taken")

		_, _, err = b.svc.BankFile(b.ctx)
		v, ok := fault.AsValidation(err)
		require.True(t, ok, "%v", err)
		require.Equal(t, fault.InvalidState, v.Problems[0].Code)
		require.Contains(t, v.Problems[0].Message, "--bank-debtor-iban")
	})
}
