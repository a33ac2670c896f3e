package models_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/models"
)

// A GPU's headline TFLOPS is its tensor BF16 figure, else its tensor FP16
// (a Turing or Volta GPU has no BF16), else FP32; a metric it did not
// support or did not measure is skipped; memory figures never count.
func TestHeadlineFigurePrefersTensorBF16ThenFP16ThenFP32(t *testing.T) {
	t.Parallel()
	v := func(f float64) *float64 { return &f }
	fig := func(metric protocol.BenchMetric, measured *float64, supported bool) models.BenchmarkFigure {
		return models.BenchmarkFigure{Metric: metric, Supported: supported, Measured: measured}
	}
	for _, tc := range []struct {
		desc string
		figs []models.BenchmarkFigure
		want *float64
	}{
		{"BF16 first, whatever the order", []models.BenchmarkFigure{fig(protocol.MetricFP32, v(60), true), fig(protocol.MetricTensorFP16, v(700), true), fig(protocol.MetricTensorBF16, v(710), true)}, v(710)},
		{"no BF16: tensor FP16", []models.BenchmarkFigure{fig(protocol.MetricFP32, v(14), true), fig(protocol.MetricTensorBF16, nil, false), fig(protocol.MetricTensorFP16, v(112), true)}, v(112)},
		{"BF16 supported but not measured: tensor FP16", []models.BenchmarkFigure{fig(protocol.MetricTensorBF16, nil, true), fig(protocol.MetricTensorFP16, v(112), true)}, v(112)},
		{"no tensor figure: FP32", []models.BenchmarkFigure{fig(protocol.MetricFP32, v(14), true), fig(protocol.MetricMemoryRead, v(800), true)}, v(14)},
		{"plain FP16 is not a headline", []models.BenchmarkFigure{fig(protocol.MetricFP16, v(120), true)}, nil},
		{"memory only", []models.BenchmarkFigure{fig(protocol.MetricMemoryRead, v(800), true)}, nil},
		{"nothing", nil, nil},
	} {
		got := models.HeadlineFigure(tc.figs)
		if tc.want == nil {
			require.Nil(t, got, tc.desc)
			continue
		}
		require.NotNil(t, got, tc.desc)
		require.InDelta(t, *tc.want, *got.Measured, 0, tc.desc)
	}
}
