package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/fleet"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// OnRegistered asks for a run when a machine registers for the first time
// (or was never scheduled) and when its driver or GPUs changed; the fleet
// calls it after every registration. A failure is logged: the periodic
// schedule asks again.
func (s *Service) OnRegistered(ctx context.Context, r fleet.Registered) {
	if err := s.onRegistered(ctx, r); err != nil && ctx.Err() == nil {
		s.deps.Logger.WarnContext(ctx, "bench: unable to schedule the machine's benchmark", "machine_id", r.MachineID, "err", err)
	}
}

func (s *Service) onRegistered(ctx context.Context, r fleet.Registered) error {
	now := s.deps.Clock.Now()
	sch := new(models.MachineBenchSchedule)
	err := s.deps.DB.NewSelect().Model(sch).Where("machine_id = ?", r.MachineID).Scan(ctx)
	var reason protocol.BenchReason
	switch {
	case store.IsNoRows(err):
		reason = protocol.BenchOnRegistration
		sch = &models.MachineBenchSchedule{MachineID: r.MachineID, NextRunAt: now.Add(s.cfg.Every + s.offset(r.MachineID)), Hardware: r.Hardware,
			SurpriseAt: ptr(s.surpriseAfter(now))}
		if _, err := s.deps.DB.NewInsert().Model(sch).On("CONFLICT (machine_id) DO NOTHING").Exec(ctx); err != nil {
			return fmt.Errorf("bench: unable to schedule: %w", err)
		}
	case err != nil:
		return fmt.Errorf("bench: unable to load the schedule: %w", err)
	case sch.Hardware != r.Hardware:
		reason = protocol.BenchHardwareChange
		if _, err := s.deps.DB.NewUpdate().Model(sch).Set("hardware = ?", r.Hardware).WherePK().Exec(ctx); err != nil {
			return fmt.Errorf("bench: unable to record the hardware: %w", err)
		}
	default:
		return nil
	}
	_, err = s.dispatch(ctx, r.MachineID, r.ProviderID, reason)
	return err
}

// RequestResult answers a provider's requestBenchmark.
type RequestResult struct {
	// Run is the run asked for, or the one already pending.
	Run *models.BenchmarkRun
	// AllowedAt is when the next request is accepted.
	AllowedAt time.Time
}

// Request benchmarks providerID's machine now. It is refused (TOO_SOON,
// with the time it will be accepted) within Cooldown of the last request;
// while a run is pending it answers that run and asks for no other.
func (s *Service) Request(ctx context.Context, providerID, machineID int64) (*RequestResult, error) {
	var m models.Machine
	err := s.deps.DB.NewSelect().Model(&m).Column("id", "provider_id").Where("id = ?", machineID).Scan(ctx)
	if store.IsNoRows(err) || (err == nil && m.ProviderID != providerID) {
		return nil, fault.E(fault.NotFound, "no such machine")
	}
	if err != nil {
		return nil, fmt.Errorf("bench: unable to load machine: %w", err)
	}
	now := s.deps.Clock.Now()
	var res RequestResult
	err = s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		sch := new(models.MachineBenchSchedule)
		err := s.deps.DB.ForUpdate(tx.NewSelect().Model(sch).Where("machine_id = ?", machineID)).Scan(ctx)
		if store.IsNoRows(err) {
			sch = &models.MachineBenchSchedule{MachineID: machineID, NextRunAt: now.Add(s.cfg.Every + s.offset(machineID)),
				SurpriseAt: ptr(s.surpriseAfter(now))}
			if _, err := tx.NewInsert().Model(sch).Exec(ctx); err != nil {
				return fmt.Errorf("bench: unable to schedule: %w", err)
			}
		} else if err != nil {
			return fmt.Errorf("bench: unable to load the schedule: %w", err)
		}
		if sch.LastRequestedAt != nil && now.Before(sch.LastRequestedAt.Add(s.cfg.Cooldown)) {
			res.AllowedAt = sch.LastRequestedAt.Add(s.cfg.Cooldown).UTC()
			var v fault.Validation
			v.Add("input.machineId", fault.TooSoon, fmt.Sprintf("a benchmark was asked for this machine less than %s ago; ask again after %s",
				s.cfg.Cooldown, res.AllowedAt.Format(time.RFC3339)))
			return v.Err()
		}
		res.AllowedAt = now.Add(s.cfg.Cooldown)
		_, err = tx.NewUpdate().Model(sch).Set("last_requested_at = ?", now).Where("machine_id = ?", machineID).Exec(ctx)
		return err
	})
	if err != nil {
		if _, ok := fault.AsValidation(err); ok {
			return &res, err
		}
		return nil, err
	}
	if pending, err := s.pendingRun(ctx, machineID, now); err != nil || pending != nil {
		res.Run = pending
		return &res, err
	}
	res.Run, err = s.dispatch(ctx, machineID, providerID, protocol.BenchRequested)
	if err != nil {
		return nil, err
	}
	return &res, nil
}

