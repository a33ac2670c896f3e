package market

import (
	"context"
	"encoding/base64"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/catalog"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/geo"
	"github.com/gpunex/gpunex/internal/validate"
	"github.com/gpunex/gpunex/models"
)

// Sort is how the marketplace orders listings.
type Sort string

// The sorts.
const (
	// SortRank orders by Rank, highest first (the default).
	SortRank Sort = "RANK"
	// SortPrice orders cheapest first.
	SortPrice Sort = "PRICE"
	// SortPerformancePerDollar orders by measured TFLOPS per USDC of the
	// hourly rate (Performance.TflopsPerDollar), highest first.
	SortPerformancePerDollar Sort = "PERFORMANCE_PER_DOLLAR"
)

// MaxPageSize bounds a marketplace page (first).
const MaxPageSize = 100

// Filter is what a customer looks for; every field is optional.
type Filter struct {
	// Model is a catalogue model key.
	Model *string
	// Country is an ISO 3166-1 alpha-2 code (PT); it matches providers
	// whose country was typed as that code, its alpha-3 code or its
	// English name.
	Country *string
	// Region matches the provider's city or datacenter region,
	// case-insensitively.
	Region    *string
	MinVramGb *int
	// MinGpus asks for at least this many free GPUs on one machine.
	MinGpus         *int
	MaxPricePerHour *models.USDC
	// MinReliability keeps listings of providers scoring at least this
	// (0–100); providers without a score yet are left out.
	MinReliability *int
	// MinPerformance is the lowest performance score every GPU of the
	// listing must reach.
	MinPerformance *int
	Tier           *models.ProviderTier
}

// Page is one page of listings.
type Page struct {
	Listings    []*Listing
	Cursors     []string
	HasNextPage bool
}

// validateFilter checks a filter's bounds; field prefixes the names.
func validateFilter(f *Filter, field string, v *fault.Validation) {
	if f == nil {
		return
	}
	if f.Model != nil && catalog.ByKey(*f.Model) == nil {
		v.Add(field+".model", fault.UnknownModel, "not a supported GPU model key")
	}
	nonNeg := func(name string, p *int, max int) {
		if p != nil && (*p < 0 || *p > max) {
			v.Add(field+"."+name, fault.OutOfRange, fmt.Sprintf("must be between 0 and %d", max))
		}
	}
	nonNeg("minVramGb", f.MinVramGb, 10000)
	nonNeg("minGpus", f.MinGpus, 10000)
	nonNeg("minReliability", f.MinReliability, 100)
	nonNeg("minPerformance", f.MinPerformance, 100)
	if f.MaxPricePerHour != nil && *f.MaxPricePerHour < 0 {
		v.Add(field+".maxPricePerHour", fault.OutOfRange, "must not be negative")
	}
	// Free text goes to SQL: one line of at most 200 characters, no NUL
	// (PostgreSQL cannot hold one, so it would fail there as INTERNAL).
	if f.Country != nil {
		// A code, not a name to guess at: a prefix of a name ("Po" of
		// "Portugal", cut by a short input) must not search for itself.
		if code, _, ok := geo.CountryOf(*f.Country); !ok || len(*f.Country) != 2 || code != strings.ToUpper(*f.Country) {
			v.Add(field+".country", fault.InvalidValue, "not an ISO 3166-1 alpha-2 country code, e.g. PT")
		}
	}
	if f.Region != nil {
		filterTextRule.Check(v, validate.At(field).Field("region"), *f.Region)
	}
}

// filterTextRule is a filter's free text: a region.
var filterTextRule = validate.Text{MaxRunes: 200}

// listingQuery is one search of the listings: a page of the marketplace,
// or the scheduler's candidates.
type listingQuery struct {
	filter Filter
	sort   Sort
	limit  int
	after  *pageKey
	// machineID and gpuCount narrow the search to one machine, and to
	// groups with that many free GPUs (the scheduler).
	machineID *int64
}

