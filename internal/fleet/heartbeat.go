package fleet

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/models"
)

// Channel is the bus channel of providerID's machine transitions.
func Channel(providerID int64) string {
	return "provider." + strconv.FormatInt(providerID, 10) + ".machines"
}

func presenceKey(machineID int64) string { return "machine:" + strconv.FormatInt(machineID, 10) }

// beat is what the presence store holds for an online machine.
type beat struct {
	At   time.Time               `json:"at"`
	Gpus []protocol.GpuTelemetry `json:"g"`
}

// beatOf is machineID's beat among values read from the presence store;
// false when it has none, or one that does not decode.
func beatOf(values map[string][]byte, machineID int64) (beat, bool) {
	raw, ok := values[presenceKey(machineID)]
	if !ok {
		return beat{}, false
	}
	var b beat
	if err := json.Unmarshal(raw, &b); err != nil {
		return beat{}, false
	}
	return b, true
}

// machineEvent is published on a provider's machines channel: a
// transition (Status) or a telemetry sample (Beat, the beat as the
// presence store holds it).
type machineEvent struct {
	MachineID int64                  `json:"machineId"`
	Status    protocol.MachineStatus `json:"status,omitempty"`
	Beat      json.RawMessage        `json:"beat,omitempty"`
}

// HeartbeatResult answers a heartbeat.
type HeartbeatResult struct {
	Accepted bool
	Status   *protocol.MachineStatus
	Interval time.Duration
	Commands []*models.AgentCommand
}

// transitionTimeout bounds a heartbeat's status change once the beat is
// taken, whether or not the agent still waits for the answer.
const transitionTimeout = 10 * time.Second

