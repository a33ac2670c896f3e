package deposit_test

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	solanago "github.com/gagliardetto/solana-go"
	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/billing"
	"github.com/gpunex/gpunex/internal/billing/solana"
	"github.com/gpunex/gpunex/internal/billing/solana/solanatest"
	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/deposit"
	"github.com/gpunex/gpunex/internal/notification"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// start is when every test clock starts.
var start = time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)

// world is a deposit test's: the service over one database on a manual
// clock, events and notifications in memory, billing for the ledger, and
// the fake Solana node with the platform's wallet and USDC account open.
type world struct {
	ctx      context.Context
	db       *store.DB
	clock    *clock.Manual
	bus      bus.Bus
	node     *solanatest.Server
	platform solana.Key
	billing  *billing.Service
	notify   *notification.Service
	svc      *deposit.Service
}

// customers numbers the customers of every world (worlds share a
// database).
var customers atomic.Int64

// testConfig follows requests open 30 minutes, and 24 hours after.
var testConfig = deposit.Config{FollowEvery: time.Second, Expiry: 30 * time.Minute, LateFor: 24 * time.Hour}

func setup(t *testing.T, db *store.DB) *world {
	t.Helper()
	w := &world{ctx: t.Context(), db: db, clock: clock.NewManual(start), bus: bus.NewMemory(), platform: solana.NewKey()}
	t.Cleanup(func() { _ = w.bus.Close() })
	w.node = solanatest.New(t, solanatest.Config{Payer: w.platform.PublicKey(), Now: w.clock.Now})
	w.node.Fund(w.platform.PublicKey(), solanatest.USDCMint, 0)
	logger := slog.New(slog.DiscardHandler)
	w.notify = notification.New(notification.Deps{DB: db, Bus: w.bus, Clock: w.clock, Logger: logger}, notification.Config{})
	w.billing = billing.New(billing.Deps{DB: db, Bus: w.bus, Notify: w.notify, Clock: w.clock, Logger: logger}, billing.Config{})
	w.svc = w.replica(t)
	return w
}

// replica is another deposit service over the same database and node, as
// a second replica (or a restarted one) runs.
func (w *world) replica(t *testing.T) *deposit.Service {
	t.Helper()
	c, err := solana.New(solana.Config{RPCURL: w.node.URL(), Payer: w.platform})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	s, err := deposit.New(deposit.Deps{DB: w.db, Bus: w.bus, Notify: w.notify, Billing: w.billing, Chain: c, Clock: w.clock,
		Logger: slog.New(slog.DiscardHandler)}, testConfig)
	require.NoError(t, err)
	return s
}

// customer seeds a user.
func (w *world) customer(t *testing.T) int64 {
	t.Helper()
	now := w.clock.Now()
	u := &models.User{Email: fmt.Sprintf("customer-%d@example.com", customers.Add(1)), Name: "Customer", PasswordHash: "x", CreatedAt: now, UpdatedAt: now}
	_, err := w.db.NewInsert().Model(u).Returning("id").Exec(w.ctx)
	require.NoError(t, err)
	return u.ID
}

// request makes a deposit request of amount (nil: open).
func (w *world) request(t *testing.T, user int64, amount *models.USDC) *models.Deposit {
	t.Helper()
	d, err := w.svc.Create(w.ctx, user, amount)
	require.NoError(t, err)
	return d
}

// pay pays d's transfer request from wallet, with opts, and returns the
// transaction's signature.
func (w *world) pay(t *testing.T, wallet *solanatest.Wallet, d *models.Deposit, opts ...solanatest.PayOption) string {
	t.Helper()
	sig, err := wallet.Pay(w.ctx, w.svc.Payment(d).URL, opts...)
	require.NoError(t, err)
	return sig
}

// balance is user's prepaid balance.
func (w *world) balance(t *testing.T, user int64) models.USDC {
	t.Helper()
	f, err := w.billing.FundsOf(w.ctx, user)
	require.NoError(t, err)
	return f.Balance
}

// get reads d again.
func (w *world) get(t *testing.T, d *models.Deposit) *models.Deposit {
	t.Helper()
	got, err := w.svc.Get(w.ctx, d.UserID, d.ID)
	require.NoError(t, err)
	return got
}

// deposits counts DEPOSIT postings with reference.
func (w *world) postings(t *testing.T, reference string) int {
	t.Helper()
	n, err := w.db.NewSelect().Model((*models.LedgerTransaction)(nil)).Where("kind = ? AND reference = ?", models.TxDeposit, reference).Count(w.ctx)
	require.NoError(t, err)
	return int(n)
}

// notices returns user's notification kinds, oldest first.
func (w *world) notices(t *testing.T, user int64) []string {
	t.Helper()
	var kinds []string
	require.NoError(t, w.db.NewSelect().Model((*models.Notification)(nil)).Column("kind").Where("user_id = ?", user).Order("id").Scan(w.ctx, &kinds))
	return kinds
}

func usdc(s string) *models.USDC {
	v, err := models.ParseUSDC(s)
	if err != nil {
		panic(err)
	}
	return &v
}

// otherMint is a token that is not USDC.
var otherMint = solanago.MustPublicKeyFromBase58("So11111111111111111111111111111111111111112")
