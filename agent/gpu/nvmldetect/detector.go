package nvmldetect

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/gpunex/gpunex/agent/gpu"
	"github.com/gpunex/gpunex/internal/clock"
)

// simulateHint is the way out that every "no GPU" message offers.
const simulateHint = "or run the agent with --simulate 2xH100,1xL4 to try GPUnex without a GPU"

// Detector is the gpu.Detector for real NVIDIA GPUs, reading them through
// an injected nvml.Interface.
type Detector struct {
	lib       nvml.Interface
	clock     clock.Clock
	closeOnce sync.Once
	closeErr  error
}

var (
	_ gpu.Detector   = (*Detector)(nil)
	_ gpu.LinkReader = (*Detector)(nil)
)

// New initialises lib and returns a detector over it; Close shuts the
// library down again. main builds lib once with nvml.New(); tests pass one
// of go-nvml's mock servers. When the library cannot start, the error wraps
// gpu.ErrNoNVML and names the fix. Only gpu.WithClock applies here.
func New(lib nvml.Interface, opts ...gpu.Option) (*Detector, error) {
	if lib == nil {
		return nil, fmt.Errorf("%w: no NVML library was given", gpu.ErrNoNVML)
	}
	o := gpu.NewOptions(opts...)
	if ret := lib.Init(); ret != nvml.SUCCESS {
		return nil, initError(ret)
	}
	return &Detector{lib: lib, clock: o.Clock}, nil
}

// initError explains a failed nvml.Init in terms of what the provider
// should do.
func initError(ret nvml.Return) error {
	var hint string
	switch ret {
	case nvml.ERROR_LIBRARY_NOT_FOUND, nvml.ERROR_DRIVER_NOT_LOADED:
		hint = "the NVIDIA driver (libnvidia-ml.so.1) was not found: install the NVIDIA driver and the " +
			"NVIDIA Container Toolkit, and start the agent container with --gpus all; " + simulateHint
	case nvml.ERROR_NO_PERMISSION:
		hint = "the agent may not open the GPU devices: start the agent container with --gpus all " +
			"(NVIDIA Container Toolkit) or run it as a user allowed to open /dev/nvidia*; " + simulateHint
	case nvml.ERROR_LIB_RM_VERSION_MISMATCH:
		hint = "the NVIDIA driver library does not match the loaded kernel module, usually after a driver " +
			"upgrade: reboot the host; " + simulateHint
	default:
		hint = "check that nvidia-smi works on the host; install the NVIDIA driver and the NVIDIA Container " +
			"Toolkit; " + simulateHint
	}
	return fmt.Errorf("%w: nvml init: %v: %s", gpu.ErrNoNVML, ret, hint)
}

// Close shuts the NVML library down. Calling it again does nothing.
func (n *Detector) Close() error {
	n.closeOnce.Do(func() {
		if ret := n.lib.Shutdown(); ret != nvml.SUCCESS {
			n.closeErr = fmt.Errorf("nvmldetect: nvml shutdown: %w", ret)
		}
	})
	return n.closeErr
}

// Inventory reads every GPU's static facts.
func (n *Detector) Inventory(ctx context.Context) ([]gpu.Device, error) {
	var sys fieldReader
	var driver, cuda string
	if v, ret := n.lib.SystemGetDriverVersion(); sys.ok("driver version", ret) {
		driver = v
	}
	if v, ret := n.lib.SystemGetCudaDriverVersion(); sys.ok("cuda driver version", ret) {
		cuda = formatCUDAVersion(v)
	}

	var devices []gpu.Device
	err := n.eachDevice(ctx, func(index int, uuid string, h nvml.Device) error {
		name, ret := h.GetName()
		if ret != nvml.SUCCESS {
			return fmt.Errorf("name: %w", ret)
		}
		d := gpu.Device{Index: index, UUID: uuid, Name: name, DriverVersion: driver, CUDADriverVersion: cuda}
		if m, ok := gpu.MatchModel(name); ok {
			d.ModelKey = m.Key
		}
		r := fieldReader{problems: append([]string(nil), sys.problems...)}
		if mem, ret := h.GetMemoryInfo(); r.ok("memory", ret) {
			d.VRAMBytes = ptr(mem.Total)
		}
		if pci, ret := h.GetPciInfo(); r.ok("pci bus id", ret) {
			d.PCIBusID = cString(pci.BusId[:])
		}
		if mw, ok := n.powerLimit(h, &r); ok {
			d.PowerLimitW = ptr(milliwattsToWatts(mw))
		}
		d.Problems = r.problems
		devices = append(devices, d)
		return nil
	})
	return devices, err
}

