package pricing

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/validate"
	"github.com/gpunex/gpunex/models"
)

// Schedule is a provider's availability schedule as the API shows it.
type Schedule struct {
	Availability models.Availability
	// OpenNow says whether the GPUs are offered now (inside the schedule,
	// outside provider-wide maintenance).
	OpenNow bool
	// NextChangeAt is when OpenNow next changes, maintenance included;
	// nil when it never does.
	NextChangeAt *time.Time
	UpdatedAt    time.Time
}

// SetSchedule sets the provider's weekly schedule and, when in.Maintenance
// is not nil, replaces its maintenance windows that have not started with
// those given (windows under way are kept). Problems come back as a
// *fault.Validation naming the field, with nothing changed. It returns the
// schedule and the maintenance windows that have not ended.
func (s *Service) SetSchedule(ctx context.Context, providerID int64, in ScheduleInput) (*Schedule, []*models.MaintenanceWindow, error) {
	now := s.deps.Clock.Now()
	var v fault.Validation
	input := validate.At("input")
	a := availabilityOf(&v, input.Field("availability"), in.Availability)
	var windows []*models.MaintenanceWindow
	if in.Maintenance != nil {
		owned, err := s.ownedMachines(ctx, providerID, in.Maintenance)
		if err != nil {
			return nil, nil, err
		}
		windows = maintenanceOf(&v, input.Field("maintenance"), in.Maintenance, providerID, owned, now)
	}
	if err := v.Err(); err != nil {
		return nil, nil, err
	}
	row := scheduleRow(providerID, a, now)
	err := s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewInsert().Model(row).On("CONFLICT (provider_id) DO UPDATE").
			Set("availability_kind = EXCLUDED.availability_kind").
			Set("availability_time_zone = EXCLUDED.availability_time_zone").
			Set("availability_windows = EXCLUDED.availability_windows").
			Set("open_from = EXCLUDED.open_from, open_until = EXCLUDED.open_until, updated_at = EXCLUDED.updated_at").
			Exec(ctx); err != nil {
			return err
		}
		if in.Maintenance == nil {
			return nil
		}
		if _, err := tx.NewDelete().Model((*models.MaintenanceWindow)(nil)).Where("provider_id = ? AND starts_at > ?", providerID, now).Exec(ctx); err != nil {
			return err
		}
		if len(windows) == 0 {
			return nil
		}
		_, err := tx.NewInsert().Model(&windows).Exec(ctx)
		return err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("pricing: unable to set the schedule: %w", err)
	}
	mws, err := s.Maintenance(ctx, providerID)
	if err != nil {
		return nil, nil, err
	}
	return s.scheduleOf(row, mws, now), mws, nil
}

// ownedMachines are those of the machine ids in list that belong to the
// provider.
func (s *Service) ownedMachines(ctx context.Context, providerID int64, list []MaintenanceInput) (map[int64]bool, error) {
	var ids []int64
	for _, m := range list {
		if m.MachineID != nil {
			ids = append(ids, *m.MachineID)
		}
	}
	owned := map[int64]bool{}
	if len(ids) == 0 {
		return owned, nil
	}
	var found []int64
	if err := s.deps.DB.NewSelect().Model((*models.Machine)(nil)).Column("id").
		Where("provider_id = ? AND id IN (?)", providerID, bun.List(ids)).Scan(ctx, &found); err != nil {
		return nil, fmt.Errorf("pricing: unable to check the machines: %w", err)
	}
	for _, id := range found {
		owned[id] = true
	}
	return owned, nil
}

// scheduleRow is the stored schedule of a as of now, its open interval
// worked out.
func scheduleRow(providerID int64, a models.Availability, now time.Time) *models.ProviderSchedule {
	row := &models.ProviderSchedule{ProviderID: providerID, Availability: a, UpdatedAt: now}
	if row.Availability.Windows == nil {
		row.Availability.Windows = []*models.AvailabilityWindow{}
	}
	row.OpenFrom, row.OpenUntil = openColumns(a, now)
	return row
}

// openColumns are open_from and open_until of a as of now: the current or
// next open interval (open_from nil: never open; open_until nil: open with
// no end). An interval open with no end starts now, in whole seconds.
func openColumns(a models.Availability, now time.Time) (*time.Time, *time.Time) {
	from, to, ok := openInterval(a, now)
	switch {
	case !ok:
		return nil, nil
	case from.IsZero():
		f := now.Truncate(time.Second)
		return &f, nil
	}
	from = from.UTC()
	if to != nil {
		t := to.UTC()
		to = &t
	}
	return &from, to
}

