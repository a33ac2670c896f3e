package demo

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/gpunex/gpunex/agent"
	"github.com/gpunex/gpunex/agent/gpu"
	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/agent/simagent"
	"github.com/gpunex/gpunex/internal/auth"
)

// demoMachine is one demo host, its spec parsed.
type demoMachine struct {
	ID, Hostname string
	spec         gpu.SimSpec
	// host is what the simulated agent says of its CPU, RAM and disk.
	host *protocol.HostFacts
}

// agentTokenName names the token the in-process demo agents of a provider
// use; it is replaced at every start (the secret is never stored).
const agentTokenName = "demo in-process agents"

// machines are the demo providers' simulated hosts, by the provider's
// email.
var machines = []struct {
	Email, ID, Hostname, Spec string
	BusyGPUs                  int
	Host                      demoHost
}{
	// The last H100 runs hot: its benchmarks since a few days ago find it
	// throttling for heat, and it is delisted with that guidance.
	{Email: "provider@gpunex.demo", ID: "demo-lisbon-rack-01", Hostname: "lisbon-rack-01", Spec: "3xH100,1xH100:throttled", BusyGPUs: 2,
		Host: demoHost{"AMD EPYC 9454 48-Core Processor", 96, 1024, 7.68, 5.9}},
	{Email: "provider@gpunex.demo", ID: "demo-lisbon-edge-01", Hostname: "lisbon-edge-01", Spec: "2xL4",
		Host: demoHost{"Intel(R) Xeon(R) Silver 4314 CPU @ 2.40GHz", 32, 128, 1.92, 1.4}},
	{Email: "frankfurt@gpunex.demo", ID: "demo-fra-dc-01", Hostname: "fra-dc-01", Spec: "4xA100",
		Host: demoHost{"AMD EPYC 7763 64-Core Processor", 128, 1024, 15.36, 12.2}},
	{Email: "frankfurt@gpunex.demo", ID: "demo-fra-dc-02", Hostname: "fra-dc-02", Spec: "2xH100",
		Host: demoHost{"Intel(R) Xeon(R) Platinum 8480+", 112, 512, 7.68, 6.8}},
	{Email: "saopaulo@gpunex.demo", ID: "demo-sp-home-01", Hostname: "sp-home-01", Spec: "2xRTX4090",
		Host: demoHost{"AMD Ryzen 9 7950X 16-Core Processor", 32, 128, 4, 2.6}},
	{Email: "mumbai@gpunex.demo", ID: "demo-mumbai-lab-01", Hostname: "mumbai-lab-01", Spec: "2xL40S",
		Host: demoHost{"AMD EPYC 9354 32-Core Processor", 64, 384, 3.84, 3.1}},
	{Email: "porto@gpunex.demo", ID: "demo-porto-01", Hostname: "porto-01", Spec: "2xH100",
		Host: demoHost{"AMD EPYC 9454 48-Core Processor", 96, 512, 3.84, 2.9}},
	{Email: "madrid@gpunex.demo", ID: "demo-madrid-home-01", Hostname: "madrid-home-01", Spec: "2xL4",
		Host: demoHost{"AMD Ryzen 9 5950X 16-Core Processor", 32, 64, 2, 1.1}},
	{Email: "virginia@gpunex.demo", ID: "demo-iad-01", Hostname: "iad-01", Spec: "2xL4,2xH100",
		Host: demoHost{"Intel(R) Xeon(R) Gold 6448Y", 64, 768, 7.68, 7.0}},
}

// demoHost is a demo machine's CPU, RAM and disk: what its simulated agent
// reports at registration (issue 26), plausible for its GPUs.
type demoHost struct {
	CPU          string
	Cores        int
	RAMGiB       int
	DiskTB, Free float64
}

// facts is the host as the agent sends it.
func (h demoHost) facts() *protocol.HostFacts {
	cpu, cores := h.CPU, h.Cores
	ram, disk, free := float64(h.RAMGiB)*(1<<30), h.DiskTB*1e12, h.Free*1e12
	return &protocol.HostFacts{CPUModel: &cpu, CPUCores: &cores, RAMBytes: &ram, DiskBytes: &disk, DiskFreeBytes: &free}
}

