package reliability

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// oneDay is a snapshot's span: a UTC day.
const oneDay = 24 * time.Hour

// ImportPast lays down the pasts of a provider's machines (steps by
// machine id, each oldest first: a record from before the platform saw
// them, or the demo world's month) by replaying them merged in time
// order through the same paths as live transitions and job ends
// (replay), and at the end of each UTC day the replay covers, up to
// yesterday, storing the provider's and its machines' snapshots of that
// day as Refresh would have (the same summary, as of the day's end): the
// trend then shows the imported days. Today's snapshot is Refresh's.
// Machines with uptime history or past snapshots already are left out,
// and with none left nothing is written, so importing again adds
// nothing. It reports whether it replayed. The pasts are checked first
// (a *fault.Validation naming the machine): machines of the provider,
// their steps in order and none after now.
func (s *Service) ImportPast(ctx context.Context, providerID int64, pasts map[int64][]PastStep) (bool, error) {
	type item struct {
		machineID int64
		step      PastStep
	}
	now := s.deps.Clock.Now()
	if err := s.checkPasts(ctx, providerID, pasts, now); err != nil {
		return false, err
	}
	var items []item
	today := now.UTC().Truncate(oneDay)
	for _, id := range slices.Sorted(maps.Keys(pasts)) {
		var den float64
		err := s.deps.DB.NewSelect().Model((*models.ReliabilityMachine)(nil)).Column("up_den").
			Where("machine_id = ?", id).Scan(ctx, &den)
		if err != nil && !store.IsNoRows(err) {
			return false, fmt.Errorf("reliability: unable to read machine %d: %w", id, err)
		}
		// A past without an outage leaves no uptime history: its past
		// snapshots say it was replayed (today's may be Refresh's).
		replayed, err := s.deps.DB.NewSelect().Model((*models.ReliabilitySnapshot)(nil)).
			Where("machine_id = ? AND day < ?", id, today).Exists(ctx)
		if err != nil {
			return false, fmt.Errorf("reliability: unable to read machine %d's snapshots: %w", id, err)
		}
		if den > 0 || replayed {
			continue
		}
		for _, st := range pasts[id] {
			items = append(items, item{id, st})
		}
	}
	if len(items) == 0 {
		return false, nil
	}
	slices.SortStableFunc(items, func(a, b item) int { return a.step.At.Compare(b.step.At) })
	end := items[0].step.At.UTC().Truncate(oneDay).Add(oneDay)
	// snapshotsUntil stores the days that end by t (and by today).
	snapshotsUntil := func(t time.Time) error {
		for ; !end.After(t) && !end.After(today); end = end.Add(oneDay) {
			sum, err := s.summary(ctx, providerID, nil, end)
			if err != nil {
				return err
			}
			if err := s.storeSnapshots(ctx, sum, end.Add(-oneDay)); err != nil {
				return err
			}
		}
		return nil
	}
	for _, it := range items {
		// A day ends once every step before its end is in.
		if err := snapshotsUntil(it.step.At.Add(-time.Nanosecond)); err != nil {
			return false, err
		}
		if err := s.replay(ctx, it.machineID, providerID, it.step); err != nil {
			return false, err
		}
	}
	return true, snapshotsUntil(today)
}

// checkPasts checks the pasts ImportPast is given as of now.
func (s *Service) checkPasts(ctx context.Context, providerID int64, pasts map[int64][]PastStep, now time.Time) error {
	ids := slices.Sorted(maps.Keys(pasts))
	if len(ids) == 0 {
		return nil
	}
	var owned []int64
	if err := s.deps.DB.NewSelect().Model((*models.Machine)(nil)).Column("id").
		Where("provider_id = ? AND id IN (?)", providerID, bun.List(ids)).Scan(ctx, &owned); err != nil {
		return fmt.Errorf("reliability: unable to read the provider's machines: %w", err)
	}
	var v fault.Validation
	for _, id := range ids {
		field := fmt.Sprintf("pasts[%d]", id)
		if !slices.Contains(owned, id) {
			v.Add(field, fault.InvalidValue, "a machine of the provider")
			continue
		}
		for i, st := range pasts[id] {
			switch {
			case st.At.After(now):
				v.Add(fmt.Sprintf("%s[%d].at", field, i), fault.InFuture, "a step of the past")
			case i > 0 && st.At.Before(pasts[id][i-1].At):
				v.Add(fmt.Sprintf("%s[%d].at", field, i), fault.InvalidValue, "steps oldest first")
			}
		}
	}
	return v.Err()
}
