package gpu

import (
	"slices"

	"github.com/gpunex/gpunex/internal/catalog"
)

// Model is a GPU model on the platform's supported list, with the figures
// the agent needs: the names NVML reports for it, for matching, and
// datasheet figures the simulator uses.
//
// The supported list and its datasheet figures come from internal/catalog
// (gpus.json), the same table the server uses; only the simulation
// profiles (simProfiles) are the agent's own.
type Model struct {
	// Key is the stable supported-model key the server stores, e.g.
	// "H100_SXM_80GB".
	Key string
	// Aliases are the short names --simulate accepts, e.g. "H100"; the key
	// itself is always accepted too.
	Aliases []string
	// Name is the full model name, e.g. "H100 SXM5 80GB".
	Name string
	// NVMLNames are the product names NVML reports for this model; the
	// first is the one the simulator reports.
	NVMLNames []string
	// VRAMGB is the datasheet memory size in GB.
	VRAMGB int
	// MaxPowerW is the datasheet maximum board power.
	MaxPowerW int
	// ECC says whether the memory has ECC (GeForce cards do not).
	ECC bool

	// Simulation only: see simProfile (boostClockMHz is the catalogue's).
	idlePowerW    float64
	idleClockMHz  int
	boostClockMHz int
}

// simProfile holds the figures only the simulator needs: typical idle power
// draw and the SM clock at idle. They are not datasheet figures; they make
// demo telemetry look like a real board's. The clock under load is the
// catalogue's boost clock.
type simProfile struct {
	idlePowerW   float64
	idleClockMHz int
}

// simProfiles is keyed by catalog key; every catalog model has one (a test
// checks).
var simProfiles = map[string]simProfile{
	"H100_SXM_80GB":  {idlePowerW: 72, idleClockMHz: 345},
	"H100_PCIE_80GB": {idlePowerW: 48, idleClockMHz: 345},
	"H100_NVL_94GB":  {idlePowerW: 60, idleClockMHz: 345},
	"H200_SXM_141GB": {idlePowerW: 76, idleClockMHz: 345},
	"A100_SXM_40GB":  {idlePowerW: 55, idleClockMHz: 210},
	"A100_PCIE_40GB": {idlePowerW: 35, idleClockMHz: 210},
	"A100_SXM_80GB":  {idlePowerW: 60, idleClockMHz: 210},
	"A100_PCIE_80GB": {idlePowerW: 40, idleClockMHz: 210},
	"L40S_48GB":      {idlePowerW: 34, idleClockMHz: 210},
	"L4_24GB":        {idlePowerW: 16, idleClockMHz: 210},
	"RTX_4090_24GB":  {idlePowerW: 22, idleClockMHz: 210},
	"RTX_A6000_48GB": {idlePowerW: 24, idleClockMHz: 210},
}

// defaultSimProfile stands in for a catalog model added without a
// simulation profile, so the simulator still reports plausible figures.
func defaultSimProfile(maxPowerW int) simProfile {
	return simProfile{idlePowerW: 0.1 * float64(maxPowerW), idleClockMHz: 210}
}

// models is the supported list, in the catalog's (the application form's)
// order.
var models = func() []Model {
	cms := catalog.Models()
	out := make([]Model, len(cms))
	for i, cm := range cms {
		out[i] = fromCatalog(cm)
	}
	return out
}()

// modelIndex maps a catalog key to its position in models.
var modelIndex = func() map[string]int {
	idx := make(map[string]int, len(models))
	for i, m := range models {
		idx[m.Key] = i
	}
	return idx
}()

func fromCatalog(cm *catalog.GpuModel) Model {
	p, ok := simProfiles[cm.Key]
	if !ok {
		p = defaultSimProfile(cm.MaxPowerW)
	}
	return Model{
		Key:           cm.Key,
		Aliases:       slices.Clone(cm.Aliases),
		Name:          cm.Name,
		NVMLNames:     slices.Clone(cm.NvmlNames),
		VRAMGB:        cm.VramGb,
		MaxPowerW:     cm.MaxPowerW,
		ECC:           cm.Ecc,
		idlePowerW:    p.idlePowerW,
		idleClockMHz:  p.idleClockMHz,
		boostClockMHz: cm.BoostClockMHz,
	}
}

// clone returns m with its slices copied, so callers cannot change the
// package's table.
func (m Model) clone() Model {
	m.Aliases = slices.Clone(m.Aliases)
	m.NVMLNames = slices.Clone(m.NVMLNames)
	return m
}

// modelFor returns the agent's Model for a catalog model, or false when cm
// is nil.
func modelFor(cm *catalog.GpuModel) (Model, bool) {
	if cm == nil {
		return Model{}, false
	}
	i, ok := modelIndex[cm.Key]
	if !ok {
		return Model{}, false
	}
	return models[i].clone(), true
}

// Models returns the supported models, in the application form's order.
// The slice is a copy; changing it changes nothing here.
func Models() []Model {
	out := make([]Model, len(models))
	for i, m := range models {
		out[i] = m.clone()
	}
	return out
}

// MatchModel returns the supported model whose NVML product name is name,
// ignoring case and repeated spaces (see catalog.ByNVMLName). It reports
// false for models outside the supported list; the server then lists the
// GPU as "other".
func MatchModel(name string) (Model, bool) {
	return modelFor(catalog.ByNVMLName(name))
}

// LookupModel returns the model a --simulate name stands for: a key such as
// "H100_SXM_80GB" or an alias such as "H100" or "rtx4090", ignoring case
// and treating '-' and '_' alike (see catalog.Lookup).
func LookupModel(name string) (Model, bool) {
	return modelFor(catalog.Lookup(name))
}

// ModelAliases lists the short names --simulate accepts, for error messages
// and help text: each model's first alias, or its key if it has none.
func ModelAliases() []string {
	out := make([]string, 0, len(models))
	for _, m := range models {
		if len(m.Aliases) > 0 {
			out = append(out, m.Aliases[0])
		} else {
			out = append(out, m.Key)
		}
	}
	return out
}
