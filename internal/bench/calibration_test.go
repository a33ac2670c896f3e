package bench

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/catalog"
)

// realRuns are GPU results the agent's CUDA suite measured on real boards
// (testdata/h200-real.json: two --bench-once runs on the lent H200).
func realRuns(t *testing.T, file string) (string, []protocol.GpuBenchResult) {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	var data struct {
		Name string
		Runs []struct{ GPU protocol.GpuBenchResult }
	}
	require.NoError(t, json.Unmarshal(b, &data))
	require.NotEmpty(t, data.Runs)
	out := make([]protocol.GpuBenchResult, len(data.Runs))
	for i, r := range data.Runs {
		out[i] = r.GPU
	}
	return data.Name, out
}

// The expected shares (MetricRule.Attainable) are what a healthy board
// reaches with the suite's kernels. Checked against a real H200: each of
// its figures is at or above its expected figure (a healthy board is not
// scored down) and within 20 % of it (a share set far below what boards
// reach would let a degraded one pass as healthy); the board passes every
// threshold and scores 100.
func TestAHealthyRealH200MeetsItsExpectedFiguresAndScores100(t *testing.T) {
	t.Parallel()
	name, runs := realRuns(t, "testdata/h200-real.json")
	model := catalog.ByNVMLName(name)
	require.NotNil(t, model, name)
	require.Equal(t, "H200_SXM_141GB", model.Key)
	th := DefaultThresholds()
	for _, r := range runs {
		require.Equal(t, protocol.BenchCompleted, r.Outcome)
		require.Len(t, r.Measurements, len(protocol.GPUMetrics), "every GPU metric was measured")
		e := th.evaluateGPU(model, r, nil, nil)
		require.True(t, e.Passed, "shortfalls: %+v", e.Shortfalls)
		require.NotNil(t, e.Score)
		require.Equal(t, 100, *e.Score)
		for _, f := range e.Figures {
			require.True(t, f.Supported, f.Metric)
			require.NotNil(t, f.Ratio, f.Metric)
			require.GreaterOrEqual(t, *f.Ratio, 1.0, "%s: a healthy H200 measured %.1f, expected %.1f", f.Metric, *f.Measured, *f.Expected)
			require.LessOrEqual(t, *f.Ratio, 1.2, "%s: a healthy H200 measured %.1f, expected only %.1f", f.Metric, *f.Measured, *f.Expected)
		}
	}
}
