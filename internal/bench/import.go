package bench

import (
	"context"
	"fmt"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/models"
)

// ImportResults stores the results of a machine's runs that happened
// before now (a record from before the platform saw the machine, or the
// demo world's fortnight), oldest first, each as a SCHEDULED run asked
// and reported at its own StartedAt and FinishedAt. Each result is
// checked and scored as Submit's are (without checksums: a past run had
// no nonce) and moves the listing as Submit does, notices included; the
// times must be in the past and in order.
func (s *Service) ImportResults(ctx context.Context, machineID int64, results []protocol.BenchmarkResultInput) error {
	var m models.Machine
	if err := s.deps.DB.NewSelect().Model(&m).Column("id", "provider_id").Where("id = ?", machineID).Scan(ctx); err != nil {
		return fmt.Errorf("bench: unable to load machine: %w", err)
	}
	byUUID, err := s.machineGPUs(ctx, machineID)
	if err != nil {
		return err
	}
	now := s.deps.Clock.Now()
	for i, in := range results {
		if !in.FinishedAt.Before(now) || (i > 0 && !results[i-1].FinishedAt.Before(in.StartedAt)) {
			return fault.E(fault.Invalid, "bench: past results must be in the past and in order")
		}
		if err := s.validate(&in, byUUID, now); err != nil {
			return err
		}
		// A past run had no nonce: its figures are held to their evidence
		// and its model's metrics, without checksums.
		if err := s.cfg.Thresholds.verify(&in, byUUID, nil); err != nil {
			return err
		}
		run := &models.BenchmarkRun{RunID: newRunID(), MachineID: machineID, ProviderID: m.ProviderID, Reason: protocol.BenchScheduled,
			State: models.BenchmarkRunPending, RequestedAt: in.StartedAt.UTC()}
		if _, err := s.deps.DB.NewInsert().Model(run).Returning("id").Exec(ctx); err != nil {
			return fmt.Errorf("bench: unable to record run: %w", err)
		}
		if err := s.store(ctx, run, in, byUUID, in.FinishedAt.UTC()); err != nil {
			return err
		}
	}
	return nil
}
