package models_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/models"
)

func TestParseUSDC(t *testing.T) {
	t.Parallel()
	cases := []struct {
		desc string
		in   string
		want models.USDC
		bad  bool
	}{
		{desc: "whole and fraction", in: "2.15", want: 2_150_000},
		{desc: "six decimals", in: "0.000001", want: 1},
		{desc: "negative", in: "-1.5", want: -1_500_000},
		{desc: "integer", in: "12", want: 12_000_000},
		{desc: "leading dot", in: ".5", want: 500_000},
		{desc: "seven decimals refused", in: "0.0000001", bad: true},
		{desc: "exponent refused", in: "1e6", bad: true},
		{desc: "empty refused", in: "", bad: true},
		{desc: "lone dot refused", in: ".", bad: true},
		{desc: "trailing dot refused", in: "1.", bad: true},
		{desc: "overflow refused", in: "99999999999999999999", bad: true},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			got, err := models.ParseUSDC(tc.in)
			if tc.bad {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestUSDCStringRoundTrips(t *testing.T) {
	t.Parallel()
	for _, v := range []models.USDC{0, 1, -1, 2_150_000, -9_223_372_036_854_775_808, 9_223_372_036_854_775_807} {
		s := v.String()
		if v == -9_223_372_036_854_775_808 || v == 9_223_372_036_854_775_807 {
			require.Contains(t, s, ".")
			continue
		}
		back, err := models.ParseUSDC(s)
		require.NoError(t, err, s)
		require.Equal(t, v, back)
	}
	require.Equal(t, "2.150000", models.USDC(2_150_000).String())
	require.Equal(t, "-0.000001", models.USDC(-1).String())
}
