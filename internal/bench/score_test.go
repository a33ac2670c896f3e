package bench

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/catalog"
	"github.com/gpunex/gpunex/models"
)

// codes lists the guidance codes of e, in order.
func codes(gs []models.BenchmarkGuidance) []models.BenchmarkGuidanceCode {
	out := []models.BenchmarkGuidanceCode{}
	for _, g := range gs {
		out = append(out, g.Code)
	}
	return out
}

// params returns a guidance's params as a map.
func params(g models.BenchmarkGuidance) map[string]string {
	out := map[string]string{}
	for _, p := range g.Params {
		out[p.Key] = p.Value
	}
	return out
}

// metrics lists the metrics of figures, in order.
func metrics(fs []models.BenchmarkFigure) []protocol.BenchMetric {
	out := []protocol.BenchMetric{}
	for _, f := range fs {
		out = append(out, f.Metric)
	}
	return out
}

// withMeasurement replaces metric's measurement of r.
func withMeasurement(r protocol.GpuBenchResult, m protocol.BenchMeasurement) protocol.GpuBenchResult {
	out := r
	out.Measurements = nil
	for _, x := range r.Measurements {
		if x.Metric == m.Metric {
			x = m
		}
		out.Measurements = append(out.Measurements, x)
	}
	return out
}

// without drops metrics from r.
func without(r protocol.GpuBenchResult, drop ...protocol.BenchMetric) protocol.GpuBenchResult {
	out := r
	out.Measurements = nil
	for _, x := range r.Measurements {
		keep := true
		for _, d := range drop {
			keep = keep && x.Metric != d
		}
		if keep {
			out.Measurements = append(out.Measurements, x)
		}
	}
	return out
}

