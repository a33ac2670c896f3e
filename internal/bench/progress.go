package bench

import (
	"context"
	"fmt"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/models"
)

// ReportProgress records that one part of a pending run of agent's
// machine finished (the network, the storage, or one of the machine's
// GPUs) and tells the provider's Benchmarks tab, so it shows the run
// going part by part. It is the agent's word and only progress: nothing
// is scored or listed from it; the result submitted at the end is what is
// checked. A part reported again is accepted and changes nothing; a run
// that is not this machine's, or no longer pending, is refused.
func (s *Service) ReportProgress(ctx context.Context, agent *auth.Agent, in protocol.BenchmarkProgressInput) error {
	var v fault.Validation
	runIDRule.Check(&v, inputPath.Field("runId"), in.RunID)
	switch in.Part {
	case protocol.BenchPartNetwork, protocol.BenchPartStorage:
		if in.GpuUUID != "" {
			v.Add("input.gpuUuid", fault.InvalidValue, "only a GPU part names a GPU")
		}
	case protocol.BenchPartGPU:
		if in.GpuUUID == "" {
			v.Add("input.gpuUuid", fault.Required, "a GPU part names its GPU")
		}
	default:
		v.Add("input.part", fault.InvalidValue, "NETWORK, STORAGE or GPU")
	}
	switch in.Outcome {
	case protocol.BenchCompleted, protocol.BenchFailed, protocol.BenchPostponed:
	default:
		v.Add("input.outcome", fault.InvalidValue, "COMPLETED, FAILED or POSTPONED")
	}
	if err := v.Err(); err != nil {
		return err
	}
	machineID, run, err := s.machineRun(ctx, agent, in.MachineID, in.RunID)
	if err != nil {
		return err
	}
	if run.State != models.BenchmarkRunPending {
		v.Add("input.runId", fault.InvalidState, "this run is over: its progress is no longer shown")
		return v.Err()
	}
	if in.Part == protocol.BenchPartGPU {
		gpus, err := s.machineGPUs(ctx, machineID)
		if err != nil {
			return err
		}
		if _, ok := gpus[in.GpuUUID]; !ok {
			v.Add("input.gpuUuid", fault.InvalidValue, "not a GPU of this machine")
			return v.Err()
		}
	}
	step := &models.BenchmarkRunStep{RunID: run.ID, Part: in.Part, GpuUUID: in.GpuUUID, Outcome: in.Outcome, ReportedAt: s.deps.Clock.Now()}
	res, err := s.deps.DB.NewInsert().Model(step).On("CONFLICT (run_id, part, gpu_uuid) DO NOTHING").Exec(ctx)
	if err != nil {
		return fmt.Errorf("bench: unable to record a run's progress: %w", err)
	}
	if n, _ := res.RowsAffected(); n > 0 {
		s.announce(ctx, run.ProviderID, run.MachineID)
	}
	return nil
}

// Steps are the parts of run id the agent reported finished, in the order
// they finished.
func (s *Service) Steps(ctx context.Context, runID int64) ([]*models.BenchmarkRunStep, error) {
	out := []*models.BenchmarkRunStep{}
	if err := s.deps.DB.NewSelect().Model(&out).Where("run_id = ?", runID).Order("reported_at", "id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("bench: unable to read a run's progress: %w", err)
	}
	return out, nil
}
