package gpu_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/gpu"
)

func TestParseSimSpecAcceptsCountTimesModelGroups(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in        string
		canonical string
		total     int
	}{
		{"2xH100,1xL4", "2xH100,1xL4", 3},
		{" 2 x h100 , 1X l4 ", "2xH100,1xL4", 3},
		{"8xH200", "8xH200", 8},
		{"1xRTX4090,1xA6000", "1xRTX4090,1xA6000", 2},
		{"16xL4", "16xL4", 16},
		{"1xH100_PCIE_80GB", "1xH100-PCIE", 1},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			spec, err := gpu.ParseSimSpec(tc.in)
			require.NoError(t, err)
			require.Equal(t, tc.canonical, spec.String())
			require.Equal(t, tc.total, spec.Total())
		})
	}
}

func TestParseSimSpecRejectsBadInputWithAClearError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc string
		in   string
		want string
	}{
		{"empty", "", "--simulate: empty"},
		{"blank", "   ", "--simulate: empty"},
		{"empty group", "2xH100,,1xL4", `empty group`},
		{"trailing comma", "2xH100,", `empty group`},
		{"no count", "H100", `group "H100": want COUNTxMODEL, e.g. 2xH100`},
		{"no x", "2H100", `group "2H100": want COUNTxMODEL`},
		{"zero", "0xH100", `group "0xH100": count must be between 1 and 16`},
		{"seventeen", "17xH100", `count must be between 1 and 16`},
		{"negative", "-1xH100", `want COUNTxMODEL`},
		{"unknown model", "2xH900", `unknown model "H900"; known: H100, H100-PCIE`},
		{"no model", "2x", `unknown model ""`},
		{"too many in all", "8xH100,8xA100,1xL4", "17 GPUs in all; at most 16"},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			spec, err := gpu.ParseSimSpec(tc.in)
			require.Nil(t, spec)
			require.ErrorContains(t, err, "--simulate")
			require.ErrorContains(t, err, tc.want)
		})
	}
}
