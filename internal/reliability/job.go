package reliability

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/gpunex/gpunex/models"
)

// RunBackground runs Refresh every SnapshotEvery on the one replica that
// leads, until ctx ends.
func (s *Service) RunBackground(ctx context.Context) {
	s.deps.DB.Periodic(ctx, "reliability", s.cfg.SnapshotEvery, s.deps.Logger, "reliability: refresh", s.Refresh)
}

// KindBelowFloor is the notification a provider and the admins get when
// a machine's score falls under the floor (at most once a day a machine).
const KindBelowFloor = "reliability.below_floor"

// Refresh writes every provider's current score (reliability_providers,
// which the marketplace ranks and filters by) and today's snapshots of
// providers and machines (the trend), and flags machines under the floor.
func (s *Service) Refresh(ctx context.Context) error {
	defer s.refreshes.Add(1)
	var providers []int64
	if err := s.deps.DB.NewSelect().TableExpr("machines").ColumnExpr("DISTINCT provider_id").Scan(ctx, &providers); err != nil {
		return fmt.Errorf("reliability: unable to list providers: %w", err)
	}
	now := s.deps.Clock.Now()
	day := now.UTC().Truncate(24 * time.Hour)
	for _, p := range providers {
		sum, err := s.Provider(ctx, p)
		if err != nil {
			return err
		}
		if err := s.storeSnapshots(ctx, sum, day); err != nil {
			return err
		}
		c := sum.Components
		row := &models.ReliabilityProvider{ProviderID: p, Score: sum.Score, UpdatedAt: now, Uptime: &c.Uptime, Completion: &c.Completion, Consistency: &c.Consistency}
		if _, err := s.deps.DB.NewInsert().Model(row).On("CONFLICT (provider_id) DO UPDATE").
			Set("score = EXCLUDED.score, updated_at = EXCLUDED.updated_at, uptime = EXCLUDED.uptime, completion = EXCLUDED.completion, consistency = EXCLUDED.consistency").
			Exec(ctx); err != nil {
			return fmt.Errorf("reliability: unable to store the provider's score: %w", err)
		}
		for _, m := range sum.Machines {
			if m.BelowFloor {
				if err := s.flag(ctx, p, m, now); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// storeSnapshots writes a summary's scores (the provider's and each
// machine's) as day's snapshots, replacing that day's.
func (s *Service) storeSnapshots(ctx context.Context, sum *Summary, day time.Time) error {
	p := sum.ProviderID
	snaps := []*models.ReliabilitySnapshot{{ProviderID: p, MachineID: 0, Day: day, Score: sum.Score}}
	for _, m := range sum.Machines {
		snaps = append(snaps, &models.ReliabilitySnapshot{ProviderID: p, MachineID: m.MachineID, Day: day, Score: m.Score})
	}
	if _, err := s.deps.DB.NewInsert().Model(&snaps).On("CONFLICT (provider_id, machine_id, day) DO UPDATE").
		Set("score = EXCLUDED.score").Exec(ctx); err != nil {
		return fmt.Errorf("reliability: unable to store snapshots: %w", err)
	}
	return nil
}

// flag tells the provider and every admin that a machine is under the
// floor, unless they were told of it within a day.
func (s *Service) flag(ctx context.Context, providerID int64, m MachineScore, now time.Time) error {
	if s.deps.Notify == nil {
		return nil
	}
	id := strconv.FormatInt(m.MachineID, 10)
	var owner int64
	if err := s.deps.DB.NewSelect().Model((*models.Provider)(nil)).Column("user_id").Where("id = ?", providerID).Scan(ctx, &owner); err != nil {
		return err
	}
	n, err := s.deps.DB.NewSelect().Model((*models.Notification)(nil)).Where("user_id = ? AND kind = ? AND created_at > ? AND params LIKE ?",
		owner, KindBelowFloor, now.Add(-24*time.Hour), `%"machineId":"`+id+`"%`).Count(ctx)
	if err != nil || n > 0 {
		return err
	}
	var admins []int64
	if err := s.deps.DB.NewSelect().TableExpr("user_roles").Column("user_id").Where("role = ?", models.RoleAdmin).Scan(ctx, &admins); err != nil {
		return err
	}
	for _, u := range append([]int64{owner}, admins...) {
		if err := s.deps.Notify.Add(ctx, s.deps.DB, &models.Notification{UserID: u, Kind: KindBelowFloor,
			Title: "A machine's reliability is under the floor",
			Body:  fmt.Sprintf("%s scores %d, under the floor of %d: see its Performance tab for the events behind it.", m.Hostname, m.Score, s.cfg.Floor),
			Params: map[string]string{"machineId": id, "hostname": m.Hostname, "score": strconv.Itoa(m.Score),
				"floor": strconv.Itoa(s.cfg.Floor), "providerId": strconv.FormatInt(providerID, 10)}}); err != nil {
			return err
		}
	}
	return nil
}
