package fleet

import (
	"strings"
	"time"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/validate"
)

// Limits on what an agent may report.
const (
	MaxGPUsPerMachine      = 64
	MaxThrottleReasons     = 32
	MaxRecentSamples       = 120
	MaxTextLength          = 128
	maxMemoryBytes         = 1 << 50 // 1 PiB
	maxPowerW              = 5_000
	maxClockMHz            = 10_000
	minTemperatureC        = -50
	maxTemperatureC        = 150
	maxECC                 = 1e15
	maxClockSkewIntoFuture = 5 * time.Minute
	// A host's bounds (issue 26): beyond any machine sold today, so a
	// figure past them is a broken or lying agent, not a big machine.
	maxCPUCores  = 4096
	maxRAMBytes  = 64 << 40 // 64 TiB
	maxDiskBytes = 10 << 50 // 10 PiB
)

// The rules of what an agent reports. Labels (hostname, versions, GPU
// names, throttle reasons) are single-line text of at most MaxTextLength
// characters.
var (
	machineIDRule     = validate.Identifier{Min: protocol.MachineIDMinLength, Max: protocol.MachineIDMaxLength}
	labelRule         = validate.Text{Required: true, MaxRunes: MaxTextLength}
	optionalLabelRule = validate.Text{MaxRunes: MaxTextLength}
	gpusRule          = validate.Items{Max: MaxGPUsPerMachine}
	reasonsRule       = validate.Items{Max: MaxThrottleReasons}
	samplesRule       = validate.Items{Max: MaxRecentSamples}
	indexRule         = validate.Range[int]{Min: 0, Max: MaxGPUsPerMachine - 1}
	memoryRule        = validate.Range[float64]{Min: 0, Max: maxMemoryBytes}
	powerRule         = validate.Range[float64]{Min: 0, Max: maxPowerW}
	percentRule       = validate.Range[float64]{Min: 0, Max: 100}
	temperatureRule   = validate.Range[float64]{Min: minTemperatureC, Max: maxTemperatureC}
	eccRule           = validate.Range[float64]{Min: 0, Max: maxECC}
	clockRule         = validate.Range[int]{Min: 0, Max: maxClockMHz}
	coresRule         = validate.Range[int]{Min: 1, Max: maxCPUCores}
	ramRule           = validate.Range[float64]{Min: 0, Max: maxRAMBytes}
	diskRule          = validate.Range[float64]{Min: 0, Max: maxDiskBytes}
)

// Field paths are built per GPU and formatted only when a problem is found,
// so a valid heartbeat (the hot path) formats no field names.
var (
	inputPath = validate.At("input")
	gpusPath  = validate.At("input.gpus")
	hostPath  = validate.At("input.host")
)

// validateRegistration checks a registration, trimming the hostname. A
// simulated GPU is INVALID at its simulated field unless allowSimulated
// (Config.AllowSimulated: the demo world and tests).
func validateRegistration(in *protocol.RegisterMachineInput, allowSimulated bool) error {
	var v fault.Validation
	machineIDRule.Check(&v, inputPath.Field("machineId"), in.MachineID)
	in.Hostname = strings.TrimSpace(in.Hostname)
	labelRule.Check(&v, inputPath.Field("hostname"), in.Hostname)
	labelRule.Check(&v, inputPath.Field("agentVersion"), in.AgentVersion)
	validateHost(&v, in.Host)
	if !gpusRule.Check(&v, inputPath.Field("gpus"), len(in.Gpus)) {
		return v.Err()
	}
	seen := map[string]bool{}
	for i, g := range in.Gpus {
		gpu := gpusPath.Index(i)
		labelRule.Check(&v, gpu.Field("uuid"), g.UUID)
		if seen[g.UUID] {
			v.Add(gpu.Field("uuid").String(), fault.Duplicate, "each GPU appears once")
		}
		seen[g.UUID] = true
		labelRule.Check(&v, gpu.Field("name"), g.Name)
		if g.Simulated && !allowSimulated {
			v.Add(gpu.Field("simulated").String(), fault.InvalidValue,
				"this server takes real GPUs only: simulated GPUs (the agent's --simulate) are for a demo server (gpunex serve --demo)")
		}
		indexRule.Check(&v, gpu.Field("index"), g.Index)
		memoryRule.CheckOptional(&v, gpu.Field("vramBytes"), g.VRAMBytes)
		powerRule.CheckOptional(&v, gpu.Field("powerLimitW"), g.PowerLimitW)
		for _, l := range []struct {
			name string
			p    *string
		}{{"pciBusId", g.PCIBusID}, {"driverVersion", g.DriverVersion}, {"cudaDriverVersion", g.CUDADriverVersion}} {
			if l.p != nil {
				optionalLabelRule.Check(&v, gpu.Field(l.name), *l.p)
			}
		}
	}
	return v.Err()
}

