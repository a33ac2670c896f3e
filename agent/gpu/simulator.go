package gpu

import (
	"context"
	"crypto/sha256"
	"fmt"
	"math"
	"sync"
	"time"

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

	mu     sync.Mutex
	gpus   []*simGPU
	byUUID map[string]*simGPU
}

var _ Detector = (*Simulator)(nil)

// simGPU is one simulated board and its smoothed state.
type simGPU struct {
	device Device
	model  Model
	phase  [4]float64 // per-GPU offsets so boards do not move in lockstep

	busy    bool
	started bool
	last    time.Time
	util    float64 // percent
	powerW  float64
	tempC   float64
	memUsed float64 // bytes
}

// NewSimulator builds the GPUs spec describes. WithSeed (the machine id)
// makes their UUIDs stable; WithClock drives their telemetry.
func NewSimulator(spec SimSpec, opts ...Option) *Simulator {
	o := NewOptions(opts...)
	s := &Simulator{clock: o.Clock, byUUID: make(map[string]*simGPU)}
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
				model: g.Model,
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
	g.util = approach(g.util, g.targetUtil(now), dt, utilTau)
	g.powerW = approach(g.powerW, g.targetPower(g.util)+g.wave(now, 3*time.Second, 2, 0.015*float64(g.model.MaxPowerW)), dt, powerTau)
	g.tempC = approach(g.tempC, g.targetTemp(g.util), dt, tempTau)
	g.memUsed = approach(g.memUsed, g.targetMemory(), dt, memoryTau)
}

// targetUtil is where utilisation heads: 0–5% idle, 90–98% under a job.
func (g *simGPU) targetUtil(now time.Time) float64 {
	if g.busy {
		return 94 + g.wave(now, 11*time.Second, 0, 4)
	}
	return 2.5 + g.wave(now, 17*time.Second, 0, 2.5)
}

// targetPower rises linearly with load from idle draw to 96% of the board
// limit, which is where a saturated board sits.
func (g *simGPU) targetPower(util float64) float64 {
	limit := float64(g.model.MaxPowerW)
	return g.model.idlePowerW + (0.96*limit-g.model.idlePowerW)*util/100
}

func (g *simGPU) targetTemp(util float64) float64 {
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
	limit := float64(g.model.MaxPowerW)

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
		s.ECCCorrected = ptr(uint64(0))
		s.ECCUncorrected = ptr(uint64(0))
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