// Acceptance point 1: scoring and thresholds.
func TestScoringAndThresholdRules(t *testing.T) {
	t.Parallel()
	th := DefaultThresholds()
	sxm := catalog.ByKey("H100_SXM_80GB")
	require.NotNil(t, sxm)
	fine := th.evaluateSection(network(20, 900, 400))
	disk := th.evaluateSection(storage(1500, 2500, 90_000))
	unsupported := func(r protocol.GpuBenchResult) protocol.GpuBenchResult {
		r = withMeasurement(r, protocol.BenchMeasurement{Metric: protocol.MetricTensorFP16, Supported: false})
		return withMeasurement(r, protocol.BenchMeasurement{Metric: protocol.MetricTensorBF16, Supported: false})
	}

	tests := []struct {
		desc    string
		model   *catalog.GpuModel
		result  protocol.GpuBenchResult
		network *models.BenchmarkSection
		storage *models.BenchmarkSection
		check   func(t *testing.T, e Evaluation)
	}{
		{
			desc: "a healthy H100 scores at least 95 and passes", model: sxm, result: healthy("G"),
			check: func(t *testing.T, e Evaluation) {
				require.NotNil(t, e.Score)
				require.GreaterOrEqual(t, *e.Score, 95)
				require.True(t, e.Passed)
				require.Empty(t, e.Shortfalls)
				require.Empty(t, e.Guidance)
				require.Len(t, e.Figures, len(protocol.GPUMetrics))
			},
		},
		{
			desc:  "a throttled H100 (compute ×0.55) falls under the FP32 and tensor minimums, named with measured, expected and minimum",
			model: sxm, result: throttled("G"),
			check: func(t *testing.T, e Evaluation) {
				require.False(t, e.Passed)
				require.NotNil(t, e.Score)
				require.Less(t, *e.Score, 80)
				require.Equal(t, []protocol.BenchMetric{protocol.MetricFP32, protocol.MetricTensorFP16}, metrics(e.Shortfalls))
				fp32 := e.Shortfalls[0]
				require.InDelta(t, 60.3*0.55, *fp32.Measured, 0.001)
				require.InDelta(t, 60.3, *fp32.Expected, 1e-9)
				require.InDelta(t, 42.21, *fp32.Minimum, 1e-9)
				require.InDelta(t, 67, *fp32.Reference, 1e-9)
				require.InDelta(t, 0.55, *fp32.Ratio, 0.001)
				require.False(t, fp32.Passed)
				tensor := e.Shortfalls[1]
				require.InDelta(t, 544.225, *tensor.Expected, 1e-9)
				require.InDelta(t, 380.958, *tensor.Minimum, 0.001)
			},
		},
		{
			desc: "unsupported tensor metrics are not scored and never count as zero", model: sxm, result: unsupported(measured("G", 0.8, 0.9)),
			check: func(t *testing.T, e Evaluation) {
				ref := th.evaluateGPU(sxm, without(measured("G", 0.8, 0.9), protocol.MetricTensorFP16, protocol.MetricTensorBF16), fine, disk)
				require.NotNil(t, e.Score)
				require.Equal(t, *ref.Score, *e.Score, "the score is the one without them")
				require.True(t, e.Passed)
				for _, f := range e.Figures {
					if f.Metric == protocol.MetricTensorFP16 || f.Metric == protocol.MetricTensorBF16 {
						require.False(t, f.Supported)
						require.Nil(t, f.Measured)
						require.Nil(t, f.Ratio)
						require.True(t, f.Passed, "an unsupported threshold metric is not a shortfall")
					}
				}
			},
		},
		{
			desc: "an unknown model is not scored, and passes the machine's thresholds", model: ModelFor(nil, "NVIDIA Foo 9000"), result: healthy("G"),
			check: func(t *testing.T, e Evaluation) {
				require.Nil(t, e.Score)
				require.True(t, e.Passed)
				for _, f := range e.Figures {
					require.Nil(t, f.Expected)
					require.Nil(t, f.Minimum)
				}
			},
		},
		{
			desc: "an unknown model is still judged on the machine's thresholds", model: ModelFor(nil, "NVIDIA Foo 9000"), result: healthy("G"),
			storage: th.evaluateSection(storage(40, 2500, 90_000)),
			check: func(t *testing.T, e Evaluation) {
				require.Nil(t, e.Score)
				require.False(t, e.Passed)
				require.Equal(t, []protocol.BenchMetric{protocol.MetricStorageWrite}, metrics(e.Shortfalls))
				require.Equal(t, []models.BenchmarkGuidanceCode{models.GuidanceSlowDisk}, codes(e.Guidance))
			},
		},
		{
			desc: "an unlisted variant is scored against its family", model: ModelFor(nil, "NVIDIA H100 80GB HBM3e"), result: healthy("G"),
			check: func(t *testing.T, e Evaluation) {
				require.NotNil(t, e.Score)
				require.GreaterOrEqual(t, *e.Score, 95)
				require.InDelta(t, 60.3, *e.Figures[0].Expected, 1e-9)
			},
		},
		{
			desc: "the score is the weighted geometric mean of the ratios, each capped at 1", model: sxm,
			result: func() protocol.GpuBenchResult {
				r := healthy("G")
				r = withMeasurement(r, figure(protocol.MetricFP32, 48.24))                           // 0.8 of 60.3 (weight 0.20)
				r = withMeasurement(r, figure(protocol.MetricFP16, 136.68))                          // 1.2 of 113.9, capped at 1 (0.10)
				r = withMeasurement(r, figure(protocol.MetricTensorFP16, 489.8025))                  // 0.9 of 544.225 (0.20)
				r = withMeasurement(r, protocol.BenchMeasurement{Metric: protocol.MetricTensorBF16}) // unsupported
				r = withMeasurement(r, figure(protocol.MetricMemoryRead, 2847.5))                    // 1.0 (0.10)
				r = withMeasurement(r, figure(protocol.MetricMemoryWrite, 2847.5))                   // 1.0 (0.10)
				return withMeasurement(r, figure(protocol.MetricMemoryCopy, 2010))                   // 0.75 of 2680 (0.15)
			}(),
			check: func(t *testing.T, e Evaluation) {
				want := 100 * math.Exp((0.20*math.Log(0.8)+0.20*math.Log(0.9)+0.15*math.Log(0.75))/0.85)
				require.InDelta(t, 87.98, want, 0.01)
				require.NotNil(t, e.Score)
				require.Equal(t, 88, *e.Score)
				require.True(t, e.Passed, "0.8 and 0.75 are above the 0.7 minimums")
			},
		},
		{
			desc: "slow storage fails a healthy GPU with SLOW_DISK naming the metric", model: sxm, result: healthy("G"),
			storage: th.evaluateSection(storage(1500, 150, 90_000)),
			check: func(t *testing.T, e Evaluation) {
				require.False(t, e.Passed)
				require.GreaterOrEqual(t, *e.Score, 95, "the GPU's own score is untouched")
				require.Equal(t, []models.BenchmarkGuidanceCode{models.GuidanceSlowDisk}, codes(e.Guidance))
				require.Equal(t, map[string]string{"metric": "STORAGE_READ_MBS", "measured": "150", "minimum": "200"}, params(e.Guidance[0]))
			},
		},
		{
			desc: "a slow uplink fails a healthy GPU with SLOW_UPLINK", model: sxm, result: healthy("G"),
			network: th.evaluateSection(network(20, 900, 5)),
			check: func(t *testing.T, e Evaluation) {
				require.False(t, e.Passed)
				require.Equal(t, []models.BenchmarkGuidanceCode{models.GuidanceSlowUplink}, codes(e.Guidance))
				require.Equal(t, "NETWORK_UPLOAD_MBITS", params(e.Guidance[0])["metric"])
			},
		},
		{
			desc: "thermal reasons with a throttled share give THERMAL_THROTTLING with its params", model: sxm, result: throttled("G"),
			check: func(t *testing.T, e Evaluation) {
				require.Equal(t, []models.BenchmarkGuidanceCode{models.GuidanceThermalThrottling}, codes(e.Guidance))
				require.Equal(t, map[string]string{"sharePct": "62", "maxTemperatureC": "91"}, params(e.Guidance[0]))
				require.Contains(t, e.Guidance[0].Message, "62 %")
			},
		},
		{
			desc: "a power cap gives POWER_THROTTLING", model: sxm,
			result: func() protocol.GpuBenchResult {
				r := measured("G", 0.6, 0.97)
				r.Evidence = &protocol.GpuBenchEvidence{Samples: 100, ThrottledShare: 0.8, PowerLimitW: ptr(300.0), ThrottleReasons: []string{"SW_POWER_CAP"}}
				return r
			}(),
			check: func(t *testing.T, e Evaluation) {
				require.Equal(t, []models.BenchmarkGuidanceCode{models.GuidancePowerThrottling}, codes(e.Guidance))
				require.Equal(t, map[string]string{"powerLimitW": "300", "ratedW": "700", "sharePct": "80"}, params(e.Guidance[0]))
			},
		},
		{
			desc: "a reduced PCIe link gives PCIE_LINK_REDUCED", model: sxm,
			result: func() protocol.GpuBenchResult {
				r := measured("G", 0.98, 0.5)
				r.Evidence = &protocol.GpuBenchEvidence{Samples: 100, PcieGeneration: ptr(3), PcieWidth: ptr(8), PcieMaxGeneration: ptr(5), PcieMaxWidth: ptr(16)}
				return r
			}(),
			check: func(t *testing.T, e Evaluation) {
				require.Equal(t, []protocol.BenchMetric{protocol.MetricMemoryCopy}, metrics(e.Shortfalls))
				require.Equal(t, []models.BenchmarkGuidanceCode{models.GuidancePCIeLinkReduced}, codes(e.Guidance))
				require.Equal(t, map[string]string{"generation": "3", "width": "8", "maxGeneration": "5", "maxWidth": "16"}, params(e.Guidance[0]))
			},
		},
		{
			desc: "uncorrected ECC errors give MEMORY_ERRORS", model: sxm,
			result: func() protocol.GpuBenchResult {
				r := measured("G", 0.98, 0.5)
				r.Evidence = &protocol.GpuBenchEvidence{Samples: 100, EccUncorrectedDelta: ptr(3.0), EccCorrectedDelta: ptr(120.0)}
				return r
			}(),
			check: func(t *testing.T, e Evaluation) {
				require.Equal(t, []models.BenchmarkGuidanceCode{models.GuidanceMemoryErrors}, codes(e.Guidance))
				require.Equal(t, map[string]string{"uncorrected": "3"}, params(e.Guidance[0]))
			},
		},
		{
			desc: "a FAILED outcome gives DRIVER_ERROR naming the error, unscored", model: sxm,
			result: func() protocol.GpuBenchResult {
				r := measured("G", 0.98, 0.98)
				r.Outcome, r.Error = protocol.BenchFailed, ptr("CUDA_ERROR_LAUNCH_FAILED")
				r.Measurements = r.Measurements[:2]
				return r
			}(),
			check: func(t *testing.T, e Evaluation) {
				require.False(t, e.Passed)
				require.Nil(t, e.Score)
				require.Equal(t, []models.BenchmarkGuidanceCode{models.GuidanceDriverError}, codes(e.Guidance))
				require.Equal(t, map[string]string{"error": "CUDA_ERROR_LAUNCH_FAILED"}, params(e.Guidance[0]))
				require.Contains(t, e.Guidance[0].Message, "CUDA_ERROR_LAUNCH_FAILED")
			},
		},
		{
			desc: "a shortfall with no cause in the evidence gives CHECK_HARDWARE naming the metric", model: sxm, result: measured("G", 0.5, 0.98),
			check: func(t *testing.T, e Evaluation) {
				require.Equal(t, []models.BenchmarkGuidanceCode{models.GuidanceCheckHardware}, codes(e.Guidance))
				require.Equal(t, map[string]string{"metric": "FP32_TFLOPS", "measured": "30.15", "expected": "60.3"}, params(e.Guidance[0]))
			},
		},
		{
			desc: "throttle reasons held for under a tenth of the run are no cause", model: sxm,
			result: func() protocol.GpuBenchResult {
				r := measured("G", 0.5, 0.98)
				r.Evidence = &protocol.GpuBenchEvidence{Samples: 100, ThrottledShare: 0.05, ThrottleReasons: []string{"HW_THERMAL_SLOWDOWN"}}
				return r
			}(),
			check: func(t *testing.T, e Evaluation) {
				require.Equal(t, []models.BenchmarkGuidanceCode{models.GuidanceCheckHardware}, codes(e.Guidance))
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			nw, st := fine, disk
			if tc.network != nil {
				nw = tc.network
			}
			if tc.storage != nil {
				st = tc.storage
			}
			tc.check(t, th.evaluateGPU(tc.model, tc.result, nw, st))
		})
	}
}