// powerLimit reads the enforced power limit (the lowest of all limits in
// force), falling back to the configured management limit on boards that
// report only that.
func (n *Detector) powerLimit(h nvml.Device, r *fieldReader) (uint32, bool) {
	mw, ret := h.GetEnforcedPowerLimit()
	if ret == nvml.SUCCESS {
		return mw, true
	}
	if !notSupported(ret) {
		return 0, r.ok("power limit", ret)
	}
	mw, ret = h.GetPowerManagementLimit()
	return mw, r.ok("power limit", ret)
}

// Telemetry reads one sample per GPU.
func (n *Detector) Telemetry(ctx context.Context) ([]gpu.Sample, error) {
	var samples []gpu.Sample
	err := n.eachDevice(ctx, func(index int, uuid string, h nvml.Device) error {
		s := gpu.Sample{Index: index, UUID: uuid, At: n.clock.Now()}
		var r fieldReader
		if u, ret := h.GetUtilizationRates(); r.ok("utilization", ret) {
			s.UtilizationPct = ptr(int(u.Gpu))
			s.MemoryUtilizationPct = ptr(int(u.Memory))
		}
		if used, ret := memoryUsed(h); r.ok("memory used", ret) {
			s.MemoryUsedBytes = ptr(used)
		}
		if t, ret := h.GetTemperature(nvml.TEMPERATURE_GPU); r.ok("temperature", ret) {
			s.TemperatureC = ptr(int(t))
		}
		if mw, ret := h.GetPowerUsage(); r.ok("power draw", ret) {
			s.PowerDrawW = ptr(milliwattsToWatts(mw))
		}
		if mhz, ret := h.GetClockInfo(nvml.CLOCK_SM); r.ok("sm clock", ret) {
			s.SMClockMHz = ptr(int(mhz))
		}
		if reasons, ret := clocksEventReasons(h); r.ok("throttle reasons", ret) {
			s.Throttle = ptr(gpu.ThrottleReasons(reasons))
			s.ThrottleReasons = s.Throttle.Names()
		}
		if c, ret := h.GetTotalEccErrors(nvml.MEMORY_ERROR_TYPE_CORRECTED, nvml.VOLATILE_ECC); r.ok("ecc corrected", ret) {
			s.ECCCorrected = ptr(c)
		}
		if u, ret := h.GetTotalEccErrors(nvml.MEMORY_ERROR_TYPE_UNCORRECTED, nvml.VOLATILE_ECC); r.ok("ecc uncorrected", ret) {
			s.ECCUncorrected = ptr(u)
		}
		s.Problems = r.problems
		samples = append(samples, s)
		return nil
	})
	return samples, err
}

// PCIeLinks reads every GPU's PCIe link as it runs and at most. Boards
// without a PCIe link of their own (some SXM boards behind a switch report
// none) leave the fields nil.
func (n *Detector) PCIeLinks(ctx context.Context) ([]gpu.PCIeLink, error) {
	var links []gpu.PCIeLink
	err := n.eachDevice(ctx, func(index int, uuid string, h nvml.Device) error {
		l := gpu.PCIeLink{Index: index, UUID: uuid}
		var r fieldReader
		if v, ret := h.GetCurrPcieLinkGeneration(); r.ok("pcie generation", ret) {
			l.Generation = ptr(v)
		}
		if v, ret := h.GetCurrPcieLinkWidth(); r.ok("pcie width", ret) {
			l.Width = ptr(v)
		}
		if v, ret := h.GetMaxPcieLinkGeneration(); r.ok("pcie max generation", ret) {
			l.MaxGeneration = ptr(v)
		}
		if v, ret := h.GetMaxPcieLinkWidth(); r.ok("pcie max width", ret) {
			l.MaxWidth = ptr(v)
		}
		links = append(links, l)
		return nil
	})
	return links, err
}