// pageKey is a keyset cursor: the sort's value and the listing's key.
type pageKey struct {
	sort      Sort
	value     float64
	machineID int64
	modelKey  string
}

func (k pageKey) encode() string {
	return base64.RawURLEncoding.EncodeToString([]byte("listing|" + string(k.sort) + "|" +
		strconv.FormatFloat(k.value, 'g', -1, 64) + "|" + strconv.FormatInt(k.machineID, 10) + "|" + k.modelKey))
}

func decodePageKey(sort Sort, s string) (*pageKey, bool) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, false
	}
	parts := strings.SplitN(string(b), "|", 5)
	if len(parts) != 5 || parts[0] != "listing" || Sort(parts[1]) != sort || parts[4] == "" {
		return nil, false
	}
	v, err1 := strconv.ParseFloat(parts[2], 64)
	m, err2 := strconv.ParseInt(parts[3], 10, 64)
	if err1 != nil || err2 != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return nil, false
	}
	return &pageKey{sort: sort, value: v, machineID: m, modelKey: parts[4]}, true
}

// listingRow is one listing group as the query returns it.
type listingRow struct {
	MachineID         int64      `bun:"machine_id"`
	ModelKey          string     `bun:"model_key"`
	ProviderID        int64      `bun:"provider_id"`
	Simulated         bool       `bun:"simulated"`
	GpuCount          int        `bun:"gpu_count"`
	Perf              *int       `bun:"perf"`
	Tflops            *float64   `bun:"tflops"`
	PriceMicros       int64      `bun:"price_micros"`
	Tier              string     `bun:"tier"`
	City              *string    `bun:"city"`
	Country           *string    `bun:"country"`
	Region            *string    `bun:"region"`
	CommitmentMonths  int        `bun:"commitment_months"`
	Uptime            *float64   `bun:"uptime"`
	Reliability       *int       `bun:"reliability"`
	MedianMicros      int64      `bun:"median_micros"`
	Rank              float64    `bun:"listing_rank"`
	PerDollar         float64    `bun:"per_dollar"`
	NextMaintenanceAt *time.Time `bun:"next_maintenance_at"`
	ScheduleClosesAt  *time.Time `bun:"schedule_closes_at"`
	ProviderName      string     `bun:"provider_name"`
	DriverVersion     *string    `bun:"driver_version"`
	CudaVersion       *string    `bun:"cuda_version"`
	CPUModel          *string    `bun:"cpu_model"`
	CPUCores          *int       `bun:"cpu_cores"`
	RAMBytes          *float64   `bun:"ram_bytes"`
	DiskBytes         *float64   `bun:"disk_bytes"`
	// Network, Storage and MeasuredAt are the machine's latest completed
	// benchmark run that measured its network or storage.
	Network    *models.BenchmarkSection `bun:"network,type:text"`
	Storage    *models.BenchmarkSection `bun:"storage,type:text"`
	MeasuredAt *time.Time               `bun:"measured_at"`
}

func (r *listingRow) listing() *Listing {
	l := &Listing{
		ID: ListingID(r.MachineID, r.ModelKey), MachineID: r.MachineID, ProviderID: r.ProviderID, ModelKey: r.ModelKey,
		GpuCount: r.GpuCount, PricePerHour: models.USDC(r.PriceMicros), PerformanceScore: r.Perf, Uptime: r.Uptime,
		ReliabilityScore: r.Reliability,
		Tier:             models.ProviderTier(r.Tier), CommitmentMonths: r.CommitmentMonths,
		Location: models.Location{City: r.City, Country: r.Country, Region: r.Region},
		Rank:     r.Rank, Simulated: r.Simulated,
		ProviderName: r.ProviderName, DriverVersion: r.DriverVersion, CudaVersion: r.CudaVersion,
		CPUModel: r.CPUModel, CPUCores: r.CPUCores, RAMBytes: r.RAMBytes, DiskBytes: r.DiskBytes,
	}
	if m := catalog.ByKey(r.ModelKey); m != nil {
		v := m.VramGb
		l.VramGb = &v
	}
	if r.NextMaintenanceAt != nil {
		t := r.NextMaintenanceAt.UTC()
		l.NextMaintenanceAt = &t
	}
	if r.Network != nil || r.Storage != nil {
		l.Measured = measuredOf(r.MeasuredAt, r.Network, r.Storage)
	}
	if r.ScheduleClosesAt != nil {
		t := r.ScheduleClosesAt.UTC()
		l.ScheduleClosesAt = &t
	}
	return l
}

