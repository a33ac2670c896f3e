package gpu

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/catalog"
)

func TestEveryCatalogModelHasASimulationProfile(t *testing.T) {
	t.Parallel()
	for _, cm := range catalog.Models() {
		p, ok := simProfiles[cm.Key]
		require.True(t, ok, "simProfiles lacks %s", cm.Key)
		require.Positive(t, p.idlePowerW, cm.Key)
		require.Less(t, p.idlePowerW, float64(cm.MaxPowerW), cm.Key)
		require.Positive(t, p.idleClockMHz, cm.Key)
		require.Greater(t, cm.BoostClockMHz, p.idleClockMHz, cm.Key)
	}
	for key := range simProfiles {
		require.NotNil(t, catalog.ByKey(key), "simProfiles has %s, which the catalog does not", key)
	}
}

func TestModelsCarryTheCatalogFigures(t *testing.T) {
	t.Parallel()
	for _, m := range Models() {
		cm := catalog.ByKey(m.Key)
		require.NotNil(t, cm, m.Key)
		require.Equal(t, cm.Name, m.Name)
		require.Equal(t, cm.NvmlNames, m.NVMLNames)
		require.Equal(t, cm.Aliases, m.Aliases)
		require.Equal(t, cm.VramGb, m.VRAMGB)
		require.Equal(t, cm.MaxPowerW, m.MaxPowerW)
		require.Equal(t, cm.Ecc, m.ECC)
		require.Equal(t, cm.BoostClockMHz, m.boostClockMHz, "the clock under load is the catalogue's")
	}
	rtx, ok := LookupModel("RTX4090")
	require.True(t, ok)
	require.False(t, rtx.ECC, "GeForce boards have no ECC")
}
