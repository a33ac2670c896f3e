package market

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"time"

	"github.com/gpunex/gpunex/internal/geo"
	"github.com/gpunex/gpunex/internal/store"
)

// handDialect is what the hand-written marketplace query needs to know
// of a database: how it binds parameters and times, and how it gathers
// planner statistics.
type handDialect interface {
	// bind rewrites a query written with ? for the driver.
	bind(query string) string
	// timeArg is t as the column's stored form compares.
	timeArg(t time.Time) any
	// settle does after a bulk load what the database's own maintenance
	// would before the next reads (planner statistics, checkpoints), so
	// they are timed on a database at rest, not in the load's aftermath.
	settle(ctx context.Context, db *store.DB) error
}

var handDialects = map[string]handDialect{"sqlite": sqliteHand{}, "postgres": postgresHand{}}

var (
	_ handDialect = sqliteHand{}
	_ handDialect = postgresHand{}
)

type sqliteHand struct{}

func (sqliteHand) bind(query string) string { return query }

// timeArg formats t as bun stores times on SQLite (text), so text
// comparisons order them.
func (sqliteHand) timeArg(t time.Time) any {
	return t.UTC().Format("2006-01-02 15:04:05.999999-07:00")
}

// settle checkpoints the write-ahead log into the database, as SQLite's
// automatic checkpoints would; it does not ANALYZE: a SQLite deployment
// runs no ANALYZE of its own, so the planner works without statistics,
// as in production.
func (sqliteHand) settle(ctx context.Context, db *store.DB) error {
	_, err := db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	return err
}

type postgresHand struct{}

func (postgresHand) bind(query string) string {
	var sb strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			sb.WriteString("$" + strconv.Itoa(n))
			continue
		}
		sb.WriteRune(r)
	}
	return sb.String()
}

func (postgresHand) timeArg(t time.Time) any { return t.UTC() }

