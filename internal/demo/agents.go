package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/gpunex/gpunex/agent"
	"github.com/gpunex/gpunex/agent/bench"
	"github.com/gpunex/gpunex/agent/client"
	"github.com/gpunex/gpunex/agent/gpu"
	"github.com/gpunex/gpunex/agent/protocol"
)

// demoMachine is one demo host, its spec parsed.
type demoMachine struct {
	ID, Hostname string
	spec         gpu.SimSpec
}

// agentTokenName names the token the in-process demo agents use; it is
// replaced at every start (the secret is never stored).
const agentTokenName = "demo in-process agents"

// machines are the demo provider's simulated hosts.
var machines = []struct {
	ID, Hostname, Spec string
	BusyGPUs           int
}{
	// The last H100 runs hot: its benchmarks since a few days ago find it
	// throttling for heat, and it is delisted with that guidance.
	{ID: "demo-lisbon-rack-01", Hostname: "lisbon-rack-01", Spec: "3xH100,1xH100:throttled", BusyGPUs: 2},
	{ID: "demo-lisbon-edge-01", Hostname: "lisbon-edge-01", Spec: "2xL4", BusyGPUs: 0},
}

// RunAgents runs the demo provider's simulated agents against the server
// at url until ctx ends, so `make run` shows a live fleet. They are the
// real agent client and simulator, talking GraphQL over HTTP. Its
// signature is platform background work's: the command hands it to
// Platform.AddBackground, which calls it with the bound URL.
func (w World) RunAgents(ctx context.Context, url string) {
	logger := w.logger().With("component", "demo-agents")
	u, err := w.Auth.UserByEmail(ctx, "provider@gpunex.demo")
	if err != nil {
		logger.Warn("demo: agents: no demo provider", "err", err)
		return
	}
	prov, err := w.Providers.ForUser(ctx, u.ID)
	if err != nil || prov == nil {
		logger.Warn("demo: agents: the demo provider is not approved", "err", err)
		return
	}
	tokens, err := w.Auth.AgentTokens(ctx, prov.ID)
	if err != nil {
		logger.Warn("demo: agents", "err", err)
		return
	}
	for _, t := range tokens {
		if t.Name == agentTokenName && t.RevokedAt == nil {
			_, _ = w.Auth.RevokeAgentToken(ctx, prov.ID, t.ID)
		}
	}
	_, secret, err := w.Auth.CreateAgentToken(ctx, prov.ID, agentTokenName)
	if err != nil {
		logger.Warn("demo: agents: unable to create a token", "err", err)
		return
	}
	agentID, err := w.Auth.AuthenticateAgent(ctx, secret)
	if err != nil {
		logger.Warn("demo: agents: the new token does not authenticate", "err", err)
		return
	}
	var wg sync.WaitGroup
	for _, mm := range machines {
		spec, err := gpu.ParseSimSpec(mm.Spec)
		if err != nil {
			logger.Warn("demo: agents", "err", err)
			continue
		}
		m := demoMachine{ID: mm.ID, Hostname: mm.Hostname, spec: spec}
		if err := w.seedBenchmarkHistory(ctx, agentID, m); err != nil {
			logger.Warn("demo: agents: no benchmark history", "machine", m.Hostname, "err", err)
		}
		sim := gpu.NewSimulator(spec, gpu.WithSeed(m.ID))
		busy := map[string]string{}
		if inv, err := sim.Inventory(ctx); err == nil {
			for i := 0; i < mm.BusyGPUs && i < len(inv); i++ {
				_ = sim.SetBusy(inv[i].UUID, true)
				busy[inv[i].UUID] = "demo-training-run"
			}
		}
		dataDir := filepath.Join(w.dataDir(), "demo-agents", m.Hostname)
		var runner *bench.Runner
		c, err := client.New(client.Options{
			Server: url, Token: secret, MachineID: m.ID, Hostname: m.Hostname,
			AgentVersion: agent.Version + " (demo, in-process)", Detector: sim,
			DataDir: dataDir,
			Logger:  logger.With("machine", m.Hostname),
			Handler: func(ctx context.Context, cmd client.Command) error {
				if cmd.Kind != client.CommandRunBenchmark {
					return nil // the demo machines run no jobs yet
				}
				var p protocol.RunBenchmarkPayload
				if err := json.Unmarshal(cmd.Payload, &p); err != nil {
					return err
				}
				return runner.Enqueue(p)
			},
		})
		if err != nil {
			logger.Warn("demo: agents", "err", err)
			continue
		}
		runner = benchRunner(m, sim, c, dataDir, busy)
		wg.Go(func() { runner.Run(ctx) })
		wg.Go(func() {
			defer c.Close()
			if err := c.Run(ctx); err != nil && ctx.Err() == nil {
				logger.Warn("demo: agent stopped", "machine", m.Hostname, "err", err)
			}
		})
	}
	logger.Info(fmt.Sprintf("demo: %d simulated machines are heartbeating", len(machines)))
	wg.Wait()
}

func (w World) dataDir() string {
	if w.DataDir == "" {
		return "data"
	}
	return w.DataDir
}
