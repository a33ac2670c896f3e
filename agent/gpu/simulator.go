package gpu

import (
	"context"
	"crypto/sha256"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gpunex/gpunex/internal/catalog"
	"github.com/gpunex/gpunex/internal/clock"
)

// Simulated driver facts: a production branch of the time the supported
// models shipped with, and the CUDA version that driver supports.
const (
	SimulatedDriverVersion     = "550.54.15"
	SimulatedCUDADriverVersion = "12.4"
)

// How fast simulated readings follow a change of load: utilisation within
// seconds, power almost as fast, temperature over a minute (the heatsink's
// thermal mass), memory as soon as the job has allocated.
const (
	utilTau   = 4 * time.Second
	powerTau  = 2 * time.Second
	tempTau   = 45 * time.Second
	memoryTau = 3 * time.Second

	ambientC      = 33.0 // die temperature of an idle, well-cooled board
	fullLoadRiseC = 41.0 // extra degrees at 100% load
)

// pciBuses are the PCI bus numbers of a DGX-style 8-GPU board, then a
// second set for larger machines, so simulated bus ids look familiar.
var pciBuses = [MaxSimulatedGPUs]int{
	0x18, 0x2A, 0x3A, 0x5D, 0x9A, 0xAB, 0xBA, 0xDB,
	0x19, 0x2B, 0x3B, 0x5E, 0x9B, 0xAC, 0xBB, 0xDC,
}

// Simulator is the Detector for --simulate: GPUs that do not exist but
// report like real ones. Utilisation idles at 0–5% and rises to 90–98%
// while a job runs on the GPU (see SetBusy); power, temperature, memory and
// clocks follow with the lag a real board shows. Readings depend only on
// the seed, the clock and the busy history, so tests with a manual clock see
// exact values.
type Simulator struct {
	clock clock.Clock

	machineProfiles []Profile

	mu     sync.Mutex
	gpus   []*simGPU
	byUUID map[string]*simGPU
}

var (
	_ Detector   = (*Simulator)(nil)
	_ LinkReader = (*Simulator)(nil)
)

// simGPU is one simulated board and its smoothed state.
type simGPU struct {
	device   Device
	model    Model
	profiles []Profile
	faults   profileSet
	maxGen   int        // PCIe generation of the board's host link
	phase    [4]float64 // per-GPU offsets so boards do not move in lockstep

	busy         bool // a job runs on it (SetBusy)
	benchmarking bool // the benchmark loads it (SetBenchmarking)
	started      bool
	last         time.Time
	util         float64 // percent
	powerW       float64
	tempC        float64
	memUsed      float64 // bytes
	// ECC counters: they rise under load on an ecc-errors board.
	eccCorrected, eccUncorrected float64
}

// Simulated ECC error rates of an ecc-errors board under load, per second:
// enough that a benchmark of under a second sees the uncorrected counter
// rise.
const (
	simECCCorrectedPerSecond   = 40.0
	simECCUncorrectedPerSecond = 5.0
)

// Simulated fault figures (see Profile).
const (
	throttledTempC       = 92.0 // where a heat-soaked board sits
	throttledClockShare  = 0.55 // SM clock against boost when thermally throttled
	powerCappedLimit     = 0.65 // the lowered power limit against the rated power
	powerCappedClockRate = 0.6  // SM clock against boost at the lowered limit
)

