// Package catalog holds the supported GPU models as data (gpus.json,
// embedded): what the application form offers, what the agent matches NVML
// product names against, and the vendor reference figures the benchmark
// scores against. Figures are peak boost-clock datasheet values, dense
// (without 2:4 sparsity); each entry names its datasheet, and figures the
// datasheet does not confirm are listed in Unconfirmed.
package catalog

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Other is the model key for a GPU not in the catalog, named in free text.
const Other = "OTHER"

// GpuModel is one supported GPU model with its reference figures.
type GpuModel struct {
	Key                string   `json:"key"`
	Aliases            []string `json:"aliases"`
	Family             string   `json:"family"`
	Name               string   `json:"name"`
	Variant            *string  `json:"variant"`
	NvmlNames          []string `json:"nvmlNames"`
	VramGb             int      `json:"vramGb"`
	MemoryType         string   `json:"memoryType"`
	Ecc                bool     `json:"ecc"`
	MemoryBandwidthGBs float64  `json:"memoryBandwidthGBs"`
	Fp32Tflops         float64  `json:"fp32Tflops"`
	Fp16Tflops         *float64 `json:"fp16Tflops"`
	Fp16TensorTflops   float64  `json:"fp16TensorTflops"`
	Tf32TensorTflops   *float64 `json:"tf32TensorTflops"`
	MaxPowerW          int      `json:"maxPowerW"`
	// SmCount is the streaming multiprocessors of the full model, and
	// BoostClockMHz the SM clock its datasheet's compute figures are
	// quoted at: a compute figure is SmCount × (work per SM per clock) ×
	// the clock, so a benchmark's figure scales with the SMs it ran on and
	// the clock it ran at (internal/bench bounds figures so).
	SmCount       int `json:"smCount"`
	BoostClockMHz int `json:"boostClockMHz"`
	// ComputeCapability is the CUDA compute capability, "major.minor"
	// ("9.0" for Hopper): it says which of the benchmark's kernels the
	// model runs (protocol.MinComputeMajor).
	ComputeCapability string `json:"computeCapability"`
	Interface         string `json:"interface"`
	Source            string `json:"source"`
	// ShapeSource is where SmCount, BoostClockMHz and ComputeCapability
	// come from (an architecture whitepaper).
	ShapeSource string   `json:"shapeSource"`
	Unconfirmed []string `json:"unconfirmed"`
}

// ComputeMajor is the major part of ComputeCapability (9 for "9.0"), or 0
// when the catalogue does not say.
func (m *GpuModel) ComputeMajor() int {
	major, _, _ := strings.Cut(m.ComputeCapability, ".")
	n, err := strconv.Atoi(major)
	if err != nil {
		return 0
	}
	return n
}

//go:embed gpus.json
var gpusJSON []byte

var (
	models  []*GpuModel
	byKey   = map[string]*GpuModel{}
	byNVML  = map[string]*GpuModel{}
	byAlias = map[string]*GpuModel{}
)

func init() {
	if err := json.Unmarshal(gpusJSON, &models); err != nil {
		panic(fmt.Sprintf("catalog: gpus.json is invalid: %v", err))
	}
	for _, m := range models {
		if m.Unconfirmed == nil {
			m.Unconfirmed = []string{}
		}
		if m.Aliases == nil {
			m.Aliases = []string{}
		}
		byKey[m.Key] = m
		for _, n := range m.NvmlNames {
			byNVML[normalizeNVMLName(n)] = m
		}
		for _, a := range append([]string{m.Key}, m.Aliases...) {
			byAlias[normalizeAlias(a)] = m
		}
	}
}

// Models returns every supported model in catalog order. Callers must not
// modify the returned values.
func Models() []*GpuModel { return models }

// ByKey returns the model with key, or nil.
func ByKey(key string) *GpuModel { return byKey[key] }

// ByNVMLName returns the model NVML reports as name, ignoring case and
// repeated or surrounding spaces, or nil for an unknown GPU.
func ByNVMLName(name string) *GpuModel { return byNVML[normalizeNVMLName(name)] }

// Lookup returns the model a short name stands for: its key, such as
// "H100_SXM_80GB", or one of its aliases, such as "H100" or "rtx4090",
// ignoring case and surrounding spaces and treating '-' and '_' alike. It
// returns nil for an unknown name.
func Lookup(name string) *GpuModel {
	want := normalizeAlias(name)
	if want == "" {
		return nil
	}
	return byAlias[want]
}

func normalizeNVMLName(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

func normalizeAlias(s string) string {
	return strings.ReplaceAll(strings.ToUpper(strings.TrimSpace(s)), "_", "-")
}
