package client

import (
	"time"

	"github.com/gpunex/gpunex/agent/gpu"
)

// RecentSamples is how many utilisation samples per GPU a heartbeat
// carries in recentUtilizationPct (the dashboard's sparkline).
const RecentSamples = 30

// GPUInventory is one GPU as registerMachine takes it (GpuInventoryInput).
type GPUInventory struct {
	UUID              string   `json:"uuid"`
	Index             int      `json:"index"`
	Name              string   `json:"name"`
	VRAMBytes         *float64 `json:"vramBytes,omitempty"`
	PCIBusID          string   `json:"pciBusId,omitempty"`
	DriverVersion     string   `json:"driverVersion,omitempty"`
	CUDADriverVersion string   `json:"cudaDriverVersion,omitempty"`
	PowerLimitW       *float64 `json:"powerLimitW,omitempty"`
	Simulated         bool     `json:"simulated"`
}

// RegisterInput is registerMachine's input (RegisterMachineInput).
type RegisterInput struct {
	MachineID    string         `json:"machineId"`
	Hostname     string         `json:"hostname"`
	AgentVersion string         `json:"agentVersion"`
	GPUs         []GPUInventory `json:"gpus"`
}

// GPUTelemetry is one GPU's sample as heartbeat takes it
// (GpuTelemetryInput). Nil fields are ones the GPU does not report.
type GPUTelemetry struct {
	UUID            string   `json:"uuid"`
	UtilizationPct  *float64 `json:"utilizationPct,omitempty"`
	MemoryUsedBytes *float64 `json:"memoryUsedBytes,omitempty"`
	TemperatureC    *float64 `json:"temperatureC,omitempty"`
	PowerDrawW      *float64 `json:"powerDrawW,omitempty"`
	SMClockMHz      *int     `json:"smClockMHz,omitempty"`
	ThrottleReasons []string `json:"throttleReasons,omitempty"`
	ECCCorrected    *float64 `json:"eccCorrected,omitempty"`
	ECCUncorrected  *float64 `json:"eccUncorrected,omitempty"`
	// RecentUtilizationPct is the GPU's last RecentSamples utilisation
	// readings, oldest first, this one last.
	RecentUtilizationPct []float64 `json:"recentUtilizationPct,omitempty"`
}

// HeartbeatInput is heartbeat's input (HeartbeatInput). It is also what
// the buffer stores, one per line, so a replayed heartbeat is the one that
// was sampled, `at` included.
type HeartbeatInput struct {
	MachineID string `json:"machineId"`
	// At is when the heartbeat was sampled, sent in RFC 3339 (UTC).
	At           time.Time      `json:"at"`
	GPUs         []GPUTelemetry `json:"gpus"`
	GoingOffline bool           `json:"goingOffline,omitempty"`
}

// inventoryInput maps the detector's devices to registerMachine's input.
func inventoryInput(devices []gpu.Device) []GPUInventory {
	out := make([]GPUInventory, 0, len(devices))
	for _, d := range devices {
		out = append(out, GPUInventory{
			UUID:              d.UUID,
			Index:             d.Index,
			Name:              d.Name,
			VRAMBytes:         floatOf(d.VRAMBytes),
			PCIBusID:          d.PCIBusID,
			DriverVersion:     d.DriverVersion,
			CUDADriverVersion: d.CUDADriverVersion,
			PowerLimitW:       d.PowerLimitW,
			Simulated:         d.Simulated,
		})
	}
	return out
}

// telemetryInput maps samples to heartbeat's input and records each
// utilisation reading in h.
func telemetryInput(samples []gpu.Sample, h *utilizationHistory) []GPUTelemetry {
	out := make([]GPUTelemetry, 0, len(samples))
	seen := make(map[string]bool, len(samples))
	for _, s := range samples {
		seen[s.UUID] = true
		t := GPUTelemetry{
			UUID:            s.UUID,
			UtilizationPct:  floatOf(s.UtilizationPct),
			MemoryUsedBytes: floatOf(s.MemoryUsedBytes),
			TemperatureC:    floatOf(s.TemperatureC),
			PowerDrawW:      s.PowerDrawW,
			SMClockMHz:      s.SMClockMHz,
			ECCCorrected:    floatOf(s.ECCCorrected),
			ECCUncorrected:  floatOf(s.ECCUncorrected),
		}
		if s.Throttle != nil {
			t.ThrottleReasons = append([]string{}, s.ThrottleReasons...)
		}
		if t.UtilizationPct != nil {
			h.add(s.UUID, *t.UtilizationPct)
		}
		t.RecentUtilizationPct = h.recent(s.UUID)
		out = append(out, t)
	}
	h.keepOnly(seen)
	return out
}

// utilizationHistory keeps the last RecentSamples utilisation readings of
// each GPU, in memory (a restart starts the sparkline again).
type utilizationHistory struct {
	byUUID map[string][]float64
}

func newUtilizationHistory() *utilizationHistory {
	return &utilizationHistory{byUUID: map[string][]float64{}}
}

func (h *utilizationHistory) add(uuid string, v float64) {
	s := append(h.byUUID[uuid], v)
	if len(s) > RecentSamples {
		s = append(s[:0], s[len(s)-RecentSamples:]...)
	}
	h.byUUID[uuid] = s
}

// recent returns a copy of the GPU's readings, oldest first.
func (h *utilizationHistory) recent(uuid string) []float64 {
	s := h.byUUID[uuid]
	if len(s) == 0 {
		return nil
	}
	return append([]float64(nil), s...)
}

// keepOnly forgets GPUs that are gone.
func (h *utilizationHistory) keepOnly(uuids map[string]bool) {
	for u := range h.byUUID {
		if !uuids[u] {
			delete(h.byUUID, u)
		}
	}
}

type number interface{ ~int | ~uint64 | ~float64 }

func floatOf[T number](v *T) *float64 {
	if v == nil {
		return nil
	}
	f := float64(*v)
	return &f
}
