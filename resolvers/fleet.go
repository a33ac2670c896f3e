package resolvers

import (
	"time"

	"github.com/gpunex/gpunex/graph/model"
	"github.com/gpunex/gpunex/internal/fleet"
	"github.com/gpunex/gpunex/models"
)

func registerInput(in model.RegisterMachineInput) fleet.RegisterInput {
	out := fleet.RegisterInput{MachineID: in.MachineID, Hostname: in.Hostname, AgentVersion: in.AgentVersion}
	for _, g := range in.Gpus {
		if g == nil {
			continue
		}
		out.Gpus = append(out.Gpus, fleet.GPUInventory{
			UUID: g.UUID, Index: g.Index, Name: g.Name, VramBytes: g.VramBytes, PciBusID: g.PciBusID,
			DriverVersion: g.DriverVersion, CudaDriverVersion: g.CudaDriverVersion, PowerLimitW: g.PowerLimitW, Simulated: g.Simulated,
		})
	}
	return out
}

func heartbeatInput(in model.HeartbeatInput) fleet.HeartbeatInput {
	out := fleet.HeartbeatInput{MachineID: in.MachineID, At: in.At, GoingOffline: in.GoingOffline != nil && *in.GoingOffline}
	for _, g := range in.Gpus {
		if g == nil {
			continue
		}
		out.Gpus = append(out.Gpus, models.GpuTelemetry{
			UUID: g.UUID, UtilizationPct: g.UtilizationPct, MemoryUsedBytes: g.MemoryUsedBytes, TemperatureC: g.TemperatureC,
			PowerDrawW: g.PowerDrawW, SmClockMHz: g.SmClockMHz, ThrottleReasons: g.ThrottleReasons,
			EccCorrected: g.EccCorrected, EccUncorrected: g.EccUncorrected, RecentUtilizationPct: g.RecentUtilizationPct,
		})
	}
	return out
}

// intervalSeconds reports an interval to agents in whole seconds, at least
// one (tests run the server with sub-second intervals).
func intervalSeconds(d time.Duration) int { return max(1, int(d/time.Second)) }
