package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/models"
)

// HistoryLength is how many results of each GPU a view holds.
const HistoryLength = 30

// Result is one GPU's part of one run as the API shows it.
type Result struct {
	models.GpuBenchmark
	GpuUUID string
	// RunID is the run's id (the agent's run id, not the row's).
	RunID string
}

// GpuStatus is a GPU's benchmark standing as the API shows it.
type GpuStatus struct {
	models.GpuBenchStatus
	GpuUUID string
	Latest  *Result
	// History is the latest HistoryLength results, newest first.
	History []*Result
}

// MachineBenchmarks is a machine's benchmark standing.
type MachineBenchmarks struct {
	MachineID        int64
	Hostname         string
	Gpus             []*GpuStatus
	LatestRun        *models.BenchmarkRun
	PendingRun       *models.BenchmarkRun
	NextScheduledAt  *time.Time
	RequestAllowedAt time.Time
}

// Event is one message of a benchmarkUpdated subscription.
type Event struct {
	Machine *MachineBenchmarks
	Initial bool
}

// Machines returns providerID's machines' benchmark standing, oldest
// machine first, in a fixed number of queries whatever the fleet's size.
func (s *Service) Machines(ctx context.Context, providerID int64) ([]*MachineBenchmarks, error) {
	return s.load(ctx, providerID, 0)
}

// load builds the views of providerID's machines, or of machine machineID
// alone when it is not zero.
func (s *Service) load(ctx context.Context, providerID, machineID int64) ([]*MachineBenchmarks, error) {
	var ms []*models.Machine
	q := s.deps.DB.NewSelect().Model(&ms).Column("m.id", "m.hostname").Where("m.provider_id = ?", providerID).OrderExpr("m.id ASC").
		Relation("Gpus", func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.Column("id", "machine_id", "uuid", "idx", "added_at").Where("mg.removed_at IS NULL").OrderExpr("mg.idx ASC")
		})
	if machineID != 0 {
		q = q.Where("m.id = ?", machineID)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, fmt.Errorf("bench: unable to list machines: %w", err)
	}
	if len(ms) == 0 {
		return []*MachineBenchmarks{}, nil
	}
	ids := make([]int64, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	var statuses []*models.GpuBenchStatus
	if err := s.deps.DB.NewSelect().Model(&statuses).Where("machine_id IN (?)", bun.List(ids)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("bench: unable to load listings: %w", err)
	}
	// The latest HistoryLength results of every GPU, in one query.
	var results []*models.GpuBenchmark
	ranked := s.deps.DB.NewSelect().Model((*models.GpuBenchmark)(nil)).Column("id").
		ColumnExpr("ROW_NUMBER() OVER (PARTITION BY gpu_id ORDER BY at DESC, id DESC) AS rn").
		Where("machine_id IN (?)", bun.List(ids))
	if err := s.deps.DB.NewSelect().Model(&results).
		Where("gb.id IN (?)", s.deps.DB.NewSelect().TableExpr("(?) AS ranked", ranked).Column("id").Where("rn <= ?", HistoryLength)).
		OrderExpr("gb.at DESC, gb.id DESC").Scan(ctx); err != nil {
		return nil, fmt.Errorf("bench: unable to load results: %w", err)
	}
	// Each machine's latest completed run (by when it finished: past runs
	// may be recorded after a newer one) and its latest pending one.
	var runs []*models.BenchmarkRun
	latestRuns := s.deps.DB.NewSelect().Model((*models.BenchmarkRun)(nil)).Column("id").
		ColumnExpr("ROW_NUMBER() OVER (PARTITION BY machine_id, state ORDER BY COALESCE(finished_at, requested_at) DESC, id DESC) AS rn").
		Where("machine_id IN (?) AND state IN (?)", bun.List(ids), bun.List([]models.BenchmarkRunState{models.BenchmarkRunPending, models.BenchmarkRunCompleted}))
	if err := s.deps.DB.NewSelect().Model(&runs).Where("br.id IN (?)",
		s.deps.DB.NewSelect().TableExpr("(?) AS latest", latestRuns).Column("id").Where("rn = 1")).Scan(ctx); err != nil {
		return nil, fmt.Errorf("bench: unable to load runs: %w", err)
	}
	var schedules []*models.MachineBenchSchedule
	if err := s.deps.DB.NewSelect().Model(&schedules).Where("machine_id IN (?)", bun.List(ids)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("bench: unable to load schedules: %w", err)
	}

	now := s.deps.Clock.Now()
	runUID := map[int64]string{}
	for _, r := range runs {
		runUID[r.ID] = r.RunID
	}
	statusOf := map[int64]*models.GpuBenchStatus{}
	for _, st := range statuses {
		statusOf[st.GpuID] = st
	}
	scheduleOf := map[int64]*models.MachineBenchSchedule{}
	for _, sc := range schedules {
		scheduleOf[sc.MachineID] = sc
	}
	uuidOf := map[int64]string{}
	for _, m := range ms {
		for _, g := range m.Gpus {
			uuidOf[g.ID] = g.UUID
		}
	}
	history := map[int64][]*Result{}
	for _, r := range results {
		history[r.GpuID] = append(history[r.GpuID], &Result{GpuBenchmark: *r, GpuUUID: uuidOf[r.GpuID]})
	}
	// Results name their run by its id; the runs not loaded above (older
	// ones) are looked up in one more query.
	if err := s.fillRunIDs(ctx, results, runUID); err != nil {
		return nil, err
	}
	for _, rs := range history {
		for _, r := range rs {
			r.RunID = runUID[r.RunRowID]
		}
	}

	out := make([]*MachineBenchmarks, len(ms))
	for i, m := range ms {
		v := &MachineBenchmarks{MachineID: m.ID, Hostname: m.Hostname, Gpus: make([]*GpuStatus, len(m.Gpus)), RequestAllowedAt: now}
		for _, r := range runs {
			if r.MachineID != m.ID {
				continue
			}
			switch {
			case r.State == models.BenchmarkRunCompleted:
				v.LatestRun = r
			case r.State == models.BenchmarkRunPending && r.RequestedAt.After(now.Add(-s.cfg.RunTimeout)):
				v.PendingRun = r
			}
		}
		if sc := scheduleOf[m.ID]; sc != nil {
			next := sc.NextRunAt
			v.NextScheduledAt = &next
			if sc.LastRequestedAt != nil && sc.LastRequestedAt.Add(s.cfg.Cooldown).After(now) {
				v.RequestAllowedAt = sc.LastRequestedAt.Add(s.cfg.Cooldown).UTC()
			}
		}
		for j, g := range m.Gpus {
			gs := &GpuStatus{GpuUUID: g.UUID, History: history[g.ID]}
			if st := statusOf[g.ID]; st != nil {
				gs.GpuBenchStatus = *st
			} else {
				// Pending since it joined the machine.
				gs.GpuBenchStatus = models.GpuBenchStatus{GpuID: g.ID, MachineID: m.ID, ProviderID: providerID, Listing: models.GpuListingPending,
					ListingChangedAt: g.AddedAt, Shortfalls: []models.BenchmarkFigure{}, Guidance: []models.BenchmarkGuidance{}}
			}
			if gs.History == nil {
				gs.History = []*Result{}
			}
			for _, r := range gs.History {
				if gs.LatestID != nil && r.ID == *gs.LatestID {
					gs.Latest = r
				}
			}
			v.Gpus[j] = gs
		}
		out[i] = v
	}
	return out, nil
}

