package bench_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/bench"
)

func TestThresholdsFileReplacesTheDefaultsItNames(t *testing.T) {
	t.Parallel()
	write := func(body string) string {
		p := filepath.Join(t.TempDir(), "thresholds.json")
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
		return p
	}
	got, err := bench.LoadThresholds(write(`{"gpu": {"FP32_TFLOPS": {"attainable": 0.9, "weight": 0.2, "minRatio": 0.8}},
		"machine": {"STORAGE_WRITE_MBS": {"minimum": 300}}}`))
	require.NoError(t, err)
	def := bench.DefaultThresholds()
	require.InDelta(t, 0.8, got.GPU[protocol.MetricFP32].MinRatio, 1e-9)
	require.InDelta(t, 300, got.Machine[protocol.MetricStorageWrite].Minimum, 1e-9)
	require.Equal(t, def.GPU[protocol.MetricMemoryCopy], got.GPU[protocol.MetricMemoryCopy], "unnamed metrics keep their defaults")
	require.Equal(t, def.Machine[protocol.MetricNetworkUpload], got.Machine[protocol.MetricNetworkUpload])

	for _, tc := range []struct{ desc, body, want string }{
		{"an unknown metric", `{"gpu": {"FP64_TFLOPS": {"attainable": 0.9}}}`, "FP64_TFLOPS"},
		{"a machine metric among the GPU's", `{"gpu": {"STORAGE_READ_MBS": {"attainable": 0.9}}}`, "not a GPU metric"},
		{"an attainable share of zero", `{"gpu": {"FP32_TFLOPS": {"attainable": 0}}}`, "attainable"},
		{"a negative minimum", `{"machine": {"STORAGE_READ_MBS": {"minimum": -1}}}`, "minimum"},
		{"an unknown field", `{"gpus": {}}`, "unknown field"},
	} {
		_, err := bench.LoadThresholds(write(tc.body))
		require.ErrorContains(t, err, tc.want, tc.desc)
	}
}
