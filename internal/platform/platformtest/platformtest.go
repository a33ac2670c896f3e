// Package platformtest starts complete GPUnex servers for tests: the real
// platform assembly on a loopback listener, on SQLite with in-process
// events, or on PostgreSQL with Redis; and clients that speak GraphQL over
// HTTP (with a cookie jar) and graphql-transport-ws over a real WebSocket.
package platformtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/api"
	"github.com/gpunex/gpunex/internal/auth/authtest"
	"github.com/gpunex/gpunex/internal/bench"
	"github.com/gpunex/gpunex/internal/billing"
	"github.com/gpunex/gpunex/internal/billing/bank"
	"github.com/gpunex/gpunex/internal/billing/billingtest"
	"github.com/gpunex/gpunex/internal/billing/solana"
	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/bus/bustest"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/deposit"
	"github.com/gpunex/gpunex/internal/fleet"
	"github.com/gpunex/gpunex/internal/platform"
	"github.com/gpunex/gpunex/internal/redistest"
	"github.com/gpunex/gpunex/internal/reliability"
	"github.com/gpunex/gpunex/internal/store/storetest"
)

// Stack is one combination of backends.
type Stack struct {
	Name     string
	Database string // "sqlite" or "postgres"
	Redis    bool
}

// Stacks are the combinations every integration test runs on: the
// embedded default and the production scale-out backends.
var Stacks = []Stack{
	{Name: "sqlite+memory", Database: "sqlite"},
	{Name: "postgres+redis", Database: "postgres", Redis: true},
}

// Options tune a test server.
type Options struct {
	API   api.Config
	Clock clock.Clock
	// DatabaseURL and RedisURL, when set, are used instead of fresh ones
	// (so two replicas share one database).
	DatabaseURL string
	RedisURL    string
	RedisPrefix string
	SPA         fs.FS
	// SMTPURL sends email to a test SMTP server; empty writes .eml files.
	SMTPURL string
	// PublicURL is the platform's public address in emails.
	PublicURL string
	// DataDir, when set, is the SQLite/mail directory (default a temp dir).
	DataDir string
	// Fleet tunes heartbeats (tests use sub-second intervals).
	Fleet fleet.Config
	// Production runs the server as gpunex serve runs without --demo:
	// agents with simulated GPUs are refused. A test server is otherwise a
	// world of test hardware, as the demo is (tests have no GPUs), and
	// takes them whatever Fleet says.
	Production bool
	// Bench tunes the benchmarks; BenchNetwork the network benchmark's
	// per-machine limits.
	Bench        bench.Config
	BenchNetwork api.BenchNetworkConfig
	// Reliability sets the score's floor and jobs (serve --reliability-*).
	Reliability reliability.Config
	// Solana is the platform's Solana node and wallet (serve
	// --solana-rpc-url, --solana-key-file): payouts are sent and deposits
	// taken through it. Nil: neither (payouts MANUAL, no deposits).
	Solana *solana.Client
	// Deposit tunes deposits (serve --deposit-*).
	Deposit deposit.Config
}

// testBank is the test platform's paying bank account.
var testBank = billing.BankConfig{Debtor: billingtest.Debtor(), Currency: bank.EUR, Rate: bank.RateOne}

// Server is a running test server.
type Server struct {
	URL      string
	Platform *platform.Platform
	// Bus counts what the platform publishes.
	Bus *bustest.Counted
	// DatabaseURL is the database it uses (empty for SQLite).
	DatabaseURL string
	RedisURL    string
	RedisPrefix string
}

// Start runs a server on stack until the test ends.
func Start(t testing.TB, stack Stack, opts Options) *Server {
	t.Helper()
	cfg := platform.Config{
		Addr:           "127.0.0.1:0",
		API:            opts.API,
		Clock:          opts.Clock,
		PasswordParams: authtest.Params,
		Logger:         slog.New(slog.DiscardHandler),
		SPA:            opts.SPA,
		SMTPURL:        opts.SMTPURL,
		PublicURL:      opts.PublicURL,
		DataDir:        opts.DataDir,
		Fleet:          opts.Fleet,
		Bench:          opts.Bench,
		BenchNetwork:   opts.BenchNetwork,
		Reliability:    opts.Reliability,
		Solana:         opts.Solana,
		Deposit:        opts.Deposit,
	}
	cfg.Fleet.AllowSimulated = !opts.Production
	// A test platform pays by bank from a test account, as an operator's
	// --bank-debtor-iban and --bank-debtor-bic would.
	cfg.Billing.Payouts.Bank = testBank
	var counted *bustest.Counted
	cfg.WrapBus = func(b bus.Bus) bus.Bus {
		counted = bustest.NewCounted(b)
		return counted
	}
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
	}
	if cfg.SPA == nil {
		cfg.SPA = fstest.MapFS{"index.html": {Data: []byte("<!doctype html><title>GPUnex test SPA</title>")}}
	}
	if os.Getenv("GPUNEX_TEST_LOG") != "" {
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	switch {
	case opts.DatabaseURL != "":
		cfg.DatabaseURL = opts.DatabaseURL
	case stack.Database == "postgres":
		cfg.DatabaseURL = storetest.PostgresURL(t)
	}
	if stack.Redis {
		cfg.RedisURL = opts.RedisURL
		if cfg.RedisURL == "" {
			cfg.RedisURL = redistest.SharedURL(t)
		}
		// Parallel tests share one Redis; each server (or replica group)
		// gets its own namespace so their events never cross.
		cfg.RedisPrefix = opts.RedisPrefix
		if cfg.RedisPrefix == "" {
			cfg.RedisPrefix = "test:" + UniqueEmail("r") + ":"
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	p, err := platform.New(ctx, cfg)
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan error, 1)
	urlc := make(chan string, 1)
	go func() { done <- p.ServeListener(ctx, ln, func(u string) { urlc <- u }) }()
	s := &Server{URL: <-urlc, Platform: p, Bus: counted, DatabaseURL: cfg.DatabaseURL, RedisURL: cfg.RedisURL, RedisPrefix: cfg.RedisPrefix}
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
		p.Close()
	})
	return s
}

// Each runs fn as a parallel subtest on a fresh server of every stack.
func Each(t *testing.T, opts Options, fn func(t *testing.T, s *Server)) {
	t.Helper()
	for _, st := range Stacks {
		t.Run(st.Name, func(t *testing.T) {
			t.Parallel()
			fn(t, Start(t, st, opts))
		})
	}
}

// UniqueEmail returns an email no other test uses.
func UniqueEmail(prefix string) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return prefix + "-" + hex.EncodeToString(b) + "@example.com"
}
