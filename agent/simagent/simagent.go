// Package simagent runs one simulated machine's whole agent in the calling
// process: the real client, GPU simulator, benchmark suite, job runtime
// (local processes, as `gpunex-agent --simulate` runs jobs) and job
// watcher, wired as cmd/gpunex-agent wires them. The demo world's live
// fleet and the soak harness's thousands of machines are this one
// assembly, so both speak exactly the protocol a real agent speaks.
package simagent

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"net/http"
	"path/filepath"
	"sync"
	"time"

	"github.com/gpunex/gpunex/agent/bench"
	"github.com/gpunex/gpunex/agent/client"
	"github.com/gpunex/gpunex/agent/command"
	"github.com/gpunex/gpunex/agent/gpu"
	"github.com/gpunex/gpunex/agent/job/process"
	"github.com/gpunex/gpunex/agent/job/watch"
	"github.com/gpunex/gpunex/agent/protocol"
)

// Options is one simulated machine. Server, Token, MachineID, Spec and
// DataDir are required.
type Options struct {
	Server, Token string
	// MachineID is the machine's identity; it also seeds the simulator.
	MachineID, Hostname, AgentVersion string
	Spec                              gpu.SimSpec
	// Host is what the agent reports of its CPU, memory and disk; nothing
	// when nil.
	Host *protocol.HostFacts
	// DataDir holds the heartbeat buffer, the jobs' directories and the
	// storage benchmark's file.
	DataDir string
	// PretendBusy keeps the first PretendBusy GPUs busy with a job of the
	// provider's own, named PretendJob ("provider's own job" when empty):
	// their benchmarks are postponed (naming the job) and their telemetry
	// shows load.
	PretendBusy int
	PretendJob  string
	// LogEvery is how often a running job's newer output is reported;
	// watch.DefaultLogEvery when zero.
	LogEvery time.Duration
	// NetworkBytes is the benchmark's download and upload size (default
	// 4 MiB); StorageBytes the storage benchmark's file (default
	// bench.DefaultSimulatedStorageBytes), read at random for
	// StorageReadFor (default bench.DefaultSimulatedRandomReadFor).
	NetworkBytes, StorageBytes int64
	StorageReadFor             time.Duration
	// HTTPClient sends the agent's requests (the client's default when
	// nil): a harness measures them through its transport.
	HTTPClient *http.Client
	Logger     *slog.Logger
}

// Start runs the agent on wg until ctx ends; on the way out the watcher
// stops first (no report about the jobs the agent's own shutdown ends),
// then the client (its going-offline heartbeat), then the job runtime,
// which ends the jobs. It returns once everything is started; done, when
// not nil, is called with Run's error when the client stops.
func Start(ctx context.Context, wg *sync.WaitGroup, o Options, done func(error)) error {
	if o.Server == "" || o.Token == "" || o.MachineID == "" || o.DataDir == "" || len(o.Spec) == 0 {
		return errors.New("simagent: Server, Token, MachineID, Spec and DataDir are required")
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	sim := gpu.NewSimulator(o.Spec, gpu.WithSeed(o.MachineID))
	pretend := map[string]string{}
	name := o.PretendJob
	if name == "" {
		name = "provider's own job"
	}
	if inv, err := sim.Inventory(ctx); err == nil {
		for i := 0; i < o.PretendBusy && i < len(inv); i++ {
			_ = sim.SetBusy(inv[i].UUID, true)
			pretend[inv[i].UUID] = name
		}
	}
	rt := process.New(keepBusy{sim, pretend}, process.Options{Dir: filepath.Join(o.DataDir, "jobs")})
	var runner *bench.Runner
	var jobs *watch.Watcher
	var host func() *protocol.HostFacts
	if o.Host != nil {
		host = func() *protocol.HostFacts { return o.Host }
	}
	c, err := client.New(client.Options{
		Server: o.Server, Token: o.Token, MachineID: o.MachineID, Hostname: o.Hostname,
		AgentVersion: o.AgentVersion, Detector: sim, Host: host,
		DataDir: o.DataDir, Logger: logger, HTTPClient: o.HTTPClient,
		// Commands arrive once c.Run has started, after jobs and runner
		// are set.
		Handler: command.Handler(func() *watch.Watcher { return jobs }, func() *bench.Runner { return runner }, logger),
	})
	if err != nil {
		return err
	}
	logEvery := o.LogEvery
	if logEvery <= 0 {
		logEvery = watch.DefaultLogEvery
	}
	jobs = watch.New(rt, c, watch.Options{MachineID: o.MachineID, Logger: logger, LogEvery: logEvery, Poll: min(logEvery, watch.DefaultPoll)})
	busy := func(ctx context.Context) (map[string]string, error) {
		held, err := bench.JobsOn(rt)(ctx)
		if err != nil {
			return nil, err
		}
		maps.Copy(held, pretend)
		return held, nil
	}
	network, storage := o.NetworkBytes, o.StorageBytes
	if network <= 0 {
		network = 4 << 20
	}
	if storage <= 0 {
		storage = bench.DefaultSimulatedStorageBytes
	}
	readFor := o.StorageReadFor
	if readFor <= 0 {
		readFor = bench.DefaultSimulatedRandomReadFor
	}
	suite := bench.NewSuite(bench.Options{
		MachineID: o.MachineID, Detector: sim, Simulator: sim, GPU: &bench.SimulatedMeasurer{Sim: sim},
		Busy:    busy,
		Network: &bench.Network{Platform: c, Bytes: network},
		Storage: &bench.Storage{Dir: filepath.Join(o.DataDir, "bench"), Bytes: storage, RandomReadFor: readFor},
	})
	runner = bench.NewRunner(suite.Run, func(ctx context.Context, res protocol.BenchmarkResultInput) error {
		_, err := c.SubmitBenchmark(ctx, res)
		return err
	}, nil)
	wg.Go(func() { runner.Run(ctx) })
	wg.Go(func() {
		defer func() {
			stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*process.DefaultStopGrace)
			defer cancel()
			if err := rt.Close(stopCtx); err != nil {
				logger.Warn("simagent: stopping simulated jobs", "err", err)
			}
		}()
		defer c.Close()
		defer jobs.Close()
		err := c.Run(ctx)
		if done != nil {
			done(err)
		}
	})
	return nil
}

// keepBusy is the process runtime's view of the simulator: a job's end
// does not idle a GPU kept busy with the provider's pretend job.
type keepBusy struct {
	sim     *gpu.Simulator
	pretend map[string]string
}

func (k keepBusy) SetBusy(uuid string, busy bool) error {
	_, kept := k.pretend[uuid]
	return k.sim.SetBusy(uuid, busy || kept)
}
