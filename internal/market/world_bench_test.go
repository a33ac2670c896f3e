package market

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/benchtest"
	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/catalog"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/fleet"
	"github.com/gpunex/gpunex/internal/presence"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

const (
	// scarceModel is rented under contention: only the world's
	// scarceGPUs GPUs of it exist, on the first machines of provider 0.
	scarceModel = "H200_SXM_141GB"
	// seedBatch rows go in one multi-row INSERT.
	seedBatch = 5_000
)

// worldSize is the size of a benchmark world: providers with 10
// machines each, gpus over them, customers who rent, and scarceGPUs of
// scarceModel among the gpus.
type worldSize struct {
	providers, machines, gpus, customers, scarceGPUs int
}

// fullWorld is issue 13's marketplace at scale, what make bench measures;
// smallWorld is the world at the smallest size (benchtest), make test's run of every
// benchmark once: the smallest in which every page has
// listings (the filtered one five, of provider 64) and the starts
// contend, seeded in a moment.
var (
	fullWorld  = worldSize{providers: 2_000, machines: 20_000, gpus: 100_000, customers: 200, scarceGPUs: 50}
	smallWorld = worldSize{providers: 80, machines: 800, gpus: 4_000, customers: 20, scarceGPUs: 5}
)

// worldLocations are the providers' locations, one per provider in turn.
var worldLocations = []models.Location{
	loc("Frankfurt", "Germany", "eu-central"), loc("Ashburn", "United States", "us-east"),
	loc("Portland", "United States", "us-west"), loc("Paris", "France", "eu-west"),
	loc("Amsterdam", "Netherlands", "eu-west"), loc("Lisbon", "Portugal", "eu-south"),
	loc("Tokyo", "Japan", "ap-northeast"), loc("Singapore", "Singapore", "ap-southeast"),
	loc("Montreal", "Canada", "ca-east"), loc("London", "United Kingdom", "eu-west"),
	loc("Helsinki", "Finland", "eu-north"), loc("São Paulo", "Brazil", "sa-east"),
	loc("Mumbai", "India", "ap-south"), loc("Sydney", "Australia", "ap-southeast"),
	loc("Stockholm", "Sweden", "eu-north"), loc("Warsaw", "Poland", "eu-central"),
}

func loc(city, country, region string) models.Location {
	return models.Location{City: &city, Country: &country, Region: &region}
}

// world is a seeded marketplace: the real market and fleet services over
// one database of a backend, on a manual clock.
type world struct {
	ctx       context.Context
	backend   string
	size      worldSize
	db        *store.DB
	clock     *clock.Manual
	svc       *Service
	queries   *storetest.Queries
	hand      handDialect
	customers []int64
	// scarceGPUIDs are the GPUs of scarceModel.
	scarceGPUIDs []int64
	seeded       time.Duration
}

// commonModels are the catalogue's models other than scarceModel, the
// ones the rest of the world runs.
func commonModels() []string {
	var keys []string
	for _, m := range catalog.Models() {
		if m.Key != scarceModel {
			keys = append(keys, m.Key)
		}
	}
	return keys
}

// basePrice is a plausible hourly rate of model in micro-USDC: 3,000 per
// dense FP16 tensor TFLOPS (an H100 SXM about 3 USDC an hour).
func basePrice(model string) int64 {
	return int64(catalog.ByKey(model).Fp16TensorTflops*3000) / 1000 * 1000
}

// providerModels are the two models provider p prices and runs.
func providerModels(p int) (string, string) {
	keys := commonModels()
	return keys[p%len(keys)], keys[(p*7+3)%len(keys)]
}

// providerPrice is provider p's rate of model: 0.6 to 1.6 times its base.
func providerPrice(p int, model string) int64 {
	salt := 0
	for _, c := range model {
		salt += int(c)
	}
	factor := 600 + (p*37+salt*11)%1001 // per mille
	return basePrice(model) * int64(factor) / 1000 / 1000 * 1000
}

// gpuCounts is how many GPUs each machine of a world of size has: the
// first machines of provider 0 hold the scarceGPUs GPUs of scarceModel
// (8 each, the rest on the last), every other machine 8, 4 or 2 in turn,
// trimmed so the world has exactly size.gpus.
func gpuCounts(size worldSize) []int {
	counts := make([]int, size.machines)
	total, i := 0, 0
	for left := size.scarceGPUs; left > 0; i++ {
		counts[i] = min(8, left)
		left -= counts[i]
		total += counts[i]
	}
	cycle := []int{8, 8, 4, 4, 2, 4}
	for j := i; j < size.machines; j++ {
		counts[j] = cycle[(j-i)%len(cycle)]
		total += counts[j]
	}
	for j := i; total > size.gpus; j = i + (j-i+1)%(size.machines-i) {
		if counts[j] > 1 {
			counts[j]--
			total--
		}
	}
	for j := i; total < size.gpus; j++ {
		if counts[j] < 8 {
			counts[j]++
			total++
		}
	}
	return counts
}

