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

// outboxOf is every email of kind in the outbox.
func outboxOf(t *testing.T, b *bundle, kind string) []models.OutboxEmail {
	t.Helper()
	var rows []models.OutboxEmail
	require.NoError(t, b.svc.deps.DB.NewSelect().Model(&rows).Where("kind = ?", kind).Order("id").Scan(b.ctx))
	return rows
}

// speaks sets the language of provider's user.
func speaks(t *testing.T, b *bundle, provider int64, lang models.Language) {
	t.Helper()
	_, err := b.svc.deps.DB.NewUpdate().Model((*models.User)(nil)).Set("language = ?", lang).
		Where("id = (SELECT user_id FROM providers WHERE id = ?)", provider).Exec(b.ctx)
	require.NoError(t, err)
}

// A paid payout and a failed one are each mailed once, in the provider's
// language, with the amount as that language writes it: where it went
// (an IBAN masked), the reference and the transaction's link when paid,
// the reason and the balance when failed.
func TestPayoutOutcomesAreMailedInTheProvidersLanguage(t *testing.T) {
	t.Parallel()
	each := func(desc string, f func(t *testing.T, db *store.DB)) {
		t.Run(desc, func(t *testing.T) {
			t.Parallel()
			storetest.Each(t, f)
		})
	}
	each("a manual payout paid by an admin, in Hindi", func(t *testing.T, db *store.DB) {
		b, provider, wallet := payoutWorld(t, db, Config{}, 25_000_000)
		b.svc.deps.Outbox = mail.NewOutbox(b.clock, nil)
		speaks(t, b, provider, models.LanguageHindi)
		require.NoError(t, b.svc.RunPayouts(b.ctx))
		ps, err := b.svc.Payouts(b.ctx, provider, 10)
		require.NoError(t, err)
		require.Empty(t, outboxOf(t, b, KindPayoutPaid), "nothing is mailed before it is paid")
		_, err = b.svc.MarkPaid(b.ctx, ps[0].ID, "bank ref 7781")
		require.NoError(t, err)
		_, err = b.svc.MarkPaid(b.ctx, ps[0].ID, "again")
		require.Error(t, err)

		rows := outboxOf(t, b, KindPayoutPaid)
		require.Len(t, rows, 1, "mailed once")
		e := rows[0]
		require.Equal(t, "GPUnex ने आपको 25.00 USDC का भुगतान किया", e.Subject)
		require.Equal(t, models.LanguageHindi, e.Language)
		for _, part := range []string{e.TextBody, e.HTMLBody} {
			require.Contains(t, part, "आपका 25.00 USDC का भुगतान Solana वॉलेट "+wallet+" में भेज दिया गया है।")
			require.Contains(t, part, "संदर्भ: bank ref 7781")
			require.Contains(t, part, "भुगतान टैब")
			require.NotContains(t, part, "Your payout")
		}
		require.Contains(t, e.HTMLBody, `<html lang="hi" dir="ltr">`)
	})

	each("a Solana payout that failed on chain, in Arabic", func(t *testing.T, db *store.DB) {
		b, provider, wallet, node := solanaWorld(t, db)
		b.svc.deps.Outbox = mail.NewOutbox(b.clock, nil)
		speaks(t, b, provider, models.LanguageArabic)
		node.FailOnChain()
		require.NoError(t, b.svc.RunPayouts(b.ctx))
		ps, err := b.svc.Payouts(b.ctx, provider, 10)
		require.NoError(t, err)
		require.Equal(t, models.PayoutFailed, ps[0].State)

		require.Empty(t, outboxOf(t, b, KindPayoutPaid))
		rows := outboxOf(t, b, KindPayoutFailed)
		require.Len(t, rows, 1)
		e := rows[0]
		require.Equal(t, "تعذّر إرسال دفعتك من GPUnex البالغة ٤٢٫١٢٣٤٥٦ USDC", e.Subject)
		for _, part := range []string{e.TextBody, e.HTMLBody} {
			require.Contains(t, part, "تعذّر إرسال دفعتك البالغة ٤٢٫١٢٣٤٥٦ USDC إلى محفظة Solana \u200f"+wallet+".")
			require.Contains(t, part, "عاد المبلغ إلى رصيدك")
			require.NotContains(t, part, "Your payout", "only the recorded reason is quoted as recorded")
			require.NotContains(t, part, "balance")
		}
		require.Contains(t, e.TextBody, *ps[0].Failure, "the reason, as the chain gave it")
		require.Contains(t, e.HTMLBody, `<html lang="ar" dir="rtl">`)
	})

	each("a bank payout, in Portuguese, shows the IBAN masked", func(t *testing.T, db *store.DB) {
		b, provider, _ := payoutWorld(t, db, Config{}, 1_500_000_000)
		b.svc.deps.Outbox = mail.NewOutbox(b.clock, nil)
		speaks(t, b, provider, models.LanguagePortuguese)
		require.NoError(t, b.svc.RunPayouts(b.ctx))
		ps, err := b.svc.Payouts(b.ctx, provider, 10)
		require.NoError(t, err)
		// As a bank payout is made (its amount settled in euros is
		// beside the point here): to the provider's IBAN.
		const iban = "DE89370400440532013000"
		_, err = db.NewUpdate().Model((*models.Payout)(nil)).Set("kind = ?", models.PayoutBank).Set("destination = ?", iban).
			Where("id = ?", ps[0].ID).Exec(b.ctx)
		require.NoError(t, err)
		_, err = b.svc.MarkPaid(b.ctx, ps[0].ID, "SEPA E2E 4411")
		require.NoError(t, err)

		rows := outboxOf(t, b, KindPayoutPaid)
		require.Len(t, rows, 1)
		e := rows[0]
		require.Equal(t, "A GPUnex pagou 1.500,00 USDC a você", e.Subject)
		for _, part := range []string{e.TextBody, e.HTMLBody} {
			require.Contains(t, part, "Seu pagamento de 1.500,00 USDC foi enviado para a conta bancária DE••••••••••••••••3000.")
			require.NotContains(t, part, iban, "never the whole IBAN")
		}
		var n models.Notification
		require.NoError(t, db.NewSelect().Model(&n).Where("kind = ?", KindPayoutPaid).Scan(b.ctx))
		require.Equal(t, "DE••••••••••••••••3000", n.Params["destination"], "nor in the notice")
		require.NotContains(t, n.Body, iban)
	})

	each("a Solana payout sent, in English, links its transaction", func(t *testing.T, db *store.DB) {
		b, provider, wallet, _ := solanaWorld(t, db)
		b.svc.deps.Outbox = mail.NewOutbox(b.clock, nil)
		require.NoError(t, b.svc.RunPayouts(b.ctx))
		ps, err := b.svc.Payouts(b.ctx, provider, 10)
		require.NoError(t, err)
		require.Equal(t, models.PayoutPaid, ps[0].State)
		rows := outboxOf(t, b, KindPayoutPaid)
		require.Len(t, rows, 1)
		e := rows[0]
		require.Equal(t, "GPUnex paid you 42.123456 USDC", e.Subject)
		require.Contains(t, e.TextBody, "Your payout of 42.123456 USDC was sent to the Solana wallet "+wallet+".")
		require.Contains(t, e.TextBody, "Reference: "+*ps[0].Signature)
		require.Contains(t, e.TextBody, *b.svc.TransactionURL(ps[0]))
	})
}