func (r *listingRow) key(sort Sort) pageKey {
	k := pageKey{sort: sort, machineID: r.MachineID, modelKey: r.ModelKey}
	switch sort {
	case SortPrice:
		k.value = float64(r.PriceMicros)
	case SortPerformancePerDollar:
		k.value = r.PerDollar
	default:
		k.value = r.Rank
	}
	return k
}

// Marketplace returns a page of what can be rented now (see doc.go for
// what qualifies and how RANK orders), first at most MaxPageSize, after a
// cursor of the same sort. It runs at most six statements whatever the
// page's size: a check that every provider's profile is materialised,
// the profiles of new providers (only then), the page, the latest
// benchmarks of its free GPUs (only when it lists something) and the
// parts of its providers' reliability scores (two, only when one of them
// is scored).
func (s *Service) Marketplace(ctx context.Context, filter Filter, sort Sort, first int, after string) (*Page, error) {
	if first < 1 || first > MaxPageSize {
		return nil, fault.E(fault.Invalid, "first must be between 1 and %d", MaxPageSize)
	}
	switch sort {
	case "":
		sort = SortRank
	case SortRank, SortPrice, SortPerformancePerDollar:
	default:
		return nil, fault.E(fault.Invalid, "sort is not a known sort")
	}
	// A bad filter is a *fault.Validation naming each field (the API
	// answers it as userErrors), and nothing is listed.
	v := &fault.Validation{}
	validateFilter(&filter, "filter", v)
	if err := v.Err(); err != nil {
		return nil, err
	}
	q := listingQuery{filter: filter, sort: sort, limit: first + 1}
	if after != "" {
		k, ok := decodePageKey(sort, after)
		if !ok {
			return nil, fault.E(fault.Invalid, "after is not a cursor of this list and sort")
		}
		q.after = k
	}
	if err := s.ensureProfiles(ctx); err != nil {
		return nil, err
	}
	rows, err := s.listings(ctx, s.deps.DB, q)
	if err != nil {
		return nil, err
	}
	page := &Page{Listings: []*Listing{}, Cursors: []string{}}
	if len(rows) > first {
		rows, page.HasNextPage = rows[:first], true
	}
	for _, r := range rows {
		page.Listings = append(page.Listings, r.listing())
		page.Cursors = append(page.Cursors, r.key(sort).encode())
	}
	if err := s.describe(ctx, page.Listings); err != nil {
		return nil, err
	}
	return page, nil
}

// simulatedListed reports whether simulated GPUs may be listed: only in
// a world of test hardware, where the fleet takes them
// (fleet.Config.AllowSimulated).
func (s *Service) simulatedListed() bool {
	return s.deps.Fleet != nil && s.deps.Fleet.Config().AllowSimulated
}

