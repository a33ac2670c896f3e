package catalog_test

import (
	"strconv"
	"strings"
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
		{"NVIDIA H200 141GB HBM3e", "H200_SXM_141GB"},
		{"NVIDIA A100-PCIE-80GB", "A100_PCIE_80GB"},
		{"  nvidia  h100 80gb   HBM3 ", "H100_SXM_80GB"},
	}
	for _, tc := range cases {
		m := catalog.ByNVMLName(tc.nvml)
		require.NotNil(t, m, tc.nvml)
		require.Equal(t, tc.key, m.Key)
	}
	require.Nil(t, catalog.ByNVMLName("NVIDIA GeForce GTX 1080"))
	require.Nil(t, catalog.ByNVMLName("NVIDIA H200 NVL"))
	require.Nil(t, catalog.ByNVMLName("NVIDIA L40"))
	require.Nil(t, catalog.ByNVMLName(""))
}

func TestNVMLNamesKeysAndAliasesAreUnique(t *testing.T) {
	t.Parallel()
	nvml := map[string]string{}
	short := map[string]string{}
	norm := func(s string) string { return strings.ReplaceAll(strings.ToUpper(s), "_", "-") }
	for _, m := range catalog.Models() {
		require.NotEmpty(t, m.Aliases, m.Key)
		for _, n := range m.NvmlNames {
			k := strings.ToLower(strings.Join(strings.Fields(n), " "))
			require.NotContains(t, nvml, k, "%s and %s share NVML name %q", nvml[k], m.Key, n)
			nvml[k] = m.Key
		}
		for _, a := range append([]string{m.Key}, m.Aliases...) {
			k := norm(a)
			if prev, ok := short[k]; ok {
				require.Equal(t, m.Key, prev, "%s and %s share the name %q", prev, m.Key, a)
			}
			short[k] = m.Key
		}
	}
}

func TestLookupAcceptsKeysAndAliases(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, key string }{
		{"H100", "H100_SXM_80GB"},
		{"h100", "H100_SXM_80GB"},
		{"H100_SXM_80GB", "H100_SXM_80GB"},
		{"h100-sxm-80gb", "H100_SXM_80GB"},
		{" H200 ", "H200_SXM_141GB"},
		{"A100-40", "A100_SXM_40GB"},
		{"a100_pcie", "A100_PCIE_80GB"},
		{"RTX4090", "RTX_4090_24GB"},
		{"4090", "RTX_4090_24GB"},
		{"A6000", "RTX_A6000_48GB"},
	}
	for _, tc := range cases {
		m := catalog.Lookup(tc.name)
		require.NotNil(t, m, tc.name)
		require.Equal(t, tc.key, m.Key, tc.name)
	}
	for _, bad := range []string{"", "  ", "H900", "B200", "L40", "NVIDIA H100 80GB HBM3"} {
		require.Nil(t, catalog.Lookup(bad), bad)
	}
}

func TestECCIsFalseOnlyForGeForce(t *testing.T) {
	t.Parallel()
	for _, m := range catalog.Models() {
		require.Equal(t, !strings.Contains(m.Name, "GeForce"), m.Ecc, m.Key)
	}
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

// The family is what the application form groups models under and what
// an unlisted GPU is scored against: a family that names a memory size
// holds only models of that size.
func TestEveryModelOfAFamilyHasTheFamilysMemory(t *testing.T) {
	t.Parallel()
	for _, m := range catalog.Models() {
		f := strings.Fields(m.Family)
		require.GreaterOrEqual(t, len(f), 3, m.Key)
		require.Equal(t, "GB", f[len(f)-1], "%s: family %q names its memory", m.Key, m.Family)
		require.Equal(t, strconv.Itoa(m.VramGb), f[len(f)-2], "%s (%d GB) is in family %q", m.Key, m.VramGb, m.Family)
	}
}

// Issue 11, point 15: the H100 NVL 94 GB is its own family, not an
// "H100 80 GB", with the reference figures of GPU-REFERENCE.md.
func TestH100NVLIsItsOwnFamily(t *testing.T) {
	t.Parallel()
	nvl := catalog.ByNVMLName("NVIDIA H100 NVL")
	require.NotNil(t, nvl)
	require.Equal(t, "H100_NVL_94GB", nvl.Key)
	require.Equal(t, "H100 NVL 94 GB", nvl.Family)
	require.Equal(t, 94, nvl.VramGb)
	require.Equal(t, 3900.0, nvl.MemoryBandwidthGBs)
	require.Equal(t, 400, nvl.MaxPowerW)
	require.Same(t, nvl, catalog.Lookup("h100-nvl"))
	for _, key := range []string{"H100_SXM_80GB", "H100_PCIE_80GB"} {
		require.Equal(t, "H100 80 GB", catalog.ByKey(key).Family, key)
	}
}

// A model's SM count, boost clock and compute capability give its FP32
// figure: SMs × FP32 lanes per SM (64 on compute capability 8.0, 128 on
// 8.6, 8.9 and 9.0) × 2 flops per FMA × the boost clock. The benchmark
// bounds a figure by the SMs and clock a run reports, relative to these,
// so they must agree with the datasheet's figure (within 1 %).
func TestEachModelsSMsAndBoostClockGiveItsFP32Figure(t *testing.T) {
	t.Parallel()
	for _, m := range catalog.Models() {
		require.Positive(t, m.SmCount, m.Key)
		require.Positive(t, m.BoostClockMHz, m.Key)
		require.NotEmpty(t, m.ShapeSource, m.Key)
		require.GreaterOrEqual(t, m.ComputeMajor(), 8, "%s: every catalogue model has tensor cores the suite's mma.sync runs on", m.Key)
		lanes := 128.0
		if m.ComputeCapability == "8.0" {
			lanes = 64
		}
		peak := float64(m.SmCount) * lanes * 2 * float64(m.BoostClockMHz) / 1e6
		require.InEpsilon(t, m.Fp32Tflops, peak, 0.01, "%s: %d SMs at %d MHz", m.Key, m.SmCount, m.BoostClockMHz)
	}
	require.Equal(t, 0, (&catalog.GpuModel{}).ComputeMajor())
	require.Equal(t, 9, catalog.ByKey("H200_SXM_141GB").ComputeMajor())
}
