package reliability

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/models"
)

// MaxEvents is how many events a summary lists: those that weigh most now.
const MaxEvents = 50

// ProjectionDays is how far the projection looks.
const ProjectionDays = 28

// Event is one event behind a component, with what it costs the score
// now (points it would give back if it had not happened).
type Event struct {
	Kind      models.ReliabilityEventKind
	MachineID int64
	Hostname  string
	At        time.Time
	EndedAt   *time.Time
	// Magnitude: scheduled seconds offline, one job, or a benchmark's
	// shortfall (0–1).
	Magnitude float64
	Cost      float64
	Detail    string
}

// Point is a score on a day.
type Point struct {
	Day   time.Time
	Score int
}

// MachineScore is one machine's score within a provider's.
type MachineScore struct {
	MachineID  int64
	Hostname   string
	Score      int
	Components Components
	BelowFloor bool
	// Scored is whether the platform has observed the machine at all
	// (time in its schedule, a job, a benchmark); until then Score is
	// the prior alone.
	Scored bool
}

// Advice codes: what would raise the score.
const (
	AdviceStayOnline       = "STAY_ONLINE_IN_SCHEDULE"
	AdviceAvoidInterrupts  = "AVOID_INTERRUPTIONS"
	AdviceFixThrottling    = "FIX_THROTTLING"
	AdviceDeclareDowntime  = "DECLARE_MAINTENANCE_AHEAD"
	AdviceNothingToImprove = "KEEP_IT_UP"
)

// Summary is a provider's (or one machine's) reliability now.
type Summary struct {
	ProviderID int64
	// MachineID is set for a machine's summary.
	MachineID *int64
	// Scored is whether any machine has been observed (MachineScore's
	// Scored): a provider without machines, or whose machines have only
	// just registered, has nothing scored and Score is the prior alone,
	// which no page shows as theirs.
	Scored       bool
	Score        int
	Components   Components
	HalfLifeDays float64
	WindowDays   int
	Floor        int
	BelowFloor   bool
	Trend        []Point
	Events       []Event
	Projection   []Point
	Advice       []string
	Machines     []MachineScore
	AsOf         time.Time
}

type machineRow struct {
	models.ReliabilityMachine `bun:",extend"`
	Hostname                  string  `bun:"hostname"`
	AvailKind                 *string `bun:"availability_kind"`
	AvailZone                 *string `bun:"availability_time_zone"`
	AvailWindows              *string `bun:"availability_windows"`
}

// Provider is providerID's reliability: its machines' accumulators summed
// (each decayed to now, with its open interval up to now), the events that
// weigh most, the trend and the projection. It reads the machines' rows,
// the maintenance of the window, the top events and the snapshots: its
// cost follows the machines and the window, never the history.
func (s *Service) Provider(ctx context.Context, providerID int64) (*Summary, error) {
	return s.summary(ctx, providerID, nil, s.deps.Clock.Now())
}

// Machine is one machine's reliability (its provider's id is checked).
func (s *Service) Machine(ctx context.Context, providerID, machineID int64) (*Summary, error) {
	return s.summary(ctx, providerID, &machineID, s.deps.Clock.Now())
}