// listings runs q in one statement: GPUs of approved providers on online
// machines, listed by their benchmarks, inside the provider's schedule,
// outside maintenance, priced and free, grouped per machine and model.
//
// The statement groups the free, listed GPUs per machine and model first
// (the only step that reads every GPU), joins the machine, provider,
// price, profile and statistics once per group, checks the schedule and
// maintenance per machine, orders and limits, and looks up the next
// maintenance only for the rows of the page.
func (s *Service) listings(ctx context.Context, db bun.IDB, q listingQuery) ([]*listingRow, error) {
	now := s.deps.Clock.Now()
	pf := providerFilterOf(q.filter)
	free, ok := freeGroups(q, pf)
	if !ok {
		return nil, nil
	}
	groups := s.groups(q, pf, now)
	col, dir, page := pageOf(q)
	order := col + ` ` + dir + `, machine_id ASC, model_key ASC`
	// The arguments follow the statement's text: the groups' CTEs, the
	// next maintenance's time, then the page's cursor.
	args := append(append(free.args, groups.args...), now)
	args = append(append(args, page.args...), models.BenchmarkRunCompleted)
	query := `WITH free AS (` + free.text + `), g AS (` + groups.text + `),
		ranked AS (SELECT g.*, ` + rankSQL + ` AS listing_rank, ` + perDollarSQL + ` AS per_dollar FROM g)
		SELECT pg.*, (SELECT MIN(mw.starts_at) FROM maintenance_windows mw WHERE mw.provider_id = pg.provider_id
			AND (mw.machine_id IS NULL OR mw.machine_id = pg.machine_id) AND mw.starts_at > ?) AS next_maintenance_at,
			pm.driver_version AS driver_version, pm.cuda_version AS cuda_version, pp.name AS provider_name,
			pm.cpu_model AS cpu_model, pm.cpu_cores AS cpu_cores, pm.ram_bytes AS ram_bytes, pm.disk_bytes AS disk_bytes,
			mr.network AS network, mr.storage AS storage, mr.finished_at AS measured_at
		FROM (` + page.text + ` ORDER BY ` + order + ` LIMIT ` + strconv.Itoa(q.limit) + `) pg
		JOIN machines pm ON pm.id = pg.machine_id JOIN providers pp ON pp.id = pg.provider_id
		LEFT JOIN benchmark_runs mr ON mr.id = (SELECT br.id FROM benchmark_runs br WHERE br.machine_id = pg.machine_id AND br.state = ?
			AND (br.network IS NOT NULL OR br.storage IS NOT NULL) ORDER BY br.id DESC LIMIT 1)
		ORDER BY ` + order
	var rows []*listingRow
	if err := db.NewRaw(query, args...).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("market: unable to list the marketplace: %w", err)
	}
	return rows, nil
}

// sqlPart is a piece of a statement and its arguments, in order.
type sqlPart struct {
	text string
	args []any
}

// providerFilter is a search's filters on the provider, its profile and
// its price, over machines fm, prices fp, profiles fpm and providers fpt.
type providerFilter struct {
	where     []string
	args      []any
	region    string
	countries []string
}

func providerFilterOf(f Filter) providerFilter {
	var pf providerFilter
	if f.Country != nil {
		// Applications keep the country as typed: "PT", "PRT" and
		// "Portugal" are one country.
		pf.countries = geo.CountryNames(*f.Country)
		pf.where = append(pf.where, "LOWER(fpm.location_country) IN (?)")
		pf.args = append(pf.args, bun.List(pf.countries))
	}
	if f.Region != nil {
		pf.region = strings.ToLower(strings.TrimSpace(*f.Region))
		pf.where = append(pf.where, "(LOWER(fpm.location_city) = ? OR LOWER(fpm.location_region) = ?)")
		pf.args = append(pf.args, pf.region, pf.region)
	}
	if f.MaxPricePerHour != nil {
		pf.where = append(pf.where, "fp.price_micros <= ?")
		pf.args = append(pf.args, int64(*f.MaxPricePerHour))
	}
	if f.Tier != nil {
		pf.where = append(pf.where, "EXISTS (SELECT 1 FROM providers fpt WHERE fpt.id = fm.provider_id AND fpt.tier = ?)")
		pf.args = append(pf.args, string(*f.Tier))
	}
	return pf
}

