package billing

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/models"
)

// Schedule is how often a provider is paid; the earnings period follows
// it.
type Schedule string

// The schedules.
const (
	Weekly  Schedule = "WEEKLY"
	Monthly Schedule = "MONTHLY"
)

// Grouping is the bucket size of earnings history.
type Grouping string

// The groupings.
const (
	ByHour  Grouping = "HOUR"
	ByDay   Grouping = "DAY"
	ByWeek  Grouping = "WEEK"
	ByMonth Grouping = "MONTH"
)

// MaxBuckets bounds one history answer.
const MaxBuckets = 10_000

// Period is a payout period and what was earned in it so far.
type Period struct {
	Kind       Schedule
	Start, End time.Time
	Gross, Fee models.USDC
}

// Net is what the provider keeps.
func (p Period) Net() models.USDC { return p.Gross - p.Fee }

// GpuEarnings is one GPU's share of the period.
type GpuEarnings struct {
	GpuID, MachineID int64
	UUID, Hostname   string
	// Index is the GPU's index on its machine.
	Index      int
	ModelKey   string
	Gross, Fee models.USDC
}

// ModelEarnings is one model's share of the period.
type ModelEarnings struct {
	ModelKey   string
	Gross, Fee models.USDC
}

// Bucket is one step of earnings history.
type Bucket struct {
	Start      time.Time
	Gross, Fee models.USDC
}

// Summary is a provider's earnings now: the earnings tracker's state.
type Summary struct {
	ProviderID int64
	TimeZone   string
	AsOf       time.Time
	Period     Period
	// AccrualPerHour is what the provider's running rentals earn it per
	// hour (after the fee): how fast Period grows between updates.
	AccrualPerHour models.USDC
	ByGpu          []GpuEarnings
	ByModel        []ModelEarnings
	// Available is earned and neither paid out nor in a payout.
	Available models.USDC
}

// zoneOf is the provider's time zone: its schedule's, else UTC.
func (s *Service) zoneOf(ctx context.Context, providerID int64) (*time.Location, error) {
	var tz *string
	err := s.deps.DB.NewSelect().Model((*models.ProviderSchedule)(nil)).Column("availability_time_zone").
		Where("provider_id = ?", providerID).Scan(ctx, &tz)
	if err != nil && !isNoRows(err) {
		return nil, fmt.Errorf("billing: unable to read the provider's time zone: %w", err)
	}
	if tz != nil {
		if loc, err := time.LoadLocation(*tz); err == nil {
			return loc, nil
		}
	}
	return time.UTC, nil
}

// PeriodOf is the payout period containing t in loc: the week from Monday
// 00:00, or the month from its first day.
func PeriodOf(kind Schedule, t time.Time, loc *time.Location) (time.Time, time.Time) {
	t = t.In(loc)
	if kind == Monthly {
		start := time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, loc)
		return start, time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, loc)
	}
	day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, loc)
	start := day.AddDate(0, 0, -((int(day.Weekday()) + 6) % 7))
	return start, start.AddDate(0, 0, 7)
}

// scheduleOf is the provider's payout schedule (weekly until it chooses).
func (s *Service) scheduleOf(ctx context.Context, providerID int64) (Schedule, error) {
	var kind string
	err := s.deps.DB.NewRaw("SELECT schedule FROM payout_methods WHERE provider_id = ?", providerID).Scan(ctx, &kind)
	switch {
	case err == nil && kind == string(Monthly):
		return Monthly, nil
	case err == nil, isNoRows(err):
		return Weekly, nil
	default:
		return "", fmt.Errorf("billing: unable to read the payout schedule: %w", err)
	}
}

