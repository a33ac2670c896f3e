// Payouts: their configuration and notices; the method (payout_method.go),
// the calendar (payout_schedule.go), the runs and payouts on request
// (payout_run.go), the period statement (statement.go), Solana sends
// (payout_solana.go), settlement and its mail (payout_settle.go) and the
// bank file (bankfile.go) each have a file.

package billing

import (
	"context"
	"time"

	"github.com/gpunex/gpunex/internal/billing/bank"
	"github.com/gpunex/gpunex/models"
)

// PayoutConfig tunes payouts. Zero values take the defaults.
type PayoutConfig struct {
	// Threshold is the least available balance a weekly payout is made
	// for (default 10 USDC); monthly payouts pay any balance.
	Threshold models.USDC
	// CoolingOff holds payouts to a new destination this long after it
	// is set (default 48h).
	CoolingOff time.Duration
	// RunEvery is how often the leading replica runs payouts (default
	// 5m).
	RunEvery time.Duration
	// ConfirmTimeout bounds one wait for a Solana payout's confirmation
	// within a run (default 60s); past it the next run recovers it.
	ConfirmTimeout time.Duration
	// Bank is the platform's account bank files debit, with the batch's
	// currency and the USDC rate (RateOne: USD at par).
	Bank BankConfig
	// ExplorerURL prefixes a transaction's signature for its link
	// (default https://explorer.solana.com/tx/); ExplorerCluster, when
	// set, is its cluster parameter (devnet).
	ExplorerURL     string
	ExplorerCluster string
}

func (c PayoutConfig) withDefaults() PayoutConfig {
	if c.Threshold <= 0 {
		c.Threshold = 10 * models.MicrosPerUSDC
	}
	if c.CoolingOff <= 0 {
		c.CoolingOff = 48 * time.Hour
	}
	if c.RunEvery <= 0 {
		c.RunEvery = 5 * time.Minute
	}
	if c.ConfirmTimeout <= 0 {
		c.ConfirmTimeout = time.Minute
	}
	if c.Bank.Rate <= 0 {
		c.Bank.Rate = bank.RateOne
	}
	if c.Bank.Currency == "" {
		c.Bank.Currency = "USD"
	}
	if c.ExplorerURL == "" {
		c.ExplorerURL = "https://explorer.solana.com/tx/"
	}
	return c
}

// Passwords checks a user's password again before a sensitive change.
type Passwords interface {
	// VerifyPassword returns nil when password is userID's, else a
	// *fault.Validation on input.password.
	VerifyPassword(ctx context.Context, userID int64, password string) error
}

// Notification kinds of payouts.
const (
	KindPayoutMethodChanged = "billing.payout_method_changed"
	KindPayoutPaid          = "billing.payout_paid"
	KindPayoutFailed        = "billing.payout_failed"
)
