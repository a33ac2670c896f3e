package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/gpunex/gpunex/agent/bench"
	"github.com/gpunex/gpunex/agent/bench/cuda"
	"github.com/gpunex/gpunex/agent/client"
	"github.com/gpunex/gpunex/agent/config"
	"github.com/gpunex/gpunex/agent/gpu"
	"github.com/gpunex/gpunex/agent/job"
	"github.com/gpunex/gpunex/agent/protocol"
)

// lazyCUDA is the GPU measurer on real hardware: the CUDA driver is loaded
// at the first benchmark, not at start, so an agent whose host lacks
// libcuda still registers and runs jobs; every GPU of its benchmarks then
// fails with the driver's "missing" error, which tells the provider what
// to install.
type lazyCUDA struct {
	library string
	once    sync.Once
	drv     *cuda.Driver
	err     error
}

func (l *lazyCUDA) Measure(ctx context.Context, uuid string, budget time.Duration) ([]protocol.BenchMeasurement, error) {
	l.once.Do(func() { l.drv, l.err = cuda.Open(cuda.Config{Library: l.library}) })
	if l.err != nil {
		return nil, l.err
	}
	return l.drv.Measure(ctx, uuid, budget)
}

// Close unloads the driver if it was loaded.
func (l *lazyCUDA) Close() error {
	if l.drv == nil {
		return nil
	}
	return l.drv.Close()
}

// newSuite builds the benchmark suite for this machine: the CUDA driver
// (loaded at the first run) on real GPUs, modelled figures on simulated
// ones. busy and network may be nil (--bench-once has no job runtime and no
// server). The returned func releases the CUDA driver.
func newSuite(cfg *config.Config, machineID string, detector gpu.Detector, busy bench.BusyFunc, network *bench.Network, logger *slog.Logger, progress bench.ProgressFunc) (*bench.Suite, func()) {
	opts := bench.Options{
		Progress:  progress,
		MachineID: machineID,
		Detector:  detector,
		Busy:      busy,
		Network:   network,
		Storage:   &bench.Storage{Dir: cfg.DataDir, Bytes: cfg.BenchStorageBytes, Logger: logger},
		GPUBudget: cfg.BenchGPUBudget,
		Logger:    logger,
	}
	release := func() {}
	if sim, ok := detector.(*gpu.Simulator); ok {
		opts.Simulator = sim
		opts.GPU = &bench.SimulatedMeasurer{Sim: sim, Duration: cfg.SimulatedBenchDuration}
		if opts.Storage.Bytes == 0 {
			opts.Storage.Bytes = bench.DefaultSimulatedStorageBytes
		}
		opts.Storage.RandomReadFor = bench.DefaultSimulatedRandomReadFor
	} else {
		l := &lazyCUDA{library: cfg.CUDALibrary}
		opts.GPU = l
		release = func() {
			if err := l.Close(); err != nil {
				logger.Warn("gpunex-agent: unloading the CUDA driver", "err", err)
			}
		}
	}
	return bench.NewSuite(opts), release
}

// newBenchRunner builds the benchmark suite for this machine and the runner
// that runs it off the command goroutine. The returned func releases the
// CUDA driver.
func newBenchRunner(cfg *config.Config, machineID string, detector gpu.Detector, rt job.Runtime, c *client.Client, logger *slog.Logger) (*bench.Runner, func()) {
	suite, release := newSuite(cfg, machineID, detector, bench.JobsOn(rt), &bench.Network{Platform: c, Logger: logger}, logger, func(ctx context.Context, runID string, part protocol.BenchPart, gpuUUID string, outcome protocol.BenchOutcome) {
		in := protocol.BenchmarkProgressInput{RunID: runID, MachineID: machineID, Part: part, GpuUUID: gpuUUID, Outcome: outcome}
		if err := c.ReportBenchmarkProgress(ctx, in); err != nil && ctx.Err() == nil {
			logger.Warn("bench: progress not reported", "run_id", runID, "part", part, "gpu", gpuUUID, "err", err)
		}
	})
	submit := func(ctx context.Context, res protocol.BenchmarkResultInput) error {
		a, err := c.SubmitBenchmark(ctx, res)
		if err != nil {
			return err
		}
		if !a.Accepted {
			return errors.New("the server did not accept the result")
		}
		return nil
	}
	return bench.NewRunner(suite.Run, submit, logger), release
}

// benchOnce runs the suite once without a server (--bench-once) and writes
// the result to w as indented JSON: the GPUs and the storage, no network.
// It is how a provider, or an engineer comparing against another tool,
// sees what the platform would be told.
func benchOnce(ctx context.Context, cfg *config.Config, machineID string, detector gpu.Detector, w io.Writer, logger *slog.Logger) error {
	suite, release := newSuite(cfg, machineID, detector, nil, nil, logger, nil)
	defer release()
	res := suite.Run(ctx, protocol.RunBenchmarkPayload{RunID: "local", Reason: protocol.BenchRequested})
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}
