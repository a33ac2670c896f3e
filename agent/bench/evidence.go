package bench

import (
	"context"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/gpunex/gpunex/agent/gpu"
	"github.com/gpunex/gpunex/agent/protocol"
)

// throttledMask are the clock event reasons that count towards
// ThrottledShare: the board held back by heat or by power, not idling or
// running clocks its operator chose.
const throttledMask = gpu.ThrottleSWPowerCap | gpu.ThrottleHWSlowdown | gpu.ThrottleSWThermalSlowdown |
	gpu.ThrottleHWThermalSlowdown | gpu.ThrottleHWPowerBrakeSlowdown

// sampler reads NVML for every GPU being measured: one Telemetry call per
// tick serves them all (a Telemetry call per GPU would read an 8-GPU
// machine 8 times over), and one job listing per BusyEvery stops the
// measurement of a GPU a job has just started on.
type sampler struct {
	detector  gpu.Detector
	links     gpu.LinkReader // nil when the detector cannot read links
	every     time.Duration
	busyEvery time.Duration
	busy      func(context.Context) (map[string]string, error)
	log       *slog.Logger

	mu      sync.Mutex
	windows map[string]*window
}

// window is one GPU's measurement as the sampler sees it.
type window struct {
	uuid    string
	cancel  context.CancelCauseFunc
	samples []gpu.Sample
	link    *gpu.PCIeLink
}

func newSampler(d gpu.Detector, every, busyEvery time.Duration, busy func(context.Context) (map[string]string, error), log *slog.Logger) *sampler {
	s := &sampler{detector: d, every: every, busyEvery: busyEvery, busy: busy, log: log, windows: map[string]*window{}}
	s.links, _ = d.(gpu.LinkReader)
	return s
}

// begin opens uuid's window with a first sample; cancel ends the
// measurement when a job starts on the GPU.
func (s *sampler) begin(ctx context.Context, uuid string, cancel context.CancelCauseFunc) *window {
	w := &window{uuid: uuid, cancel: cancel}
	s.mu.Lock()
	s.windows[uuid] = w
	s.mu.Unlock()
	s.sample(ctx, w)
	return w
}

// end closes w with a last sample and returns what it saw.
func (s *sampler) end(ctx context.Context, w *window) ([]gpu.Sample, *gpu.PCIeLink) {
	s.sample(ctx, w)
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.windows, w.uuid)
	return w.samples, w.link
}

// run samples every window each tick until ctx ends.
func (s *sampler) run(ctx context.Context) {
	tick := time.NewTicker(s.every)
	defer tick.Stop()
	lastBusy := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		s.sample(ctx)
		if s.busy != nil && time.Since(lastBusy) >= s.busyEvery {
			lastBusy = time.Now()
			s.checkBusy(ctx)
		}
	}
}

// sample reads NVML once and files the readings in the given windows, or
// in every open one when none is given. The links are read with it: under
// the benchmark's load a healthy link runs at its maximum, so the last
// reading during the run is the one that says how the board is connected.
func (s *sampler) sample(ctx context.Context, only ...*window) {
	s.mu.Lock()
	open := len(s.windows)
	s.mu.Unlock()
	if open == 0 && len(only) == 0 {
		return
	}
	samples, err := s.detector.Telemetry(ctx)
	if err != nil {
		s.log.Debug("bench: NVML sample incomplete", "err", err)
	}
	var links []gpu.PCIeLink
	if s.links != nil {
		links, err = s.links.PCIeLinks(ctx)
		if err != nil {
			s.log.Debug("bench: PCIe links incomplete", "err", err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	targets := only
	if len(targets) == 0 {
		for _, w := range s.windows {
			targets = append(targets, w)
		}
	}
	for _, w := range targets {
		for _, smp := range samples {
			if smp.UUID == w.uuid {
				w.samples = append(w.samples, smp)
			}
		}
		for _, l := range links {
			if l.UUID == w.uuid {
				w.link = &l
			}
		}
	}
}

// checkBusy ends the measurement of every GPU a job now holds.
func (s *sampler) checkBusy(ctx context.Context) {
	busy, err := s.busy(ctx)
	if err != nil {
		s.log.Debug("bench: listing jobs during the run", "err", err)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for uuid, w := range s.windows {
		if job := busy[uuid]; job != "" {
			w.cancel(&busyError{jobID: job})
		}
	}
}

// aggregateEvidence sums up what NVML showed during one GPU's measurement.
// Fields no sample reported stay nil; ECC deltas are last minus first of
// the samples that report the counter.
func aggregateEvidence(samples []gpu.Sample, link *gpu.PCIeLink, powerLimitW *float64) *protocol.GpuBenchEvidence {
	ev := &protocol.GpuBenchEvidence{Samples: len(samples)}
	if powerLimitW != nil {
		ev.PowerLimitW = ptr(*powerLimitW)
	}
	var (
		maxTemp, maxClock   = math.Inf(-1), math.Inf(-1)
		clockSum, powerSum  float64
		clockN, powerN      int
		reasons             gpu.ThrottleReasons
		throttled, reported int
		firstCorr, lastCorr *uint64
		firstUnc, lastUnc   *uint64
	)
	for _, s := range samples {
		if s.TemperatureC != nil {
			maxTemp = math.Max(maxTemp, float64(*s.TemperatureC))
		}
		if s.SMClockMHz != nil {
			c := float64(*s.SMClockMHz)
			maxClock = math.Max(maxClock, c)
			clockSum += c
			clockN++
		}
		if s.PowerDrawW != nil {
			powerSum += *s.PowerDrawW
			powerN++
		}
		if s.Throttle != nil {
			reported++
			reasons |= *s.Throttle
			if *s.Throttle&throttledMask != 0 {
				throttled++
			}
		}
		if s.ECCCorrected != nil {
			if firstCorr == nil {
				firstCorr = s.ECCCorrected
			}
			lastCorr = s.ECCCorrected
		}
		if s.ECCUncorrected != nil {
			if firstUnc == nil {
				firstUnc = s.ECCUncorrected
			}
			lastUnc = s.ECCUncorrected
		}
	}
	if !math.IsInf(maxTemp, -1) {
		ev.MaxTemperatureC = ptr(maxTemp)
	}
	if clockN > 0 {
		ev.MaxSMClockMHz = ptr(maxClock)
		ev.MeanSMClockMHz = ptr(round(clockSum/float64(clockN), 1))
	}
	if powerN > 0 {
		ev.MeanPowerDrawW = ptr(round(powerSum/float64(powerN), 1))
	}
	ev.ThrottleReasons = reasons.Names()
	if reported > 0 {
		ev.ThrottledShare = round(float64(throttled)/float64(reported), 3)
	}
	ev.EccCorrectedDelta = counterDelta(firstCorr, lastCorr)
	ev.EccUncorrectedDelta = counterDelta(firstUnc, lastUnc)
	if link != nil {
		ev.PcieGeneration, ev.PcieWidth = link.Generation, link.Width
		ev.PcieMaxGeneration, ev.PcieMaxWidth = link.MaxGeneration, link.MaxWidth
	}
	return ev
}

// counterDelta is last − first; a counter that went backwards (the driver
// was reloaded, which resets the volatile counters) counts from zero.
func counterDelta(first, last *uint64) *float64 {
	if first == nil || last == nil {
		return nil
	}
	if *last < *first {
		return ptr(float64(*last))
	}
	return ptr(float64(*last - *first))
}

func round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}
