package market

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/benchtest"
	"github.com/gpunex/gpunex/internal/geo"
	"github.com/gpunex/gpunex/internal/pricing"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// The advice benchmark's history.
const (
	// historyWeeks is the year of usage laid down before the advice is
	// asked: the current week and the 51 before it.
	historyWeeks = 52
	// historyRentals is the year's rentals (historyRentalsShort at
	// the smallest size); the history grows to ten times as many (nine years before
	// it).
	historyRentals      = 1_000_000
	historyRentalsShort = 2_000
	// rentalEvery is how often, in milliseconds, a rental starts on the
	// platform: historyRentals over a year (at the smallest size as many times
	// less often as there are fewer, so they span the year too).
	rentalEvery = 31_536
	// grownYears is how many years of usage the grown history adds
	// before the first (364 days each, so weeks still start on Monday).
	grownYears = 9
	// adviceAskers is how many providers ask for advice, spread over the
	// world's providers (adviceAskersShort at the smallest size).
	adviceAskers      = 40
	adviceAskersShort = 4
	// rentalChunk rentals go in one INSERT … SELECT.
	rentalChunk = 1_000_000
	// advicePasses is how many times every question is timed per
	// iteration: a p95 over some 1,400 answers (one pass at the smallest size).
	advicePasses = 3
)

// BenchmarkMarketPricingRecommendation measures issue 14's price advice
// (pricing.Service.Recommend) on each backend, in the world of
// BenchmarkMarket (seedWorld: 100,000 listed GPUs, Refresh building
// model_supply; the small world and fewer rentals and askers under
// the smallest size, where no target is asserted) with a year of history: usage
// aggregates for
// historyWeeks weeks (AddUsage per week, utilisation falling with the
// price band and varying by week and continent, so demand curves are
// fitted) and historyRentals rentals in `rentals`. Each of adviceAskers
// providers asks about its two models and one it lacks, for its own city,
// its country, its continent and the world:
//
//   - 1x: p50 and p95 of an advice, and the most SQL statements one ran
//     (storetest's recording; target ≤ 3);
//   - 10x: the same after the history grows tenfold (grownRentals
//     rentals, and nine more years of usage aggregates, all before the
//     window the advice reads), the ratio p95_x_1x (target ≤ 1.2: the
//     cost follows the aggregates of the window, not the rows behind
//     them); every advice must come out as it did at 1x, or it fails.
//
// seed_s is how long the world and its year took (1x), or the growth
// (10x): rentals go in by INSERT … SELECT over a generated series, a
// million to a statement, with the table's indexes built afterwards
// (bulkInsert).
func BenchmarkMarketPricingRecommendation(b *testing.B) {
	for _, backend := range storetest.Backends {
		b.Run(backend, func(b *testing.B) {
			h := seedHistory(b, backend)
			asks := h.asks(b)
			at1x := make(map[adviceAsk]*pricing.Recommendation, len(asks))
			var p95at1x time.Duration
			b.Run("1x", func(b *testing.B) {
				p95at1x = benchAdvice(b, h, asks, at1x, nil)
				b.ReportMetric(h.seeded.Seconds(), "seed_s")
			})
			grown := h.grow(b)
			b.Run("10x", func(b *testing.B) {
				p95 := benchAdvice(b, h, asks, nil, at1x)
				b.ReportMetric(grown.Seconds(), "seed_s")
				if p95at1x > 0 {
					b.ReportMetric(float64(p95)/float64(p95at1x), "p95_x_1x")
				}
			})
		})
	}
}

// adviceAsk is one question: a provider, a model, a region (empty: the
// provider's own city).
type adviceAsk struct {
	provider int64
	model    string
	region   string
}

func (a adviceAsk) regionArg() *string {
	if a.region == "" {
		return nil
	}
	return &a.region
}