// pendingRun is machine's run still waiting for its result, if any.
func (s *Service) pendingRun(ctx context.Context, machineID int64, now time.Time) (*models.BenchmarkRun, error) {
	run := new(models.BenchmarkRun)
	err := s.deps.DB.NewSelect().Model(run).Where("machine_id = ? AND state = ? AND requested_at > ?",
		machineID, models.BenchmarkRunPending, now.Add(-s.cfg.RunTimeout)).OrderExpr("id DESC").Limit(1).Scan(ctx)
	if store.IsNoRows(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("bench: unable to load pending run: %w", err)
	}
	return run, nil
}

// dispatch records a pending run with a fresh nonce and queues its
// RUN_BENCHMARK command, delivered with the machine's next heartbeat.
func (s *Service) dispatch(ctx context.Context, machineID, providerID int64, reason protocol.BenchReason) (*models.BenchmarkRun, error) {
	nonce := newNonce()
	run := &models.BenchmarkRun{RunID: newRunID(), MachineID: machineID, ProviderID: providerID, Reason: reason,
		State: models.BenchmarkRunPending, RequestedAt: s.deps.Clock.Now(), Nonce: &nonce}
	if _, err := s.deps.DB.NewInsert().Model(run).Returning("id").Exec(ctx); err != nil {
		return nil, fmt.Errorf("bench: unable to record run: %w", err)
	}
	payload := protocol.RunBenchmarkPayload{RunID: run.RunID, Reason: reason, Nonce: nonce}
	if _, err := s.deps.Fleet.Enqueue(ctx, machineID, protocol.CommandRunBenchmark, payload); err != nil {
		return nil, err
	}
	s.deps.Logger.InfoContext(ctx, "bench: run asked", "run_id", run.RunID, "machine_id", machineID, "reason", reason)
	s.announce(ctx, providerID, machineID)
	return run, nil
}

// dueBatch bounds how many due machines one tick dispatches.
const dueBatch = 500

// Tick expires runs never reported, dispatches the periodic runs that are
// due on online machines (an offline machine's run waits until it is
// back), then the unannounced ones (see surprises). RunBackground calls it
// on the leading replica; tests call it directly.
func (s *Service) Tick(ctx context.Context) {
	s.periodic(ctx)
	s.surprises(ctx)
}

// periodic expires runs never reported and dispatches the periodic runs
// that are due.
func (s *Service) periodic(ctx context.Context) {
	now := s.deps.Clock.Now()
	var expired []struct {
		MachineID  int64 `bun:"machine_id"`
		ProviderID int64 `bun:"provider_id"`
	}
	if _, err := s.deps.DB.NewUpdate().Model((*models.BenchmarkRun)(nil)).Set("state = ?", models.BenchmarkRunExpired).
		Where("state = ? AND requested_at <= ?", models.BenchmarkRunPending, now.Add(-s.cfg.RunTimeout)).
		Returning("machine_id, provider_id").Exec(ctx, &expired); err != nil && ctx.Err() == nil {
		s.deps.Logger.WarnContext(ctx, "bench: unable to expire runs", "err", err)
	}
	for _, r := range expired {
		// An agent away longer than the timeout must not run the expired
		// run when it returns: the periodic schedule asks afresh.
		if _, err := s.deps.Fleet.Withdraw(ctx, r.MachineID, protocol.CommandRunBenchmark); err != nil && ctx.Err() == nil {
			s.deps.Logger.WarnContext(ctx, "bench: unable to withdraw an expired run", "machine_id", r.MachineID, "err", err)
		}
		s.announce(ctx, r.ProviderID, r.MachineID)
	}
	var due []struct {
		MachineID  int64 `bun:"machine_id"`
		ProviderID int64 `bun:"provider_id"`
		Retry      bool  `bun:"retry"`
	}
	if err := s.deps.DB.NewSelect().TableExpr("machine_bench_schedules AS mbs").Join("JOIN machines AS m ON m.id = mbs.machine_id").
		ColumnExpr("mbs.machine_id, m.provider_id, mbs.retry").
		Where("mbs.next_run_at <= ? AND m.status = ?", now, protocol.MachineOnline).OrderExpr("mbs.next_run_at ASC").Limit(dueBatch).
		Scan(ctx, &due); err != nil {
		if ctx.Err() == nil {
			s.deps.Logger.WarnContext(ctx, "bench: unable to find due runs", "err", err)
		}
		return
	}
	for _, d := range due {
		if _, err := s.deps.DB.NewUpdate().Model((*models.MachineBenchSchedule)(nil)).Set("next_run_at = ?", now.Add(s.cfg.Every)).
			Set("retry = ?", false).Where("machine_id = ?", d.MachineID).Exec(ctx); err != nil {
			s.deps.Logger.WarnContext(ctx, "bench: unable to advance the schedule", "machine_id", d.MachineID, "err", err)
			continue
		}
		if pending, err := s.pendingRun(ctx, d.MachineID, now); err != nil || pending != nil {
			continue
		}
		reason := protocol.BenchScheduled
		if d.Retry {
			reason = protocol.BenchRetry
		}
		if _, err := s.dispatch(ctx, d.MachineID, d.ProviderID, reason); err != nil && ctx.Err() == nil {
			s.deps.Logger.WarnContext(ctx, "bench: unable to dispatch a scheduled run", "machine_id", d.MachineID, "err", err)
		}
	}
}

