package market

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/fleet"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// ReportJobStatus records an agent's report of a rental's job: the
// machine must be the agent's provider's, the job the machine's, and its
// START_JOB delivered (an agent cannot run a job it was not given).
// STARTING and RUNNING move a starting rental on (RUNNING sets when it
// started); COMPLETED and FAILED end it (STOPPED when its customer had
// asked to stop it) and free its GPUs. The log tail is kept each time.
// The answer's Stop says the platform no longer wants the job: the
// rental was stopping or had ended before this report.
//
// The agent is the seller's software, so the times it reports are claims,
// kept as evidence (AgentStartedAt, AgentEndedAt), and the bill follows
// what the platform observed: a start is billed from the reported time
// bounded below by the heartbeat that delivered the START_JOB and by the
// report's arrival less ReportSkew, and above by the arrival; an end is
// billed to the reported time bounded above by the arrival (and, for a
// stop, by the customer's request: endTx).
func (s *Service) ReportJobStatus(ctx context.Context, agent *auth.Agent, in protocol.ReportJobStatusInput) (*protocol.ReportJobStatusAnswer, error) {
	if err := validateReport(&in, s.deps.Clock.Now()); err != nil {
		return nil, err
	}
	machineID, err := s.deps.Fleet.ResolveMachine(ctx, agent, in.MachineID)
	if err != nil {
		return nil, err
	}
	ans := &protocol.ReportJobStatusAnswer{Accepted: true}
	err = s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		r := new(models.Rental)
		if err := s.deps.DB.ForUpdate(tx.NewSelect().Model(r).Where("job_uid = ? AND machine_id = ?", in.JobID, machineID)).Scan(ctx); err != nil {
			if store.IsNoRows(err) {
				return fault.E(fault.NotFound, "no such job on this machine")
			}
			return fmt.Errorf("market: unable to load the job's rental: %w", err)
		}
		ans.Stop = r.State == models.RentalStopping || r.State.Ended()
		if r.State.Ended() {
			return nil
		}
		arrival := s.deps.Clock.Now().UTC()
		delivered, err := s.deliveredAt(ctx, tx, r)
		if err != nil {
			return err
		}
		if delivered == nil {
			v := &fault.Validation{}
			v.Add("input.jobId", fault.InvalidState, "the job has not been delivered to this machine")
			return v
		}
		claimed := in.At.UTC().Truncate(time.Microsecond)
		at := firstOf(claimed, arrival)
		if in.LogTail != nil {
			r.LogTail = in.LogTail
		}
		switch in.State {
		case protocol.JobCompleted, protocol.JobFailed:
			r.ExitCode, r.AgentEndedAt = in.ExitCode, &claimed
			if _, err := tx.NewUpdate().Model(r).Column("exit_code", "log_tail", "agent_ended_at").WherePK().Exec(ctx); err != nil {
				return fmt.Errorf("market: unable to record the report: %w", err)
			}
			state, cause := models.RentalCompleted, (*protocol.JobCause)(nil)
			if in.State == protocol.JobFailed {
				state, cause = models.RentalFailed, in.Cause
			}
			ans.Stop = false
			if err := s.endTx(ctx, tx, r, state, cause, in.Message, at); err != nil {
				return err
			}
			if err := s.settleEnded(ctx, tx, r); err != nil {
				return err
			}
			if claimed.After(arrival.Add(s.cfg.ReportSkew)) {
				return s.tellCorrected(ctx, tx, r, "end", claimed, *r.EndedAt)
			}
			return nil
		case protocol.JobRunning:
			if r.State == models.RentalStarting {
				started := firstOf(lastOf(claimed, *delivered, arrival.Add(-s.cfg.ReportSkew)), arrival)
				r.State, r.StartedAt, r.AgentStartedAt = models.RentalRunning, &started, &claimed
				if claimed.Before(delivered.Add(-s.cfg.ReportSkew)) || claimed.After(arrival.Add(s.cfg.ReportSkew)) {
					if err := s.tellCorrected(ctx, tx, r, "start", claimed, started); err != nil {
						return err
					}
				}
			}
		}
		r.UpdatedAt = s.deps.Clock.Now()
		if _, err := tx.NewUpdate().Model(r).Column("state", "started_at", "agent_started_at", "log_tail", "updated_at").WherePK().Exec(ctx); err != nil {
			return fmt.Errorf("market: unable to record the report: %w", err)
		}
		s.announce(ctx, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ans, nil
}

// The notices of a job report whose time could not be true: a start
// before the job was delivered, or a start or an end after the report
// arrived (beyond ReportSkew). The provider is told its agent's clock or
// software is off, the admins that a provider's agent reported it.
const (
	KindReportCorrected       = "market.report_corrected"
	KindReportCorrectedReview = "market.report_corrected_review"
)

// tellCorrected keeps the evidence in the log and tells r's provider and
// every admin, in tx, that r's agent claimed when (for what: "start" or
// "end") and the bill used billed instead.
func (s *Service) tellCorrected(ctx context.Context, tx bun.Tx, r *models.Rental, what string, claimed, billed time.Time) error {
	s.deps.Logger.WarnContext(ctx, "market: a job report's time could not be true; the bill uses the platform's",
		"rental_id", r.ID, "provider_id", r.ProviderID, "what", what, "claimed", claimed, "billed", billed)
	if s.deps.Notify == nil {
		return nil
	}
	var p struct {
		UserID int64  `bun:"user_id"`
		Name   string `bun:"name"`
	}
	if err := tx.NewSelect().TableExpr("providers").ColumnExpr("user_id, name").Where("id = ?", r.ProviderID).Scan(ctx, &p); err != nil {
		return fmt.Errorf("market: unable to read the provider: %w", err)
	}
	var hostname string
	if err := tx.NewSelect().TableExpr("machines").ColumnExpr("hostname").Where("id = ?", r.MachineID).Scan(ctx, &hostname); err != nil {
		return fmt.Errorf("market: unable to read the machine: %w", err)
	}
	var admins []int64
	if err := tx.NewSelect().Model((*models.UserRole)(nil)).Column("user_id").Where("role = ?", models.RoleAdmin).Scan(ctx, &admins); err != nil {
		return fmt.Errorf("market: unable to list admins: %w", err)
	}
	params := map[string]string{"rentalId": strconv.FormatInt(r.ID, 10), "hostname": hostname, "what": what,
		"claimed": claimed.UTC().Format(time.RFC3339), "billed": billed.UTC().Format(time.RFC3339),
		"providerId": strconv.FormatInt(r.ProviderID, 10), "provider": p.Name}
	own := &models.Notification{UserID: p.UserID, Kind: KindReportCorrected, Params: params,
		Title: fmt.Sprintf("A job report from %s was corrected", hostname),
		Body: fmt.Sprintf("The agent on %s reported rental %d's %s at %s, which cannot be: the platform bills it from what it observed, %s. "+
			"Check the machine's clock (NTP) and that it runs the GPUnex agent unmodified.", hostname, r.ID, what, params["claimed"], params["billed"])}
	if err := s.deps.Notify.Add(ctx, tx, own); err != nil {
		return err
	}
	for _, id := range admins {
		n := &models.Notification{UserID: id, Kind: KindReportCorrectedReview, Params: params,
			Title: "A provider's agent reported a job time that cannot be true",
			Body: fmt.Sprintf("%s's machine %s reported rental %d's %s at %s; it was billed at %s.", p.Name, hostname, r.ID, what,
				params["claimed"], params["billed"])}
		if err := s.deps.Notify.Add(ctx, tx, n); err != nil {
			return err
		}
	}
	return nil
}

// deliveredAt is when the heartbeat carrying r's START_JOB was answered,
// nil while it waits. A rental started before its command was recorded
// with it (migration 20261206000001) counts from its creation.
func (s *Service) deliveredAt(ctx context.Context, tx bun.Tx, r *models.Rental) (*time.Time, error) {
	if r.StartCommandID == nil {
		at := r.CreatedAt.UTC()
		return &at, nil
	}
	var at []time.Time
	if err := tx.NewSelect().Model((*models.AgentCommand)(nil)).Column("delivered_at").
		Where("id = ? AND delivered_at IS NOT NULL", *r.StartCommandID).Scan(ctx, &at); err != nil {
		return nil, fmt.Errorf("market: unable to read the job's delivery: %w", err)
	}
	if len(at) == 0 {
		return nil, nil
	}
	d := at[0].UTC()
	return &d, nil
}

// onTransition interrupts the rentals of a machine that went offline.
// The fleet calls it after the transition committed: for an unplanned
// one, after the grace without heartbeats.
func (s *Service) onTransition(ctx context.Context, t fleet.Transition) {
	if t.Status != protocol.MachineOffline {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := s.interruptMachine(ctx, t.MachineID, heardLast(t.At, &t.LastBeat)); err != nil {
		s.deps.Logger.WarnContext(ctx, "market: unable to interrupt the rentals of an offline machine", "machine_id", t.MachineID, "err", err)
	}
}

// heardLast is when a machine that went offline at offline was last heard
// from: its last heartbeat the platform received, when known and earlier.
// A rental on it is billed to there, not to the end of the grace the
// fleet waited before calling it offline.
func heardLast(offline time.Time, lastBeat *time.Time) time.Time {
	if lastBeat != nil && !lastBeat.IsZero() && lastBeat.Before(offline) {
		return *lastBeat
	}
	return offline
}

// interruptMachine ends the active rentals of machineID INTERRUPTED
// (PROVIDER) at at, or STOPPED when their customer had asked to stop, and
// queues STOP_JOB for each, delivered if the agent comes back.
func (s *Service) interruptMachine(ctx context.Context, machineID int64, at time.Time) error {
	var ended []*models.Rental
	err := s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		ended = nil
		var rs []*models.Rental
		if err := s.deps.DB.ForUpdate(tx.NewSelect().Model(&rs).Where("machine_id = ? AND state IN (?)", machineID, bun.List(activeStates))).Scan(ctx); err != nil {
			return fmt.Errorf("market: unable to load the machine's rentals: %w", err)
		}
		cause, msg := protocol.CauseProvider, "the machine went offline during the rental"
		for _, r := range rs {
			if err := s.endTx(ctx, tx, r, models.RentalInterrupted, &cause, &msg, at); err != nil {
				return err
			}
			ended = append(ended, r)
		}
		return s.settleEnded(ctx, tx, ended...)
	})
	if err != nil {
		return err
	}
	for _, r := range ended {
		s.deps.Logger.InfoContext(ctx, "market: rental ended by its machine going offline", "rental_id", r.ID, "state", r.State)
		if _, err := s.deps.Fleet.Enqueue(ctx, r.MachineID, protocol.CommandStopJob, protocol.StopJobPayload{JobID: r.JobID}); err != nil {
			s.deps.Logger.WarnContext(ctx, "market: unable to queue a stop", "rental_id", r.ID, "err", err)
		}
	}
	return nil
}

