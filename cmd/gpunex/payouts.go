package main

import (
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/spf13/pflag"

	"github.com/gpunex/gpunex/internal/billing"
	"github.com/gpunex/gpunex/internal/billing/bank"
	"github.com/gpunex/gpunex/internal/billing/solana"
	"github.com/gpunex/gpunex/models"
)

// payoutFlags configure payouts: the Solana node and key, the weekly
// threshold, the cooling-off, and the platform's bank account.
type payoutFlags struct {
	rpcURL, keyFile, mint, commitment, cluster string
	threshold                                  string
	coolingOff                                 time.Duration
	debtorName, debtorIBAN, debtorBIC          string
	currency, rate                             string
	meterEvery, payoutEvery                    time.Duration
}

func (f *payoutFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.rpcURL, "solana-rpc-url", os.Getenv("GPUNEX_SOLANA_RPC_URL"), "Solana JSON-RPC URL payouts are sent through; empty: an admin sends Solana payouts and marks them paid (env GPUNEX_SOLANA_RPC_URL)")
	fs.StringVar(&f.keyFile, "solana-key-file", os.Getenv("GPUNEX_SOLANA_KEY_FILE"), "the platform's payer key (Solana CLI JSON, mode 0600), with --solana-rpc-url (env GPUNEX_SOLANA_KEY_FILE)")
	fs.StringVar(&f.mint, "solana-usdc-mint", envOr("GPUNEX_SOLANA_USDC_MINT", solana.USDCMint.String()), "the USDC mint paid (env GPUNEX_SOLANA_USDC_MINT)")
	fs.StringVar(&f.commitment, "solana-commitment", envOr("GPUNEX_SOLANA_COMMITMENT", "confirmed"), "confirmed or finalized: when a payout counts as paid (env GPUNEX_SOLANA_COMMITMENT)")
	fs.StringVar(&f.cluster, "solana-explorer-cluster", os.Getenv("GPUNEX_SOLANA_EXPLORER_CLUSTER"), "the cluster of transaction links (devnet, testnet; empty: mainnet) (env GPUNEX_SOLANA_EXPLORER_CLUSTER)")
	fs.StringVar(&f.threshold, "payout-threshold", envOr("GPUNEX_PAYOUT_THRESHOLD", "10"), "the least balance, in USDC, a weekly payout is made for (env GPUNEX_PAYOUT_THRESHOLD)")
	fs.DurationVar(&f.coolingOff, "payout-cooling-off", envDuration("GPUNEX_PAYOUT_COOLING_OFF", 48*time.Hour), "how long payouts to a new destination wait (env GPUNEX_PAYOUT_COOLING_OFF)")
	fs.DurationVar(&f.meterEvery, "metering-every", envDuration("GPUNEX_METERING_EVERY", 30*time.Second), "how often running rentals are metered into the ledger, at most 1m (env GPUNEX_METERING_EVERY)")
	fs.DurationVar(&f.payoutEvery, "payout-every", envDuration("GPUNEX_PAYOUT_EVERY", 5*time.Minute), "how often due payouts are made and sent (env GPUNEX_PAYOUT_EVERY)")
	fs.StringVar(&f.debtorName, "bank-debtor-name", envOr("GPUNEX_BANK_DEBTOR_NAME", "GPUnex"), "the platform's account holder name in bank payout files (env GPUNEX_BANK_DEBTOR_NAME)")
	fs.StringVar(&f.debtorIBAN, "bank-debtor-iban", os.Getenv("GPUNEX_BANK_DEBTOR_IBAN"), "the platform's IBAN bank payout files debit (env GPUNEX_BANK_DEBTOR_IBAN)")
	fs.StringVar(&f.debtorBIC, "bank-debtor-bic", os.Getenv("GPUNEX_BANK_DEBTOR_BIC"), "the platform's bank's BIC (env GPUNEX_BANK_DEBTOR_BIC)")
	fs.StringVar(&f.currency, "bank-currency", envOr("GPUNEX_BANK_CURRENCY", "USD"), "EUR or USD: the platform account's currency (env GPUNEX_BANK_CURRENCY)")
	fs.StringVar(&f.rate, "bank-rate", envOr("GPUNEX_BANK_RATE", "1"), "units of the bank currency per USDC (1: USD at par) (env GPUNEX_BANK_RATE)")
}

// config turns the flags into billing's configuration and, with an RPC
// URL, the Solana client.
func (f *payoutFlags) config(logger *slog.Logger) (billing.Config, *solana.Client, error) {
	b, client, err := f.payouts(logger)
	if err != nil {
		return billing.Config{}, nil, err
	}
	b.RunEvery = f.payoutEvery
	return billing.Config{TickEvery: f.meterEvery, Payouts: b}, client, nil
}

func (f *payoutFlags) payouts(logger *slog.Logger) (billing.PayoutConfig, *solana.Client, error) {
	var cfg billing.PayoutConfig
	threshold, err := models.ParseUSDC(f.threshold)
	if err != nil || threshold <= 0 {
		return cfg, nil, fmt.Errorf("--payout-threshold: a positive USDC amount with at most six decimals")
	}
	rate, err := bank.ParseRate(f.rate)
	if err != nil {
		return cfg, nil, fmt.Errorf("--bank-rate: %w", err)
	}
	cfg = billing.PayoutConfig{Threshold: threshold, CoolingOff: f.coolingOff, ExplorerCluster: f.cluster,
		Bank: billing.BankConfig{Debtor: bank.Party{Name: f.debtorName}, Currency: bank.Currency(f.currency), Rate: rate}}
	if f.debtorIBAN != "" {
		if cfg.Bank.Debtor.IBAN, err = bank.ParseIBAN(f.debtorIBAN); err != nil {
			return cfg, nil, fmt.Errorf("--bank-debtor-iban: %w", err)
		}
	}
	if f.debtorBIC != "" {
		if cfg.Bank.Debtor.BIC, err = bank.ParseBIC(f.debtorBIC); err != nil {
			return cfg, nil, fmt.Errorf("--bank-debtor-bic: %w", err)
		}
	}
	if !cfg.Bank.Ready() {
		logger.Warn("gpunex: bank payouts are off: no bank payout method is taken and no payout file can be made until the platform's paying account is given (--bank-debtor-iban and --bank-debtor-bic)")
	}
	if f.rpcURL == "" {
		return cfg, nil, nil
	}
	key, err := solana.LoadKeyFile(f.keyFile)
	if err != nil {
		return cfg, nil, fmt.Errorf("--solana-key-file: %w", err)
	}
	mint, err := solana.ParseMint(f.mint)
	if err != nil {
		return cfg, nil, fmt.Errorf("--solana-usdc-mint: %w", err)
	}
	commitment := rpc.CommitmentConfirmed
	if f.commitment == "finalized" {
		commitment = rpc.CommitmentFinalized
	} else if f.commitment != "confirmed" {
		return cfg, nil, fmt.Errorf("--solana-commitment: confirmed or finalized")
	}
	client, err := solana.New(solana.Config{RPCURL: f.rpcURL, Payer: key, Mint: mint, Commitment: commitment, Logger: logger})
	return cfg, client, err
}