// surprises dispatches the unannounced runs that are due: each machine
// has one at a random time in every period (Every long, see
// surpriseAfter), besides its periodic run at its fixed offset. It is
// asked as SCHEDULED, as the periodic one is, so the agent cannot tell
// them apart; a machine offline at its time, or with a run pending, skips
// it (an unannounced run kept for its return would be announced by the
// return). Either way the next one is drawn in the following period.
// Schedules without one (older than unannounced runs) get one drawn.
func (s *Service) surprises(ctx context.Context) {
	now := s.deps.Clock.Now()
	var due []struct {
		MachineID  int64                  `bun:"machine_id"`
		ProviderID int64                  `bun:"provider_id"`
		SurpriseAt *time.Time             `bun:"surprise_at"`
		Status     protocol.MachineStatus `bun:"status"`
	}
	if err := s.deps.DB.NewSelect().TableExpr("machine_bench_schedules AS mbs").Join("JOIN machines AS m ON m.id = mbs.machine_id").
		ColumnExpr("mbs.machine_id, m.provider_id, mbs.surprise_at, m.status").
		Where("mbs.surprise_at IS NULL OR mbs.surprise_at <= ?", now).OrderExpr("mbs.machine_id ASC").Limit(dueBatch).
		Scan(ctx, &due); err != nil {
		if ctx.Err() == nil {
			s.deps.Logger.WarnContext(ctx, "bench: unable to find due unannounced runs", "err", err)
		}
		return
	}
	for _, d := range due {
		next := s.surpriseAfter(now)
		if d.SurpriseAt != nil {
			// The period after the one it was due in, unless that is over
			// too (the leader was away): then the next one from now.
			if n := s.surpriseAfter(*d.SurpriseAt); !n.Add(s.cfg.Every).Before(now) {
				next = n
			}
		}
		if _, err := s.deps.DB.NewUpdate().Model((*models.MachineBenchSchedule)(nil)).Set("surprise_at = ?", next).
			Where("machine_id = ?", d.MachineID).Exec(ctx); err != nil {
			s.deps.Logger.WarnContext(ctx, "bench: unable to draw the next unannounced run", "machine_id", d.MachineID, "err", err)
			continue
		}
		if d.SurpriseAt == nil || d.Status != protocol.MachineOnline {
			continue
		}
		if pending, err := s.pendingRun(ctx, d.MachineID, now); err != nil || pending != nil {
			continue
		}
		run, err := s.dispatch(ctx, d.MachineID, d.ProviderID, protocol.BenchScheduled)
		if err != nil {
			if ctx.Err() == nil {
				s.deps.Logger.WarnContext(ctx, "bench: unable to dispatch an unannounced run", "machine_id", d.MachineID, "err", err)
			}
			continue
		}
		s.deps.Logger.InfoContext(ctx, "bench: unannounced run asked", "run_id", run.RunID, "machine_id", d.MachineID, "next", next)
	}
}

// changeEvent is what the bus carries: which machine's benchmarks changed.
type changeEvent struct {
	MachineID  int64 `json:"machineId"`
	ProviderID int64 `json:"providerId"`
}

// announce tells every replica that providerID's machine changed, once
// the caller's transaction (if any) commits.
func (s *Service) announce(ctx context.Context, providerID, machineID int64) {
	payload, _ := json.Marshal(changeEvent{MachineID: machineID, ProviderID: providerID})
	store.AfterCommit(ctx, func() {
		if err := s.deps.Bus.Publish(context.WithoutCancel(ctx), Channel(providerID), payload); err != nil {
			s.deps.Logger.WarnContext(ctx, "bench: unable to announce a change", "machine_id", machineID, "err", err)
		}
	})
}