// Summary is providerID's earnings tracker now.
func (s *Service) Summary(ctx context.Context, providerID int64) (*Summary, error) {
	loc, err := s.zoneOf(ctx, providerID)
	if err != nil {
		return nil, err
	}
	kind, err := s.scheduleOf(ctx, providerID)
	if err != nil {
		return nil, err
	}
	now := s.deps.Clock.Now()
	from, to := PeriodOf(kind, now, loc)
	sum := &Summary{ProviderID: providerID, TimeZone: loc.String(), AsOf: now, Period: Period{Kind: kind, Start: from, End: to},
		ByGpu: []GpuEarnings{}, ByModel: []ModelEarnings{}}

	var models_ []*models.ProviderEarningsHour
	if err := s.deps.DB.NewSelect().Model(&models_).ColumnExpr("model_key, SUM(gross_micros) AS gross_micros, SUM(fee_micros) AS fee_micros").
		Where("provider_id = ? AND hour >= ? AND hour < ?", providerID, from.UTC(), to.UTC()).Group("model_key").Order("model_key").Scan(ctx); err != nil {
		return nil, fmt.Errorf("billing: unable to read earnings by model: %w", err)
	}
	for _, m := range models_ {
		sum.ByModel = append(sum.ByModel, ModelEarnings{ModelKey: m.ModelKey, Gross: m.Gross, Fee: m.Fee})
		sum.Period.Gross += m.Gross
		sum.Period.Fee += m.Fee
	}
	var gpus []struct {
		GpuID     int64       `bun:"gpu_id"`
		MachineID int64       `bun:"machine_id"`
		UUID      string      `bun:"uuid"`
		Index     int         `bun:"idx"`
		Hostname  string      `bun:"hostname"`
		ModelKey  string      `bun:"model_key"`
		Gross     models.USDC `bun:"gross"`
		Fee       models.USDC `bun:"fee"`
	}
	if err := s.deps.DB.NewRaw(`SELECT egh.gpu_id, egh.machine_id, mg.uuid, mg.idx, m.hostname, egh.model_key,
		SUM(egh.gross_micros) AS gross, SUM(egh.fee_micros) AS fee
		FROM earnings_gpu_hours egh JOIN machine_gpus mg ON mg.id = egh.gpu_id JOIN machines m ON m.id = egh.machine_id
		WHERE egh.provider_id = ? AND egh.hour >= ? AND egh.hour < ?
		GROUP BY egh.gpu_id, egh.machine_id, mg.uuid, mg.idx, m.hostname, egh.model_key ORDER BY m.hostname, mg.idx`,
		providerID, from.UTC(), to.UTC()).Scan(ctx, &gpus); err != nil {
		return nil, fmt.Errorf("billing: unable to read earnings by GPU: %w", err)
	}
	for _, g := range gpus {
		sum.ByGpu = append(sum.ByGpu, GpuEarnings{GpuID: g.GpuID, MachineID: g.MachineID, UUID: g.UUID, Index: g.Index, Hostname: g.Hostname,
			ModelKey: g.ModelKey, Gross: g.Gross, Fee: g.Fee})
	}
	var rates []struct {
		Rate   int64 `bun:"rate"`
		FeeBps int   `bun:"fee_bps"`
	}
	if err := s.deps.DB.NewSelect().Model((*models.Rental)(nil)).ColumnExpr("price_micros * gpu_count AS rate, fee_bps").
		Where("provider_id = ? AND started_at IS NOT NULL AND state IN (?)", providerID, bun.List(activeStates)).Scan(ctx, &rates); err != nil {
		return nil, fmt.Errorf("billing: unable to read running rentals: %w", err)
	}
	for _, r := range rates {
		sum.AccrualPerHour += models.USDC(r.Rate - r.Rate*int64(r.FeeBps)/10_000)
	}
	if sum.Available, err = s.balance(ctx, s.deps.DB, models.AccountProviderEarnings, providerID); err != nil {
		return nil, err
	}
	return sum, nil
}

