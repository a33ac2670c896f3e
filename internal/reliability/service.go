package reliability

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"math/big"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/bus"
	"github.com/gpunex/gpunex/internal/clock"
	"github.com/gpunex/gpunex/internal/fleet"
	"github.com/gpunex/gpunex/internal/notification"
	"github.com/gpunex/gpunex/internal/pricing"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// Deps are what reliability uses.
type Deps struct {
	DB     *store.DB
	Bus    bus.Bus
	Notify *notification.Service
	Clock  clock.Clock
	Logger *slog.Logger
}

// Config tunes reliability.
type Config struct {
	// Floor is the score under which a machine is flagged to its
	// provider and to admins (default 70).
	Floor int
	// SnapshotEvery is how often the leader writes today's snapshots
	// (default 1h).
	SnapshotEvery time.Duration
	// MinJobValue is the least a completed rental must have been billed
	// (its locked rate × GPUs × the seconds the platform observed it
	// running) to count as a completed job (default DefaultMinJobValue):
	// a provider renting its GPUs to itself at a token price buys no
	// completions.
	MinJobValue models.USDC
}

// DefaultMinJobValue is Config.MinJobValue's default: 0.05 USDC, a few
// minutes of the cheapest GPU at a market price.
const DefaultMinJobValue = 50_000

// Service keeps and reads reliability scores.
type Service struct {
	deps Deps
	cfg  Config
	live *bus.Shared[*Summary]
	// refreshes counts the Refresh runs this replica has finished.
	refreshes atomic.Uint64
}

// Refreshes is how many Refresh runs this replica has finished, failed
// ones included: one after a leader's first, at its start.
func (s *Service) Refreshes() uint64 { return s.refreshes.Load() }

// Validate checks what an operator may set (gpunex serve): snapshots at
// most every second, a floor between 1 and 100.
func (c Config) Validate() error {
	if c.SnapshotEvery < time.Second {
		return fmt.Errorf("scores are refreshed at most every second; got every %s", c.SnapshotEvery)
	}
	if c.Floor < 1 || c.Floor > 100 {
		return fmt.Errorf("the reliability floor must be between 1 and 100; got %d", c.Floor)
	}
	return nil
}

// New returns the reliability service.
func New(deps Deps, cfg Config) *Service {
	if deps.Logger == nil {
		deps.Logger = slog.New(slog.DiscardHandler)
	}
	if deps.Clock == nil {
		deps.Clock = clock.Real{}
	}
	if cfg.Floor <= 0 {
		cfg.Floor = 70
	}
	if cfg.SnapshotEvery <= 0 {
		cfg.SnapshotEvery = time.Hour
	}
	if cfg.MinJobValue <= 0 {
		cfg.MinJobValue = DefaultMinJobValue
	}
	s := &Service{deps: deps, cfg: cfg}
	s.live = bus.NewShared(deps.Bus, deps.Logger, s.resolveEvent)
	return s
}

// Config returns the configuration in effect.
func (s *Service) Config() Config { return s.cfg }

// context is a machine's row with its provider's schedule and the
// maintenance windows overlapping an interval: the one read of an update.
type contextRow struct {
	models.ReliabilityMachine `bun:",extend"`
	Found                     bool       `bun:"found"`
	AvailKind                 *string    `bun:"availability_kind"`
	AvailZone                 *string    `bun:"availability_time_zone"`
	AvailWindows              *string    `bun:"availability_windows"`
	MaintFrom                 *time.Time `bun:"mw_starts_at"`
	MaintTo                   *time.Time `bun:"mw_ends_at"`
}

