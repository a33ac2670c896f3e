// Command gpunex-agent is the daemon that runs on a provider's host: it
// detects the GPUs with NVML (or simulates them with --simulate), registers
// the machine with the GPUnex server, sends heartbeats at the interval the
// server asks for, and runs the jobs the server assigns in isolated
// containers (local processes when simulating).
//
// Configuration comes from flags, the environment and an env-style file
// (see agent/config, or gpunex-agent --help). This file only wires the
// agent's packages together:
//
//	config.Load → logger → config.LoadMachineID → bench.CleanLeftovers →
//	  nvmldetect.Open → job runtime (process when simulating, Docker
//	  otherwise) → client.New → job watcher (reports jobs, resumes those
//	  an earlier run left) → benchmark runner (its own goroutine) →
//	  client.Run until SIGINT/SIGTERM, which ends with a going-offline
//	  heartbeat, or until an error no retry can mend (a token refused at
//	  registration or revoked later), which stops the benchmark runner
//	  too and exits 1.
//
// RUN_BENCHMARK is queued on the runner and the command handler moves on,
// so a benchmark never holds a START_JOB back; benchmarks run one at a
// time (bench.Runner).
//
// Exit status: 0 after a signal, 1 when the agent cannot run (no GPUs
// without --simulate, a token refused at start or revoked while it runs,
// an unwritable data directory), 2 for bad configuration.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	dockerclient "github.com/moby/moby/client"

	"github.com/gpunex/gpunex/agent"
	"github.com/gpunex/gpunex/agent/bench"
	"github.com/gpunex/gpunex/agent/client"
	"github.com/gpunex/gpunex/agent/command"
	"github.com/gpunex/gpunex/agent/config"
	"github.com/gpunex/gpunex/agent/gpu"
	"github.com/gpunex/gpunex/agent/gpu/nvmldetect"
	"github.com/gpunex/gpunex/agent/host"
	"github.com/gpunex/gpunex/agent/job"
	"github.com/gpunex/gpunex/agent/job/docker"
	"github.com/gpunex/gpunex/agent/job/process"
	"github.com/gpunex/gpunex/agent/job/watch"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	cfg, err := config.Load(args, os.LookupEnv)
	switch {
	case errors.Is(err, flag.ErrHelp):
		config.Usage(stdout)
		return 0
	case err != nil:
		for line := range strings.SplitSeq(err.Error(), "\n") {
			fmt.Fprintf(stderr, "gpunex-agent: %s\n", line)
		}
		return 2
	case cfg.ShowVersion:
		fmt.Fprintf(stdout, "gpunex-agent %s\n", agent.Version)
		return 0
	}

	logger := newLogger(cfg, stderr)
	// Once each, before anything else: a token given with --token is
	// among them (config decides; none contains the token).
	for _, w := range cfg.Warnings {
		logger.Warn("gpunex-agent: " + w)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	machineID, created, err := config.LoadMachineID(cfg.DataDir)
	if err != nil {
		logger.Error("gpunex-agent: no machine identity", "err", err)
		return 1
	}
	logger = logger.With("machine_id", machineID)
	// A storage benchmark killed half way left its test file behind.
	if err := bench.CleanLeftovers(cfg.DataDir); err != nil {
		logger.Warn("gpunex-agent: benchmark leftovers not removed", "err", err)
	}
	logger.Info("gpunex-agent starting", "version", agent.Version, "server", cfg.Server, "hostname", cfg.Hostname,
		"data_dir", cfg.DataDir, "simulate", cfg.Simulate, "new_machine_id", created,
		"server_from", cfg.Origins["GPUNEX_SERVER"], "token_from", cfg.Origins["GPUNEX_TOKEN"])

	detector, err := nvmldetect.Open(cfg.Simulate, nvml.New(), gpu.WithSeed(machineID))
	if err != nil {
		// Without --simulate this is "no NVIDIA driver" and the message
		// names the fix; with it, a bad spec (already checked by config).
		logger.Error("gpunex-agent: GPUs cannot be read", "err", err)
		return 1
	}
	defer detector.Close()

	if cfg.BenchOnce {
		if err := benchOnce(ctx, cfg, machineID, detector, stdout, logger); err != nil {
			logger.Error("gpunex-agent: benchmark", "err", err)
			return 1
		}
		return 0
	}

	runtime, closeRuntime, err := newRuntime(ctx, detector, cfg, logger)
	if err != nil {
		logger.Error("gpunex-agent: no job runtime", "err", err)
		return 1
	}
	defer closeRuntime()

	// Commands arrive only once c.Run has started, by which time runner
	// and jobs are set; the handler reads them through the closures.
	var runner *bench.Runner
	var jobs *watch.Watcher
	c, err := client.New(client.Options{
		Server:       cfg.Server,
		Token:        cfg.Token.Reveal(),
		MachineID:    machineID,
		Hostname:     cfg.Hostname,
		AgentVersion: agent.Version,
		Detector:     detector,
		Host:         host.Reader{DataDir: cfg.DataDir}.Facts,
		Handler:      command.Handler(func() *watch.Watcher { return jobs }, func() *bench.Runner { return runner }, logger),
		DataDir:      cfg.DataDir,
		Logger:       logger,
	})
	if err != nil {
		logger.Error("gpunex-agent: cannot start the server client", "err", err)
		return 1
	}
	defer c.Close()

	// The watcher reports every job and ends those past their timeout (the
	// Docker engine has none of its own). It is closed before the runtime
	// (defers run last first): no report goes out about jobs the agent's
	// own shutdown ends.
	jobs = watch.New(runtime, c, watch.Options{MachineID: machineID, Logger: logger})
	defer jobs.Close()
	// Containers outlive the agent: the jobs an earlier run started are
	// reported again and followed to their end.
	if n, err := jobs.Resume(ctx); err != nil {
		logger.Warn("gpunex-agent: jobs of an earlier run not resumed", "err", err)
	} else if n > 0 {
		logger.Info("gpunex-agent: jobs of an earlier run resumed", "jobs", n)
	}

	runner, releaseBench := newBenchRunner(cfg, machineID, detector, runtime, c, logger)
	defer releaseBench()
	// The runner lives no longer than the client. A signal ends both, but
	// a fatal error ends only c.Run (a refused or revoked token), and no
	// signal follows it: waiting for a runner only a signal stops kept
	// the agent up for good, "running" to its service manager.
	runnerCtx, stopRunner := context.WithCancel(ctx)
	benchDone := make(chan struct{})
	go func() { defer close(benchDone); runner.Run(runnerCtx) }()
	defer func() { stopRunner(); <-benchDone }() // a run in progress stops with it

	if err := c.Run(ctx); err != nil {
		logger.Error("gpunex-agent: cannot go on, exiting with status 1", "err", err)
		return 1
	}
	logger.Info("gpunex-agent stopped")
	return 0
}

