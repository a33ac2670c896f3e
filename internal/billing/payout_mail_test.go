package billing

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/mail"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// Issue 11, point 12: the payout-method email is in the provider's
// language, with the hold's end as a date of that language.
func TestPayoutMethodEmailIsInTheProvidersLanguage(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db, Config{})
		b.svc.deps.Passwords = passwords{}
		b.svc.deps.Outbox = mail.NewOutbox(b.clock, nil)
		provider, _, _ := b.provider(t, 1)
		var user int64
		require.NoError(t, db.NewSelect().Model((*models.Provider)(nil)).Column("user_id").Where("id = ?", provider).Scan(b.ctx, &user))
		_, err := db.NewUpdate().Model((*models.User)(nil)).Set("language = ?", models.LanguagePortuguese).Where("id = ?", user).Exec(b.ctx)
		require.NoError(t, err)

		iban, bic, holder := "DE89370400440532013000", "COBADEFFXXX", "Priya Provider"
		got, err := b.svc.SetMethod(b.ctx, provider, user, MethodInput{Schedule: Monthly, IBAN: &iban, BIC: &bic, AccountHolder: &holder, Password: "right password"})
		require.NoError(t, err)

		var rows []models.OutboxEmail
		require.NoError(t, db.NewSelect().Model(&rows).Scan(b.ctx))
		require.Len(t, rows, 1)
		e := rows[0]
		require.Equal(t, KindPayoutMethodChanged, e.Kind)
		require.Equal(t, "Seu método de recebimento mudou", e.Subject)
		hold := got.HoldUntil.UTC()
		months := []string{"janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro", "outubro", "novembro", "dezembro"}
		wantHold := hold.Format("2") + " de " + months[hold.Month()-1] + " de " + hold.Format("2006, 15:04") + " UTC"
		for _, part := range []string{e.TextBody, e.HTMLBody} {
			require.Contains(t, part, "Os pagamentos agora vão para a conta bancária DE••••••••••••••••3000, mensalmente (primeiro dia útil).")
			require.Contains(t, part, "Os pagamentos para este destino começam depois de "+wantHold+".")
			require.NotContains(t, part, iban, "never the whole IBAN")
			require.NotContains(t, part, "Payouts")
		}
		require.Contains(t, e.HTMLBody, `<html lang="pt" dir="ltr">`)
	})
}
