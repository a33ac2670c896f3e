package demo

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/gpunex/gpunex/agent"
	"github.com/gpunex/gpunex/agent/client"
	"github.com/gpunex/gpunex/agent/gpu"
)

// agentTokenName names the token the in-process demo agents use; it is
// replaced at every start (the secret is never stored).
const agentTokenName = "demo in-process agents"

// machines are the demo provider's simulated hosts.
var machines = []struct {
	ID, Hostname, Spec string
	BusyGPUs           int
}{
	{ID: "demo-lisbon-rack-01", Hostname: "lisbon-rack-01", Spec: "4xH100", BusyGPUs: 2},
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
	var wg sync.WaitGroup
	for _, m := range machines {
		spec, err := gpu.ParseSimSpec(m.Spec)
		if err != nil {
			logger.Warn("demo: agents", "err", err)
			continue
		}
		sim := gpu.NewSimulator(spec, gpu.WithSeed(m.ID))
		if inv, err := sim.Inventory(ctx); err == nil {
			for i := 0; i < m.BusyGPUs && i < len(inv); i++ {
				_ = sim.SetBusy(inv[i].UUID, true)
			}
		}
		c, err := client.New(client.Options{
			Server: url, Token: secret, MachineID: m.ID, Hostname: m.Hostname,
			AgentVersion: agent.Version + " (demo, in-process)", Detector: sim,
			DataDir: filepath.Join(w.dataDir(), "demo-agents", m.Hostname),
			Logger:  logger.With("machine", m.Hostname),
		})
		if err != nil {
			logger.Warn("demo: agents", "err", err)
			continue
		}
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