// newLogger builds the one logger everything gets: JSON for log
// collectors (the default in the container), text for people.
func newLogger(cfg *config.Config, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	if cfg.LogFormat == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

// newRuntime picks the job runtime: local processes on simulated GPUs
// (the demo), each in a directory of its own under <data-dir>/jobs, Docker
// containers on real ones. The returned func releases it when the agent
// stops: simulated jobs end with the agent, containers outlive it and are
// found again by their labels.
func newRuntime(ctx context.Context, detector gpu.Detector, cfg *config.Config, logger *slog.Logger) (job.Runtime, func(), error) {
	dataDir := cfg.DataDir
	sim, simulated := detector.(*gpu.Simulator)
	if simulated && cfg.JobRuntime != "docker" {
		rt := process.New(sim, process.Options{Dir: filepath.Join(dataDir, "jobs")})
		logger.Info("gpunex-agent: jobs run as local processes (simulated GPUs)")
		return rt, func() {
			ctx, cancel := context.WithTimeout(context.Background(), 2*process.DefaultStopGrace)
			defer cancel()
			if err := rt.Close(ctx); err != nil {
				logger.Warn("gpunex-agent: stopping simulated jobs", "err", err)
			}
		}, nil
	}
	cli, err := dockerclient.New(dockerclient.FromEnv)
	if err != nil {
		return nil, nil, fmt.Errorf("docker client: %w (check DOCKER_HOST and the other DOCKER_* variables)", err)
	}
	pingCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := cli.Ping(pingCtx, dockerclient.PingOptions{NegotiateAPIVersion: true}); err != nil {
		// Heartbeats are still worth sending: the dashboard shows the
		// machine, and jobs work once Docker answers.
		logger.Warn("gpunex-agent: the Docker engine does not answer; jobs cannot start until it does "+
			"(mount /var/run/docker.sock into the agent container, or set DOCKER_HOST)", "err", err)
	}
	if simulated {
		// The simulated GPUs do not exist for the engine: containers get
		// every isolation but no GPU device.
		logger.Info("gpunex-agent: jobs run in Docker containers without a GPU device (simulated GPUs)")
	}
	return docker.New(cli, docker.Options{WithoutGPUs: simulated}), func() { _ = cli.Close() }, nil
}
