package bench

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/catalog"
	"github.com/gpunex/gpunex/models"
)

// MetricRule is how one metric is scored and thresholded.
type MetricRule struct {
	// Attainable is the share of the datasheet figure the suite reaches on
	// a healthy GPU (its kernels are not vendor libraries): the expected
	// figure is the reference times Attainable.
	Attainable float64 `json:"attainable"`
	// Weight is the metric's weight in the score (0: not scored).
	Weight float64 `json:"weight"`
	// MinRatio, when above zero, makes the metric a threshold: under
	// MinRatio × expected the GPU is delisted.
	MinRatio float64 `json:"minRatio"`
}

// MachineRule is a machine metric's threshold, an absolute figure.
type MachineRule struct {
	// Minimum is the least acceptable figure (the most, when LowerIsBetter);
	// zero means the metric is shown but not a threshold.
	Minimum       float64 `json:"minimum"`
	LowerIsBetter bool    `json:"lowerIsBetter"`
}

// Thresholds are the scoring rules: per GPU metric, relative to the
// model's reference; per machine metric, absolute.
type Thresholds struct {
	GPU     map[protocol.BenchMetric]MetricRule  `json:"gpu"`
	Machine map[protocol.BenchMetric]MachineRule `json:"machine"`
}

// DefaultThresholds are the documented defaults (see the package doc).
func DefaultThresholds() Thresholds {
	return Thresholds{
		GPU: map[protocol.BenchMetric]MetricRule{
			protocol.MetricFP32:        {Attainable: 0.90, Weight: 0.20, MinRatio: 0.70},
			protocol.MetricFP16:        {Attainable: 0.85, Weight: 0.10},
			protocol.MetricTensorFP16:  {Attainable: 0.55, Weight: 0.20, MinRatio: 0.70},
			protocol.MetricTensorBF16:  {Attainable: 0.55, Weight: 0.15},
			protocol.MetricMemoryRead:  {Attainable: 0.85, Weight: 0.10},
			protocol.MetricMemoryWrite: {Attainable: 0.85, Weight: 0.10},
			protocol.MetricMemoryCopy:  {Attainable: 0.80, Weight: 0.15, MinRatio: 0.70},
		},
		Machine: map[protocol.BenchMetric]MachineRule{
			protocol.MetricNetworkLatency:    {},
			protocol.MetricNetworkDownload:   {Minimum: 50},
			protocol.MetricNetworkUpload:     {Minimum: 20},
			protocol.MetricStorageWrite:      {Minimum: 100},
			protocol.MetricStorageRead:       {Minimum: 200},
			protocol.MetricStorageRandomRead: {Minimum: 1000},
		},
	}
}

// PhysicalMargin is how far above its datasheet figure a measurement may
// be before it is refused as impossible.
const PhysicalMargin = 1.5

// machineCeilings bound machine figures that no real machine reaches (a
// 400 Gbit/s link, a PCIe 5 x16 NVMe array's reads).
var machineCeilings = map[protocol.BenchMetric]float64{
	protocol.MetricNetworkLatency:    60_000,
	protocol.MetricNetworkDownload:   400_000,
	protocol.MetricNetworkUpload:     400_000,
	protocol.MetricStorageWrite:      100_000,
	protocol.MetricStorageRead:       100_000,
	protocol.MetricStorageRandomRead: 50_000_000,
}

// reference returns a model's datasheet figure for a GPU metric.
func reference(m *catalog.GpuModel, metric protocol.BenchMetric) *float64 {
	if m == nil {
		return nil
	}
	switch metric {
	case protocol.MetricFP32:
		return &m.Fp32Tflops
	case protocol.MetricFP16:
		return m.Fp16Tflops
	case protocol.MetricTensorFP16, protocol.MetricTensorBF16:
		// The datasheets' dense BF16 tensor figure equals the FP16 one.
		return &m.Fp16TensorTflops
	case protocol.MetricMemoryRead, protocol.MetricMemoryWrite, protocol.MetricMemoryCopy:
		return &m.MemoryBandwidthGBs
	}
	return nil
}