// A payout's email renders in every language, paid and failed, to a
// wallet and to a bank account: a template that failed to render would
// hold the payout's settlement back (the email is written in its
// transaction).
func TestEveryPayoutEmailRendersInEveryLanguage(t *testing.T) {
	t.Parallel()
	ref, failure, url := "GPX-ref-1", "the bank returned it: account closed", "https://explorer.solana.com/tx/abc"
	for _, lang := range models.AllLanguages {
		for _, p := range []*models.Payout{
			{Kind: models.PayoutSolana, Destination: "9w6WhvXZZMV6Ftd5asYjAdBmWyUeGhUYWYZzpvToXLzk", State: models.PayoutPaid, Amount: 42_123_456, PaidReference: &ref},
			{Kind: models.PayoutBank, Destination: "DE89370400440532013000", State: models.PayoutPaid, Amount: 1_500_000_000, PaidReference: &ref},
			{Kind: models.PayoutManual, Destination: "9w6WhvXZZMV6Ftd5asYjAdBmWyUeGhUYWYZzpvToXLzk", State: models.PayoutFailed, Amount: 10_000_000, Failure: &failure},
			{Kind: models.PayoutBank, Destination: "DE89370400440532013000", State: models.PayoutFailed, Amount: 99, Failure: &failure},
		} {
			kind := KindPayoutFailed
			if p.State == models.PayoutPaid {
				kind = KindPayoutPaid
			}
			subject, text, html, err := payoutLetter(lang, kind, "Priya", p, &url).Render()
			require.NoError(t, err, "%s %s %s", lang, p.Kind, p.State)
			for _, part := range []string{subject, text, html} {
				require.NotContains(t, part, "{{", "%s: every placeholder is filled", lang)
				require.NotContains(t, part, "DE89370400440532013000", "%s: never the whole IBAN", lang)
			}
			if p.State == models.PayoutFailed {
				require.Contains(t, text, failure)
			}
		}
	}
	require.Equal(t, "•••••••••", maskIBAN("DE8937040"), "a value too short to mask is hidden whole")
}
