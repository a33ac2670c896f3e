package gpu_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/gpu"
)

func TestMatchModelMapsEveryNVMLNameOfTheReference(t *testing.T) {
	t.Parallel()
	// The NVML product names of shared/GPU-REFERENCE.md, row by row.
	tests := []struct {
		nvmlName string
		key      string
	}{
		{"NVIDIA H100 80GB HBM3", "H100_SXM_80GB"},
		{"NVIDIA H100 PCIe", "H100_PCIE_80GB"},
		{"NVIDIA H100 NVL", "H100_NVL_94GB"},
		{"NVIDIA H200", "H200_SXM_141GB"},
		{"NVIDIA A100-SXM4-40GB", "A100_SXM_40GB"},
		{"NVIDIA A100-PCIE-40GB", "A100_PCIE_40GB"},
		{"NVIDIA A100-SXM4-80GB", "A100_SXM_80GB"},
		{"NVIDIA A100 80GB PCIe", "A100_PCIE_80GB"},
		{"NVIDIA L40S", "L40S_48GB"},
		{"NVIDIA L4", "L4_24GB"},
		{"NVIDIA GeForce RTX 4090", "RTX_4090_24GB"},
		{"NVIDIA RTX A6000", "RTX_A6000_48GB"},
	}
	for _, tc := range tests {
		t.Run(tc.nvmlName, func(t *testing.T) {
			t.Parallel()
			m, ok := gpu.MatchModel(tc.nvmlName)
			require.True(t, ok)
			require.Equal(t, tc.key, m.Key)
		})
	}
}

func TestMatchModelIgnoresCaseAndSpacingButNotOtherProducts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc string
		name string
		key  string // empty: no match
	}{
		{"case and repeated spaces", "  nvidia  h100 80gb   HBM3 ", "H100_SXM_80GB"},
		{"go-nvml mock's H200 name", "NVIDIA H200 141GB HBM3e", "H200_SXM_141GB"},
		{"H200 NVL is another board", "NVIDIA H200 NVL", ""},
		{"L40 is not L40S", "NVIDIA L40", ""},
		{"RTX 4080 is not supported", "NVIDIA GeForce RTX 4080", ""},
		{"empty", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			m, ok := gpu.MatchModel(tc.name)
			require.Equal(t, tc.key != "", ok)
			require.Equal(t, tc.key, m.Key)
		})
	}
}

func TestLookupModelAcceptsKeysAndAliases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		key  string
	}{
		{"H100", "H100_SXM_80GB"},
		{"h100", "H100_SXM_80GB"},
		{"H100_SXM_80GB", "H100_SXM_80GB"},
		{"h100-sxm-80gb", "H100_SXM_80GB"},
		{"H100-PCIE", "H100_PCIE_80GB"},
		{"H200", "H200_SXM_141GB"},
		{"A100", "A100_SXM_80GB"},
		{"A100-40", "A100_SXM_40GB"},
		{"L4", "L4_24GB"},
		{"L40S", "L40S_48GB"},
		{"rtx4090", "RTX_4090_24GB"},
		{"A6000", "RTX_A6000_48GB"},
	}
	for _, tc := range tests {
		m, ok := gpu.LookupModel(tc.name)
		require.True(t, ok, tc.name)
		require.Equal(t, tc.key, m.Key, tc.name)
	}
	for _, bad := range []string{"", "H900", "B200", "L40"} {
		_, ok := gpu.LookupModel(bad)
		require.False(t, ok, bad)
	}
}

func TestModelsListsTheSupportedModelsWithDatasheetFigures(t *testing.T) {
	t.Parallel()
	models := gpu.Models()
	require.Len(t, models, 12)
	seen := map[string]bool{}
	for _, m := range models {
		require.False(t, seen[m.Key], "duplicate key %s", m.Key)
		seen[m.Key] = true
		require.NotEmpty(t, m.NVMLNames, m.Key)
		require.NotEmpty(t, m.Aliases, m.Key)
		require.Positive(t, m.VRAMGB, m.Key)
		require.Positive(t, m.MaxPowerW, m.Key)
	}
	h200, _ := gpu.LookupModel("H200")
	require.Equal(t, 141, h200.VRAMGB)
	require.Equal(t, 700, h200.MaxPowerW)
	l4, _ := gpu.LookupModel("L4")
	require.Equal(t, 72, l4.MaxPowerW)

	models[0].NVMLNames[0] = "changed"
	m, ok := gpu.MatchModel("NVIDIA H100 80GB HBM3")
	require.True(t, ok, "Models returns a copy")
	require.Equal(t, "H100_SXM_80GB", m.Key)
}
