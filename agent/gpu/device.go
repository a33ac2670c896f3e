package gpu

import (
	"context"
	"time"
)

// Detector reads the host's GPUs. Implementations are safe for concurrent
// use.
type Detector interface {
	// Inventory lists the GPUs with their static facts, in index order.
	// Devices whose identity could not be read are left out and named in
	// the error; the devices returned alongside such an error are valid.
	Inventory(ctx context.Context) ([]Device, error)
	// Telemetry reads one live sample per GPU, in index order, with the
	// same partial-result rule as Inventory.
	Telemetry(ctx context.Context) ([]Sample, error)
	// Close releases the underlying library. The Detector is unusable
	// afterwards.
	Close() error
}

// Device is one GPU's static facts, as reported at registration. Optional
// facts are nil (or empty) where the board does not report them.
type Device struct {
	// Index is NVML's device index (the order nvidia-smi shows).
	Index int `json:"index"`
	// UUID is the GPU's stable identity, "GPU-xxxxxxxx-xxxx-…"; it is also
	// the id Docker's device requests take.
	UUID string `json:"uuid"`
	// Name is the product name exactly as NVML reports it.
	Name string `json:"name"`
	// ModelKey is the supported-model key Name maps to (see MatchModel), or
	// empty for a model outside the supported list.
	ModelKey string `json:"modelKey,omitempty"`
	// VRAMBytes is the total framebuffer memory.
	VRAMBytes *uint64 `json:"vramBytes,omitempty"`
	// PCIBusID is the PCI address, e.g. "00000000:1B:00.0".
	PCIBusID string `json:"pciBusId,omitempty"`
	// DriverVersion is the NVIDIA driver version, e.g. "550.54.15".
	DriverVersion string `json:"driverVersion,omitempty"`
	// CUDADriverVersion is the highest CUDA version the driver supports,
	// e.g. "12.4".
	CUDADriverVersion string `json:"cudaDriverVersion,omitempty"`
	// PowerLimitW is the enforced board power limit in watts.
	PowerLimitW *float64 `json:"powerLimitW,omitempty"`
	// Simulated is true for GPUs invented by --simulate.
	Simulated bool `json:"simulated"`
	// Problems lists optional facts that could not be read for a reason
	// other than "not supported", e.g. "pci bus id: ERROR_UNKNOWN".
	Problems []string `json:"problems,omitempty"`
}

// Sample is one GPU's live telemetry. A nil field means the board does not
// report it (or the read failed; see Problems).
type Sample struct {
	// Index and UUID identify the GPU, as in Device.
	Index int    `json:"index"`
	UUID  string `json:"uuid"`
	// At is when the sample was read.
	At time.Time `json:"at"`
	// UtilizationPct is the share of the last sample period in which a
	// kernel ran on the GPU, 0–100.
	UtilizationPct *int `json:"utilizationPct,omitempty"`
	// MemoryUtilizationPct is the share of time device memory was read or
	// written, 0–100.
	MemoryUtilizationPct *int `json:"memoryUtilizationPct,omitempty"`
	// MemoryUsedBytes is allocated framebuffer memory.
	MemoryUsedBytes *uint64 `json:"memoryUsedBytes,omitempty"`
	// TemperatureC is the GPU die temperature in degrees Celsius.
	TemperatureC *int `json:"temperatureC,omitempty"`
	// PowerDrawW is the board's power draw in watts.
	PowerDrawW *float64 `json:"powerDrawW,omitempty"`
	// SMClockMHz is the current streaming-multiprocessor clock.
	SMClockMHz *int `json:"smClockMHz,omitempty"`
	// Throttle is the bitmask of reasons the clocks are held below their
	// maximum (NVML's clocks event reasons); ThrottleReasons names its bits.
	Throttle *ThrottleReasons `json:"throttle,omitempty"`
	// ThrottleReasons are the names of the bits set in Throttle.
	ThrottleReasons []string `json:"throttleReasons,omitempty"`
	// ECCCorrected and ECCUncorrected count memory errors since the driver
	// was loaded (NVML's volatile counters). Nil on boards without ECC or
	// with ECC disabled.
	ECCCorrected   *uint64 `json:"eccCorrected,omitempty"`
	ECCUncorrected *uint64 `json:"eccUncorrected,omitempty"`
	// Problems lists fields that could not be read for a reason other than
	// "not supported".
	Problems []string `json:"problems,omitempty"`
}

// ptr returns a pointer to v; it keeps optional-field assignments short.
func ptr[T any](v T) *T { return &v }

// PCIeLink is a GPU's host link: the generation and lane width it runs at
// now and the most it can run at. A nil field was not reported. A healthy
// board under load runs at its maximum; an idle one may train down to save
// power, so the current figures mean most while the GPU is busy.
type PCIeLink struct {
	// Index and UUID identify the GPU, as in Device.
	Index int    `json:"index"`
	UUID  string `json:"uuid"`
	// Generation and Width are the link as it runs now (e.g. 4 and 16).
	Generation *int `json:"generation,omitempty"`
	Width      *int `json:"width,omitempty"`
	// MaxGeneration and MaxWidth are the most the GPU and its slot allow.
	MaxGeneration *int `json:"maxGeneration,omitempty"`
	MaxWidth      *int `json:"maxWidth,omitempty"`
}

// LinkReader is implemented by detectors that can read the GPUs' PCIe
// links (the Simulator and nvmldetect.Detector). It is a separate interface
// so Detector stays what every heartbeat needs; the benchmark reads links
// where a detector offers them.
type LinkReader interface {
	// PCIeLinks reads every GPU's link, in index order, with Inventory's
	// partial-result rule.
	PCIeLinks(ctx context.Context) ([]PCIeLink, error)
}
