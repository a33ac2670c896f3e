package catalog_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/catalog"
)

func TestEveryModelOfTheApplicationFormIsSupported(t *testing.T) {
	t.Parallel()
	families := map[string]bool{}
	for _, m := range catalog.Models() {
		families[m.Family] = true
		require.NotEmpty(t, m.Source, m.Key)
		require.NotEmpty(t, m.NvmlNames, m.Key)
		require.Positive(t, m.VramGb, m.Key)
		require.Positive(t, m.Fp32Tflops, m.Key)
		require.Positive(t, m.Fp16TensorTflops, m.Key)
		require.Positive(t, m.MemoryBandwidthGBs, m.Key)
	}
	for _, f := range []string{"H100 80 GB", "A100 40 GB", "A100 80 GB", "L40S 48 GB", "L4 24 GB", "RTX 4090 24 GB", "RTX A6000 48 GB"} {
		require.True(t, families[f], "DESIGN.md lists %s as supported", f)
	}
}

func TestNVMLNamesMatchTheirModel(t *testing.T) {
	t.Parallel()
	cases := []struct{ nvml, key string }{
		{"NVIDIA H100 80GB HBM3", "H100_SXM_80GB"},
		{"NVIDIA H100 PCIe", "H100_PCIE_80GB"},
		{"NVIDIA H200", "H200_SXM_141GB"},
		{"NVIDIA A100-SXM4-40GB", "A100_SXM_40GB"},
		{"nvidia a100 80gb pcie", "A100_PCIE_80GB"},
		{"NVIDIA GeForce RTX 4090", "RTX_4090_24GB"},
		{"NVIDIA L4", "L4_24GB"},
	}
	for _, tc := range cases {
		m := catalog.ByNVMLName(tc.nvml)
		require.NotNil(t, m, tc.nvml)
		require.Equal(t, tc.key, m.Key)
	}
	require.Nil(t, catalog.ByNVMLName("NVIDIA GeForce GTX 1080"))
}

func TestReferenceFiguresMatchTheDatasheets(t *testing.T) {
	t.Parallel()
	h100 := catalog.ByKey("H100_SXM_80GB")
	require.Equal(t, 3350.0, h100.MemoryBandwidthGBs)
	require.Equal(t, 989.5, h100.Fp16TensorTflops)
	require.Contains(t, h100.Unconfirmed, "fp16Tflops")
	l4 := catalog.ByKey("L4_24GB")
	require.Equal(t, 72, l4.MaxPowerW)
	require.Equal(t, 121.0, l4.Fp16TensorTflops)
}