// freeGroups is the statement of the free, listed GPUs per machine and
// model (the only step that reads every GPU); ok is false when no model
// can match (a memory no model has).
func freeGroups(q listingQuery, pf providerFilter) (sqlPart, bool) {
	f := q.filter
	part := sqlPart{text: `SELECT mg.machine_id AS machine_id, mg.model_key AS model_key, COUNT(*) AS gpu_count, MIN(gbs.score) AS perf,
		CASE WHEN COUNT(gbs.tflops) = COUNT(*) THEN MIN(gbs.tflops) END AS tflops
		FROM machine_gpus mg
		JOIN gpu_bench_status gbs ON gbs.gpu_id = mg.id AND gbs.listing = 'LISTED'
		WHERE mg.removed_at IS NULL AND NOT EXISTS (SELECT 1 FROM gpu_allocations ga WHERE ga.gpu_id = mg.id)`}
	if f.Model != nil {
		part.text += ` AND mg.model_key = ?`
		part.args = append(part.args, *f.Model)
	}
	if f.MinVramGb != nil {
		var keys []string
		for _, m := range catalog.Models() {
			if m.VramGb >= *f.MinVramGb {
				keys = append(keys, m.Key)
			}
		}
		if len(keys) == 0 {
			return part, false
		}
		part.text += ` AND mg.model_key IN (?)`
		part.args = append(part.args, bun.List(keys))
	}
	if q.machineID != nil {
		part.text += ` AND mg.machine_id = ?`
		part.args = append(part.args, *q.machineID)
	}
	// A filter on the provider or the price narrows the GPUs read to the
	// machines that pass it: a set of machine ids when the model is
	// known, else a test per GPU.
	if len(pf.where) > 0 && q.machineID == nil {
		if f.Model != nil {
			part.text += ` AND mg.machine_id IN (SELECT fm.id FROM machines fm
				JOIN gpu_prices fp ON fp.provider_id = fm.provider_id AND fp.model_key = ?
				LEFT JOIN provider_market_profiles fpm ON fpm.provider_id = fm.provider_id
				WHERE ` + strings.Join(pf.where, " AND ") + `)`
			part.args = append(part.args, *f.Model)
		} else {
			part.text += ` AND EXISTS (SELECT 1 FROM machines fm
				JOIN gpu_prices fp ON fp.provider_id = fm.provider_id AND fp.model_key = mg.model_key
				LEFT JOIN provider_market_profiles fpm ON fpm.provider_id = fm.provider_id
				WHERE fm.id = mg.machine_id AND ` + strings.Join(pf.where, " AND ") + `)`
		}
		part.args = append(part.args, pf.args...)
	}
	part.text += ` GROUP BY mg.machine_id, mg.model_key`
	var having []string
	if f.MinGpus != nil {
		having = append(having, "COUNT(*) >= "+strconv.Itoa(*f.MinGpus))
	}
	if f.MinPerformance != nil {
		having = append(having, "MIN(COALESCE(gbs.score, 0)) >= "+strconv.Itoa(*f.MinPerformance))
	}
	if len(having) > 0 {
		part.text += " HAVING " + strings.Join(having, " AND ")
	}
	return part, true
}

