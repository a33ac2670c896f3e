package pricing

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/fleet"
	"github.com/gpunex/gpunex/internal/presence"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// start is the instant every test clock starts at: Tuesday 2026-12-01,
// 09:00 UTC (Lisbon is on WET, UTC+0).
var start = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

// feeBps is the platform's fee the tests' service is given (the market's
// default, which pricing does not import: the market's tests import
// pricing).
const feeBps = 1500

// bundle is what a pricing test works with: the service and the real
// fleet over one database, a manual clock, and provider "p", whose
// application offers H100s (weekdays 08:00–20:00 Lisbon, the starting
// schedule) and whose machine has one L4.
type bundle struct {
	ctx       context.Context
	db        *store.DB
	clock     *clock.Manual
	fleet     *fleet.Service
	svc       *Service
	provider  int64
	machineID int64
	queries   *storetest.Queries
}

func setup(t *testing.T, db *store.DB) *bundle {
	t.Helper()
	clk := clock.NewManual(start)
	logger := slog.New(slog.DiscardHandler)
	b := bus.NewMemory()
	pres := presence.NewMemory(clk)
	t.Cleanup(func() { _ = b.Close(); _ = pres.Close() })
	// The machines' GPUs are simulated: the fleet takes them, as the demo's.
	fl := fleet.New(fleet.Deps{DB: db, Presence: pres, Bus: b, Clock: clk, Logger: logger}, fleet.Config{Interval: 10 * time.Second, AllowSimulated: true})
	svc := New(Deps{DB: db, Bus: b, Clock: clk, Logger: logger, FeeBps: feeBps}, Config{})
	bd := &bundle{ctx: t.Context(), db: db, clock: clk, fleet: fl, svc: svc, queries: storetest.CountQueries(db)}
	fl.OnRegistered(svc.OnRegistered)
	bd.provider = bd.newProvider(t, "p", weekdays("Europe/Lisbon", "08:00", "20:00"))
	bd.machineID = bd.register(t, bd.provider, "machine-1", "NVIDIA L4")
	return bd
}

// weekdays is Monday to Friday, start to end, in zone.
func weekdays(zone, startAt, end string) models.Availability {
	a := models.Availability{Kind: models.AvailabilityWeekly, TimeZone: &zone, Windows: []*models.AvailabilityWindow{}}
	for _, d := range models.Weekdays[:5] {
		a.Windows = append(a.Windows, &models.AvailabilityWindow{Day: d, Start: startAt, End: end})
	}
	return a
}

// newProvider inserts an approved provider named name whose application
// offers H100s with availability a, then A100s around the clock.
func (b *bundle) newProvider(t *testing.T, name string, a models.Availability) int64 {
	t.Helper()
	now := b.clock.Now()
	email := name + "@example.com"
	u := &models.User{Email: email, Name: name, PasswordHash: "x", CreatedAt: now, UpdatedAt: now}
	_, err := b.db.NewInsert().Model(u).Returning("id").Exec(b.ctx)
	require.NoError(t, err)
	app := &models.ProviderApplication{UserID: u.ID, Status: models.ApplicationApproved, FullName: name, Email: email,
		CommitmentMonths: 12, SuggestionTier: models.TierCommunity, SuggestionReasons: []string{}, SubmittedAt: now, UpdatedAt: now}
	_, err = b.db.NewInsert().Model(app).Returning("id").Exec(b.ctx)
	require.NoError(t, err)
	h100, a100 := "H100_SXM_80GB", "A100_SXM_80GB"
	gpus := []*models.ApplicationGpu{
		{ApplicationID: app.ID, Position: 0, ModelKey: &h100, Quantity: 2, RAMGb: 256, UploadGbps: 1, DownloadGbps: 1, Availability: a},
		{ApplicationID: app.ID, Position: 1, ModelKey: &a100, Quantity: 1, RAMGb: 256, UploadGbps: 1, DownloadGbps: 1,
			Availability: models.Availability{Kind: models.AvailabilityAlways, Windows: []*models.AvailabilityWindow{}}},
	}
	_, err = b.db.NewInsert().Model(&gpus).Exec(b.ctx)
	require.NoError(t, err)
	p := &models.Provider{UserID: u.ID, ApplicationID: app.ID, Tier: models.TierCommunity, Name: name, CreatedAt: now}
	_, err = b.db.NewInsert().Model(p).Returning("id").Exec(b.ctx)
	require.NoError(t, err)
	return p.ID
}

// register registers machine uid of the provider with GPUs named by NVML
// and returns its row id.
func (b *bundle) register(t *testing.T, providerID int64, uid string, names ...string) int64 {
	t.Helper()
	var gpus []protocol.GpuInventory
	for i, n := range names {
		gpus = append(gpus, protocol.GpuInventory{UUID: uid + "-GPU-" + string(rune('0'+i)), Index: i, Name: n, Simulated: true})
	}
	m, err := b.fleet.Register(b.ctx, &auth.Agent{TokenID: providerID, ProviderID: providerID},
		protocol.RegisterMachineInput{MachineID: uid, Hostname: "host-" + uid, AgentVersion: "1", Gpus: gpus})
	require.NoError(t, err)
	return m.ID
}

// row reads the provider's stored schedule.
func (b *bundle) row(t *testing.T, providerID int64) *models.ProviderSchedule {
	t.Helper()
	row := new(models.ProviderSchedule)
	require.NoError(t, b.db.NewSelect().Model(row).Where("provider_id = ?", providerID).Scan(b.ctx))
	return row
}

// offered reports whether the marketplace's filter (WhereOpen) lets the
// machine through now.
func (b *bundle) offered(t *testing.T, machineID int64) bool {
	t.Helper()
	q := b.db.NewSelect().TableExpr("machines AS m").Where("m.id = ?", machineID)
	n, err := WhereOpen(q, "m.provider_id", "m.id", b.clock.Now()).Count(b.ctx)
	require.NoError(t, err)
	return n == 1
}

// requireProblems checks err is a validation naming exactly fields, with
// codes.
func requireProblems(t *testing.T, err error, want map[string]string) {
	t.Helper()
	v, ok := fault.AsValidation(err)
	require.True(t, ok, "a validation error: %v", err)
	got := map[string]string{}
	for _, p := range v.Problems {
		got[p.Field] = string(p.Code)
	}
	require.Equal(t, want, got)
}
