package demo

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"time"

	"github.com/gpunex/gpunex/internal/billing"
	"github.com/gpunex/gpunex/internal/billing/solana"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/pricing"
	"github.com/gpunex/gpunex/models"
)

// The demo customers' money: an opening balance, and a top-up whenever a
// customer about to rent has less than TopUpBelow left, so the demo
// market never stops for want of funds.
const (
	OpeningBalance = models.USDC(500 * models.MicrosPerUSDC)
	TopUpBelow     = models.USDC(50 * models.MicrosPerUSDC)
	TopUp          = models.USDC(200 * models.MicrosPerUSDC)
)

// seedFunds credits each demo customer its opening balance once (the
// deposit's reference names the account, so a restart credits nothing).
func (w World) seedFunds(ctx context.Context) error {
	if w.Billing == nil {
		return nil
	}
	for _, a := range Accounts {
		if !a.Rents {
			continue
		}
		u, err := w.Auth.UserByEmail(ctx, a.Email)
		if err != nil {
			return fmt.Errorf("demo: funds of %s: %w", a.Email, err)
		}
		_, err = w.Billing.Credit(ctx, u.ID, OpeningBalance, "demo opening balance "+a.Email)
		if v, ok := fault.AsValidation(err); ok && len(v.Problems) == 1 && v.Problems[0].Code == fault.Duplicate {
			continue
		}
		if err != nil {
			return fmt.Errorf("demo: funds of %s: %w", a.Email, err)
		}
	}
	return nil
}

// topUp credits a demo customer TopUp when its balance is under
// TopUpBelow.
func (w World) topUp(ctx context.Context, u *models.User) error {
	if w.Billing == nil {
		return nil
	}
	f, err := w.Billing.FundsOf(ctx, u.ID)
	if err != nil || f.Balance >= TopUpBelow {
		return err
	}
	_, err = w.Billing.Credit(ctx, u.ID, TopUp, fmt.Sprintf("demo top-up %s %d", u.Email, time.Now().UnixNano()))
	return err
}

// seedEarningsHistory lays down the demo providers' past earnings, the
// same weeks and shares as the market history (pastUsage), and the
// weekly payouts of them, once per provider (billing.RecordPast), so the
// Earnings and Payouts tabs have a history on the first `make run`. Each
// provider is paid to a wallet derived from its email.
func (w World) seedEarningsHistory(ctx context.Context) error {
	if w.Billing == nil {
		return nil
	}
	thisWeek := models.WeekStart(time.Now())
	past := map[string][]billing.PastEarnings{}
	var order []string
	for _, u := range pastUsage {
		rate := demoRate(u.Email, u.Model)
		if _, ok := past[u.Email]; !ok {
			order = append(order, u.Email)
		}
		for i := range HistoryWeeks {
			from := thisWeek.AddDate(0, 0, -7*(HistoryWeeks-i))
			perHour := rate * models.USDC(u.PricePct[i]) / 100 * models.USDC(int64(u.GPUs)*u.RentedPct[i]) / 100
			past[u.Email] = append(past[u.Email], billing.PastEarnings{ModelKey: u.Model, From: from, To: from.AddDate(0, 0, 7),
				GrossPerHour: perHour, FeeBps: pricing.DefaultFeeBps})
		}
	}
	for _, email := range order {
		prov, err := w.providerOf(ctx, email)
		if err != nil || prov == nil {
			continue
		}
		if _, err := w.Billing.RecordPast(ctx, prov.ID, demoWallet(email), past[email]); err != nil {
			return fmt.Errorf("demo: earnings history of %s: %w", email, err)
		}
	}
	return nil
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
