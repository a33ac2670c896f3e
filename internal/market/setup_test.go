package market

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/fleet"
	"github.com/gpunex/gpunex/internal/presence"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// The models the tests rent, by their NVML names.
const (
	h100 = "H100_SXM_80GB"
	l4   = "L4_24GB"
)

var nvmlName = map[string]string{h100: "NVIDIA H100 80GB HBM3", l4: "NVIDIA L4"}

// bundle is what a market test works with: the real fleet and market
// over one database, on a manual clock, with presence and events in
// memory.
type bundle struct {
	ctx    context.Context
	db     *store.DB
	clock  *clock.Manual
	bus    bus.Bus
	fleet  *fleet.Service
	svc    *Service
	serial int
}

func setup(t *testing.T, db *store.DB) *bundle { return setupWith(t, db, nil) }

// setupWith is setup with the market's Deps edited by with (given the
// bundle's database, clock and bus) before the market is made.
func setupWith(t *testing.T, db *store.DB, with func(b *bundle, d *Deps)) *bundle {
	t.Helper()
	clk := clock.NewManual(time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC))
	pres := presence.NewMemory(clk)
	b := &bundle{ctx: t.Context(), db: db, clock: clk, bus: bus.NewMemory()}
	t.Cleanup(func() { _ = pres.Close(); _ = b.bus.Close() })
	logger := slog.New(slog.DiscardHandler)
	// The machines' GPUs are simulated: the fleet takes them and the
	// market lists them, as in the demo world.
	b.fleet = fleet.New(fleet.Deps{DB: db, Presence: pres, Bus: b.bus, Clock: clk, Logger: logger}, fleet.Config{Interval: 10 * time.Second, AllowSimulated: true})
	deps := Deps{DB: db, Bus: b.bus, Fleet: b.fleet, Clock: clk, Logger: logger}
	if with != nil {
		with(b, &deps)
	}
	b.svc = New(deps, Config{})
	return b
}

// provider is a seeded provider and its agent.
type provider struct {
	id    int64
	agent *auth.Agent
}

