package market

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/geo"
	"github.com/gpunex/gpunex/models"
)

// supplySQL counts, per provider and model, the GPUs offered now (on an
// online machine, listed by their benchmarks, inside the provider's
// schedule, outside maintenance, priced) and how many of them are rented.
// ? ×4 is now.
const supplySQL = `SELECT m.provider_id AS provider_id, mg.model_key AS model_key, gp.price_micros AS price_micros,
	p.tier AS tier, COUNT(*) AS gpus, COUNT(ga.gpu_id) AS rented,
	pmp.location_city AS city, pmp.location_region AS region, pmp.location_country AS country
FROM machine_gpus mg
JOIN gpu_bench_status gbs ON gbs.gpu_id = mg.id AND gbs.listing = 'LISTED'
JOIN machines m ON m.id = mg.machine_id AND m.status = 'ONLINE'
JOIN providers p ON p.id = m.provider_id
JOIN gpu_prices gp ON gp.provider_id = m.provider_id AND gp.model_key = mg.model_key
LEFT JOIN gpu_allocations ga ON ga.gpu_id = mg.id
LEFT JOIN provider_schedules ps ON ps.provider_id = m.provider_id
LEFT JOIN provider_market_profiles pmp ON pmp.provider_id = m.provider_id
WHERE mg.removed_at IS NULL
AND (ps.provider_id IS NULL OR (ps.open_from IS NOT NULL AND ps.open_from <= ? AND (ps.open_until IS NULL OR ps.open_until > ?)))
AND NOT EXISTS (SELECT 1 FROM maintenance_windows mw WHERE mw.provider_id = m.provider_id
	AND (mw.machine_id IS NULL OR mw.machine_id = m.id) AND mw.starts_at <= ? AND mw.ends_at > ?)
GROUP BY m.provider_id, mg.model_key, gp.price_micros, p.tier, pmp.location_city, pmp.location_region, pmp.location_country`

type supplyRow struct {
	ProviderID int64       `bun:"provider_id"`
	ModelKey   string      `bun:"model_key"`
	Price      models.USDC `bun:"price_micros"`
	Tier       string      `bun:"tier"`
	GPUs       int         `bun:"gpus"`
	Rented     int         `bun:"rented"`
	City       *string     `bun:"city"`
	Region     *string     `bun:"region"`
	Country    *string     `bun:"country"`
}

// MaxUsageGap is the longest span one refresh credits to usage: after a
// gap longer than this (no leader, a restart), the time in between counts
// as neither offered nor rented, since nobody saw it.
const MaxUsageGap = 5 * time.Minute

// refreshSupply replaces model_supply with what is offered now and adds
// the time since the previous refresh (at most MaxUsageGap) to the usage
// aggregates: each provider's offered and rented GPUs times that time, in
// the week, place and price band (against the model's median rate) they
// were in. Offered and rented come from the same sample, so utilisation
// (rented over offered) is always between 0 and 1. One transaction: the
// snapshot and the seconds it credits go together, and the leader lock
// makes it once per cluster.
func (s *Service) refreshSupply(ctx context.Context, now time.Time) error {
	var rows []*supplyRow
	if err := s.deps.DB.NewRaw(supplySQL, now, now, now, now).Scan(ctx, &rows); err != nil {
		return fmt.Errorf("market: unable to count supply: %w", err)
	}
	var medians []*models.ModelMarketPrice
	if err := s.deps.DB.NewSelect().Model(&medians).Scan(ctx); err != nil {
		return fmt.Errorf("market: unable to load median prices: %w", err)
	}
	median := make(map[string]models.USDC, len(medians))
	for _, m := range medians {
		median[m.ModelKey] = m.Median
	}
	return s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var last bun.NullTime
		if err := tx.NewSelect().Model((*models.ModelSupply)(nil)).ColumnExpr("MAX(refreshed_at)").Scan(ctx, &last); err != nil {
			return fmt.Errorf("market: unable to read the last supply refresh: %w", err)
		}
		if _, err := tx.NewDelete().Model((*models.ModelSupply)(nil)).Where("1 = 1").Exec(ctx); err != nil {
			return fmt.Errorf("market: unable to clear supply: %w", err)
		}
		if len(rows) == 0 {
			return nil
		}
		supply := make([]*models.ModelSupply, 0, len(rows))
		for _, r := range rows {
			p := geo.PlaceOf(r.City, r.Region, r.Country)
			supply = append(supply, &models.ModelSupply{ProviderID: r.ProviderID, ModelKey: r.ModelKey, Price: r.Price,
				GPUs: r.GPUs, Rented: r.Rented, Tier: r.Tier, City: p.City, Country: p.Country, Continent: p.Continent,
				RefreshedAt: now})
		}
		if _, err := tx.NewInsert().Model(&supply).Exec(ctx); err != nil {
			return fmt.Errorf("market: unable to store supply: %w", err)
		}
		gap := now.Sub(last.Time)
		if last.IsZero() || gap <= 0 {
			return nil
		}
		return AddUsage(ctx, tx, models.WeekStart(now), min(gap, MaxUsageGap), supply, median)
	})
}

