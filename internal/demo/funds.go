package demo

import (
	"context"
	"fmt"
	"time"

	"github.com/gpunex/gpunex/internal/fault"
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