// RunAgents runs the demo providers' simulated agents against the server
// at url until ctx ends, so `make run` shows a live fleet, and the demo
// customers who rent their GPUs (runCustomers). The agents are the real
// agent client, simulator, benchmark suite, job runtime (local processes,
// as `gpunex-agent --simulate` runs jobs) and job watcher, talking GraphQL
// over HTTP. Its signature is platform background work's: the command
// hands it to Platform.AddBackground, which calls it with the bound URL.
func (w World) RunAgents(ctx context.Context, url string) {
	logger := w.logger().With("component", "demo-agents")
	var wg sync.WaitGroup
	providers := map[int64]bool{}
	running := 0
	for _, email := range providerEmails() {
		prov, agentID, secret, err := w.agentToken(ctx, email)
		if err != nil {
			logger.Warn("demo: agents", "provider", email, "err", err)
			continue
		}
		providers[prov] = true
		w.endLostJobs(ctx, logger, prov, agentID)
		// The provider's machines' pasts are laid down before any agent
		// of it runs: its month of reliability is replayed for all its
		// machines at once, day by day (seedReliabilityHistory).
		var ms []demoMachine
		var busy []int
		ids := map[int64]demoMachine{}
		for _, mm := range machines {
			if mm.Email != email {
				continue
			}
			spec, err := gpu.ParseSimSpec(mm.Spec)
			if err != nil {
				logger.Warn("demo: agents", "err", err)
				continue
			}
			m := demoMachine{ID: mm.ID, Hostname: mm.Hostname, spec: spec, host: mm.Host.facts()}
			id, err := w.seedBenchmarkHistory(ctx, agentID, m)
			if err != nil {
				logger.Warn("demo: agents: no benchmark history", "machine", m.Hostname, "err", err)
			}
			if id != 0 {
				ids[id] = m
			}
			ms, busy = append(ms, m), append(busy, mm.BusyGPUs)
		}
		if err := w.seedReliabilityHistory(ctx, prov, ids); err != nil {
			logger.Warn("demo: agents: no reliability history", "provider", email, "err", err)
		}
		for i, m := range ms {
			if w.runAgent(ctx, &wg, url, secret, m, busy[i], logger.With("machine", m.Hostname)) {
				running++
			}
		}
	}
	logger.Info(fmt.Sprintf("demo: %d simulated machines are heartbeating", running))
	if w.Market != nil {
		wg.Go(func() { w.runCustomers(ctx, providers) })
	} else {
		logger.Warn("demo: no market service: the demo customers rent nothing")
	}
	wg.Wait()
}

// providerEmails are the emails of the providers with demo machines, in
// the order of machines.
func providerEmails() []string {
	var out []string
	for _, m := range machines {
		if len(out) == 0 || out[len(out)-1] != m.Email {
			out = append(out, m.Email)
		}
	}
	return out
}

// agentToken replaces the in-process agents' token of the demo provider
// with this email; it returns the provider's id, the agent the token
// authenticates and its secret.
func (w World) agentToken(ctx context.Context, email string) (int64, *auth.Agent, string, error) {
	prov, err := w.providerOf(ctx, email)
	if err != nil {
		return 0, nil, "", err
	}
	if prov == nil {
		return 0, nil, "", errors.New("not an approved provider")
	}
	tokens, err := w.Providers.AgentTokens(ctx, prov)
	if err != nil {
		return 0, nil, "", err
	}
	for _, t := range tokens {
		if t.Name == agentTokenName && t.RevokedAt == nil {
			_, _ = w.Providers.RevokeAgentToken(ctx, prov, t.ID)
		}
	}
	made, err := w.Providers.CreateAgentToken(ctx, prov, agentTokenName)
	if err != nil {
		return 0, nil, "", fmt.Errorf("unable to create a token: %w", err)
	}
	secret := made.Secret
	agentID, err := w.Auth.CheckAgentToken(ctx, secret)
	if err != nil {
		return 0, nil, "", fmt.Errorf("the new token does not authenticate: %w", err)
	}
	return prov.ID, agentID, secret, nil
}

// endLostJobs ends the rentals left active on the provider's demo
// machines by the server's last run: their simulated jobs were local
// processes of that run and ended with it (the process runtime keeps
// nothing), so the agent reports them FAILED as the real agent would find
// them gone. Without it they would hold their GPUs for ever.
func (w World) endLostJobs(ctx context.Context, logger *slog.Logger, providerID int64, agentID *auth.Agent) {
	if w.Market == nil {
		return
	}
	rentals, err := w.Market.ProviderRentals(ctx, providerID)
	if err != nil {
		logger.Warn("demo: agents: the rentals of the last run are not ended", "err", err)
		return
	}
	ids := map[string]string{}
	for _, m := range machines {
		ids[m.Hostname] = m.ID
	}
	cause, msg := protocol.CausePlatform, "the platform restarted: the demo machine's simulated job ended with it"
	for _, r := range rentals {
		machineID, ok := ids[r.Hostname]
		if !ok || r.State.Ended() {
			continue
		}
		in := protocol.ReportJobStatusInput{MachineID: machineID, JobID: r.JobID, State: protocol.JobFailed,
			At: time.Now().UTC(), Cause: &cause, Message: &msg, LogTail: r.LogTail}
		if _, err := w.Market.ReportJobStatus(ctx, agentID, in); err != nil {
			logger.Warn("demo: agents: a rental of the last run is not ended", "rental_id", r.ID, "err", err)
		}
	}
}

// runAgent starts one demo machine's agent on wg (simagent: the client,
// job runtime and watcher, and benchmark runner, as cmd/gpunex-agent wires
// them with --simulate). It reports whether the agent started.
func (w World) runAgent(ctx context.Context, wg *sync.WaitGroup, url, secret string, m demoMachine, busyGPUs int, logger *slog.Logger) bool {
	err := simagent.Start(ctx, wg, simagent.Options{
		Server: url, Token: secret, MachineID: m.ID, Hostname: m.Hostname,
		AgentVersion: agent.Version + " (demo, in-process)", Spec: m.spec, Host: m.host,
		DataDir: filepath.Join(w.dataDir(), "demo-agents", m.Hostname), PretendBusy: busyGPUs, PretendJob: "demo-training-run",
		LogEvery: w.Rentals.withDefaults().LogEvery, Logger: logger,
	}, func(err error) {
		if err != nil && ctx.Err() == nil {
			logger.Warn("demo: agent stopped", "err", err)
		}
	})
	if err != nil {
		logger.Warn("demo: agents", "err", err)
		return false
	}
	return true
}

func (w World) dataDir() string {
	if w.DataDir == "" {
		return "data"
	}
	return w.DataDir
}