// AddUsage adds span of each supply row (offered GPUs, rented GPUs) to
// the usage aggregates of the week starting week, in the row's place and
// price band against the model's median (the row's own rate when the
// model has none). The refresh calls it, and ImportUsage for past weeks,
// so both count with the same arithmetic.
func AddUsage(ctx context.Context, db bun.IDB, week time.Time, span time.Duration, supply []*models.ModelSupply, median map[string]models.USDC) error {
	seconds := int64(span / time.Second)
	if seconds <= 0 || len(supply) == 0 {
		return nil
	}
	type marketKey struct {
		model, country, city string
		band                 int
	}
	type providerKey struct {
		provider int64
		model    string
		band     int
	}
	market := map[marketKey]*models.MarketUsage{}
	own := map[providerKey]*models.ProviderUsage{}
	for _, r := range supply {
		m, ok := median[r.ModelKey]
		if !ok {
			m = r.Price
		}
		band := models.UsageBand(r.Price, m)
		avail, rented := int64(r.GPUs)*seconds, int64(r.Rented)*seconds
		mk := marketKey{r.ModelKey, r.Country, r.City, band}
		if u := market[mk]; u != nil {
			u.AvailableSeconds += avail
			u.RentedSeconds += rented
		} else {
			market[mk] = &models.MarketUsage{ModelKey: r.ModelKey, WeekStart: week, Country: r.Country, City: r.City,
				Continent: r.Continent, Band: band, AvailableSeconds: avail, RentedSeconds: rented}
		}
		pk := providerKey{r.ProviderID, r.ModelKey, band}
		if u := own[pk]; u != nil {
			u.AvailableSeconds += avail
			u.RentedSeconds += rented
		} else {
			own[pk] = &models.ProviderUsage{ProviderID: r.ProviderID, ModelKey: r.ModelKey, WeekStart: week, Band: band,
				AvailableSeconds: avail, RentedSeconds: rented}
		}
	}
	// A fixed order keeps concurrent writers (an import and a refresh)
	// from locking rows in opposite orders.
	mu := sortedValues(market, func(a, b *models.MarketUsage) bool {
		return a.ModelKey+"\x00"+a.Country+"\x00"+a.City < b.ModelKey+"\x00"+b.Country+"\x00"+b.City ||
			(a.ModelKey == b.ModelKey && a.Country == b.Country && a.City == b.City && a.Band < b.Band)
	})
	if _, err := db.NewInsert().Model(&mu).
		On("CONFLICT (model_key, week_start, country, city, band) DO UPDATE").
		Set("available_seconds = mu.available_seconds + EXCLUDED.available_seconds").
		Set("rented_seconds = mu.rented_seconds + EXCLUDED.rented_seconds").Exec(ctx); err != nil {
		return fmt.Errorf("market: unable to add market usage: %w", err)
	}
	pu := sortedValues(own, func(a, b *models.ProviderUsage) bool {
		return a.ProviderID < b.ProviderID || (a.ProviderID == b.ProviderID &&
			(a.ModelKey < b.ModelKey || (a.ModelKey == b.ModelKey && a.Band < b.Band)))
	})
	if _, err := db.NewInsert().Model(&pu).
		On("CONFLICT (provider_id, model_key, week_start, band) DO UPDATE").
		Set("available_seconds = pu.available_seconds + EXCLUDED.available_seconds").
		Set("rented_seconds = pu.rented_seconds + EXCLUDED.rented_seconds").Exec(ctx); err != nil {
		return fmt.Errorf("market: unable to add provider usage: %w", err)
	}
	return nil
}

func sortedValues[K comparable, V any](m map[K]V, less func(a, b V) bool) []V {
	out := make([]V, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b V) int {
		switch {
		case less(a, b):
			return -1
		case less(b, a):
			return 1
		}
		return 0
	})
	return out
}
