package bench

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/fault/faulttest"
	"github.com/gpunex/gpunex/internal/store"
	"github.com/gpunex/gpunex/internal/store/storetest"
	"github.com/gpunex/gpunex/models"
)

// A pending run's parts show on the Benchmarks tab as the agent reports
// each one finished: live over the subscription, once each, in the order
// they finished; the run's result stays what decides the listing.
func TestARunsPartsShowAsTheAgentReportsThem(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setupStack(t, db)
		machineID := b.register(t, b.agent, "machine-1", gpu("GPU-A", 0, h100), gpu("GPU-B", 1, h100))
		run := b.runOf(t, b.agent, "machine-1")

		ctx, cancel := context.WithCancel(b.ctx)
		defer cancel()
		ch, err := b.svc.Subscribe(ctx, b.agent.ProviderID)
		require.NoError(t, err)
		require.True(t, next(t, ch).Initial)

		report := func(part protocol.BenchPart, uuid string, outcome protocol.BenchOutcome) {
			t.Helper()
			b.clock.Advance(time.Second)
			require.NoError(t, b.svc.ReportProgress(b.ctx, b.agent, protocol.BenchmarkProgressInput{
				RunID: run.RunID, MachineID: "machine-1", Part: part, GpuUUID: uuid, Outcome: outcome,
			}))
		}
		type step struct {
			Part    protocol.BenchPart
			GPU     string
			Outcome protocol.BenchOutcome
		}
		pendingSteps := func(ev *Event) []step {
			t.Helper()
			require.Equal(t, machineID, ev.Machine.MachineID)
			require.NotNil(t, ev.Machine.PendingRun, "the run is still pending")
			steps, err := b.svc.Steps(b.ctx, ev.Machine.PendingRun.ID)
			require.NoError(t, err)
			out := make([]step, len(steps))
			for i, s := range steps {
				out[i] = step{s.Part, s.GpuUUID, s.Outcome}
			}
			return out
		}

		report(protocol.BenchPartGPU, "GPU-B", protocol.BenchCompleted)
		require.Equal(t, []step{{protocol.BenchPartGPU, "GPU-B", protocol.BenchCompleted}}, pendingSteps(next(t, ch)))
		report(protocol.BenchPartNetwork, "", protocol.BenchFailed)
		require.Equal(t, []step{
			{protocol.BenchPartGPU, "GPU-B", protocol.BenchCompleted},
			{protocol.BenchPartNetwork, "", protocol.BenchFailed},
		}, pendingSteps(next(t, ch)))

		// Reported again (a retried request): accepted, stored once, no event.
		report(protocol.BenchPartGPU, "GPU-B", protocol.BenchCompleted)
		report(protocol.BenchPartGPU, "GPU-A", protocol.BenchCompleted)
		require.Len(t, pendingSteps(next(t, ch)), 3, "the repeat added nothing; GPU-A's report is the next event")
		require.Equal(t, models.GpuListingPending, b.listing(t, "GPU-A"), "progress lists nothing")

		// Once the result is in, the run is over: no more progress.
		b.clock.Advance(time.Minute)
		require.NoError(t, b.svc.Submit(b.ctx, b.agent, b.result(run.RunID, "machine-1", healthy("GPU-A"), healthy("GPU-B"))))
		err = b.svc.ReportProgress(b.ctx, b.agent, protocol.BenchmarkProgressInput{RunID: run.RunID, MachineID: "machine-1", Part: protocol.BenchPartStorage, Outcome: protocol.BenchCompleted})
		faulttest.RequireProblem(t, err, "input.runId", fault.InvalidState)
	})
}

// Bad progress is refused with the field named, and changes nothing.
func TestBadProgressIsRefusedAndStoresNothing(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		b := setup(t, db)
		other, _ := b.provider(t, "q")
		b.register(t, b.agent, "machine-1", gpu("GPU-A", 0, h100))
		b.register(t, b.agent, "machine-2", gpu("GPU-M2", 0, h100))
		b.register(t, other, "machine-q", gpu("GPU-Q", 0, h100))
		run := b.runOf(t, b.agent, "machine-1").RunID
		otherMachineRun := b.runOf(t, b.agent, "machine-2").RunID

		tests := []struct {
			desc  string
			agent *auth.Agent
			edit  func(in *protocol.BenchmarkProgressInput)
			code  fault.Code
			field string
			prob  fault.ProblemCode
		}{
			{desc: "another provider's machine", agent: other, code: fault.NotFound},
			{desc: "an unknown machine", edit: func(in *protocol.BenchmarkProgressInput) { in.MachineID = "machine-404" }, code: fault.NotFound},
			{desc: "no run id", edit: func(in *protocol.BenchmarkProgressInput) { in.RunID = "" }, field: "input.runId", prob: fault.Required},
			{desc: "a run of another machine", edit: func(in *protocol.BenchmarkProgressInput) { in.RunID = otherMachineRun }, field: "input.runId", prob: fault.InvalidValue},
			{desc: "an unknown part", edit: func(in *protocol.BenchmarkProgressInput) { in.Part = "DISK" }, field: "input.part", prob: fault.InvalidValue},
			{desc: "a GPU part without its GPU", edit: func(in *protocol.BenchmarkProgressInput) { in.GpuUUID = "" }, field: "input.gpuUuid", prob: fault.Required},
			{desc: "a GPU not of the machine", edit: func(in *protocol.BenchmarkProgressInput) { in.GpuUUID = "GPU-M2" }, field: "input.gpuUuid", prob: fault.InvalidValue},
			{desc: "a network part naming a GPU", edit: func(in *protocol.BenchmarkProgressInput) { in.Part = protocol.BenchPartNetwork }, field: "input.gpuUuid", prob: fault.InvalidValue},
			{desc: "an unknown outcome", edit: func(in *protocol.BenchmarkProgressInput) { in.Outcome = "DONE" }, field: "input.outcome", prob: fault.InvalidValue},
		}
		for _, tc := range tests {
			t.Run(tc.desc, func(t *testing.T) {
				in := protocol.BenchmarkProgressInput{RunID: run, MachineID: "machine-1", Part: protocol.BenchPartGPU, GpuUUID: "GPU-A", Outcome: protocol.BenchCompleted}
				if tc.edit != nil {
					tc.edit(&in)
				}
				agent := b.agent
				if tc.agent != nil {
					agent = tc.agent
				}
				err := b.svc.ReportProgress(b.ctx, agent, in)
				if tc.code != "" {
					require.Equal(t, tc.code, fault.CodeOf(err), "%v", err)
				} else {
					faulttest.RequireProblem(t, err, tc.field, tc.prob)
				}
				require.Zero(t, b.count(t, "benchmark_run_steps", ""), "nothing stored")
			})
		}
	})
}