// providerSpec is what a seeded provider's application said.
type providerSpec struct {
	tier       models.ProviderTier
	city       string
	country    string
	commitment int
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

// provider seeds an approved provider whose application's first GPU
// entry is in spec's city.
func (b *bundle) provider(t *testing.T, spec providerSpec) provider {
	t.Helper()
	if spec.tier == "" {
		spec.tier = models.TierCommunity
	}
	if spec.commitment == 0 {
		spec.commitment = 3
	}
	now := b.clock.Now()
	uid := b.user(t, "provider")
	app := &models.ProviderApplication{UserID: uid, Status: models.ApplicationApproved, FullName: "P", Email: "p@example.com",
		CommitmentMonths: spec.commitment, SuggestionTier: spec.tier, SuggestionReasons: []string{}, SubmittedAt: now, UpdatedAt: now}
	_, err := b.db.NewInsert().Model(app).Returning("id").Exec(b.ctx)
	require.NoError(t, err)
	loc := models.Location{}
	if spec.city != "" {
		loc.City = &spec.city
	}
	if spec.country != "" {
		loc.Country = &spec.country
	}
	for pos, city := range []models.Location{loc, {City: ptr("Elsewhere")}} {
		g := &models.ApplicationGpu{ApplicationID: app.ID, Position: pos, ModelKey: ptr(h100), Quantity: 1, RAMGb: 64,
			UploadGbps: 1, DownloadGbps: 1, Availability: models.Availability{Kind: models.AvailabilityAlways, Windows: []*models.AvailabilityWindow{}}, Location: city}
		_, err = b.db.NewInsert().Model(g).Exec(b.ctx)
		require.NoError(t, err)
	}
	p := &models.Provider{UserID: uid, ApplicationID: app.ID, Tier: spec.tier, Name: "P", CreatedAt: now}
	_, err = b.db.NewInsert().Model(p).Returning("id").Exec(b.ctx)
	require.NoError(t, err)
	return provider{id: p.ID, agent: &auth.Agent{TokenID: p.ID, ProviderID: p.ID}}
}

// machine registers an online machine of p with n GPUs of model, each
// listed with score, and sets p's price of model (micro-USDC per hour).
type machine struct {
	id    int64
	uid   string
	gpus  []*models.MachineGpu
	owner provider
}

// machine registers n GPUs of model for p, online and listed with the
// benchmark health score given, at price per GPU-hour; benchmark (in
// listing_test.go) gives its GPUs measured figures.
func (b *bundle) machine(t *testing.T, p provider, model string, n, score int, price int64) machine {
	t.Helper()
	b.serial++
	uid := fmt.Sprintf("machine-%d", b.serial)
	var inv []protocol.GpuInventory
	for i := range n {
		inv = append(inv, protocol.GpuInventory{UUID: fmt.Sprintf("GPU-%s-%d", uid, i), Index: i, Name: nvmlName[model], Simulated: true})
	}
	m, err := b.fleet.Register(b.ctx, p.agent, protocol.RegisterMachineInput{MachineID: uid, Hostname: "host-" + uid, AgentVersion: "1", Gpus: inv})
	require.NoError(t, err)
	_, err = b.fleet.Heartbeat(b.ctx, p.agent, protocol.HeartbeatInput{MachineID: uid})
	require.NoError(t, err)
	for _, g := range m.Gpus {
		s := score
		_, err := b.db.NewInsert().Model(&models.GpuBenchStatus{GpuID: g.ID, MachineID: m.ID, ProviderID: p.id, Listing: models.GpuListingListed,
			Score: &s, ListingChangedAt: b.clock.Now(), Shortfalls: []models.BenchmarkFigure{}, Guidance: []models.BenchmarkGuidance{}}).Exec(b.ctx)
		require.NoError(t, err)
	}
	b.price(t, p, model, price)
	return machine{id: m.ID, uid: uid, gpus: m.Gpus, owner: p}
}

// price sets p's rate of model.
func (b *bundle) price(t *testing.T, p provider, model string, micros int64) {
	t.Helper()
	_, err := b.db.NewInsert().Model(&models.GpuPrice{ProviderID: p.id, ModelKey: model, PricePerHour: models.USDC(micros), UpdatedAt: b.clock.Now()}).
		On("CONFLICT (provider_id, model_key) DO UPDATE").Set("price_micros = EXCLUDED.price_micros").Exec(b.ctx)
	require.NoError(t, err)
}

// list returns the first page of everything, by sort.
func (b *bundle) list(t *testing.T, f Filter, sort Sort) []*Listing {
	t.Helper()
	page, err := b.svc.Marketplace(b.ctx, f, sort, MaxPageSize, "")
	require.NoError(t, err)
	return page.Listings
}

// start rents n GPUs of listing l for customer.
func (b *bundle) start(t *testing.T, customer int64, l *Listing, n int) *models.Rental {
	t.Helper()
	r, err := b.svc.Start(b.ctx, customer, StartInput{ListingID: &l.ID, GpuCount: n, Image: "docker.io/library/python:3.12", Command: []string{"python", "-V"}})
	require.NoError(t, err)
	return r
}

// commands returns machine id's queued commands of kind, oldest first.
func (b *bundle) commands(t *testing.T, machineID int64, kind protocol.CommandKind) []*models.AgentCommand {
	t.Helper()
	var cs []*models.AgentCommand
	require.NoError(t, b.db.NewSelect().Model(&cs).Where("machine_id = ? AND kind = ?", machineID, kind).OrderExpr("id").Scan(b.ctx))
	return cs
}

// report sends an agent's job report, after the heartbeat that delivers
// the machine's commands (an agent reports only jobs it was given).
func (b *bundle) report(t *testing.T, m machine, r *models.Rental, state protocol.JobState, cause *protocol.JobCause) *protocol.ReportJobStatusAnswer {
	t.Helper()
	b.deliver(t, m)
	tail := "log " + string(state)
	ans, err := b.svc.ReportJobStatus(b.ctx, m.owner.agent, protocol.ReportJobStatusInput{MachineID: m.uid, JobID: r.JobID, State: state,
		At: b.clock.Now(), Cause: cause, LogTail: &tail})
	require.NoError(t, err)
	return ans
}

// deliver sends m's heartbeat, which takes its queued commands.
func (b *bundle) deliver(t *testing.T, m machine) []*models.AgentCommand {
	t.Helper()
	res, err := b.fleet.Heartbeat(b.ctx, m.owner.agent, protocol.HeartbeatInput{MachineID: m.uid})
	require.NoError(t, err)
	return res.Commands
}

func (b *bundle) rental(t *testing.T, id int64) *models.Rental {
	t.Helper()
	r := new(models.Rental)
	require.NoError(t, b.db.NewSelect().Model(r).Where("id = ?", id).Scan(b.ctx))
	return r
}

func (b *bundle) allocations(t *testing.T) int {
	t.Helper()
	n, err := b.db.NewSelect().Model((*models.GpuAllocation)(nil)).Count(b.ctx)
	require.NoError(t, err)
	return int(n)
}

func ptr[T any](v T) *T { return &v }

func bunIn(states []models.RentalState) any { return bun.List(states) }