// scarceMachines is how many machines hold scarceModel.
func (s worldSize) scarceMachines() int { return (s.scarceGPUs + 7) / 8 }

// seedWorld opens a fresh database of backend and fills it, at fullWorld's
// size (smallWorld's at the smallest size), with its approved providers (profiles
// from their applications, a fifth Enterprise, commitments of 1 to 24
// months, schedules open or absent), their ONLINE machines with uptimes
// of 1/30 to 1, and the GPUs LISTED with scores of 60 to 100, priced 0.6
// to 1.6 times their model's base; then runs Refresh, as the leader
// would. Multi-row INSERTs of seedBatch rows, all in one transaction.
func seedWorld(b *testing.B, backend string) *world {
	b.Helper()
	began := time.Now()
	db := storetest.Open(b, backend)
	clk := clock.NewManual(time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC))
	ev := bus.NewMemory()
	pres := presence.NewMemory(clk)
	b.Cleanup(func() { _ = pres.Close(); _ = ev.Close() })
	logger := slog.New(slog.DiscardHandler)
	// The world's GPUs are simulated: they are listed, as the demo's.
	fl := fleet.New(fleet.Deps{DB: db, Presence: pres, Bus: ev, Clock: clk, Logger: logger}, fleet.Config{Interval: 10 * time.Second, AllowSimulated: true})
	size := benchtest.Sized(fullWorld, smallWorld)
	w := &world{ctx: b.Context(), backend: backend, size: size, db: db, clock: clk,
		svc: New(Deps{DB: db, Bus: ev, Fleet: fl, Clock: clk, Logger: logger}, Config{}), hand: handDialects[backend]}
	now := clk.Now()

	err := db.RunInTx(w.ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		users := make([]*models.User, 0, size.providers+size.customers)
		for i := range size.providers + size.customers {
			users = append(users, &models.User{Email: fmt.Sprintf("bench-%d@example.com", i), Name: "bench", PasswordHash: "x", CreatedAt: now, UpdatedAt: now})
		}
		if err := insertBatches(ctx, tx, users, true); err != nil {
			return err
		}
		for _, u := range users[size.providers:] {
			w.customers = append(w.customers, u.ID)
		}
		apps := make([]*models.ProviderApplication, size.providers)
		for p := range apps {
			apps[p] = &models.ProviderApplication{UserID: users[p].ID, Status: models.ApplicationApproved, FullName: "P", Email: "p@example.com",
				CommitmentMonths: []int{1, 3, 6, 12, 24}[(p/5)%5], SuggestionTier: tierOf(p), SuggestionReasons: []string{}, SubmittedAt: now, UpdatedAt: now}
		}
		if err := insertBatches(ctx, tx, apps, true); err != nil {
			return err
		}
		entries := make([]*models.ApplicationGpu, size.providers)
		providers := make([]*models.Provider, size.providers)
		for p := range providers {
			a, _ := providerModels(p)
			entries[p] = &models.ApplicationGpu{ApplicationID: apps[p].ID, ModelKey: &a, Quantity: 10, RAMGb: 256, UploadGbps: 1, DownloadGbps: 1,
				Availability: models.Availability{Kind: models.AvailabilityAlways, Windows: []*models.AvailabilityWindow{}}, Location: worldLocations[p%len(worldLocations)]}
			providers[p] = &models.Provider{UserID: users[p].ID, ApplicationID: apps[p].ID, Tier: tierOf(p), Name: fmt.Sprintf("Provider %d", p), CreatedAt: now}
		}
		if err := insertBatches(ctx, tx, entries, false); err != nil {
			return err
		}
		if err := insertBatches(ctx, tx, providers, true); err != nil {
			return err
		}

		var prices []*models.GpuPrice
		var schedules []*models.ProviderSchedule
		for p, pr := range providers {
			a, c := providerModels(p)
			for _, k := range uniq(a, c) {
				prices = append(prices, &models.GpuPrice{ProviderID: pr.ID, ModelKey: k, PricePerHour: models.USDC(providerPrice(p, k)), UpdatedAt: now})
			}
			open := models.Availability{Kind: models.AvailabilityWeekly, Windows: []*models.AvailabilityWindow{}}
			switch p % 3 {
			case 0: // open with no end
				schedules = append(schedules, &models.ProviderSchedule{ProviderID: pr.ID, Availability: open, OpenFrom: ptr(now.Add(-time.Hour)), UpdatedAt: now})
			case 1: // inside a window
				schedules = append(schedules, &models.ProviderSchedule{ProviderID: pr.ID, Availability: open, OpenFrom: ptr(now.Add(-24 * time.Hour)),
					OpenUntil: ptr(now.Add(24 * time.Hour)), UpdatedAt: now})
			}
		}
		prices = append(prices, &models.GpuPrice{ProviderID: providers[0].ID, ModelKey: scarceModel, PricePerHour: models.USDC(basePrice(scarceModel)), UpdatedAt: now})
		if err := insertBatches(ctx, tx, prices, false); err != nil {
			return err
		}
		if err := insertBatches(ctx, tx, schedules, false); err != nil {
			return err
		}

		counts := gpuCounts(size)
		machines := make([]*models.Machine, size.machines)
		for i := range machines {
			machines[i] = &models.Machine{ProviderID: providers[i/10].ID, MachineID: fmt.Sprintf("bench-machine-%05d", i), Hostname: fmt.Sprintf("gpu-%05d", i),
				AgentVersion: "1", Simulated: true, Status: protocol.MachineOnline, StatusChangedAt: now.Add(-24 * time.Hour),
				RegisteredAt: now.Add(-40 * 24 * time.Hour), UpdatedAt: now}
		}
		if err := insertBatches(ctx, tx, machines, true); err != nil {
			return err
		}
		intervals := make([]*models.MachineStatusInterval, size.machines)
		var maintenance []*models.MaintenanceWindow
		for i, m := range machines {
			intervals[i] = &models.MachineStatusInterval{MachineID: m.ID, Status: protocol.MachineOnline, StartedAt: now.Add(-time.Duration(1+i%30) * 24 * time.Hour)}
			if i%50 == 49 {
				maintenance = append(maintenance, &models.MaintenanceWindow{ProviderID: m.ProviderID, MachineID: &m.ID,
					StartsAt: now.Add(7 * 24 * time.Hour), EndsAt: now.Add(7*24*time.Hour + 2*time.Hour), CreatedAt: now})
			}
		}
		if err := insertBatches(ctx, tx, intervals, false); err != nil {
			return err
		}
		if err := insertBatches(ctx, tx, maintenance, false); err != nil {
			return err
		}

		gpus := make([]*models.MachineGpu, 0, size.gpus)
		for i, m := range machines {
			a, c := providerModels(i / 10)
			model := a
			switch {
			case i < size.scarceMachines():
				model = scarceModel
			case i%2 == 1:
				model = c
			}
			name := catalog.ByKey(model).NvmlNames[0]
			for g := range counts[i] {
				gpus = append(gpus, &models.MachineGpu{MachineID: m.ID, UUID: fmt.Sprintf("GPU-%05d-%d", i, g), Index: g, Name: name,
					ModelKey: ptr(model), Simulated: true, AddedAt: m.RegisteredAt})
			}
		}
		if err := insertBatches(ctx, tx, gpus, true); err != nil {
			return err
		}
		status := make([]*models.GpuBenchStatus, len(gpus))
		machineOf := map[int64]*models.Machine{}
		for _, m := range machines {
			machineOf[m.ID] = m
		}
		for i, g := range gpus {
			score := 60 + (g.Index*13+int(g.MachineID)*7)%41
			tflops := catalog.ByKey(*g.ModelKey).Fp16TensorTflops * float64(score) / 100
			status[i] = &models.GpuBenchStatus{GpuID: g.ID, MachineID: g.MachineID, ProviderID: machineOf[g.MachineID].ProviderID, Listing: models.GpuListingListed,
				Score: &score, Tflops: &tflops, ListingChangedAt: now, Shortfalls: []models.BenchmarkFigure{}, Guidance: []models.BenchmarkGuidance{}}
			if *g.ModelKey == scarceModel {
				w.scarceGPUIDs = append(w.scarceGPUIDs, g.ID)
			}
		}
		return insertBatches(ctx, tx, status, false)
	})
	if err != nil {
		b.Fatalf("seed the %s world: %v", backend, err)
	}
	inserted := time.Since(began)
	if err := w.hand.settle(w.ctx, db); err != nil {
		b.Fatalf("settle the %s world: %v", backend, err)
	}
	if err := w.svc.Refresh(w.ctx); err != nil {
		b.Fatalf("refresh the %s world: %v", backend, err)
	}
	// Again: Refresh wrote every machine's uptime and the supply.
	if err := w.hand.settle(w.ctx, db); err != nil {
		b.Fatalf("settle the %s world: %v", backend, err)
	}
	w.queries = storetest.CountQueries(db)
	w.seeded = time.Since(began)
	b.Logf("%s: %d GPUs on %d machines of %d providers inserted in %s, ready (settled, Refresh, settled) in %s", backend, size.gpus, size.machines, size.providers,
		inserted.Round(time.Millisecond), w.seeded.Round(time.Millisecond))
	return w
}

func tierOf(p int) models.ProviderTier {
	if p%5 == 0 {
		return models.TierEnterprise
	}
	return models.TierCommunity
}

func uniq(a, b string) []string {
	if a == b {
		return []string{a}
	}
	return []string{a, b}
}

// insertBatches inserts rows seedBatch at a time, one multi-row INSERT
// each; withID reads the generated ids back into rows.
func insertBatches[T any](ctx context.Context, tx bun.Tx, rows []T, withID bool) error {
	for start := 0; start < len(rows); start += seedBatch {
		batch := rows[start:min(start+seedBatch, len(rows))]
		q := tx.NewInsert().Model(&batch)
		if withID {
			q = q.Returning("id")
		}
		if _, err := q.Exec(ctx); err != nil {
			return fmt.Errorf("insert %T: %w", rows[0], err)
		}
	}
	return nil
}
