package demo

import (
	"context"
	"fmt"
	"time"

	"github.com/gpunex/gpunex/agent/bench"
	"github.com/gpunex/gpunex/agent/client"
	"github.com/gpunex/gpunex/agent/gpu"
	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/clock"
)

// historyDays is how many daily benchmarks a demo machine has behind it;
// a GPU with a degrading profile ran healthy until degradedDays ago.
const (
	historyDays  = 14
	degradedDays = 3
)

// seedBenchmarkHistory registers a demo machine ahead of its agent (which
// asks for its registration benchmark) and, the first time, records
// historyDays of daily results modelled by the agent's own simulator: the
// healthy spec until degradedDays ago, the machine's spec since, so the
// throttled demo GPU was delisted days ago with its guidance, and the
// chart shows when. It returns the machine's id.
func (w World) seedBenchmarkHistory(ctx context.Context, agent *auth.Agent, m demoMachine) (int64, error) {
	sim := gpu.NewSimulator(m.spec, gpu.WithSeed(m.ID))
	inv, err := sim.Inventory(ctx)
	if err != nil {
		return 0, err
	}
	reg := protocol.RegisterMachineInput{MachineID: m.ID, Hostname: m.Hostname, AgentVersion: "demo", Gpus: client.InventoryInput(inv), Host: m.host}
	machine, err := w.Fleet.Register(ctx, agent, reg)
	if err != nil {
		return 0, fmt.Errorf("registering %s: %w", m.Hostname, err)
	}
	views, err := w.Bench.Machines(ctx, machine.ProviderID)
	if err != nil {
		return 0, err
	}
	for _, v := range views {
		if v.MachineID == machine.ID && len(v.Gpus) > 0 && len(v.Gpus[0].History) > 0 {
			// Recorded at an earlier start.
			return machine.ID, nil
		}
	}
	healthy := make(gpu.SimSpec, len(m.spec))
	for i, g := range m.spec {
		healthy[i] = gpu.SimGroup{Count: g.Count, Model: g.Model}
	}
	now := time.Now().UTC()
	results := make([]protocol.BenchmarkResultInput, 0, historyDays)
	for d := historyDays; d >= 1; d-- {
		spec := healthy
		if d <= degradedDays {
			spec = m.spec
		}
		at := now.Add(-time.Duration(d)*24*time.Hour + time.Duration(d%5)*17*time.Minute)
		s := gpu.NewSimulator(spec, gpu.WithSeed(m.ID))
		suite := bench.NewSuite(bench.Options{MachineID: m.ID, Detector: s, Simulator: s,
			GPU: &bench.SimulatedMeasurer{Sim: s, Duration: time.Millisecond}, Clock: clock.NewManual(at)})
		res := suite.Run(ctx, protocol.RunBenchmarkPayload{RunID: fmt.Sprintf("demo-%s-%d", m.ID, d), Reason: protocol.BenchScheduled})
		res.FinishedAt = res.StartedAt.Add(40 * time.Second)
		results = append(results, res)
	}
	return machine.ID, w.Bench.ImportResults(ctx, machine.ID, results)
}