// memoryUsed reads allocated memory the way nvidia-smi shows it: without
// the memory the driver reserves for itself (about 600 MiB on an H200),
// which the older call counts as used. Drivers before R510 only have the
// older call.
func memoryUsed(h nvml.Device) (uint64, nvml.Return) {
	mem, ret := h.GetMemoryInfo_v2()
	if notSupported(ret) {
		old, ret := h.GetMemoryInfo()
		return old.Used, ret
	}
	return mem.Used, ret
}

// clocksEventReasons reads the clocks event reasons, falling back to the
// older "throttle reasons" call on drivers that predate the rename (R535).
func clocksEventReasons(h nvml.Device) (uint64, nvml.Return) {
	reasons, ret := h.GetCurrentClocksEventReasons()
	if ret == nvml.ERROR_FUNCTION_NOT_FOUND {
		return h.GetCurrentClocksThrottleReasons()
	}
	return reasons, ret
}

// eachDevice calls fn for every GPU whose identity can be read, collecting
// the failures of the others into one error.
func (n *Detector) eachDevice(ctx context.Context, fn func(index int, uuid string, h nvml.Device) error) error {
	count, ret := n.lib.DeviceGetCount()
	if ret != nvml.SUCCESS {
		return fmt.Errorf("nvmldetect: count devices: %w", ret)
	}
	var errs []error
	for i := range count {
		if err := ctx.Err(); err != nil {
			return err
		}
		h, ret := n.lib.DeviceGetHandleByIndex(i)
		if ret != nvml.SUCCESS {
			errs = append(errs, fmt.Errorf("gpu %d: handle: %w", i, ret))
			continue
		}
		uuid, ret := h.GetUUID()
		if ret != nvml.SUCCESS {
			errs = append(errs, fmt.Errorf("gpu %d: uuid: %w", i, ret))
			continue
		}
		if err := fn(i, uuid, h); err != nil {
			errs = append(errs, fmt.Errorf("gpu %d (%s): %w", i, uuid, err))
		}
	}
	return errors.Join(errs...)
}

// fieldReader decides, field by field, whether an NVML answer is usable and
// remembers the failures that are worth reporting.
type fieldReader struct {
	problems []string
}

// ok reports whether ret is SUCCESS. A "not supported" answer is normal and
// leaves no trace; anything else is recorded as a problem with field.
func (r *fieldReader) ok(field string, ret nvml.Return) bool {
	switch {
	case ret == nvml.SUCCESS:
		return true
	case notSupported(ret):
		return false
	default:
		r.problems = append(r.problems, field+": "+ret.Error())
		return false
	}
}

// notSupported reports whether ret means the board or driver simply does not
// offer the value: ERROR_NOT_SUPPORTED, or a driver too old to have the call.
func notSupported(ret nvml.Return) bool {
	return ret == nvml.ERROR_NOT_SUPPORTED || ret == nvml.ERROR_FUNCTION_NOT_FOUND
}

// formatCUDAVersion turns NVML's integer CUDA version (12040) into "12.4".
func formatCUDAVersion(v int) string {
	return fmt.Sprintf("%d.%d", v/1000, (v%1000)/10)
}

func milliwattsToWatts(mw uint32) float64 { return float64(mw) / 1000 }

// cString converts a NUL-terminated C char array to a Go string.
func cString(b []int8) string {
	out := make([]byte, 0, len(b))
	for _, c := range b {
		if c == 0 {
			break
		}
		out = append(out, byte(c))
	}
	return string(out)
}

// ptr returns a pointer to v; it keeps optional-field assignments short.
func ptr[T any](v T) *T { return &v }