// groups is the statement of one row per group, on an online machine of a
// priced provider, inside its schedule and outside maintenance, with the
// provider's filters.
func (s *Service) groups(q listingQuery, pf providerFilter, now time.Time) sqlPart {
	f := q.filter
	// A search narrowed to a model or a machine reads few groups: they
	// drive the join (CROSS JOIN keeps SQLite, which plans without
	// statistics, from reading every online machine first; PostgreSQL
	// plans it as any join).
	machinesJoin := `JOIN machines m ON m.id = f.machine_id AND m.status = 'ONLINE'`
	narrow := f.Model != nil || q.machineID != nil
	if narrow {
		machinesJoin = `CROSS JOIN machines m`
	}
	part := sqlPart{text: `SELECT f.machine_id AS machine_id, f.model_key AS model_key, m.provider_id AS provider_id,
			m.simulated AS simulated, f.gpu_count AS gpu_count, f.perf AS perf, f.tflops AS tflops, gp.price_micros AS price_micros,
			p.tier AS tier, pmp.location_city AS city, pmp.location_country AS country, pmp.location_region AS region,
			COALESCE(pmp.commitment_months, 0) AS commitment_months, mms.uptime AS uptime, rlp.score AS reliability,
			COALESCE(mmp.median_micros, gp.price_micros) AS median_micros, ps.open_until AS schedule_closes_at
		FROM free f
		` + machinesJoin + `
		JOIN providers p ON p.id = m.provider_id
		JOIN gpu_prices gp ON gp.provider_id = m.provider_id AND gp.model_key = f.model_key
		LEFT JOIN provider_schedules ps ON ps.provider_id = m.provider_id
		LEFT JOIN provider_market_profiles pmp ON pmp.provider_id = m.provider_id
		LEFT JOIN machine_market_stats mms ON mms.machine_id = m.id
		LEFT JOIN reliability_providers rlp ON rlp.provider_id = m.provider_id
		LEFT JOIN model_market_prices mmp ON mmp.model_key = f.model_key
		WHERE (ps.provider_id IS NULL OR (ps.open_from IS NOT NULL AND ps.open_from <= ? AND (ps.open_until IS NULL OR ps.open_until > ?)))
		AND NOT EXISTS (SELECT 1 FROM maintenance_windows mw WHERE mw.provider_id = m.provider_id
			AND (mw.machine_id IS NULL OR mw.machine_id = m.id) AND mw.starts_at <= ? AND mw.ends_at > ?)`,
		args: []any{now, now, now, now}}
	add := func(text string, args ...any) {
		part.text += text
		part.args = append(part.args, args...)
	}
	if narrow {
		add(` AND m.id = f.machine_id AND m.status = 'ONLINE'`)
	}
	if !s.simulatedListed() {
		// Outside the demo world a machine with a simulated GPU is never
		// listed, so never rented nor billed, even one registered before
		// the fleet refused them.
		add(` AND m.simulated = ?`, false)
	}
	if f.Country != nil {
		add(` AND LOWER(pmp.location_country) IN (?)`, bun.List(pf.countries))
	}
	if f.Region != nil {
		add(` AND (LOWER(pmp.location_city) = ? OR LOWER(pmp.location_region) = ?)`, pf.region, pf.region)
	}
	if f.MaxPricePerHour != nil {
		add(` AND gp.price_micros <= ?`, int64(*f.MaxPricePerHour))
	}
	if f.Tier != nil {
		add(` AND p.tier = ?`, string(*f.Tier))
	}
	if f.MinReliability != nil {
		add(` AND rlp.score >= ?`, *f.MinReliability)
	}
	return part
}

// pageOf is the sort's column and direction and the page of the ranked
// groups after q's cursor (ordered and limited by the caller).
func pageOf(q listingQuery) (col, dir string, page sqlPart) {
	col, dir, cmp := "listing_rank", "DESC", "<"
	switch q.sort {
	case SortPrice:
		col, dir, cmp = "price_micros", "ASC", ">"
	case SortPerformancePerDollar:
		col = "per_dollar"
	}
	page.text = `SELECT * FROM ranked r`
	if k := q.after; k != nil {
		var v any = k.value
		if q.sort == SortPrice {
			v = int64(k.value)
		}
		page.text += ` WHERE (r.` + col + ` ` + cmp + ` ? OR (r.` + col + ` = ? AND (r.machine_id > ? OR (r.machine_id = ? AND r.model_key > ?))))`
		page.args = []any{v, v, k.machineID, k.machineID, k.modelKey}
	}
	return col, dir, page
}