// validateHost checks what the agent says of its host, trimming the CPU
// model; a nil host (an agent before issue 26) is valid.
func validateHost(v *fault.Validation, h *protocol.HostFacts) {
	if h == nil {
		return
	}
	if h.CPUModel != nil {
		m := strings.TrimSpace(*h.CPUModel)
		h.CPUModel = &m
		optionalLabelRule.Check(v, hostPath.Field("cpuModel"), m)
	}
	coresRule.CheckOptional(v, hostPath.Field("cpuCores"), h.CPUCores)
	ramRule.CheckOptional(v, hostPath.Field("ramBytes"), h.RAMBytes)
	diskRule.CheckOptional(v, hostPath.Field("diskBytes"), h.DiskBytes)
	if diskRule.CheckOptional(v, hostPath.Field("diskFreeBytes"), h.DiskFreeBytes) &&
		h.DiskFreeBytes != nil && h.DiskBytes != nil && *h.DiskFreeBytes > *h.DiskBytes {
		v.Add(hostPath.Field("diskFreeBytes").String(), fault.OutOfRange, "free space cannot exceed the disk's size")
	}
}

// validateHeartbeat checks a heartbeat; now bounds the sample time.
func validateHeartbeat(in *protocol.HeartbeatInput, now time.Time) error {
	var v fault.Validation
	machineIDRule.Check(&v, inputPath.Field("machineId"), in.MachineID)
	if in.At != nil {
		validate.NotAfter(&v, inputPath.Field("at"), *in.At, now.Add(maxClockSkewIntoFuture))
	}
	if !gpusRule.Check(&v, inputPath.Field("gpus"), len(in.Gpus)) {
		return v.Err()
	}
	for i := range in.Gpus {
		g := &in.Gpus[i]
		gpu := gpusPath.Index(i)
		labelRule.Check(&v, gpu.Field("uuid"), g.UUID)
		percentRule.CheckOptional(&v, gpu.Field("utilizationPct"), g.UtilizationPct)
		memoryRule.CheckOptional(&v, gpu.Field("memoryUsedBytes"), g.MemoryUsedBytes)
		temperatureRule.CheckOptional(&v, gpu.Field("temperatureC"), g.TemperatureC)
		powerRule.CheckOptional(&v, gpu.Field("powerDrawW"), g.PowerDrawW)
		eccRule.CheckOptional(&v, gpu.Field("eccCorrected"), g.ECCCorrected)
		eccRule.CheckOptional(&v, gpu.Field("eccUncorrected"), g.ECCUncorrected)
		clockRule.CheckOptional(&v, gpu.Field("smClockMHz"), g.SMClockMHz)
		reasons := gpu.Field("throttleReasons")
		reasonsRule.Check(&v, reasons, len(g.ThrottleReasons))
		for j, r := range g.ThrottleReasons {
			labelRule.Check(&v, reasons.Index(j), r)
		}
		samples := gpu.Field("recentUtilizationPct")
		if samplesRule.Check(&v, samples, len(g.RecentUtilizationPct)) {
			for j := range g.RecentUtilizationPct {
				percentRule.Check(&v, samples.Index(j), g.RecentUtilizationPct[j])
			}
		}
	}
	return v.Err()
}