// settle runs what autovacuum would run within a minute of the load
// (VACUUM ANALYZE: statistics, the visibility map, hint bits set) and a
// checkpoint, so the load's dirty pages are not written out while the
// reads are timed (the test server runs without autovacuum).
func (postgresHand) settle(ctx context.Context, db *store.DB) error {
	for _, q := range []string{"VACUUM ANALYZE", "CHECKPOINT"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// handQuery is one marketplace page, as the hand-written query takes it.
type handQuery struct {
	model    *string
	country  *string
	maxPrice *int64
	sort     Sort
	limit    int
	after    *pageKey
}

// handPage is the baseline: the same page written by hand with
// database/sql, the way one would without a query builder. It groups the
// free, listed GPUs per machine and model first (the only step that
// reads every GPU), joins the rest once per group, and looks up the next
// maintenance only for the rows of the page.
func handPage(ctx context.Context, db *sql.DB, d handDialect, now time.Time, q handQuery) ([]*Listing, []pageKey, error) {
	var args []any
	free := `SELECT mg.machine_id, mg.model_key, COUNT(*) AS gpu_count, MIN(gbs.score) AS perf,
		CASE WHEN COUNT(gbs.tflops) = COUNT(*) THEN MIN(gbs.tflops) END AS tflops
		FROM machine_gpus mg
		JOIN gpu_bench_status gbs ON gbs.gpu_id = mg.id AND gbs.listing = 'LISTED'
		WHERE mg.removed_at IS NULL AND NOT EXISTS (SELECT 1 FROM gpu_allocations ga WHERE ga.gpu_id = mg.id)`
	if q.model != nil {
		free += ` AND mg.model_key = ?`
		args = append(args, *q.model)
	}
	// A filter on the provider or the price narrows the GPUs read to the
	// machines that pass it: a set of machine ids when the model is
	// known, else a test per GPU.
	if (q.country != nil || q.maxPrice != nil) && q.model != nil {
		free += ` AND mg.machine_id IN (SELECT fm.id FROM machines fm
			JOIN gpu_prices fp ON fp.provider_id = fm.provider_id AND fp.model_key = ?
			LEFT JOIN provider_market_profiles fpm ON fpm.provider_id = fm.provider_id
			WHERE 1 = 1`
		args = append(args, *q.model)
	} else if q.country != nil || q.maxPrice != nil {
		free += ` AND EXISTS (SELECT 1 FROM machines fm
			JOIN gpu_prices fp ON fp.provider_id = fm.provider_id AND fp.model_key = mg.model_key
			LEFT JOIN provider_market_profiles fpm ON fpm.provider_id = fm.provider_id
			WHERE fm.id = mg.machine_id`
	}
	if q.country != nil || q.maxPrice != nil {
		if q.country != nil {
			// The country as typed: its code, its alpha-3 code or its name.
			names := geo.CountryNames(*q.country)
			free += ` AND LOWER(fpm.location_country) IN (?` + strings.Repeat(`, ?`, len(names)-1) + `)`
			for _, n := range names {
				args = append(args, n)
			}
		}
		if q.maxPrice != nil {
			free += ` AND fp.price_micros <= ?`
			args = append(args, *q.maxPrice)
		}
		free += `)`
	}
	free += ` GROUP BY mg.machine_id, mg.model_key`
	t := d.timeArg(now)
	groups := `SELECT f.machine_id, f.model_key, m.provider_id, m.simulated, f.gpu_count, f.perf, f.tflops, gp.price_micros, p.tier,
			pmp.location_city AS city, pmp.location_country AS country, pmp.location_region AS region,
			COALESCE(pmp.commitment_months, 0) AS commitment_months, mms.uptime, rlp.score AS reliability,
			COALESCE(mmp.median_micros, gp.price_micros) AS median_micros
		FROM free f
		JOIN machines m ON m.id = f.machine_id AND m.status = 'ONLINE'
		JOIN providers p ON p.id = m.provider_id
		JOIN gpu_prices gp ON gp.provider_id = m.provider_id AND gp.model_key = f.model_key
		LEFT JOIN provider_schedules ps ON ps.provider_id = m.provider_id
		LEFT JOIN provider_market_profiles pmp ON pmp.provider_id = m.provider_id
		LEFT JOIN machine_market_stats mms ON mms.machine_id = m.id
		LEFT JOIN reliability_providers rlp ON rlp.provider_id = m.provider_id
		LEFT JOIN model_market_prices mmp ON mmp.model_key = f.model_key
		WHERE (ps.provider_id IS NULL OR (ps.open_from <= ? AND (ps.open_until IS NULL OR ps.open_until > ?)))
		AND NOT EXISTS (SELECT 1 FROM maintenance_windows mw WHERE mw.provider_id = m.provider_id
			AND (mw.machine_id IS NULL OR mw.machine_id = m.id) AND mw.starts_at <= ? AND mw.ends_at > ?)`
	args = append(args, t, t, t, t)
	col, dir, cmp := "listing_rank", "DESC", "<"
	switch q.sort {
	case SortPrice:
		col, dir, cmp = "price_micros", "ASC", ">"
	case SortPerformancePerDollar:
		col = "per_dollar"
	}
	// The next maintenance's time comes before the page's cursor in the
	// statement's text.
	args = append(args, t)
	page := `SELECT * FROM ranked`
	if k := q.after; k != nil {
		var v any = k.value
		if q.sort == SortPrice {
			v = int64(k.value)
		}
		page += ` WHERE ` + col + ` ` + cmp + ` ? OR (` + col + ` = ? AND (machine_id > ? OR (machine_id = ? AND model_key > ?)))`
		args = append(args, v, v, k.machineID, k.machineID, k.modelKey)
	}
	order := col + ` ` + dir + `, machine_id ASC, model_key ASC`
	page += ` ORDER BY ` + order + ` LIMIT ` + strconv.Itoa(q.limit)
	query := `WITH free AS (` + free + `), g AS (` + groups + `),
		ranked AS (SELECT g.*, ` + rankSQL + ` AS listing_rank, ` + perDollarSQL + ` AS per_dollar FROM g)
		SELECT pg.*, (SELECT MIN(mw.starts_at) FROM maintenance_windows mw WHERE mw.provider_id = pg.provider_id
			AND (mw.machine_id IS NULL OR mw.machine_id = pg.machine_id) AND mw.starts_at > ?) AS next_maintenance_at
		FROM (` + page + `) pg ORDER BY ` + order

	rows, err := db.QueryContext(ctx, d.bind(query), args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var listings []*Listing
	var keys []pageKey
	for rows.Next() {
		var r listingRow
		var next any // the page's rows need it; the comparison does not
		if err := rows.Scan(&r.MachineID, &r.ModelKey, &r.ProviderID, &r.Simulated, &r.GpuCount, &r.Perf, &r.Tflops, &r.PriceMicros, &r.Tier,
			&r.City, &r.Country, &r.Region, &r.CommitmentMonths, &r.Uptime, &r.Reliability, &r.MedianMicros, &r.Rank, &r.PerDollar, &next); err != nil {
			return nil, nil, err
		}
		listings = append(listings, r.listing())
		keys = append(keys, r.key(q.sort))
	}
	return listings, keys, rows.Err()
}