// History is providerID's earnings from from to to (exclusive), in
// buckets of grouping in the provider's time zone (an hour belongs to the
// bucket its start is in), empty buckets included. It reads the hourly
// rollups per provider and model: its cost follows the buckets, not the
// metering ticks. Problems come back as a *fault.Validation naming
// from, to or groupBy.
func (s *Service) History(ctx context.Context, providerID int64, from, to time.Time, grouping Grouping) ([]*Bucket, error) {
	loc, err := s.zoneOf(ctx, providerID)
	if err != nil {
		return nil, err
	}
	starts, err := bucketStarts(from, to, grouping, loc)
	if err != nil {
		return nil, err
	}
	var rows []struct {
		Hour  time.Time   `bun:"hour"`
		Gross models.USDC `bun:"gross"`
		Fee   models.USDC `bun:"fee"`
	}
	if err := s.deps.DB.NewRaw(`SELECT hour, SUM(gross_micros) AS gross, SUM(fee_micros) AS fee FROM earnings_provider_hours
		WHERE provider_id = ? AND hour >= ? AND hour < ? GROUP BY hour ORDER BY hour`,
		providerID, starts[0].UTC(), starts[len(starts)-1].UTC()).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("billing: unable to read earnings history: %w", err)
	}
	out := make([]*Bucket, len(starts)-1)
	for i := range out {
		out[i] = &Bucket{Start: starts[i]}
	}
	i := 0
	for _, r := range rows {
		for i+1 < len(out) && !r.Hour.Before(starts[i+1]) {
			i++
		}
		out[i].Gross += r.Gross
		out[i].Fee += r.Fee
	}
	return out, nil
}

// bucketStarts are the bucket boundaries from the bucket containing from
// up to the one after to's, at most MaxBuckets buckets.
func bucketStarts(from, to time.Time, g Grouping, loc *time.Location) ([]time.Time, error) {
	var v fault.Validation
	if !to.After(from) {
		v.Add("to", fault.OutOfRange, "to must be after from")
	}
	var step func(time.Time) time.Time
	var floor func(time.Time) time.Time
	switch g {
	case ByHour:
		floor = func(t time.Time) time.Time { return t.Truncate(time.Hour) }
		step = func(t time.Time) time.Time { return t.Add(time.Hour) }
	case ByDay:
		floor = func(t time.Time) time.Time { return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, loc) }
		step = func(t time.Time) time.Time { return time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, loc) }
	case ByWeek:
		floor = func(t time.Time) time.Time { s, _ := PeriodOf(Weekly, t, loc); return s }
		step = func(t time.Time) time.Time { return time.Date(t.Year(), t.Month(), t.Day()+7, 0, 0, 0, 0, loc) }
	case ByMonth:
		floor = func(t time.Time) time.Time { s, _ := PeriodOf(Monthly, t, loc); return s }
		step = func(t time.Time) time.Time { return time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, loc) }
	default:
		v.Add("groupBy", fault.InvalidValue, "group by HOUR, DAY, WEEK or MONTH")
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	starts := []time.Time{floor(from.In(loc))}
	for starts[len(starts)-1].Before(to) {
		if len(starts) > MaxBuckets {
			v.Add("from", fault.OutOfRange, fmt.Sprintf("at most %d buckets: a shorter range or a larger grouping", MaxBuckets))
			return nil, &v
		}
		starts = append(starts, step(starts[len(starts)-1]))
	}
	return starts, nil
}

// HistoryCSV is History as CSV: start (RFC 3339 in the provider's zone),
// gross, fee and net in USDC with six decimals.
func (s *Service) HistoryCSV(ctx context.Context, providerID int64, from, to time.Time, grouping Grouping) (string, error) {
	buckets, err := s.History(ctx, providerID, from, to, grouping)
	if err != nil {
		return "", err
	}
	rows := make([][]string, len(buckets))
	for i, k := range buckets {
		rows[i] = []string{k.Start.Format(time.RFC3339), k.Gross.String(), k.Fee.String(), (k.Gross - k.Fee).String()}
	}
	return writeCSV([]string{"start", "gross_usdc", "fee_usdc", "net_usdc"}, rows)
}