// ModelFor is the catalog model a GPU is scored against: its own, or for an
// unlisted GPU the first model of the closest catalog family (the family
// named as a whole word in the product name, e.g. "NVIDIA H100 80GB HBM3e"
// is an H100, and so, as NVML hyphenates some names, "NVIDIA
// A100-SXM4-64GB" is an A100), or nil: such a GPU is not scored, never
// refused.
func ModelFor(modelKey *string, name string) *catalog.GpuModel {
	if modelKey != nil {
		if m := catalog.ByKey(*modelKey); m != nil {
			return m
		}
	}
	if m := catalog.ByNVMLName(name); m != nil {
		return m
	}
	words := " " + strings.Join(strings.FieldsFunc(strings.ToUpper(name), func(r rune) bool {
		return unicode.IsSpace(r) || r == '-' || r == '_'
	}), " ") + " "
	var best *catalog.GpuModel
	bestLen := 0
	for _, m := range catalog.Models() {
		fam := familyStem(m.Family)
		if len(fam) > bestLen && strings.Contains(words, " "+fam+" ") {
			best, bestLen = m, len(fam)
		}
	}
	return best
}

// familyStem is a family's name without its memory size: "RTX 4090 24 GB"
// is "RTX 4090".
func familyStem(family string) string {
	f := strings.Fields(strings.ToUpper(family))
	if n := len(f); n >= 2 && f[n-1] == "GB" {
		f = f[:n-2]
	}
	return strings.Join(f, " ")
}

// Evaluation is one GPU's result, scored.
type Evaluation struct {
	Figures    []models.BenchmarkFigure
	Score      *int
	Passed     bool
	Shortfalls []models.BenchmarkFigure
	Guidance   []models.BenchmarkGuidance
}

// evaluateGPU scores one GPU's part of a run against model (nil: not
// scored) and, with the machine's sections already scored, decides whether
// it passes and what to check.
func (t Thresholds) evaluateGPU(model *catalog.GpuModel, r protocol.GpuBenchResult, network, storage *models.BenchmarkSection) Evaluation {
	var e Evaluation
	logSum, weights := 0.0, 0.0
	for _, m := range r.Measurements {
		rule := t.GPU[m.Metric]
		f := models.BenchmarkFigure{Metric: m.Metric, Supported: m.Supported, Measured: m.Median, Min: m.Min, Max: m.Max, Passed: true}
		if ref := reference(model, m.Metric); ref != nil && rule.Attainable > 0 {
			f.Reference = ptr(*ref)
			f.Expected = ptr(round3(*ref * rule.Attainable))
			if rule.MinRatio > 0 {
				f.Minimum = ptr(round3(*f.Expected * rule.MinRatio))
			}
			if m.Supported && m.Median != nil {
				ratio := *m.Median / *f.Expected
				f.Ratio = ptr(round3(ratio))
				if rule.Weight > 0 {
					logSum += rule.Weight * math.Log(max(min(ratio, 1), 1e-6))
					weights += rule.Weight
				}
				if f.Minimum != nil && *m.Median < *f.Minimum {
					f.Passed = false
				}
			}
		}
		e.Figures = append(e.Figures, f)
		if !f.Passed {
			e.Shortfalls = append(e.Shortfalls, f)
		}
	}
	if r.Outcome == protocol.BenchCompleted && weights > 0 {
		s := int(math.Round(100 * math.Exp(logSum/weights)))
		e.Score = &s
	}
	gpuOK := len(e.Shortfalls) == 0 && r.Outcome == protocol.BenchCompleted
	e.Passed = gpuOK
	for _, sec := range []*models.BenchmarkSection{network, storage} {
		if sec == nil {
			continue
		}
		for _, f := range sec.Figures {
			if !f.Passed {
				e.Passed = false
				e.Shortfalls = append(e.Shortfalls, f)
			}
		}
	}
	if !e.Passed {
		e.Guidance = guidance(model, r, e.Shortfalls, gpuOK)
	}
	if e.Figures == nil {
		e.Figures = []models.BenchmarkFigure{}
	}
	if e.Shortfalls == nil {
		e.Shortfalls = []models.BenchmarkFigure{}
	}
	if e.Guidance == nil {
		e.Guidance = []models.BenchmarkGuidance{}
	}
	return e
}