// benchAdvice asks every question once to count its statements (and
// keeps the answers in keep, or checks them against want), then
// advicePasses times per iteration, timed; it reports p50, p95, the most
// statements and the rentals behind them, and returns the p95.
func benchAdvice(b *testing.B, h *history, asks []adviceAsk, keep, want map[adviceAsk]*pricing.Recommendation) time.Duration {
	worst, fitted, market := 0, 0, 0
	for _, a := range asks {
		var rec *pricing.Recommendation
		var err error
		stmts := h.w.queries.Record(func() { rec, err = h.svc.Recommend(h.w.ctx, a.provider, a.model, a.regionArg()) })
		if err != nil {
			b.Fatalf("advice for %+v: %v", a, err)
		}
		if len(stmts) > 3 {
			benchtest.Sized(b.Errorf, b.Logf)("advice for %+v runs %d statements (target ≤ 3):\n%s", a, len(stmts), strings.Join(stmts, "\n"))
		}
		worst = max(worst, len(stmts))
		if rec.Basis == pricing.BasisMarket {
			market++
			if rec.Demand.Fitted {
				fitted++
			}
		}
		if keep != nil {
			keep[a] = rec
		}
		if before, ok := want[a]; ok && !reflect.DeepEqual(rec, before) {
			b.Fatalf("advice for %+v changed with the older history; the history added must not reach the window:\nnow    %+v\nbefore %+v", a, rec, before)
		}
	}
	if fitted*2 < market {
		b.Fatalf("only %d of %d market advices fitted their curve; the usage should vary by band", fitted, market)
	}

	var lat []time.Duration
	runtime.GC()
	b.ResetTimer()
	for range b.N * benchtest.Sized(advicePasses, 1) {
		for _, a := range asks {
			start := time.Now()
			if _, err := h.svc.Recommend(h.w.ctx, a.provider, a.model, a.regionArg()); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(start))
		}
	}
	b.StopTimer()
	p95 := percentile(lat, 0.95)
	b.ReportMetric(ms(percentile(lat, 0.50)), "p50_ms")
	b.ReportMetric(ms(p95), "p95_ms")
	b.ReportMetric(float64(worst), "sql/advice")
	b.ReportMetric(float64(h.rentals), "rentals")
	return p95
}

// history is the seeded world with its past: the pricing service over
// it, and the backend's way of generating rows.
type history struct {
	w       *world
	svc     *pricing.Service
	dialect historyDialect
	// providers are the world's provider ids in the order seedWorld made
	// them (index p is provider p of providerModels).
	providers []int64
	rentals   int64
	// yearRentals are the year's rentals, grownRentals ten times as many.
	yearRentals, grownRentals int64
	// seeded is how long the world and its year took to be ready.
	seeded time.Duration
}

// seedHistory seeds the world (seedWorld), then its year: usage for
// historyWeeks weeks and historyRentals rentals (historyRentalsShort
// at the smallest size).
func seedHistory(b *testing.B, backend string) *history {
	b.Helper()
	began := time.Now()
	w := seedWorld(b, backend)
	h := &history{w: w, dialect: historyDialects[backend],
		svc: pricing.New(pricing.Deps{DB: w.db, Clock: w.clock}, pricing.Config{})}
	h.yearRentals = benchtest.Sized[int64](historyRentals, historyRentalsShort)
	h.grownRentals = 10 * h.yearRentals
	if err := w.db.NewSelect().Model((*models.Provider)(nil)).Column("id").OrderExpr("id").Scan(w.ctx, &h.providers); err != nil {
		b.Fatal(err)
	}
	usageAt := time.Now()
	if err := h.addUsage(); err != nil {
		b.Fatalf("lay down the %s usage: %v", backend, err)
	}
	rentalsAt := time.Now()
	if err := h.addRentals(h.yearRentals); err != nil {
		b.Fatalf("lay down the %s rentals: %v", backend, err)
	}
	if err := w.hand.settle(w.ctx, w.db); err != nil {
		b.Fatal(err)
	}
	h.seeded = time.Since(began)
	b.Logf("%s: %d weeks of usage in %s, %d rentals in %s; world and history ready in %s", backend, historyWeeks,
		rentalsAt.Sub(usageAt).Round(time.Millisecond), h.yearRentals, time.Since(rentalsAt).Round(time.Millisecond), h.seeded.Round(time.Millisecond))
	return h
}