// Schedule is the provider's schedule: the one it set, or until then its
// approved application's availability (see the package doc).
func (s *Service) Schedule(ctx context.Context, providerID int64) (*Schedule, error) {
	now := s.deps.Clock.Now()
	row, err := s.scheduleRowOf(ctx, providerID, now)
	if err != nil {
		return nil, err
	}
	mws, err := s.Maintenance(ctx, providerID)
	if err != nil {
		return nil, err
	}
	return s.scheduleOf(row, mws, now), nil
}

// scheduleRowOf reads the provider's stored schedule, or makes (without
// storing) its starting one.
func (s *Service) scheduleRowOf(ctx context.Context, providerID int64, now time.Time) (*models.ProviderSchedule, error) {
	row := new(models.ProviderSchedule)
	err := s.deps.DB.NewSelect().Model(row).Where("provider_id = ?", providerID).Scan(ctx)
	switch {
	case store.IsNoRows(err):
		a, err := s.startingAvailability(ctx, providerID)
		if err != nil {
			return nil, err
		}
		return scheduleRow(providerID, a, now), nil
	case err != nil:
		return nil, fmt.Errorf("pricing: unable to read the schedule: %w", err)
	}
	return row, nil
}

// startingAvailability is the availability of the first GPU entry of the
// provider's approved application (24/7 if it has none).
func (s *Service) startingAvailability(ctx context.Context, providerID int64) (models.Availability, error) {
	var g models.ApplicationGpu
	err := s.deps.DB.NewSelect().Model(&g).
		Join("JOIN providers AS p ON p.application_id = ag.application_id").Where("p.id = ?", providerID).
		OrderExpr("ag.position ASC, ag.id ASC").Limit(1).Scan(ctx)
	switch {
	case store.IsNoRows(err):
		return models.Availability{Kind: models.AvailabilityAlways, Windows: []*models.AvailabilityWindow{}}, nil
	case err != nil:
		return models.Availability{}, fmt.Errorf("pricing: unable to read the application's availability: %w", err)
	}
	return g.Availability, nil
}

// ensure stores the provider's starting schedule unless it has one.
func (s *Service) ensure(ctx context.Context, providerID int64) error {
	now := s.deps.Clock.Now()
	a, err := s.startingAvailability(ctx, providerID)
	if err != nil {
		return err
	}
	if _, err := s.deps.DB.NewInsert().Model(scheduleRow(providerID, a, now)).On("CONFLICT (provider_id) DO NOTHING").Exec(ctx); err != nil {
		return fmt.Errorf("pricing: unable to store the starting schedule: %w", err)
	}
	return nil
}

// scheduleOf is row as the API shows it at now, with the provider-wide
// maintenance windows among mws.
func (s *Service) scheduleOf(row *models.ProviderSchedule, mws []*models.MaintenanceWindow, now time.Time) *Schedule {
	var down []interval
	for _, m := range mws {
		if m.MachineID == nil {
			down = append(down, interval{m.StartsAt, m.EndsAt})
		}
	}
	open, next := effective(row.Availability, down, now)
	return &Schedule{Availability: row.Availability, OpenNow: open, NextChangeAt: next, UpdatedAt: row.UpdatedAt}
}

// effective says whether a offers GPUs at now outside the maintenance
// intervals down, and when that next changes (nil: never).
func effective(a models.Availability, down []interval, now time.Time) (bool, *time.Time) {
	at := func(t time.Time) bool {
		for _, d := range down {
			if !t.Before(d.from) && t.Before(d.to) {
				return false
			}
		}
		return OpenAt(a, t)
	}
	open := at(now)
	t := now
	// Each step passes one schedule change or maintenance bound, so a
	// change comes within a few steps; the bound only guards the loop.
	for range 4*len(down) + 64 {
		var next *time.Time
		consider := func(c time.Time) {
			if c.After(t) && (next == nil || c.Before(*next)) {
				next = &c
			}
		}
		if c := NextChange(a, t); c != nil {
			consider(*c)
		}
		for _, d := range down {
			consider(d.from)
			consider(d.to)
		}
		if next == nil {
			return open, nil
		}
		if at(*next) != open {
			return open, next
		}
		t = *next
	}
	return open, nil
}

