package client

import (
	"github.com/gpunex/gpunex/agent/gpu"
	"github.com/gpunex/gpunex/agent/protocol"
)

// RecentSamples is how many utilisation samples per GPU a heartbeat
// carries in recentUtilizationPct (the dashboard's sparkline).
const RecentSamples = 30

// InventoryInput maps the detector's devices to registerMachine's input.
func InventoryInput(devices []gpu.Device) []protocol.GpuInventory {
	out := make([]protocol.GpuInventory, 0, len(devices))
	for _, d := range devices {
		out = append(out, protocol.GpuInventory{
			UUID:              d.UUID,
			Index:             d.Index,
			Name:              d.Name,
			VRAMBytes:         floatOf(d.VRAMBytes),
			PCIBusID:          optional(d.PCIBusID),
			DriverVersion:     optional(d.DriverVersion),
			CUDADriverVersion: optional(d.CUDADriverVersion),
			PowerLimitW:       d.PowerLimitW,
			Simulated:         d.Simulated,
		})
	}
	return out
}

// telemetryInput maps samples to heartbeat's input and records each
// utilisation reading in h.
func telemetryInput(samples []gpu.Sample, h *utilizationHistory) []protocol.GpuTelemetry {
	out := make([]protocol.GpuTelemetry, 0, len(samples))
	seen := make(map[string]bool, len(samples))
	for _, s := range samples {
		seen[s.UUID] = true
		t := protocol.GpuTelemetry{
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

// optional is nil for an empty string: a fact the board does not report.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
