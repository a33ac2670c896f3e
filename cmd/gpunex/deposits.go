package main

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/gpunex/gpunex/internal/deposit"
)

// depositFlags configure customers' deposits in USDC on Solana, taken at
// the payout wallet (--solana-rpc-url, --solana-key-file) when there is
// one.
type depositFlags struct {
	followEvery, expiry, lateFor time.Duration
}

func (f *depositFlags) register(fs *pflag.FlagSet) {
	fs.DurationVar(&f.followEvery, "deposit-follow-every", envDuration("GPUNEX_DEPOSIT_FOLLOW_EVERY", 15*time.Second), "how often the chain is asked about customers' open deposit requests, 1s to 10m (env GPUNEX_DEPOSIT_FOLLOW_EVERY)")
	fs.DurationVar(&f.expiry, "deposit-expiry", envDuration("GPUNEX_DEPOSIT_EXPIRY", 30*time.Minute), "how long a deposit request stays open, 1m to 7 days (env GPUNEX_DEPOSIT_EXPIRY)")
	fs.DurationVar(&f.lateFor, "deposit-late-for", envDuration("GPUNEX_DEPOSIT_LATE_FOR", 24*time.Hour), "how long after it expires a deposit request is still followed, so a late transfer is credited, at most 30 days (env GPUNEX_DEPOSIT_LATE_FOR)")
}

// config is the deposits' configuration (deposit.Config.Validate checks
// it).
func (f *depositFlags) config() deposit.Config {
	return deposit.Config{FollowEvery: f.followEvery, Expiry: f.expiry, LateFor: f.lateFor}
}
