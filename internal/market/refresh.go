package market

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/models"
)

// UptimeWindow is how far back a machine's uptime looks.
const UptimeWindow = 30 * 24 * time.Hour

// profilesSQL materialises providers' marketplace profiles from their
// approved applications: the location of the application's first GPU
// entry (the lowest position; the form asks for a location per entry,
// and a provider's machines are not tied to entries, so the first stands
// for the provider) and the commitment. ? is the time of the refresh;
// %s restricts it (to providers without a profile, at first need).
const profilesSQL = `INSERT INTO provider_market_profiles
	(provider_id, location_city, location_country, location_region, commitment_months, updated_at)
SELECT p.id, ag.location_city, ag.location_country, ag.location_region, pa.commitment_months, ?
FROM providers p
JOIN provider_applications pa ON pa.id = p.application_id
LEFT JOIN application_gpus ag ON ag.application_id = pa.id
	AND ag.position = (SELECT MIN(x.position) FROM application_gpus x WHERE x.application_id = pa.id)
WHERE %s
ON CONFLICT (provider_id) DO UPDATE SET location_city = EXCLUDED.location_city,
	location_country = EXCLUDED.location_country, location_region = EXCLUDED.location_region,
	commitment_months = EXCLUDED.commitment_months, updated_at = EXCLUDED.updated_at`

const missingProfile = "NOT EXISTS (SELECT 1 FROM provider_market_profiles pmp WHERE pmp.provider_id = p.id)"

// ensureProfiles materialises the profiles of providers that have none
// yet (approved since the last refresh). Providers are only ever added,
// with growing ids, so while the newest is one up to which this replica
// has made every profile there is nothing to do: one look-up of the
// primary key's end, not an anti-join over every provider on every start
// and page; the write runs only when a provider is new. (A provider
// whose approval commits after a newer one's was seen waits for the
// periodic refresh, which runs before its agent could register.)
func (s *Service) ensureProfiles(ctx context.Context) error {
	newest, err := s.newestProvider(ctx)
	if err != nil || newest <= s.profiled.Load() {
		return err
	}
	if _, err := s.deps.DB.ExecContext(ctx, fmt.Sprintf(profilesSQL, missingProfile), s.deps.Clock.Now()); err != nil {
		return fmt.Errorf("market: unable to materialise provider profiles: %w", err)
	}
	s.markProfiled(newest)
	return nil
}

// newestProvider is the highest provider id, 0 with none.
func (s *Service) newestProvider(ctx context.Context) (int64, error) {
	var newest int64
	if err := s.deps.DB.NewSelect().TableExpr("providers").ColumnExpr("COALESCE(MAX(id), 0)").Scan(ctx, &newest); err != nil {
		return 0, fmt.Errorf("market: unable to check provider profiles: %w", err)
	}
	return newest, nil
}

// markProfiled records that every provider up to newest has its profile.
func (s *Service) markProfiled(newest int64) {
	for {
		seen := s.profiled.Load()
		if newest <= seen || s.profiled.CompareAndSwap(seen, newest) {
			return
		}
	}
}

// Refresh recomputes what the ranking and price advice read and no
// request computes: every provider's profile, every machine's uptime over
// UptimeWindow (from machine_status_intervals), every model's median
// price, and the supply snapshot with the usage it adds (refreshSupply). The leading
// replica runs it every RefreshEvery (Tick); tests call it directly.
func (s *Service) Refresh(ctx context.Context) error {
	now := s.deps.Clock.Now()
	newest, err := s.newestProvider(ctx)
	if err != nil {
		return err
	}
	if _, err := s.deps.DB.ExecContext(ctx, fmt.Sprintf(profilesSQL, "1 = 1"), now); err != nil {
		return fmt.Errorf("market: unable to refresh provider profiles: %w", err)
	}
	s.markProfiled(newest)
	if err := s.refreshUptime(ctx, now); err != nil {
		return err
	}
	if err := s.refreshMedians(ctx, now); err != nil {
		return err
	}
	return s.refreshSupply(ctx, now)
}

// refreshUptime stores each machine's share of time online over the
// window (or over its life, when it registered within the window).
func (s *Service) refreshUptime(ctx context.Context, now time.Time) error {
	from := now.Add(-UptimeWindow)
	var machines []*models.Machine
	if err := s.deps.DB.NewSelect().Model(&machines).Column("id", "registered_at").Scan(ctx); err != nil {
		return fmt.Errorf("market: unable to list machines: %w", err)
	}
	if len(machines) == 0 {
		return nil
	}
	var intervals []*models.MachineStatusInterval
	if err := s.deps.DB.NewSelect().Model(&intervals).Where("status = ?", protocol.MachineOnline).
		Where("ended_at IS NULL OR ended_at > ?", from).Scan(ctx); err != nil {
		return fmt.Errorf("market: unable to load status intervals: %w", err)
	}
	online := map[int64]time.Duration{}
	for _, iv := range intervals {
		start, end := iv.StartedAt, now
		if iv.EndedAt != nil {
			end = *iv.EndedAt
		}
		start = latest(start, from)
		if end.After(now) {
			end = now
		}
		if end.After(start) {
			online[iv.MachineID] += end.Sub(start)
		}
	}
	stats := make([]*models.MachineMarketStats, 0, len(machines))
	for _, m := range machines {
		span := now.Sub(latest(m.RegisteredAt, from))
		u := 0.0
		if span > 0 {
			u = min(1, float64(online[m.ID])/float64(span))
		}
		stats = append(stats, &models.MachineMarketStats{MachineID: m.ID, Uptime: u, ComputedAt: now})
	}
	if _, err := s.deps.DB.NewInsert().Model(&stats).On("CONFLICT (machine_id) DO UPDATE").
		Set("uptime = EXCLUDED.uptime").Set("computed_at = EXCLUDED.computed_at").Exec(ctx); err != nil {
		return fmt.Errorf("market: unable to store uptime: %w", err)
	}
	return nil
}

// refreshMedians stores each model's median rate over every provider's
// price (the lower middle of an even count).
func (s *Service) refreshMedians(ctx context.Context, now time.Time) error {
	var prices []*models.GpuPrice
	if err := s.deps.DB.NewSelect().Model(&prices).Column("model_key", "price_micros").Scan(ctx); err != nil {
		return fmt.Errorf("market: unable to load prices: %w", err)
	}
	byModel := map[string][]models.USDC{}
	for _, p := range prices {
		byModel[p.ModelKey] = append(byModel[p.ModelKey], p.PricePerHour)
	}
	rows := make([]*models.ModelMarketPrice, 0, len(byModel))
	for k, ps := range byModel {
		rows = append(rows, &models.ModelMarketPrice{ModelKey: k, Median: Median(ps), ComputedAt: now})
	}
	err := s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewDelete().Model((*models.ModelMarketPrice)(nil)).Where("1 = 1").Exec(ctx); err != nil {
			return err
		}
		if len(rows) == 0 {
			return nil
		}
		_, err := tx.NewInsert().Model(&rows).Exec(ctx)
		return err
	})
	if err != nil {
		return fmt.Errorf("market: unable to store median prices: %w", err)
	}
	return nil
}

// Median is the middle of prices (the lower middle of an even count); 0
// for none.
func Median(prices []models.USDC) models.USDC {
	if len(prices) == 0 {
		return 0
	}
	ps := slices.Clone(prices)
	slices.Sort(ps)
	return ps[(len(ps)-1)/2]
}

func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