// summary is the reliability as of now: the machines' rows as they
// stand, decayed to now (ImportPast scores a past day's end with it).
func (s *Service) summary(ctx context.Context, providerID int64, machineID *int64, now time.Time) (*Summary, error) {
	var rows []*machineRow
	q := s.deps.DB.NewSelect().TableExpr("machines AS m").
		ColumnExpr("m.id AS machine_id, m.provider_id AS provider_id, m.hostname AS hostname").
		ColumnExpr("COALESCE(rlm.up_num, 0.0) AS up_num, COALESCE(rlm.up_den, 0.0) AS up_den, COALESCE(rlm.up_at, m.registered_at) AS up_at").
		ColumnExpr("COALESCE(rlm.job_num, 0.0) AS job_num, COALESCE(rlm.job_den, 0.0) AS job_den, COALESCE(rlm.job_at, m.registered_at) AS job_at").
		ColumnExpr("COALESCE(rlm.cons_num, 0.0) AS cons_num, COALESCE(rlm.cons_den, 0.0) AS cons_den, COALESCE(rlm.cons_at, m.registered_at) AS cons_at").
		ColumnExpr("COALESCE(rlm.status, m.status) AS status, COALESCE(rlm.since, m.status_changed_at) AS since").
		ColumnExpr("ps.availability_kind, ps.availability_time_zone, ps.availability_windows").
		Join("LEFT JOIN reliability_machines AS rlm ON rlm.machine_id = m.id").
		Join("LEFT JOIN provider_schedules AS ps ON ps.provider_id = m.provider_id").
		Where("m.provider_id = ?", providerID).OrderExpr("m.hostname, m.id")
	if machineID != nil {
		q = q.Where("m.id = ?", *machineID)
	}
	if err := q.Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("reliability: unable to read machines: %w", err)
	}
	if machineID != nil && len(rows) == 0 {
		return nil, errNoMachine
	}
	var maint []*models.MaintenanceWindow
	if err := s.deps.DB.NewSelect().Model(&maint).Where("provider_id = ? AND ends_at > ? AND starts_at < ?", providerID, now.Add(-Window), now).
		Scan(ctx); err != nil {
		return nil, fmt.Errorf("reliability: unable to read maintenance: %w", err)
	}
	sum := &Summary{ProviderID: providerID, MachineID: machineID, HalfLifeDays: HalfLife.Hours() / 24, WindowDays: int(Window.Hours() / 24),
		Floor: s.cfg.Floor, AsOf: now, Trend: []Point{}, Events: []Event{}, Machines: []MachineScore{}}
	total := state{acc{at: now}, acc{at: now}, acc{at: now}}
	hosts := map[int64]string{}
	var sched models.Availability
	for _, r := range rows {
		hosts[r.MachineID] = r.Hostname
		ctxRow := &contextRow{ReliabilityMachine: r.ReliabilityMachine, AvailKind: r.AvailKind, AvailZone: r.AvailZone, AvailWindows: r.AvailWindows}
		sched = ctxRow.availability()
		st := withOpenInterval(stateOf(&r.ReliabilityMachine).to(now), &r.ReliabilityMachine, sched, maint, now)
		c := st.components()
		sum.Machines = append(sum.Machines, MachineScore{MachineID: r.MachineID, Hostname: r.Hostname, Score: c.Score(), Components: c,
			BelowFloor: c.Score() < s.cfg.Floor, Scored: st.observed()})
		total = total.plus(st)
	}
	sum.Scored = total.observed()
	sum.Components = total.components()
	sum.Score = sum.Components.Score()
	sum.BelowFloor = sum.Score < s.cfg.Floor

	var events []*models.ReliabilityEvent
	eq := s.deps.DB.NewSelect().Model(&events).Where("provider_id = ? AND at > ?", providerID, now.Add(-Window)).
		OrderExpr("weight_key DESC").Limit(MaxEvents)
	if machineID != nil {
		eq = eq.Where("machine_id = ?", *machineID)
	}
	if err := eq.Scan(ctx); err != nil {
		return nil, fmt.Errorf("reliability: unable to read events: %w", err)
	}
	for _, e := range events {
		w := weightNow(e.Key, now)
		sum.Events = append(sum.Events, Event{Kind: e.Kind, MachineID: e.MachineID, Hostname: hosts[e.MachineID], At: e.At, EndedAt: e.EndedAt,
			Magnitude: e.Magnitude, Cost: math.Round(total.cost(e.Kind, w)*10) / 10, Detail: e.Detail})
	}
	mid := int64(0)
	if machineID != nil {
		mid = *machineID
	}
	var snaps []*models.ReliabilitySnapshot
	if err := s.deps.DB.NewSelect().Model(&snaps).Where("provider_id = ? AND machine_id = ? AND day >= ?", providerID, mid, now.Add(-Window)).
		Order("day").Scan(ctx); err != nil {
		return nil, fmt.Errorf("reliability: unable to read the trend: %w", err)
	}
	for _, p := range snaps {
		sum.Trend = append(sum.Trend, Point{Day: p.Day, Score: p.Score})
	}
	sum.Projection = project(total, len(rows), sched, now)
	sum.Advice = advise(sum, maint)
	return sum, nil
}

var errNoMachine = fmt.Errorf("reliability: no such machine of the provider")

// withOpenInterval adds a machine's open interval (since its last
// transition) up to now: online time in the schedule counts up, offline
// time in it outside maintenance counts down.
func withOpenInterval(st state, m *models.ReliabilityMachine, a models.Availability, maint []*models.MaintenanceWindow, now time.Time) state {
	if !now.After(m.Since) {
		return st
	}
	var spans []span
	if m.Status != protocol.MachineOnline {
		for _, w := range maint {
			if w.MachineID == nil || *w.MachineID == m.MachineID {
				spans = append(spans, span{w.StartsAt, w.EndsAt})
			}
		}
	}
	_, weighted := scheduled(a, spans, m.Since, now, now)
	st.up = st.up.to(now)
	st.up.den += weighted
	if m.Status == protocol.MachineOnline {
		st.up.num += weighted
	}
	return st
}