// load reads machineID's row (Found false when it has none yet), its
// provider's schedule and the maintenance windows of the machine between
// from and to, in one statement (one row per window).
func (s *Service) load(ctx context.Context, idb bun.IDB, machineID int64, from, to time.Time) ([]*contextRow, error) {
	var rows []*contextRow
	err := idb.NewRaw(`SELECT m.id AS machine_id, m.provider_id AS provider_id,
		COALESCE(rlm.up_num, 0.0) AS up_num, COALESCE(rlm.up_den, 0.0) AS up_den, COALESCE(rlm.up_at, ?) AS up_at,
		COALESCE(rlm.job_num, 0.0) AS job_num, COALESCE(rlm.job_den, 0.0) AS job_den, COALESCE(rlm.job_at, ?) AS job_at,
		COALESCE(rlm.cons_num, 0.0) AS cons_num, COALESCE(rlm.cons_den, 0.0) AS cons_den, COALESCE(rlm.cons_at, ?) AS cons_at,
		COALESCE(rlm.status, m.status) AS status, COALESCE(rlm.since, m.registered_at) AS since, COALESCE(rlm.updated_at, ?) AS updated_at,
		CASE WHEN rlm.machine_id IS NULL THEN 0 ELSE 1 END AS found,
		ps.availability_kind, ps.availability_time_zone, ps.availability_windows,
		mw.starts_at AS mw_starts_at, mw.ends_at AS mw_ends_at
		FROM machines m
		LEFT JOIN reliability_machines rlm ON rlm.machine_id = m.id
		LEFT JOIN provider_schedules ps ON ps.provider_id = m.provider_id
		LEFT JOIN maintenance_windows mw ON mw.provider_id = m.provider_id AND (mw.machine_id IS NULL OR mw.machine_id = m.id)
			AND mw.starts_at < ? AND mw.ends_at > ?
		WHERE m.id = ?`, from, from, from, from, to, from, machineID).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("reliability: unable to load machine %d: %w", machineID, err)
	}
	return rows, nil
}

// availability is the row's schedule (24/7 without one: a provider that
// never set a schedule has its application's, materialised by pricing on
// its first machine; none means always).
func (r *contextRow) availability() models.Availability {
	a := models.Availability{Kind: models.AvailabilityAlways, Windows: []*models.AvailabilityWindow{}}
	if r.AvailKind == nil {
		return a
	}
	a.Kind, a.TimeZone = models.AvailabilityKind(*r.AvailKind), r.AvailZone
	if r.AvailWindows != nil {
		_ = json.Unmarshal([]byte(*r.AvailWindows), &a.Windows)
	}
	return a
}

// scheduled is how long the schedule a was open between from and to,
// less the maintenance windows given (they overlap rarely; an overlap of
// two windows is counted once): the plain seconds, and their weight at
// the instant at (each second decayed by its age at at).
func scheduled(a models.Availability, maint []span, from, to, at time.Time) (seconds, weighted float64) {
	if !to.After(from) {
		return 0, 0
	}
	pricing.OpenSpans(a, from, to, func(f, t time.Time) {
		seconds += t.Sub(f).Seconds()
		weighted += integral(f, t, at)
	})
	for _, m := range maint {
		f, t := maxTime(from, m.from), minTime(to, m.to)
		if t.After(f) {
			pricing.OpenSpans(a, f, t, func(f, t time.Time) {
				seconds -= t.Sub(f).Seconds()
				weighted -= integral(f, t, at)
			})
		}
	}
	return max(0, seconds), max(0, weighted)
}

// span is a stretch of time.
type span struct{ from, to time.Time }

// maintenanceOf are the load's maintenance windows.
func maintenanceOf(rows []*contextRow) []span {
	var out []span
	for _, r := range rows {
		if r.MaintFrom != nil && r.MaintTo != nil {
			out = append(out, span{*r.MaintFrom, *r.MaintTo})
		}
	}
	return out
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// OnTransition follows the fleet: the interval that ended counts towards
// uptime (its scheduled time online, or an outage: its scheduled time
// offline outside maintenance, recorded as an event), and the new one
// starts. Three statements: the load, the row, the event.
func (s *Service) OnTransition(ctx context.Context, t fleet.Transition) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := s.transition(ctx, t.MachineID, t.Status, t.At); err != nil {
		s.deps.Logger.WarnContext(ctx, "reliability: unable to record a transition", "machine_id", t.MachineID, "err", err)
	}
}