// grow makes the history tenfold: the rentals up to h.grownRentals, and
// grownYears more years of usage before the year, both older than the
// window the advice reads. It returns how long that took.
func (h *history) grow(b *testing.B) time.Duration {
	b.Helper()
	began := time.Now()
	if err := h.addRentals(h.grownRentals); err != nil {
		b.Fatalf("grow the %s rentals: %v", h.w.backend, err)
	}
	rentalsDone := time.Since(began)
	if err := h.addOlderUsage(); err != nil {
		b.Fatalf("grow the %s usage: %v", h.w.backend, err)
	}
	if err := h.w.hand.settle(h.w.ctx, h.w.db); err != nil {
		b.Fatal(err)
	}
	took := time.Since(began)
	b.Logf("%s: rentals grown to %d in %s, %d more years of usage; ready in %s", h.w.backend, h.rentals, rentalsDone.Round(time.Millisecond),
		grownYears, took.Round(time.Millisecond))
	return took
}

// asks are the questions: adviceAskers providers spread over the world
// (adviceAskersShort at the smallest size), each about its two models and one it
// lacks, in its own city, its country, its continent and the world.
func (h *history) asks(b *testing.B) []adviceAsk {
	keys := commonModels()
	var asks []adviceAsk
	askers := benchtest.Sized(adviceAskers, adviceAskersShort)
	for i := range askers {
		p := i * h.w.size.providers / askers
		l := worldLocations[p%len(worldLocations)]
		country, continent, ok := geo.CountryOf(*l.Country)
		if !ok {
			b.Fatalf("the world's country %q is not a country", *l.Country)
		}
		a, c := providerModels(p)
		lacking := keys[(p+5)%len(keys)]
		for lacking == a || lacking == c {
			lacking = keys[(slices.Index(keys, lacking)+1)%len(keys)]
		}
		for _, model := range uniq(a, c) {
			for _, region := range []string{"", country, geo.Continents[continent], "world"} {
				asks = append(asks, adviceAsk{provider: h.providers[p], model: model, region: region})
			}
		}
		for _, region := range []string{"", country, geo.Continents[continent], "world"} {
			asks = append(asks, adviceAsk{provider: h.providers[p], model: lacking, region: region})
		}
	}
	return asks
}