// Acceptance point 1: an unlisted GPU is scored against the closest
// catalogue family, named as a whole word; an unknown one is not scored.
func TestModelForMatchesTheClosestFamily(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc, name string
		key        *string
		want       string // "" for none
	}{
		{desc: "its own model key first", name: "anything", key: ptr("L4_24GB"), want: "L4_24GB"},
		{desc: "a catalogue NVML name", name: "NVIDIA H100 PCIe", want: "H100_PCIE_80GB"},
		{desc: "an unlisted H100 variant is an H100", name: "NVIDIA H100 80GB HBM3e", want: "H100_SXM_80GB"},
		{desc: "an unlisted RTX 4090 variant", name: "NVIDIA GeForce RTX 4090 D", want: "RTX_4090_24GB"},
		{desc: "a family in a hyphenated NVML name", name: "NVIDIA A100-SXM4-64GB", want: "A100_SXM_40GB"},
		{desc: "a family name inside another word is no match", name: "NVIDIA L40", want: ""},
		{desc: "an unknown model", name: "NVIDIA Foo 9000", want: ""},
		{desc: "no name", name: "", want: ""},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			m := ModelFor(tc.key, tc.name)
			if tc.want == "" {
				require.Nil(t, m)
				return
			}
			require.NotNil(t, m)
			require.Equal(t, tc.want, m.Key)
		})
	}
}

// Acceptance point 1: the machine's sections are scored on absolute
// figures; an unsupported or absent figure is not a shortfall.
func TestMachineSectionsAreJudgedOnAbsoluteMinimums(t *testing.T) {
	t.Parallel()
	th := DefaultThresholds()
	require.Nil(t, th.evaluateSection(nil))
	sec := th.evaluateSection(&protocol.BenchSection{Outcome: protocol.BenchCompleted, Measurements: []protocol.BenchMeasurement{
		figure(protocol.MetricNetworkLatency, 900), figure(protocol.MetricNetworkDownload, 49.9),
		{Metric: protocol.MetricNetworkUpload, Supported: false}}})
	require.Len(t, sec.Figures, 3)
	require.True(t, sec.Figures[0].Passed, "latency is shown, not a threshold")
	require.Nil(t, sec.Figures[0].Minimum)
	require.False(t, sec.Figures[1].Passed)
	require.InDelta(t, 50, *sec.Figures[1].Minimum, 0)
	require.True(t, sec.Figures[2].Passed)
}
