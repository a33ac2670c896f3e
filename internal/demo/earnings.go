package demo

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/gpunex/gpunex/internal/billing"
	"github.com/gpunex/gpunex/internal/billing/solana"
	"github.com/gpunex/gpunex/internal/market"
	"github.com/gpunex/gpunex/models"
)

// payoutDelay is how long after its week's end a demo provider's weekly
// payout was paid.
const payoutDelay = 2 * time.Hour

// seedEarningsHistory lays down the demo providers' past earnings, the
// same weeks and shares as the market history (pastUsage), and the
// weekly payouts of them, once per provider (billing.ImportPast writes
// nothing for a provider with a payout or a method), so the Earnings and
// Payouts tabs have a history on the first `make run`.
func (w World) seedEarningsHistory(ctx context.Context) error {
	if w.Billing == nil {
		return nil
	}
	now := time.Now()
	var order []string
	for _, u := range pastUsage {
		if !slices.Contains(order, u.Email) {
			order = append(order, u.Email)
		}
	}
	for _, email := range order {
		prov, err := w.providerOf(ctx, email)
		if err != nil || prov == nil {
			continue
		}
		if _, err := w.Billing.ImportPast(ctx, prov.ID, pastEarnings(prov.ID, email, now)); err != nil {
			return fmt.Errorf("demo: earnings history of %s: %w", email, err)
		}
	}
	return nil
}

// pastEarnings is the past of the demo provider providerID (the account
// email) as of now: each model of its pastUsage earning, every hour of
// each past week, its rate then times its GPUs rented then, less the
// platform's default fee; a weekly payout method to its wallet
// (demoWallet) from the first week; and each whole week before the
// current one paid out payoutDelay after its end (or now, in the first
// hours of a week), with the references the payout run gives.
func pastEarnings(providerID int64, email string, now time.Time) billing.Past {
	past := billing.Past{Reference: fmt.Sprintf("demo history of provider %d", providerID)}
	thisWeek := models.WeekStart(now)
	since := thisWeek.AddDate(0, 0, -7*HistoryWeeks)
	weekly := map[time.Time]models.USDC{}
	for _, u := range pastUsage {
		if u.Email != email {
			continue
		}
		rate := demoRate(u.Email, u.Model)
		for i := range HistoryWeeks {
			from := thisWeek.AddDate(0, 0, -7*(HistoryWeeks-i))
			perHour := rate * models.USDC(u.PricePct[i]) / 100 * models.USDC(int64(u.GPUs)*u.RentedPct[i]) / 100
			fee := billing.Fee(perHour, market.DefaultFeeBps)
			for h := from.UTC().Truncate(time.Hour); h.Before(from.AddDate(0, 0, 7)) && h.Before(now); h = h.Add(time.Hour) {
				past.Hours = append(past.Hours, billing.PastHour{ModelKey: u.Model, Hour: h, Gross: perHour, Fee: fee})
				week, _ := billing.PeriodOf(billing.Weekly, h, time.UTC)
				weekly[week] += perHour - fee
			}
		}
	}
	past.Method = &billing.PastMethod{Schedule: billing.Weekly, SolanaAddress: demoWallet(email), Since: since}
	current, _ := billing.PeriodOf(billing.Weekly, now, time.UTC)
	for _, week := range slices.SortedFunc(maps.Keys(weekly), time.Time.Compare) {
		if !week.Before(current) || weekly[week] <= 0 {
			continue
		}
		ref := fmt.Sprintf("GPX-%d-%s", providerID, week.Format("20060102"))
		end := week.AddDate(0, 0, 7)
		paidAt := end.Add(payoutDelay)
		if paidAt.After(now) {
			paidAt = now
		}
		past.Payouts = append(past.Payouts, billing.PastPayout{PeriodStart: week, PeriodEnd: end, Amount: weekly[week],
			Reference: ref, PaidAt: paidAt, PaidReference: "demo payout " + ref})
	}
	return past
}

// demoWallet is a demo provider's Solana wallet: the ed25519 public key
// of a seed derived from its email (a real wallet address, whose key
// nobody holds).
func demoWallet(email string) string {
	seed := sha256.Sum256([]byte("gpunex demo wallet " + email))
	pub := ed25519.NewKeyFromSeed(seed[:]).Public().(ed25519.PublicKey)
	var pk solana.PublicKey
	copy(pk[:], pub)
	return pk.String()
}
