package billing

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/billing/bank"
	"github.com/gpunex/gpunex/internal/billing/billingtest"
	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/notification"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// start is when every test clock starts: Tuesday 2026-12-01 09:00 UTC.
var start = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

// bundle is a billing test's world: the service over one database on a
// manual clock, with notifications and events in memory, and rows seeded
// directly (the market's and fleet's own tests cover how they come to be).
type bundle struct {
	ctx   context.Context
	db    *store.DB
	clock *clock.Manual
	bus   bus.Bus
	svc   *Service
	// mu guards stopped: a tick's workers stop rentals at once.
	mu      sync.Mutex
	stopped []int64
	serial  int
}

// testDebtor is the platform's paying account in tests that pay by bank.
var testDebtor = BankConfig{Debtor: billingtest.Debtor(), Currency: bank.EUR, Rate: bank.RateOne}

// setup is a billing service on db, on a manual clock at start; a config
// without a bank debtor gets testDebtor (BankConfig.Ready), so bank
// methods are taken.
func setup(t *testing.T, db *store.DB, cfg Config) *bundle {
	t.Helper()
	if cfg.Payouts.Bank.Debtor.IBAN.IsZero() {
		cfg.Payouts.Bank = testDebtor
	}
	clk := clock.NewManual(start)
	b := &bundle{ctx: t.Context(), db: db, clock: clk, bus: bus.NewMemory()}
	t.Cleanup(func() { _ = b.bus.Close() })
	b.svc = b.replica(cfg)
	return b
}

// replica is another billing service over the same database, as a second
// replica would run.
func (b *bundle) replica(cfg Config) *Service {
	logger := slog.New(slog.DiscardHandler)
	notify := notification.New(notification.Deps{DB: b.db, Bus: b.bus, Clock: b.clock, Logger: logger}, notification.Config{})
	return New(Deps{DB: b.db, Bus: b.bus, Notify: notify, Clock: b.clock, Logger: logger, Stop: b.stop}, cfg)
}

// stop is what the market does to a rental whose funds ran out: it ends.
func (b *bundle) stop(ctx context.Context, id int64) error {
	b.mu.Lock()
	b.stopped = append(b.stopped, id)
	b.mu.Unlock()
	now := b.clock.Now()
	_, err := b.db.NewUpdate().Model((*models.Rental)(nil)).Set("state = ?, ended_at = ?, updated_at = ?", models.RentalStopped, now, now).
		Where("id = ? AND ended_at IS NULL", id).Exec(ctx)
	return err
}

func (b *bundle) user(t *testing.T, name string) int64 {
	t.Helper()
	b.serial++
	now := b.clock.Now()
	u := &models.User{Email: fmt.Sprintf("%s-%d@example.com", name, b.serial), Name: name, PasswordHash: "x", CreatedAt: now, UpdatedAt: now}
	_, err := b.db.NewInsert().Model(u).Returning("id").Exec(b.ctx)
	require.NoError(t, err)
	return u.ID
}

// provider seeds an approved provider with one machine of gpus GPUs and
// returns the provider's id, the machine's and the GPUs'.
func (b *bundle) provider(t *testing.T, gpus int) (int64, int64, []int64) {
	t.Helper()
	now := b.clock.Now()
	uid := b.user(t, "provider")
	app := &models.ProviderApplication{UserID: uid, Status: models.ApplicationApproved, FullName: "P", Email: "p@example.com",
		CommitmentMonths: 3, SuggestionTier: models.TierCommunity, SuggestionReasons: []string{}, SubmittedAt: now, UpdatedAt: now}
	_, err := b.db.NewInsert().Model(app).Returning("id").Exec(b.ctx)
	require.NoError(t, err)
	p := &models.Provider{UserID: uid, ApplicationID: app.ID, Tier: models.TierCommunity, Name: "P", CreatedAt: now}
	_, err = b.db.NewInsert().Model(p).Returning("id").Exec(b.ctx)
	require.NoError(t, err)
	b.serial++
	m := &models.Machine{ProviderID: p.ID, MachineID: fmt.Sprintf("m-%d", b.serial), Hostname: "h", AgentVersion: "1",
		Status: protocol.MachineOnline, StatusChangedAt: now, RegisteredAt: now, UpdatedAt: now}
	_, err = b.db.NewInsert().Model(m).Returning("id").Exec(b.ctx)
	require.NoError(t, err)
	var ids []int64
	for i := range gpus {
		g := &models.MachineGpu{MachineID: m.ID, UUID: fmt.Sprintf("GPU-%d-%d", m.ID, i), Index: i, Name: "NVIDIA H100 80GB HBM3",
			ModelKey: ptr("H100_SXM_80GB"), AddedAt: now}
		_, err = b.db.NewInsert().Model(g).Returning("id").Exec(b.ctx)
		require.NoError(t, err)
		ids = append(ids, g.ID)
	}
	return p.ID, m.ID, ids
}

// rental seeds a rental RUNNING since now on the GPUs.
func (b *bundle) rental(t *testing.T, customer, provider, machine int64, gpus []int64, price models.USDC, feeBps int) int64 {
	t.Helper()
	now := b.clock.Now()
	b.serial++
	r := &models.Rental{JobID: fmt.Sprintf("job-%d", b.serial), CustomerID: customer, ProviderID: provider, MachineID: machine,
		ModelKey: "H100_SXM_80GB", GpuCount: len(gpus), PricePerHour: price, FeeBps: feeBps, Image: "busybox", Command: []string{},
		EnvNames: []string{}, Tier: models.TierCommunity, State: models.RentalRunning, CreatedAt: now, StartedAt: &now, UpdatedAt: now}
	_, err := b.db.NewInsert().Model(r).Returning("id").Exec(b.ctx)
	require.NoError(t, err)
	for _, g := range gpus {
		_, err = b.db.NewInsert().Model(&models.RentalGpu{RentalID: r.ID, GpuID: g}).Exec(b.ctx)
		require.NoError(t, err)
	}
	return r.ID
}

// end ends a rental at at in state.
func (b *bundle) end(t *testing.T, id int64, state models.RentalState, at time.Time) {
	t.Helper()
	_, err := b.db.NewUpdate().Model((*models.Rental)(nil)).Set("state = ?, ended_at = ?, updated_at = ?", state, at, b.clock.Now()).
		Where("id = ? AND ended_at IS NULL", id).Exec(b.ctx)
	require.NoError(t, err)
}

func (b *bundle) credit(t *testing.T, user int64, amount models.USDC) {
	t.Helper()
	b.serial++
	_, err := b.svc.Credit(b.ctx, user, amount, fmt.Sprintf("deposit-%d", b.serial))
	require.NoError(t, err)
}

func (b *bundle) balanceOf(t *testing.T, kind models.LedgerAccountKind, owner int64) models.USDC {
	t.Helper()
	v, err := b.svc.balance(b.ctx, b.db, kind, owner)
	require.NoError(t, err)
	return v
}

func ptr[T any](v T) *T { return &v }