func (s *Service) transition(ctx context.Context, machineID int64, status protocol.MachineStatus, at time.Time) error {
	var providerID int64
	err := s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		// Maintenance windows over the last Window: an open interval
		// longer than that is rare, and older maintenance weighs little.
		rows, err := s.load(ctx, tx, machineID, at.Add(-Window), at)
		if err != nil || len(rows) == 0 {
			return err
		}
		m := &rows[0].ReliabilityMachine
		providerID = m.ProviderID
		st := stateOf(m)
		var event *models.ReliabilityEvent
		if at.After(m.Since) && m.Status != status {
			// Maintenance counts only while offline: online during it is
			// no harm.
			var maint []span
			if m.Status != protocol.MachineOnline {
				maint = maintenanceOf(rows)
			}
			sched, weighted := scheduled(rows[0].availability(), maint, m.Since, at, at)
			mid := m.Since.Add(at.Sub(m.Since) / 2)
			st.up = st.up.to(at)
			st.up.den += weighted
			if m.Status == protocol.MachineOnline {
				st.up.num += weighted
			} else {
				if sched > 0 {
					end := at
					event = &models.ReliabilityEvent{MachineID: machineID, ProviderID: m.ProviderID, Kind: models.EventOutage,
						At: m.Since, EndedAt: &end, Magnitude: sched, Key: keyOf(sched, mid),
						Detail: strconv.FormatInt(int64(sched), 10)}
				}
			}
		}
		if m.Status != status || !rows[0].Found {
			m.Status, m.Since = status, at
		}
		if err := s.save(ctx, tx, m, st); err != nil {
			return err
		}
		if event != nil {
			if _, err := tx.NewInsert().Model(event).Exec(ctx); err != nil {
				return fmt.Errorf("reliability: unable to record an outage: %w", err)
			}
		}
		return nil
	})
	if err == nil && providerID != 0 {
		s.announce(ctx, providerID)
	}
	return err
}

// valueOf is what r was billed for the time it ran: its locked rate ×
// GPUs × the whole seconds from its billed start to its billed end, in
// big arithmetic (a rate times seconds can exceed int64 only in theory,
// but money is never left to theory). A rental that never ran is worth 0.
func valueOf(r *models.Rental) models.USDC {
	if r.StartedAt == nil || r.EndedAt == nil || !r.EndedAt.After(*r.StartedAt) {
		return 0
	}
	secs := int64(r.EndedAt.Sub(*r.StartedAt) / time.Second)
	v := new(big.Int).Mul(big.NewInt(int64(r.PricePerHour)), big.NewInt(int64(r.GpuCount)))
	v.Mul(v, big.NewInt(secs))
	v.Quo(v, big.NewInt(3600))
	if !v.IsInt64() {
		return models.USDC(math.MaxInt64)
	}
	return models.USDC(v.Int64())
}

// save writes m with st's accumulators.
func (s *Service) save(ctx context.Context, tx bun.Tx, m *models.ReliabilityMachine, st state) error {
	m.UpNum, m.UpDen, m.UpAt = st.up.num, st.up.den, st.up.at
	m.JobNum, m.JobDen, m.JobAt = st.job.num, st.job.den, st.job.at
	m.ConsNum, m.ConsDen, m.ConsAt = st.cons.num, st.cons.den, st.cons.at
	m.UpdatedAt = s.deps.Clock.Now()
	if _, err := tx.NewInsert().Model(m).On("CONFLICT (machine_id) DO UPDATE").
		Set("up_num = EXCLUDED.up_num, up_den = EXCLUDED.up_den, up_at = EXCLUDED.up_at").
		Set("job_num = EXCLUDED.job_num, job_den = EXCLUDED.job_den, job_at = EXCLUDED.job_at").
		Set("cons_num = EXCLUDED.cons_num, cons_den = EXCLUDED.cons_den, cons_at = EXCLUDED.cons_at").
		Set("status = EXCLUDED.status, since = EXCLUDED.since, updated_at = EXCLUDED.updated_at").Exec(ctx); err != nil {
		return fmt.Errorf("reliability: unable to save machine %d: %w", m.MachineID, err)
	}
	return nil
}