// addUsage lays down historyWeeks weeks of usage through AddUsage, as the
// refresh would have added it: every offer of model_supply for the whole
// week (the current week up to now), with a share rented that falls with
// the offer's price against the model's median (a logistic curve of
// slope 4 in the log of the ratio) and moves with the season and the
// continent.
func (h *history) addUsage() error {
	ctx, db, now := h.w.ctx, h.w.db, h.w.clock.Now()
	var supply []*models.ModelSupply
	if err := db.NewSelect().Model(&supply).Scan(ctx); err != nil {
		return err
	}
	var medians []*models.ModelMarketPrice
	if err := db.NewSelect().Model(&medians).Scan(ctx); err != nil {
		return err
	}
	median := make(map[string]models.USDC, len(medians))
	for _, m := range medians {
		median[m.ModelKey] = m.Median
	}
	continentShift := map[string]float64{"EU": 0.3, "NA": 0.1, "AS": -0.2, "OC": -0.4, "SA": -0.5}
	current := models.WeekStart(now)
	for i := range historyWeeks {
		week := current.AddDate(0, 0, -7*(historyWeeks-1-i))
		span := 7 * 24 * time.Hour
		if week.Equal(current) {
			span = now.Sub(week)
		}
		season := 0.4 * math.Sin(2*math.Pi*float64(i)/historyWeeks)
		rows := make([]*models.ModelSupply, len(supply))
		for j, s := range supply {
			r := *s
			m := median[s.ModelKey]
			if m <= 0 {
				m = s.Price
			}
			x := math.Log(0.7/0.3) + season + continentShift[s.Continent] - 4*math.Log(float64(s.Price)/float64(m))
			r.Rented = min(r.GPUs, int(math.Round(float64(r.GPUs)/(1+math.Exp(-x)))))
			rows[j] = &r
		}
		err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			return AddUsage(ctx, tx, week, span, rows, median)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// addOlderUsage copies the year's usage grownYears times, each a further
// 364 days back: history the four weeks the advice reads never see.
func (h *history) addOlderUsage() error {
	years := make([]string, grownYears)
	for i := range years {
		years[i] = fmt.Sprintf("(%d)", i+1)
	}
	with := "WITH y(n) AS (VALUES " + strings.Join(years, ", ") + ") "
	shifted := h.dialect.daysBefore("week_start", "364 * y.n")
	return h.bulkInsert("provider_usage", func(conn bun.Conn) error {
		if _, err := conn.ExecContext(h.w.ctx, with+`INSERT INTO market_usage
			(model_key, week_start, country, city, continent, band, available_seconds, rented_seconds)
			SELECT model_key, `+shifted+`, country, city, continent, band, available_seconds, rented_seconds FROM market_usage, y`); err != nil {
			return fmt.Errorf("older market usage: %w", err)
		}
		if _, err := conn.ExecContext(h.w.ctx, with+`INSERT INTO provider_usage
			(provider_id, model_key, week_start, band, available_seconds, rented_seconds)
			SELECT provider_id, model_key, `+shifted+`, band, available_seconds, rented_seconds FROM provider_usage, y`); err != nil {
			return fmt.Errorf("older provider usage: %w", err)
		}
		return nil
	})
}

// rentalSlotsDDL is a scratch table of the machines rentals run on: one
// slot per machine with a model it has, its provider's price of it, tier
// and place, numbered from 0 so the n-th rental takes slot n mod slots.
const rentalSlotsDDL = `CREATE TABLE bench_rental_slots (
	slot INTEGER PRIMARY KEY, machine_id BIGINT NOT NULL, provider_id BIGINT NOT NULL, model_key TEXT NOT NULL,
	price_micros BIGINT NOT NULL, tier TEXT NOT NULL, city TEXT, country TEXT, region TEXT)`

const rentalSlotsSQL = `INSERT INTO bench_rental_slots
SELECT ROW_NUMBER() OVER (ORDER BY m.id) - 1, m.id, m.provider_id, g.model_key, gp.price_micros, p.tier,
	pmp.location_city, pmp.location_country, pmp.location_region
FROM machines m
JOIN (SELECT machine_id, MIN(model_key) AS model_key FROM machine_gpus GROUP BY machine_id) g ON g.machine_id = m.id
JOIN gpu_prices gp ON gp.provider_id = m.provider_id AND gp.model_key = g.model_key
JOIN providers p ON p.id = m.provider_id
LEFT JOIN provider_market_profiles pmp ON pmp.provider_id = m.provider_id`

// rentalsSQL inserts the rentals of the series s (n, started, ended):
// rental n on machine slot n mod slots, for customer first + n mod
// customers, of 1 to 8 GPUs; one in twenty FAILED on the provider's side,
// two STOPPED by the customer, the rest COMPLETED. Job ids are of one
// width, so their unique index grows at its end.
const rentalsSQL = `INSERT INTO rentals
	(job_uid, customer_id, provider_id, machine_id, model_key, gpu_count, price_micros, image, command, env_names,
	location_city, location_country, location_region, tier, state, cause, created_at, started_at, ended_at, updated_at)
SELECT 'bench-' || (1000000000 + s.n), ? + s.n % ?, r.provider_id, r.machine_id, r.model_key,
	CASE s.n % 8 WHEN 0 THEN 8 WHEN 1 THEN 4 WHEN 2 THEN 2 WHEN 3 THEN 2 ELSE 1 END,
	r.price_micros, 'docker.io/library/python:3.12', '["python","train.py"]', '[]', r.city, r.country, r.region, r.tier,
	CASE s.n % 20 WHEN 0 THEN 'FAILED' WHEN 1 THEN 'STOPPED' WHEN 2 THEN 'STOPPED' ELSE 'COMPLETED' END,
	CASE s.n % 20 WHEN 0 THEN 'PROVIDER' WHEN 1 THEN 'CUSTOMER' WHEN 2 THEN 'CUSTOMER' END,
	s.started, s.started, s.ended, s.ended
FROM s JOIN bench_rental_slots r ON r.slot = s.n % ?`

// addRentals inserts rentals numbered h.rentals to upTo-1, rentalChunk
// to a statement (rentalsSQL): rental n started rentalEvery·n ms (and a
// day) before now, scaled to the year's rentals, and ran for 10 minutes
// to a day.
func (h *history) addRentals(upTo int64) error {
	ctx, db := h.w.ctx, h.w.db
	first, n := h.w.customers[0], int64(len(h.w.customers))
	if h.w.customers[n-1]-first != n-1 {
		return fmt.Errorf("the world's customers are not numbered in a row (%d to %d for %d)", first, h.w.customers[n-1], n)
	}
	if h.rentals == 0 {
		if _, err := db.ExecContext(ctx, rentalSlotsDDL); err != nil {
			return err
		}
		if _, err := db.ExecContext(ctx, rentalSlotsSQL); err != nil {
			return err
		}
	}
	var slots int64
	if err := db.NewSelect().TableExpr("bench_rental_slots").ColumnExpr("COUNT(*)").Scan(ctx, &slots); err != nil {
		return err
	}
	if want := int64(h.w.size.machines); slots != want {
		return fmt.Errorf("%d machines to rent of %d", slots, want)
	}
	now := h.w.clock.Now().Unix()
	every := rentalEvery * historyRentals / h.yearRentals
	start := func(n string) string { return fmt.Sprintf("(%d - 86400 - (%s) * %d / 1000)", now, n, every) }
	end := func(n string) string { return fmt.Sprintf("(%s + 600 + (%s) * 7919 %% 85800)", start(n), n) }
	err := h.bulkInsert("rentals", func(conn bun.Conn) error {
		for lo := h.rentals; lo < upTo; lo += rentalChunk {
			hi := min(lo+rentalChunk, upTo) - 1
			q := "WITH RECURSIVE " + h.dialect.rentalSeries(lo, hi, start, end) + " " + rentalsSQL
			if _, err := conn.ExecContext(ctx, q, first, n, slots); err != nil {
				return fmt.Errorf("rentals %d to %d: %w", lo, hi, err)
			}
			h.rentals = hi + 1
		}
		return nil
	})
	if err != nil {
		return err
	}
	if upTo == h.grownRentals {
		_, err = db.ExecContext(ctx, "DROP TABLE bench_rental_slots")
	}
	return err
}

// bulkInsert runs load on one connection with table's secondary indexes
// dropped and foreign keys unchecked there (the rows load writes satisfy
// them by construction), then builds the indexes again from their own
// definitions: how one loads millions of rows, since an index built once
// costs far less than one kept up row by row, and on PostgreSQL a
// foreign key is a trigger per row.
func (h *history) bulkInsert(table string, load func(conn bun.Conn) error) error {
	ctx := h.w.ctx
	conn, err := h.w.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	restore, err := h.dialect.uncheckKeys(ctx, conn)
	if err != nil {
		return err
	}
	var indexes []struct {
		Name string `bun:"name"`
		DDL  string `bun:"ddl"`
	}
	if err := conn.NewRaw(h.dialect.indexesSQL(), table).Scan(ctx, &indexes); err != nil {
		return errors.Join(fmt.Errorf("indexes of %s: %w", table, err), restore())
	}
	for _, ix := range indexes {
		if _, err := conn.ExecContext(ctx, "DROP INDEX "+ix.Name); err != nil {
			return errors.Join(err, restore())
		}
	}
	if err := load(conn); err != nil {
		return errors.Join(err, restore())
	}
	for _, ix := range indexes {
		if _, err := conn.ExecContext(ctx, ix.DDL); err != nil {
			return errors.Join(fmt.Errorf("rebuild %s: %w", ix.Name, err), restore())
		}
	}
	return restore()
}

// historyDialect is how a backend generates history in SQL and loads it
// in bulk.
type historyDialect interface {
	// rentalSeries is a common table expression s(n, started, ended) for
	// a WITH RECURSIVE clause: the integers lo to hi, each with the
	// timestamps (as the backend stores them) of the Unix times start(n)
	// and end(n), computed once per row.
	rentalSeries(lo, hi int64, start, end func(n string) string) string
	// daysBefore is the timestamp column moved days (an expression) back.
	daysBefore(column, days string) string
	// indexesSQL lists a table's (?) indexes other than its primary key:
	// name and the statement that creates it.
	indexesSQL() string
	// uncheckKeys stops checking foreign keys on conn, for a bulk load,
	// until restore.
	uncheckKeys(ctx context.Context, conn bun.Conn) (restore func() error, err error)
}

var historyDialects = map[string]historyDialect{"sqlite": sqliteHistory{}, "postgres": postgresHistory{}}

var (
	_ historyDialect = sqliteHistory{}
	_ historyDialect = postgresHistory{}
)

type sqliteHistory struct{}

// sqliteTime is SQLite's datetime of expr (and its modifiers) as bun
// writes times there (sqliteHand.timeArg) when they have no fraction of a
// second; datetime costs a third of what strftime does.
func sqliteTime(args string) string { return "datetime(" + args + ") || '+00:00'" }

func (sqliteHistory) rentalSeries(lo, hi int64, start, end func(n string) string) string {
	row := func(n string) string {
		return n + ", " + sqliteTime(start(n)+", 'unixepoch'") + ", " + sqliteTime(end(n)+", 'unixepoch'")
	}
	return fmt.Sprintf("s(n, started, ended) AS (SELECT %s UNION ALL SELECT %s FROM s WHERE n < %d)", row(strconv.FormatInt(lo, 10)), row("n + 1"), hi)
}

func (sqliteHistory) daysBefore(column, days string) string {
	return sqliteTime(column + ", '-' || (" + days + ") || ' days'")
}

func (sqliteHistory) indexesSQL() string {
	return "SELECT name, sql AS ddl FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY name"
}

// uncheckKeys turns foreign keys off and gives the connection a page
// cache of 256 MiB for the load; restore puts both back and checkpoints
// the write-ahead log, so the reads measured next find the database as
// a long-running one would be.
func (sqliteHistory) uncheckKeys(ctx context.Context, conn bun.Conn) (func() error, error) {
	var cache int64
	if err := conn.NewRaw("PRAGMA cache_size").Scan(ctx, &cache); err != nil {
		return nil, err
	}
	for _, p := range []string{"PRAGMA foreign_keys = OFF", "PRAGMA cache_size = -262144"} {
		if _, err := conn.ExecContext(ctx, p); err != nil {
			return nil, err
		}
	}
	return func() error {
		for _, p := range []string{"PRAGMA foreign_keys = ON", fmt.Sprintf("PRAGMA cache_size = %d", cache), "PRAGMA wal_checkpoint(TRUNCATE)"} {
			if _, err := conn.ExecContext(ctx, p); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

type postgresHistory struct{}

func (postgresHistory) rentalSeries(lo, hi int64, start, end func(n string) string) string {
	return fmt.Sprintf("s(n, started, ended) AS (SELECT n, to_timestamp(%s), to_timestamp(%s) FROM generate_series(%d::bigint, %d::bigint) AS n)",
		start("n"), end("n"), lo, hi)
}

func (postgresHistory) daysBefore(column, days string) string {
	return column + " - make_interval(days => (" + days + ")::int)"
}

func (postgresHistory) indexesSQL() string {
	return `SELECT i.relname AS name, pg_get_indexdef(i.oid) AS ddl FROM pg_index x
		JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
		WHERE t.relname = ? AND t.relnamespace = current_schema()::regnamespace AND NOT x.indisprimary ORDER BY i.relname`
}

// uncheckKeys skips the foreign keys' triggers for the session
// (session_replication_role, as a restore does; the test server's user is
// a superuser).
func (postgresHistory) uncheckKeys(ctx context.Context, conn bun.Conn) (func() error, error) {
	if _, err := conn.ExecContext(ctx, "SET session_replication_role = replica"); err != nil {
		return nil, err
	}
	return func() error {
		_, err := conn.ExecContext(ctx, "RESET session_replication_role")
		return err
	}, nil
}