// NewSimulator builds the GPUs spec describes. WithSeed (the machine id)
// makes their UUIDs stable; WithClock drives their telemetry.
func NewSimulator(spec SimSpec, opts ...Option) *Simulator {
	o := NewOptions(opts...)
	s := &Simulator{clock: o.Clock, byUUID: make(map[string]*simGPU), machineProfiles: spec.MachineProfiles()}
	index := 0
	for _, g := range spec {
		for range g.Count {
			name := g.Model.Name
			if len(g.Model.NVMLNames) > 0 {
				name = g.Model.NVMLNames[0]
			}
			sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00%d\x00%s", o.Seed, index, g.Model.Key))
			vram := uint64(g.Model.VRAMGB) << 30
			gpu := &simGPU{
				device: Device{
					Index:             index,
					UUID:              fmt.Sprintf("GPU-%x-%x-%x-%x-%x", sum[0:4], sum[4:6], sum[6:8], sum[8:10], sum[10:16]),
					Name:              name,
					ModelKey:          g.Model.Key,
					VRAMBytes:         &vram,
					PCIBusID:          fmt.Sprintf("00000000:%02X:00.0", pciBuses[index%len(pciBuses)]),
					DriverVersion:     SimulatedDriverVersion,
					CUDADriverVersion: SimulatedCUDADriverVersion,
					PowerLimitW:       ptr(float64(g.Model.MaxPowerW)),
					Simulated:         true,
				},
				model:    g.Model,
				profiles: slices.Clone(g.Profiles),
				faults:   newProfileSet(g.Profiles),
				maxGen:   hostLinkGeneration(g.Model.Key),
			}
			if gpu.faults.powerCapped {
				gpu.device.PowerLimitW = ptr(math.Round(powerCappedLimit * float64(g.Model.MaxPowerW)))
			}
			for i := range gpu.phase {
				gpu.phase[i] = float64(sum[16+i]) / 256 * 2 * math.Pi
			}
			s.gpus = append(s.gpus, gpu)
			s.byUUID[gpu.device.UUID] = gpu
			index++
		}
	}
	return s
}

// Inventory returns the simulated GPUs.
func (s *Simulator) Inventory(ctx context.Context) ([]Device, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Device, len(s.gpus))
	for i, g := range s.gpus {
		d := g.device
		d.VRAMBytes = ptr(*g.device.VRAMBytes)
		d.PowerLimitW = ptr(*g.device.PowerLimitW)
		out[i] = d
	}
	return out, nil
}

// Telemetry advances every simulated GPU to the clock's time and samples it.
func (s *Simulator) Telemetry(ctx context.Context) ([]Sample, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Sample, len(s.gpus))
	for i, g := range s.gpus {
		g.advance(now)
		out[i] = g.sample(now)
	}
	return out, nil
}

// SetBusy marks the GPU with this UUID as running a job (or no longer). The
// readings move towards the new load from the next Telemetry on, with the
// lag of a real board. An unknown UUID is an error.
func (s *Simulator) SetBusy(uuid string, busy bool) error {
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.byUUID[uuid]
	if !ok {
		return fmt.Errorf("gpu: no simulated GPU %q", uuid)
	}
	g.advance(now) // the old load held until now
	g.busy = busy
	return nil
}

// Busy reports whether the GPU with this UUID is marked busy.
func (s *Simulator) Busy(uuid string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.byUUID[uuid]
	return ok && g.busy
}

// SetBenchmarking marks the GPU with this UUID as loaded by the benchmark
// (or no longer): its readings move as under a job, apart from SetBusy's
// mark, which belongs to the job runtime. An unknown UUID is an error.
func (s *Simulator) SetBenchmarking(uuid string, on bool) error {
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.byUUID[uuid]
	if !ok {
		return fmt.Errorf("gpu: no simulated GPU %q", uuid)
	}
	g.advance(now)
	g.benchmarking = on
	return nil
}

// SimulatedGPU is what the simulator models one GPU as: the benchmark's
// modelled figures start from it.
type SimulatedGPU struct {
	// Device is the GPU's inventory entry.
	Device Device
	// Model is its supported model.
	Model Model
	// Profiles are its group's profiles (machine-level ones included), in
	// canonical order; empty when healthy.
	Profiles []Profile
}