// Maintenance lists the provider's maintenance windows that have not
// ended, soonest first.
func (s *Service) Maintenance(ctx context.Context, providerID int64) ([]*models.MaintenanceWindow, error) {
	mws := []*models.MaintenanceWindow{}
	if err := s.deps.DB.NewSelect().Model(&mws).Where("provider_id = ? AND ends_at > ?", providerID, s.deps.Clock.Now()).
		OrderExpr("starts_at ASC, id ASC").Scan(ctx); err != nil {
		return nil, fmt.Errorf("pricing: unable to list maintenance: %w", err)
	}
	return mws, nil
}

// MaintenanceBetween is the first maintenance window of the machine, or of
// all its provider's machines, that overlaps [from, to); nil when none
// does. The market refuses a rental running into one unless the customer
// accepts an end before it.
func (s *Service) MaintenanceBetween(ctx context.Context, machineID int64, from, to time.Time) (*models.MaintenanceWindow, error) {
	provider := s.deps.DB.NewSelect().Model((*models.Machine)(nil)).Column("provider_id").Where("id = ?", machineID)
	mw := new(models.MaintenanceWindow)
	err := s.deps.DB.NewSelect().Model(mw).
		Where("(machine_id = ? OR (machine_id IS NULL AND provider_id = (?)))", machineID, provider).
		Where("starts_at < ? AND ends_at > ?", to.UTC(), from.UTC()).
		OrderExpr("starts_at ASC, id ASC").Limit(1).Scan(ctx)
	switch {
	case store.IsNoRows(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("pricing: unable to look for maintenance: %w", err)
	}
	return mw, nil
}

// Refresh stores the starting schedule of providers that have none yet,
// and moves open_from and open_until on to the next open interval where
// the stored one has ended. One replica runs it (RunBackground); running
// it on several at once is harmless.
func (s *Service) Refresh(ctx context.Context) error {
	now := s.deps.Clock.Now()
	var missing []int64
	if err := s.deps.DB.NewSelect().Model((*models.Provider)(nil)).Column("p.id").
		Where("NOT EXISTS (SELECT 1 FROM provider_schedules AS ps WHERE ps.provider_id = p.id)").Scan(ctx, &missing); err != nil {
		return fmt.Errorf("pricing: unable to find providers without a schedule: %w", err)
	}
	for _, id := range missing {
		if err := s.ensure(ctx, id); err != nil {
			return err
		}
	}
	var ended []*models.ProviderSchedule
	if err := s.deps.DB.NewSelect().Model(&ended).Where("open_until IS NOT NULL AND open_until <= ?", now).Scan(ctx); err != nil {
		return fmt.Errorf("pricing: unable to find ended intervals: %w", err)
	}
	for _, row := range ended {
		from, until := openColumns(row.Availability, now)
		// Only if the schedule was not set meanwhile.
		if _, err := s.deps.DB.NewUpdate().Model((*models.ProviderSchedule)(nil)).
			Set("open_from = ?, open_until = ?", from, until).
			Where("provider_id = ? AND updated_at = ?", row.ProviderID, row.UpdatedAt).Exec(ctx); err != nil {
			return fmt.Errorf("pricing: unable to refresh the schedule: %w", err)
		}
	}
	return nil
}

// WhereOpen filters q to GPUs offered at t: the provider's schedule open
// (open_from <= t < open_until) and no maintenance of the machine or of all
// the provider's machines under way. providerID and machineID are the SQL
// expressions of the row's provider and machine ids (e.g. "m.provider_id",
// "m.id").
func WhereOpen(q *bun.SelectQuery, providerID, machineID string, t time.Time) *bun.SelectQuery {
	t = t.UTC()
	return q.
		Where("EXISTS (SELECT 1 FROM provider_schedules AS ps WHERE ps.provider_id = "+providerID+
			" AND ps.open_from <= ? AND (ps.open_until IS NULL OR ps.open_until > ?))", t, t).
		Where("NOT EXISTS (SELECT 1 FROM maintenance_windows AS mw WHERE mw.provider_id = "+providerID+
			" AND (mw.machine_id IS NULL OR mw.machine_id = "+machineID+") AND mw.starts_at <= ? AND mw.ends_at > ?)", t, t)
}