// OnRentalEnded follows the market: a job that ran to its end counts as
// completed when it was worth at least MinJobValue; one ended by the
// provider's side (a provider-caused failure, the machine going offline)
// counts against, as an event, whatever its value; one its customer
// stopped, or a customer's or the platform's fault, counts for nothing
// either way.
func (s *Service) OnRentalEnded(ctx context.Context, r *models.Rental) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	var num, den float64
	switch {
	case r.State == models.RentalCompleted && valueOf(r) >= s.cfg.MinJobValue:
		num, den = 1, 1
	case (r.State == models.RentalFailed || r.State == models.RentalInterrupted) && r.Cause != nil && *r.Cause == protocol.CauseProvider:
		den = 1
	default:
		return
	}
	at := s.deps.Clock.Now()
	if r.EndedAt != nil {
		at = *r.EndedAt
	}
	err := s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		rows, err := s.load(ctx, tx, r.MachineID, at, at)
		if err != nil || len(rows) == 0 {
			return err
		}
		m := &rows[0].ReliabilityMachine
		st := stateOf(m)
		st.job = st.job.add(num, den, at)
		if err := s.save(ctx, tx, m, st); err != nil {
			return err
		}
		if num == 0 {
			ev := &models.ReliabilityEvent{MachineID: r.MachineID, ProviderID: r.ProviderID, Kind: models.EventJobInterrupted, At: at,
				Magnitude: 1, Key: keyOf(1, at), Detail: strconv.FormatInt(r.ID, 10)}
			if _, err := tx.NewInsert().Model(ev).Exec(ctx); err != nil {
				return fmt.Errorf("reliability: unable to record an interrupted job: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		s.deps.Logger.WarnContext(ctx, "reliability: unable to record a job outcome", "rental_id", r.ID, "err", err)
		return
	}
	s.announce(ctx, r.ProviderID)
}

// OnBenchmarked follows the benchmarks: each scored GPU result with a
// baseline (the GPU's earlier runs) adds its consistency, held to 1 and
// less ThrottlePenalty when NVML saw heat or power throttling; one under
// DegradedBelow is an event.
func (s *Service) OnBenchmarked(ctx context.Context, results []*models.GpuBenchmark) {
	if len(results) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	machineID, at := results[0].MachineID, results[0].At
	var providerID int64
	err := s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		rows, err := s.load(ctx, tx, machineID, at, at)
		if err != nil || len(rows) == 0 {
			return err
		}
		m := &rows[0].ReliabilityMachine
		providerID = m.ProviderID
		st := stateOf(m)
		var events []*models.ReliabilityEvent
		for _, g := range results {
			sample, detail, ok := consistencyOf(g)
			if !ok {
				continue
			}
			st.cons = st.cons.add(sample, 1, g.At)
			if sample < DegradedBelow {
				events = append(events, &models.ReliabilityEvent{MachineID: machineID, ProviderID: m.ProviderID, Kind: models.EventBenchmarkDegraded,
					At: g.At, Magnitude: 1 - sample, Key: keyOf(1-sample, g.At), Detail: detail})
			}
		}
		if err := s.save(ctx, tx, m, st); err != nil {
			return err
		}
		if len(events) > 0 {
			if _, err := tx.NewInsert().Model(&events).Exec(ctx); err != nil {
				return fmt.Errorf("reliability: unable to record degraded benchmarks: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		s.deps.Logger.WarnContext(ctx, "reliability: unable to record benchmarks", "machine_id", machineID, "err", err)
		return
	}
	s.announce(ctx, providerID)
}

// consistencyOf is a GPU result's consistency sample and the event's
// detail (the GPU's id and the throttle seen); ok is false without a
// baseline.
func consistencyOf(g *models.GpuBenchmark) (float64, string, bool) {
	if g.Consistency == nil {
		return 0, "", false
	}
	sample := min(1, *g.Consistency)
	detail := strconv.FormatInt(g.GpuID, 10)
	for _, gd := range g.Guidance {
		if gd.Code == models.GuidanceThermalThrottling || gd.Code == models.GuidancePowerThrottling {
			sample = max(0, sample-ThrottlePenalty)
			detail += " " + string(gd.Code)
			break
		}
	}
	return sample, detail, true
}

// PastStep is one step of a machine's past to import (ImportPast): a
// status change at At, or (Ended set) a rental ending then.
type PastStep struct {
	At     time.Time
	Status protocol.MachineStatus
	// Ended, when set, is a rental of the machine that ended at At in
	// this state and cause (Status is then ignored).
	Ended *models.Rental
}

// replay applies one past step to a machine of providerID.
func (s *Service) replay(ctx context.Context, machineID, providerID int64, st PastStep) error {
	if st.Ended != nil {
		r := *st.Ended
		r.MachineID, r.ProviderID, r.EndedAt = machineID, providerID, &st.At
		s.OnRentalEnded(ctx, &r)
		return nil
	}
	return s.transition(ctx, machineID, st.Status, st.At)
}
