package platform

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/gpunex/gpunex/agent"
	"github.com/gpunex/gpunex/agent/client"
	"github.com/gpunex/gpunex/agent/gpu"
)

// demoAgentTokenName names the token the in-process demo agents use; it is
// replaced at every start (the secret is never stored).
const demoAgentTokenName = "demo in-process agents"

// demoMachines are the demo provider's simulated hosts.
var demoMachines = []struct {
	ID, Hostname, Spec string
	BusyGPUs           int
}{
	{ID: "demo-lisbon-rack-01", Hostname: "lisbon-rack-01", Spec: "4xH100", BusyGPUs: 2},
	{ID: "demo-lisbon-edge-01", Hostname: "lisbon-edge-01", Spec: "2xL4", BusyGPUs: 0},
}

// runDemoAgents runs the demo provider's simulated agents against this
// server (at url) until ctx ends, so `make run` shows a live fleet. They
// are the real agent client and simulator, talking GraphQL over HTTP.
func (p *Platform) runDemoAgents(ctx context.Context, url string) {
	logger := p.cfg.Logger.With("component", "demo-agents")
	u, err := p.Auth.UserByEmail(ctx, "provider@gpunex.demo")
	if err != nil {
		logger.Warn("platform: demo agents: no demo provider", "err", err)
		return
	}
	prov, err := p.Onboarding.ProviderForUser(ctx, u.ID)
	if err != nil || prov == nil {
		logger.Warn("platform: demo agents: the demo provider is not approved", "err", err)
		return
	}
	tokens, err := p.Auth.AgentTokens(ctx, prov.ID)
	if err != nil {
		logger.Warn("platform: demo agents", "err", err)
		return
	}
	for _, t := range tokens {
		if t.Name == demoAgentTokenName && t.RevokedAt == nil {
			_, _ = p.Auth.RevokeAgentToken(ctx, prov.ID, t.ID)
		}
	}
	_, secret, err := p.Auth.CreateAgentToken(ctx, prov.ID, demoAgentTokenName)
	if err != nil {
		logger.Warn("platform: demo agents: unable to create a token", "err", err)
		return
	}
	var wg sync.WaitGroup
	for _, m := range demoMachines {
		spec, err := gpu.ParseSimSpec(m.Spec)
		if err != nil {
			logger.Warn("platform: demo agents", "err", err)
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
			DataDir: filepath.Join(p.dataDir(), "demo-agents", m.Hostname),
			Logger:  logger.With("machine", m.Hostname),
		})
		if err != nil {
			logger.Warn("platform: demo agents", "err", err)
			continue
		}
		wg.Go(func() {
			defer c.Close()
			if err := c.Run(ctx); err != nil && ctx.Err() == nil {
				logger.Warn("platform: demo agent stopped", "machine", m.Hostname, "err", err)
			}
		})
	}
	logger.Info(fmt.Sprintf("platform: %d simulated demo machines are heartbeating", len(demoMachines)))
	wg.Wait()
}

func (p *Platform) dataDir() string {
	if p.cfg.DataDir == "" {
		return "data"
	}
	return p.cfg.DataDir
}