// endUnconfirmedStops ends STOPPED the rentals whose agent did not
// confirm a stop within StopGrace.
func (s *Service) endUnconfirmedStops(ctx context.Context) error {
	now := s.deps.Clock.Now()
	var ids []int64
	if err := s.deps.DB.NewSelect().Model((*models.Rental)(nil)).Column("id").
		Where("state = ? AND stop_requested_at <= ?", models.RentalStopping, now.Add(-s.cfg.StopGrace)).Scan(ctx, &ids); err != nil {
		return fmt.Errorf("market: unable to list unconfirmed stops: %w", err)
	}
	for _, id := range ids {
		if _, err := s.end(ctx, id, models.RentalStopped, nil, nil, now); err != nil {
			return err
		}
	}
	return nil
}

// interruptOffline ends the rentals still active on offline machines (a
// transition whose hook did not run, say the replica stopped), as of the
// machine's going offline.
func (s *Service) interruptOffline(ctx context.Context) error {
	var machines []*models.Machine
	if err := s.deps.DB.NewSelect().Model(&machines).Column("id", "status_changed_at", "last_heartbeat_at").
		Where("status = ?", protocol.MachineOffline).
		Where("EXISTS (SELECT 1 FROM rentals r WHERE r.machine_id = m.id AND r.state IN (?))", bun.List(activeStates)).
		Scan(ctx); err != nil {
		return fmt.Errorf("market: unable to list offline machines with rentals: %w", err)
	}
	for _, m := range machines {
		if err := s.interruptMachine(ctx, m.ID, heardLast(m.StatusChangedAt, m.LastHeartbeatAt)); err != nil {
			return err
		}
	}
	return nil
}

// firstOf and lastOf are the first and last of ts.
func firstOf(ts ...time.Time) time.Time {
	out := ts[0]
	for _, t := range ts[1:] {
		if t.Before(out) {
			out = t
		}
	}
	return out
}

func lastOf(ts ...time.Time) time.Time {
	out := ts[0]
	for _, t := range ts[1:] {
		if t.After(out) {
			out = t
		}
	}
	return out
}
