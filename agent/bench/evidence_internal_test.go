package bench

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/gpu"
	"github.com/gpunex/gpunex/agent/protocol"
)

// reading builds a sample; a negative temperature leaves the field unset.
func reading(tempC, clockMHz int, powerW float64, reasons gpu.ThrottleReasons, corrected, uncorrected uint64) gpu.Sample {
	s := gpu.Sample{UUID: "GPU-1", SMClockMHz: ptr(clockMHz), PowerDrawW: ptr(powerW), Throttle: ptr(reasons),
		ThrottleReasons: reasons.Names(), ECCCorrected: ptr(corrected), ECCUncorrected: ptr(uncorrected)}
	if tempC >= 0 {
		s.TemperatureC = ptr(tempC)
	}
	return s
}

func TestAggregateEvidence(t *testing.T) {
	t.Parallel()
	thermal := gpu.ThrottleHWThermalSlowdown | gpu.ThrottleSWThermalSlowdown
	link := &gpu.PCIeLink{Generation: ptr(1), Width: ptr(4), MaxGeneration: ptr(5), MaxWidth: ptr(16)}
	tests := []struct {
		desc    string
		samples []gpu.Sample
		link    *gpu.PCIeLink
		limit   *float64
		want    protocol.GpuBenchEvidence
	}{
		{
			desc:  "healthy: means, maxima, no throttling",
			limit: ptr(700.0),
			samples: []gpu.Sample{
				reading(60, 1980, 650, 0, 3, 0),
				reading(64, 1980, 680, 0, 3, 0),
				reading(62, 1950, 670, gpu.ThrottleGPUIdle, 3, 0),
			},
			want: protocol.GpuBenchEvidence{Samples: 3, MaxTemperatureC: ptr(64.0), MeanSMClockMHz: ptr(1970.0), MaxSMClockMHz: ptr(1980.0),
				MeanPowerDrawW: ptr(666.7), PowerLimitW: ptr(700.0), ThrottleReasons: []string{"gpu_idle"}, ThrottledShare: 0,
				EccCorrectedDelta: ptr(0.0), EccUncorrectedDelta: ptr(0.0)},
		},
		{
			desc: "throttled: union of reasons, share of thermal or power samples, ECC deltas, the link",
			link: link,
			samples: []gpu.Sample{
				reading(91, 1100, 500, thermal, 10, 1),
				reading(92, 1000, 490, thermal|gpu.ThrottleSWPowerCap, 30, 2),
				reading(-1, 1200, 480, gpu.ThrottleGPUIdle, 50, 4),
				reading(93, 1000, 490, thermal, 70, 6),
			},
			want: protocol.GpuBenchEvidence{Samples: 4, MaxTemperatureC: ptr(93.0), MeanSMClockMHz: ptr(1075.0), MaxSMClockMHz: ptr(1200.0),
				MeanPowerDrawW: ptr(490.0), ThrottleReasons: []string{"gpu_idle", "sw_power_cap", "sw_thermal_slowdown", "hw_thermal_slowdown"},
				ThrottledShare: 0.75, EccCorrectedDelta: ptr(60.0), EccUncorrectedDelta: ptr(5.0),
				PcieGeneration: ptr(1), PcieWidth: ptr(4), PcieMaxGeneration: ptr(5), PcieMaxWidth: ptr(16)},
		},
		{
			desc:    "a counter reset by a driver reload counts from zero",
			samples: []gpu.Sample{reading(50, 1000, 100, 0, 100, 9), reading(50, 1000, 100, 0, 4, 1)},
			want: protocol.GpuBenchEvidence{Samples: 2, MaxTemperatureC: ptr(50.0), MeanSMClockMHz: ptr(1000.0), MaxSMClockMHz: ptr(1000.0),
				MeanPowerDrawW: ptr(100.0), EccCorrectedDelta: ptr(4.0), EccUncorrectedDelta: ptr(1.0)},
		},
		{
			desc:    "no samples: nothing but the count",
			samples: nil,
			want:    protocol.GpuBenchEvidence{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, &tc.want, aggregateEvidence(tc.samples, tc.link, tc.limit))
		})
	}
}