// Heartbeat records a machine's liveness and telemetry. Steady state
// touches only the presence store, and publishes the telemetry when the
// sampler takes it (once per machine per TelemetryEvery).
func (s *Service) Heartbeat(ctx context.Context, agent *auth.Agent, in protocol.HeartbeatInput) (*HeartbeatResult, error) {
	now := s.deps.Clock.Now()
	if err := validateHeartbeat(&in, now); err != nil {
		return nil, err
	}
	ref, err := s.admission.resolve(ctx, agent, in.MachineID)
	if err != nil {
		return nil, err
	}
	if err := s.admission.allowHeartbeat(ref); err != nil {
		return nil, err
	}
	res := &HeartbeatResult{Accepted: true, Interval: s.cfg.Interval}
	if in.GoingOffline != nil && *in.GoingOffline {
		// The agent's last words are its last heartbeat. SQL first, then
		// presence: the other way round, a sweep in between would find
		// the key gone and record an unplanned outage.
		reason := models.OfflinePlanned
		if err := s.transition(ctx, ref, protocol.MachineOffline, &reason, now, now); err != nil {
			return nil, err
		}
		if _, err := s.deps.Presence.Remove(ctx, presenceKey(ref.id)); err != nil {
			return nil, fmt.Errorf("fleet: unable to clear presence: %w", err)
		}
		st := protocol.MachineOffline
		res.Status = &st
		return res, nil
	}
	at := now
	if in.At != nil {
		// At the precision times are stored and shown with, however the
		// transport decoded it (the prepared path keeps nanoseconds).
		at = in.At.UTC().Truncate(time.Microsecond)
	}
	if now.Sub(at) > s.cfg.Grace() {
		// A replayed sample from an outage: acknowledged, not live state.
		return res, nil
	}
	value, err := json.Marshal(beat{At: at, Gpus: in.Gpus})
	if err != nil {
		return nil, fmt.Errorf("fleet: unable to encode telemetry: %w", err)
	}
	appeared, err := s.deps.Presence.Touch(ctx, presenceKey(ref.id), value, s.cfg.Grace())
	if err != nil {
		return nil, fmt.Errorf("fleet: unable to record presence: %w", err)
	}
	if appeared {
		// The transition's event shows this beat's telemetry.
		s.samples.shown(ref.id, now)
		// The beat was received: an agent that stops waiting for the
		// answer does not undo it, so the transition is not cancelled
		// with the request.
		tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), transitionTimeout)
		defer cancel()
		if err := s.transition(tctx, ref, protocol.MachineOnline, nil, at, at); err != nil {
			// Presence says the machine is here, SQL still says it is
			// not: the next beat would not "appear" and the machine would
			// stay offline while it heartbeats. Forget this beat's key so
			// the next one tries the transition again.
			// (If that fails too, the sweeper's heal finds the machine.)
			// A commit that went through but answered an error left the
			// machine online: its key stays, or the next sweep would take
			// it offline at once.
			rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), transitionTimeout)
			defer rcancel()
			var status protocol.MachineStatus
			if serr := s.deps.DB.NewSelect().Model((*models.Machine)(nil)).Column("status").Where("id = ?", ref.id).Scan(rctx, &status); serr != nil || status != protocol.MachineOnline {
				if _, rerr := s.deps.Presence.Remove(rctx, presenceKey(ref.id)); rerr != nil {
					s.deps.Logger.WarnContext(ctx, "fleet: unable to clear presence after a failed transition", "machine_id", ref.id, "err", rerr)
				}
			}
			return nil, err
		}
	} else {
		s.publishSample(ctx, ref, value, now)
	}
	st := protocol.MachineOnline
	res.Status = &st
	if s.commands.waiting(ref.id) {
		if res.Commands, err = s.commands.take(ctx, ref.id); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// transition moves a machine to status at at, recording the interval and
// announcing it, unless it is there already (so racing replicas record it
// once). lastBeat is the machine's latest heartbeat, kept with the status
// so an offline machine still says when it was last heard from: this
// write is the transition's, never a heartbeat's.
func (s *Service) transition(ctx context.Context, ref machineRef, to protocol.MachineStatus, reason *models.OfflineReason, at, lastBeat time.Time) error {
	from := protocol.MachineOffline
	if to == protocol.MachineOffline {
		from = protocol.MachineOnline
	}
	changed := false
	err := s.deps.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		now := s.deps.Clock.Now()
		res, err := tx.NewUpdate().Model((*models.Machine)(nil)).
			Set("status = ?", to).Set("offline_reason = ?", reason).Set("status_changed_at = ?", at).Set("last_heartbeat_at = ?", lastBeat).Set("updated_at = ?", now).
			Where("id = ? AND status = ?", ref.id, from).Exec(ctx)
		if err != nil {
			return fmt.Errorf("fleet: unable to change status: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		changed = true
		if _, err := tx.NewUpdate().Model((*models.MachineStatusInterval)(nil)).Set("ended_at = ?", at).
			Where("machine_id = ? AND ended_at IS NULL", ref.id).Exec(ctx); err != nil {
			return fmt.Errorf("fleet: unable to close status interval: %w", err)
		}
		if _, err := tx.NewInsert().Model(&models.MachineStatusInterval{MachineID: ref.id, Status: to, Reason: reason, StartedAt: at}).Exec(ctx); err != nil {
			return fmt.Errorf("fleet: unable to open status interval: %w", err)
		}
		payload, _ := json.Marshal(machineEvent{MachineID: ref.id, Status: to})
		store.AfterCommit(ctx, func() {
			pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			if err := s.deps.Bus.Publish(pctx, Channel(ref.providerID), payload); err != nil {
				s.deps.Logger.WarnContext(ctx, "fleet: unable to publish transition", "machine_id", ref.id, "err", err)
			}
		})
		return nil
	})
	if err == nil && changed {
		attrs := []any{"machine_id", ref.id, "status", to}
		if reason != nil {
			attrs = append(attrs, "reason", *reason)
		}
		s.deps.Logger.InfoContext(ctx, "fleet: machine status changed", attrs...)
		for _, fn := range s.onTransition {
			fn(ctx, Transition{MachineID: ref.id, ProviderID: ref.providerID, Status: to, Reason: reason, At: at, LastBeat: lastBeat})
		}
	}
	return err
}
