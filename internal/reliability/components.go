package reliability

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/models"
)

// ComponentsOf is the three parts of each provider's score now, as
// Provider computes them (its machines' accumulators decayed to now, their
// open intervals added), for many providers in two statements: the
// machines and the maintenance of the window. The marketplace shows them
// beside each listing's score. A provider without machines is left out.
func (s *Service) ComponentsOf(ctx context.Context, providerIDs []int64) (map[int64]Components, error) {
	out := map[int64]Components{}
	if len(providerIDs) == 0 {
		return out, nil
	}
	now := s.deps.Clock.Now()
	var rows []*machineRow
	if err := s.deps.DB.NewSelect().TableExpr("machines AS m").
		ColumnExpr("m.id AS machine_id, m.provider_id AS provider_id, m.hostname AS hostname").
		ColumnExpr("COALESCE(rlm.up_num, 0.0) AS up_num, COALESCE(rlm.up_den, 0.0) AS up_den, COALESCE(rlm.up_at, m.registered_at) AS up_at").
		ColumnExpr("COALESCE(rlm.job_num, 0.0) AS job_num, COALESCE(rlm.job_den, 0.0) AS job_den, COALESCE(rlm.job_at, m.registered_at) AS job_at").
		ColumnExpr("COALESCE(rlm.cons_num, 0.0) AS cons_num, COALESCE(rlm.cons_den, 0.0) AS cons_den, COALESCE(rlm.cons_at, m.registered_at) AS cons_at").
		ColumnExpr("COALESCE(rlm.status, m.status) AS status, COALESCE(rlm.since, m.status_changed_at) AS since").
		ColumnExpr("ps.availability_kind, ps.availability_time_zone, ps.availability_windows").
		Join("LEFT JOIN reliability_machines AS rlm ON rlm.machine_id = m.id").
		Join("LEFT JOIN provider_schedules AS ps ON ps.provider_id = m.provider_id").
		Where("m.provider_id IN (?)", bun.List(providerIDs)).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("reliability: unable to read machines: %w", err)
	}
	var maint []*models.MaintenanceWindow
	if err := s.deps.DB.NewSelect().Model(&maint).Where("provider_id IN (?) AND ends_at > ? AND starts_at < ?", bun.List(providerIDs), now.Add(-Window), now).
		Scan(ctx); err != nil {
		return nil, fmt.Errorf("reliability: unable to read maintenance: %w", err)
	}
	maintOf := map[int64][]*models.MaintenanceWindow{}
	for _, w := range maint {
		maintOf[w.ProviderID] = append(maintOf[w.ProviderID], w)
	}
	totals := map[int64]state{}
	for _, r := range rows {
		total, ok := totals[r.ProviderID]
		if !ok {
			total = state{acc{at: now}, acc{at: now}, acc{at: now}}
		}
		ctxRow := &contextRow{ReliabilityMachine: r.ReliabilityMachine, AvailKind: r.AvailKind, AvailZone: r.AvailZone, AvailWindows: r.AvailWindows}
		st := withOpenInterval(stateOf(&r.ReliabilityMachine).to(now), &r.ReliabilityMachine, ctxRow.availability(), maintOf[r.ProviderID], now)
		totals[r.ProviderID] = total.plus(st)
	}
	for id, total := range totals {
		out[id] = total.components()
	}
	return out, nil
}