// GPU returns the simulated GPU with this UUID, or false.
func (s *Simulator) GPU(uuid string) (SimulatedGPU, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.byUUID[uuid]
	if !ok {
		return SimulatedGPU{}, false
	}
	d := g.device
	d.VRAMBytes = ptr(*g.device.VRAMBytes)
	d.PowerLimitW = ptr(*g.device.PowerLimitW)
	return SimulatedGPU{Device: d, Model: g.model.clone(), Profiles: slices.Clone(g.profiles)}, true
}

// MachineProfiles are the machine-level profiles of the spec the simulator
// was built from (see SimSpec.MachineProfiles).
func (s *Simulator) MachineProfiles() []Profile { return slices.Clone(s.machineProfiles) }

// PCIeLinks reports each simulated GPU's link: at its maximum (gen 4 or 5
// by the model's interface, x16), or gen 1 x4 on a pcie-degraded board.
func (s *Simulator) PCIeLinks(ctx context.Context) ([]PCIeLink, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]PCIeLink, len(s.gpus))
	for i, g := range s.gpus {
		gen, width := g.maxGen, 16
		if g.faults.pcieDegraded {
			gen, width = 1, 4
		}
		out[i] = PCIeLink{Index: g.device.Index, UUID: g.device.UUID,
			Generation: ptr(gen), Width: ptr(width), MaxGeneration: ptr(g.maxGen), MaxWidth: ptr(16)}
	}
	return out, nil
}

// hostLinkGeneration is the PCIe generation of a model's host link, read
// from the catalogue's interface ("PCIe Gen5 x16", "SXM5": 5; "SXM4",
// "PCIe Gen4 x16": 4), 4 when it does not say.
func hostLinkGeneration(key string) int {
	cm := catalog.ByKey(key)
	if cm == nil {
		return 4
	}
	switch iface := strings.ToLower(cm.Interface); {
	case strings.Contains(iface, "gen5"), strings.Contains(iface, "sxm5"):
		return 5
	case strings.Contains(iface, "gen3"):
		return 3
	}
	return 4
}

// Close does nothing; a Simulator holds no resources.
func (s *Simulator) Close() error { return nil }

// advance moves the smoothed readings from g.last to now, each towards the
// target the current load sets, with its own time constant.
func (g *simGPU) advance(now time.Time) {
	if !g.started {
		g.started = true
		g.last = now
		g.util = g.targetUtil(now)
		g.powerW = g.targetPower(g.util)
		g.tempC = g.targetTemp(g.util)
		g.memUsed = g.targetMemory()
		return
	}
	dt := now.Sub(g.last)
	if dt <= 0 {
		return
	}
	g.last = now
	if g.faults.eccErrors && g.model.ECC && g.loaded() {
		g.eccCorrected += simECCCorrectedPerSecond * dt.Seconds()
		g.eccUncorrected += simECCUncorrectedPerSecond * dt.Seconds()
	}
	g.util = approach(g.util, g.targetUtil(now), dt, utilTau)
	g.powerW = approach(g.powerW, g.targetPower(g.util)+g.wave(now, 3*time.Second, 2, 0.015*float64(g.model.MaxPowerW)), dt, powerTau)
	if g.faults.powerCapped {
		g.powerW = math.Min(g.powerW, *g.device.PowerLimitW) // the cap holds it there
	}
	g.tempC = approach(g.tempC, g.targetTemp(g.util), dt, tempTau)
	g.memUsed = approach(g.memUsed, g.targetMemory(), dt, memoryTau)
}

// targetUtil is where utilisation heads: 0–5% idle, 90–98% under a job.
func (g *simGPU) targetUtil(now time.Time) float64 {
	if g.loaded() {
		return 94 + g.wave(now, 11*time.Second, 0, 4)
	}
	return 2.5 + g.wave(now, 17*time.Second, 0, 2.5)
}

// loaded reports whether a job or the benchmark runs on the GPU.
func (g *simGPU) loaded() bool { return g.busy || g.benchmarking }

