package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"

	"github.com/gpunex/gpunex/agent/protocol"
)

// LoadThresholds reads a JSON file of rules that replace the defaults
// metric by metric (the operator's --bench-thresholds), for example
//
//	{"gpu": {"FP32_TFLOPS": {"attainable": 0.9, "weight": 0.2, "minRatio": 0.8}},
//	 "machine": {"STORAGE_WRITE_MBS": {"minimum": 300}}}
//
// A metric the file does not name keeps its default rule. An unknown
// metric, a metric in the wrong group or a rule out of range is an error
// naming it.
func LoadThresholds(path string) (Thresholds, error) {
	t := DefaultThresholds()
	b, err := os.ReadFile(path)
	if err != nil {
		return t, fmt.Errorf("bench: thresholds: %w", err)
	}
	var in Thresholds
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return t, fmt.Errorf("bench: thresholds %s: %w", path, err)
	}
	for m, r := range in.GPU {
		switch {
		case !slices.Contains(protocol.GPUMetrics, m):
			return t, fmt.Errorf("bench: thresholds %s: gpu: %q is not a GPU metric (%v)", path, m, protocol.GPUMetrics)
		case !(r.Attainable > 0 && r.Attainable <= 1), !(r.Weight >= 0 && r.Weight <= 1), !(r.MinRatio >= 0 && r.MinRatio <= 1):
			return t, fmt.Errorf("bench: thresholds %s: gpu %s: attainable must be in (0, 1], weight and minRatio in [0, 1]", path, m)
		}
		t.GPU[m] = r
	}
	for m, r := range in.Machine {
		switch {
		case !slices.Contains(protocol.NetworkMetrics, m) && !slices.Contains(protocol.StorageMetrics, m):
			return t, fmt.Errorf("bench: thresholds %s: machine: %q is not a network or storage metric", path, m)
		case !(r.Minimum >= 0) || math.IsInf(r.Minimum, 0):
			return t, fmt.Errorf("bench: thresholds %s: machine %s: minimum must be a number ≥ 0", path, m)
		}
		t.Machine[m] = r
	}
	return t, nil
}