// fillRunIDs adds to runUID the run ids of results whose run it lacks.
func (s *Service) fillRunIDs(ctx context.Context, results []*models.GpuBenchmark, runUID map[int64]string) error {
	var missing []int64
	for _, r := range results {
		if _, ok := runUID[r.RunRowID]; !ok {
			missing = append(missing, r.RunRowID)
			runUID[r.RunRowID] = ""
		}
	}
	if len(missing) == 0 {
		return nil
	}
	var rows []struct {
		ID    int64  `bun:"id"`
		RunID string `bun:"run_uid"`
	}
	if err := s.deps.DB.NewSelect().Model((*models.BenchmarkRun)(nil)).Column("id", "run_uid").
		Where("id IN (?)", bun.List(missing)).Scan(ctx, &rows); err != nil {
		return fmt.Errorf("bench: unable to load run ids: %w", err)
	}
	for _, r := range rows {
		runUID[r.ID] = r.RunID
	}
	return nil
}

// Subscribe streams providerID's benchmarks: every machine's standing
// first (Initial), then a machine's standing each time a run is asked
// for, reported or expired, until ctx ends. Each change is loaded once per
// replica for every dashboard of the provider (bus.Shared).
func (s *Service) Subscribe(ctx context.Context, providerID int64) (<-chan *Event, error) {
	current := func(ctx context.Context) ([]*Event, error) {
		ms, err := s.Machines(ctx, providerID)
		if err != nil {
			return nil, err
		}
		evs := make([]*Event, len(ms))
		for i, m := range ms {
			evs[i] = &Event{Machine: m, Initial: true}
		}
		return evs, nil
	}
	return s.live.Follow(ctx, Channel(providerID), current, nil)
}

// resolveEvent loads the machine a change names.
func (s *Service) resolveEvent(ctx context.Context, msg bus.Message) (*Event, bool) {
	var ev changeEvent
	if err := json.Unmarshal(msg.Payload, &ev); err != nil {
		return nil, false
	}
	ms, err := s.load(ctx, ev.ProviderID, ev.MachineID)
	if err != nil || len(ms) == 0 {
		if err != nil && ctx.Err() == nil {
			s.deps.Logger.WarnContext(ctx, "bench: unable to load machine for event", "machine_id", ev.MachineID, "err", err)
		}
		return nil, false
	}
	return &Event{Machine: ms[0]}, true
}