// evaluateSection scores a machine section against the absolute rules.
func (t Thresholds) evaluateSection(in *protocol.BenchSection) *models.BenchmarkSection {
	if in == nil {
		return nil
	}
	out := &models.BenchmarkSection{Outcome: in.Outcome, Error: in.Error, Figures: []models.BenchmarkFigure{}}
	for _, m := range in.Measurements {
		f := models.BenchmarkFigure{Metric: m.Metric, Supported: m.Supported, Measured: m.Median, Min: m.Min, Max: m.Max, Passed: true}
		rule := t.Machine[m.Metric]
		if rule.Minimum > 0 {
			f.Minimum = ptr(rule.Minimum)
			if m.Supported && m.Median != nil {
				f.Passed = *m.Median >= rule.Minimum
				if rule.LowerIsBetter {
					f.Passed = *m.Median <= rule.Minimum
				}
			}
		}
		out.Figures = append(out.Figures, f)
	}
	return out
}

// guidance draws what to check from a failing GPU's evidence and its
// shortfalls, most specific first; gpuOK says the GPU's own figures passed
// (so only the machine's sections fell short).
func guidance(model *catalog.GpuModel, r protocol.GpuBenchResult, shortfalls []models.BenchmarkFigure, gpuOK bool) []models.BenchmarkGuidance {
	var out []models.BenchmarkGuidance
	add := func(code models.BenchmarkGuidanceCode, msg string, kv ...string) {
		g := models.BenchmarkGuidance{Code: code, Message: msg, Params: []models.BenchmarkParam{}}
		for i := 0; i+1 < len(kv); i += 2 {
			g.Params = append(g.Params, models.BenchmarkParam{Key: kv[i], Value: kv[i+1]})
		}
		out = append(out, g)
	}
	if r.Outcome == protocol.BenchFailed {
		name := "unknown"
		if r.Error != nil {
			name = *r.Error
		}
		add(models.GuidanceDriverError, fmt.Sprintf("The GPU could not complete the benchmark: the driver reported %s. "+
			"Check the kernel log (dmesg) for Xid errors, reseat the card and update the driver; a GPU that keeps failing needs service.", name),
			"error", name)
	}
	gpuShort := !gpuOK && r.Outcome == protocol.BenchCompleted
	if ev := r.Evidence; ev != nil && !gpuOK {
		thermal := hasReason(ev.ThrottleReasons, "hw_thermal_slowdown", "sw_thermal_slowdown")
		power := hasReason(ev.ThrottleReasons, "sw_power_cap", "hw_power_brake_slowdown")
		if thermal && ev.ThrottledShare > 0.1 {
			add(models.GuidanceThermalThrottling, fmt.Sprintf("The GPU throttled for heat during %s of the run (up to %s °C). "+
				"Check its fans and airflow, clean the heatsink, and keep the room or rack inlet cool.",
				pct(ev.ThrottledShare), num(ev.MaxTemperatureC)),
				"sharePct", pctNum(ev.ThrottledShare), "maxTemperatureC", num(ev.MaxTemperatureC))
		}
		if power && ev.ThrottledShare > 0.1 {
			maxW := ""
			if model != nil {
				maxW = strconv.Itoa(model.MaxPowerW)
			}
			add(models.GuidancePowerThrottling, fmt.Sprintf("The GPU was held at its power limit (%s W of a rated %s W) during %s of the run. "+
				"Raise the power limit (nvidia-smi -pl) and check the power supply and its cables.",
				num(ev.PowerLimitW), maxW, pct(ev.ThrottledShare)),
				"powerLimitW", num(ev.PowerLimitW), "ratedW", maxW, "sharePct", pctNum(ev.ThrottledShare))
		}
		if ev.PcieGeneration != nil && ev.PcieMaxGeneration != nil && ev.PcieWidth != nil && ev.PcieMaxWidth != nil &&
			(*ev.PcieGeneration < *ev.PcieMaxGeneration || *ev.PcieWidth < *ev.PcieMaxWidth) {
			add(models.GuidancePCIeLinkReduced, fmt.Sprintf("The PCIe link ran at Gen %d x%d; the card supports Gen %d x%d. "+
				"Reseat the card in a full-width slot, check riser cables, and set the slot's PCIe generation in the BIOS.",
				*ev.PcieGeneration, *ev.PcieWidth, *ev.PcieMaxGeneration, *ev.PcieMaxWidth),
				"generation", strconv.Itoa(*ev.PcieGeneration), "width", strconv.Itoa(*ev.PcieWidth),
				"maxGeneration", strconv.Itoa(*ev.PcieMaxGeneration), "maxWidth", strconv.Itoa(*ev.PcieMaxWidth))
		}
		if ev.EccUncorrectedDelta != nil && *ev.EccUncorrectedDelta > 0 {
			add(models.GuidanceMemoryErrors, fmt.Sprintf("%s uncorrectable memory errors were counted during the run. "+
				"Run nvidia-smi -q -d ECC and the vendor's memory test; a GPU with recurring uncorrectable errors needs an RMA.",
				num(ev.EccUncorrectedDelta)), "uncorrected", num(ev.EccUncorrectedDelta))
		}
	}
	for _, f := range shortfalls {
		switch {
		case slices.Contains(protocol.StorageMetrics, f.Metric):
			add(models.GuidanceSlowDisk, fmt.Sprintf("The data disk measured %s for %s; at least %s is needed. "+
				"Put the agent's data directory on an SSD or NVMe drive with free space.", num(f.Measured), f.Metric, num(f.Minimum)),
				"metric", string(f.Metric), "measured", num(f.Measured), "minimum", num(f.Minimum))
		case slices.Contains(protocol.NetworkMetrics, f.Metric):
			add(models.GuidanceSlowUplink, fmt.Sprintf("The connection to the platform measured %s for %s; at least %s is needed. "+
				"Check the uplink, use a wired connection, and make sure nothing else saturates it.", num(f.Measured), f.Metric, num(f.Minimum)),
				"metric", string(f.Metric), "measured", num(f.Measured), "minimum", num(f.Minimum))
		}
	}
	if gpuShort && !slices.ContainsFunc(out, func(g models.BenchmarkGuidance) bool {
		return g.Code != models.GuidanceSlowDisk && g.Code != models.GuidanceSlowUplink
	}) {
		f := firstGPUShortfall(shortfalls)
		add(models.GuidanceCheckHardware, fmt.Sprintf("%s measured %s against an expected %s, with no throttling or link problem seen. "+
			"Check that no other process uses the GPU, that the driver is current, and that clocks are not locked low (nvidia-smi -rgc).",
			f.Metric, num(f.Measured), num(f.Expected)),
			"metric", string(f.Metric), "measured", num(f.Measured), "expected", num(f.Expected))
	}
	return out
}

func firstGPUShortfall(fs []models.BenchmarkFigure) models.BenchmarkFigure {
	for _, f := range fs {
		if slices.Contains(protocol.GPUMetrics, f.Metric) {
			return f
		}
	}
	return models.BenchmarkFigure{}
}

func hasReason(reasons []string, any ...string) bool {
	for _, r := range reasons {
		if slices.Contains(any, strings.ToLower(r)) {
			return true
		}
	}
	return false
}

func ptr[T any](v T) *T { return &v }

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// num formats an optional figure for a message: "?" when absent.
func num(p *float64) string {
	if p == nil {
		return "?"
	}
	return strconv.FormatFloat(round3(*p), 'f', -1, 64)
}

func pct(share float64) string { return strconv.Itoa(int(math.Round(share*100))) + " %" }

func pctNum(share float64) string { return strconv.Itoa(int(math.Round(share * 100))) }