// targetPower rises linearly with load from idle draw to 96% of the board
// limit, which is where a saturated board sits. A power-capped board sits
// at its lowered limit whatever the load, so the dashboard shows the fault
// between benchmarks too.
func (g *simGPU) targetPower(util float64) float64 {
	limit := float64(g.model.MaxPowerW)
	if g.faults.powerCapped {
		return *g.device.PowerLimitW
	}
	return g.model.idlePowerW + (0.96*limit-g.model.idlePowerW)*util/100
}

// targetTemp rises with load; a throttled board is heat-soaked (failed
// fans, clogged heatsink) and sits at throttledTempC whatever the load.
func (g *simGPU) targetTemp(util float64) float64 {
	if g.faults.throttled {
		return throttledTempC
	}
	return ambientC + fullLoadRiseC*util/100
}

// targetMemory is the driver's context when idle, three quarters of the
// board when a job has loaded its model and batches.
func (g *simGPU) targetMemory() float64 {
	vram := float64(*g.device.VRAMBytes)
	if g.busy {
		return 0.74 * vram
	}
	return 0.006 * vram
}

// wave is a slow deterministic wobble of the given amplitude, so idle
// readings are not frozen and two boards never match exactly.
func (g *simGPU) wave(now time.Time, period time.Duration, phase int, amplitude float64) float64 {
	t := float64(now.UnixNano()%int64(24*time.Hour)) / float64(period)
	return amplitude * math.Sin(2*math.Pi*t+g.phase[phase])
}

// sample turns the smoothed state into what NVML would report.
func (g *simGPU) sample(now time.Time) Sample {
	util := clampInt(math.Round(g.util), 0, 100)
	power := math.Round(g.powerW*10) / 10
	limit := *g.device.PowerLimitW

	var reasons ThrottleReasons
	clockMHz := g.model.boostClockMHz
	switch {
	case util < 10:
		reasons |= ThrottleGPUIdle // clocks drop to save power
		clockMHz = g.model.idleClockMHz
	case power >= 0.95*limit:
		reasons |= ThrottleSWPowerCap // the board hit its limit
		clockMHz = int(float64(g.model.boostClockMHz) * 0.93)
	}
	// The faults show in every sample, idle or not, so the dashboard shows
	// them between benchmarks too.
	if g.faults.powerCapped {
		reasons |= ThrottleSWPowerCap
		if util >= 10 {
			clockMHz = min(clockMHz, int(float64(g.model.boostClockMHz)*powerCappedClockRate))
		}
	}
	if g.faults.throttled {
		reasons |= ThrottleHWThermalSlowdown | ThrottleSWThermalSlowdown
		if util >= 10 {
			clockMHz = min(clockMHz, int(float64(g.model.boostClockMHz)*throttledClockShare))
		}
	}

	s := Sample{
		Index:                g.device.Index,
		UUID:                 g.device.UUID,
		At:                   now,
		UtilizationPct:       ptr(util),
		MemoryUtilizationPct: ptr(clampInt(math.Round(g.util*0.55), 0, 100)),
		MemoryUsedBytes:      ptr(uint64(g.memUsed) &^ (1<<20 - 1)), // NVML reports whole MiB
		TemperatureC:         ptr(clampInt(math.Round(g.tempC), 0, 120)),
		PowerDrawW:           ptr(power),
		SMClockMHz:           ptr(clockMHz),
		Throttle:             ptr(reasons),
		ThrottleReasons:      reasons.Names(),
	}
	if g.model.ECC {
		s.ECCCorrected = ptr(uint64(g.eccCorrected))
		s.ECCUncorrected = ptr(uint64(g.eccUncorrected))
	}
	return s
}

// approach moves v towards target as a first-order lag with time constant
// tau would over dt.
func approach(v, target float64, dt, tau time.Duration) float64 {
	return target + (v-target)*math.Exp(-float64(dt)/float64(tau))
}

func clampInt(v float64, lo, hi int) int {
	return int(math.Max(float64(lo), math.Min(float64(hi), v)))
}