// project is the score over the next ProjectionDays if every machine
// stays online through its schedule and nothing else happens: the past
// decays, healthy scheduled time accrues.
func project(st state, machines int, a models.Availability, now time.Time) []Point {
	out := make([]Point, 0, ProjectionDays)
	day := now.UTC().Truncate(24 * time.Hour)
	for d := 1; d <= ProjectionDays; d++ {
		from, to := day.Add(time.Duration(d-1)*24*time.Hour), day.Add(time.Duration(d)*24*time.Hour)
		_, weighted := scheduled(a, nil, maxTime(from, now), to, to)
		weighted *= float64(max(1, machines))
		st.up = st.up.to(to)
		st.up.num += weighted
		st.up.den += weighted
		st.job, st.cons = st.job.to(to), st.cons.to(to)
		out = append(out, Point{Day: to, Score: st.components().Score()})
	}
	return out
}

// advise says what would raise the score, from its weakest parts.
func advise(s *Summary, maint []*models.MaintenanceWindow) []string {
	var out []string
	if s.Components.Uptime < 0.98 {
		out = append(out, AdviceStayOnline)
		if len(maint) == 0 {
			out = append(out, AdviceDeclareDowntime)
		}
	}
	if s.Components.Completion < 0.95 {
		out = append(out, AdviceAvoidInterrupts)
	}
	if s.Components.Consistency < 0.95 {
		out = append(out, AdviceFixThrottling)
	}
	if len(out) == 0 {
		out = append(out, AdviceNothingToImprove)
	}
	return out
}

// Scores are providers' current scores, for listings (the marketplace
// reads reliability_providers itself; this is for the API).
func (s *Service) Scores(ctx context.Context, providerIDs []int64) (map[int64]int, error) {
	out := map[int64]int{}
	if len(providerIDs) == 0 {
		return out, nil
	}
	var rows []*models.ReliabilityProvider
	if err := s.deps.DB.NewSelect().Model(&rows).Where("provider_id IN (?)", bun.List(providerIDs)).Scan(ctx); err != nil {
		return nil, err
	}
	for _, r := range rows {
		out[r.ProviderID] = r.Score
	}
	return out, nil
}

// ProviderScore is a provider's current score with its name, against the
// floor in effect (Config.Floor, so a page never assumes the default).
type ProviderScore struct {
	ProviderID    int64  `bun:"provider_id"`
	ApplicationID int64  `bun:"application_id"`
	Name          string `bun:"name"`
	Score         int    `bun:"score"`
	Floor         int    `bun:"-"`
	BelowFloor    bool   `bun:"-"`
	// Uptime, Completion and Consistency are the score's parts as the job
	// last wrote them (see Components).
	Uptime      *float64 `bun:"uptime"`
	Completion  *float64 `bun:"completion"`
	Consistency *float64 `bun:"consistency"`
}

// Components are the score's parts; nil for a score written before they
// were kept.
func (p *ProviderScore) Components() *Components {
	if p.Uptime == nil || p.Completion == nil || p.Consistency == nil {
		return nil
	}
	return &Components{Uptime: *p.Uptime, Completion: *p.Completion, Consistency: *p.Consistency}
}

// Fleet is every scored provider for admins, lowest score first, each
// with the score's parts, the floor and whether it scores under it, and
// the provider's application (where an admin reviews it).
func (s *Service) Fleet(ctx context.Context, limit int) ([]*ProviderScore, error) {
	var rows []*ProviderScore
	if err := s.deps.DB.NewSelect().TableExpr("reliability_providers AS rlp").Join("JOIN providers AS p ON p.id = rlp.provider_id").
		ColumnExpr("rlp.provider_id, p.application_id, p.name, rlp.score, rlp.uptime, rlp.completion, rlp.consistency").
		OrderExpr("rlp.score ASC, rlp.provider_id").Limit(int64(limit)).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("reliability: unable to list providers: %w", err)
	}
	for _, r := range rows {
		r.Floor, r.BelowFloor = s.cfg.Floor, r.Score < s.cfg.Floor
	}
	return rows, nil
}
