package gpu

import (
	"slices"
	"strings"
)

// Model is a GPU model on the platform's supported list, with the figures
// the agent needs: the names NVML reports for it, for matching, and
// datasheet figures the simulator uses.
//
// Figures are peak datasheet values from: NVIDIA H100 datasheet and H100
// PCIe product brief PB-11133-001; NVIDIA H200 datasheet; NVIDIA A100
// datasheet; NVIDIA L40S and L4 datasheets; NVIDIA Ada architecture
// whitepaper (RTX 4090); RTX A6000 launch material. NVML names come from
// NVIDIA/open-gpu-kernel-modules src/nvidia/generated/g_nv_name_released.h.
// The server's catalog is the authority; this table is the agent's copy.
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

	// Simulation only: typical idle power draw and the SM clock at idle and
	// at full boost. Not datasheet figures; they make demo telemetry look
	// like a real board's.
	idlePowerW    float64
	idleClockMHz  int
	boostClockMHz int
}

// models is the supported list, in the order the application form shows
// it. NVML names that go-nvml's mock servers use for the same boards
// ("NVIDIA H200 141GB HBM3e", "NVIDIA A100-PCIE-80GB") are accepted too.
var models = []Model{
	{Key: "H100_SXM_80GB", Aliases: []string{"H100", "H100-SXM"}, Name: "H100 SXM5 80GB",
		NVMLNames: []string{"NVIDIA H100 80GB HBM3"}, VRAMGB: 80, MaxPowerW: 700, ECC: true,
		idlePowerW: 72, idleClockMHz: 345, boostClockMHz: 1980},
	{Key: "H100_PCIE_80GB", Aliases: []string{"H100-PCIE"}, Name: "H100 PCIe 80GB",
		NVMLNames: []string{"NVIDIA H100 PCIe"}, VRAMGB: 80, MaxPowerW: 350, ECC: true,
		idlePowerW: 48, idleClockMHz: 345, boostClockMHz: 1755},
	{Key: "H100_NVL_94GB", Aliases: []string{"H100-NVL"}, Name: "H100 NVL 94GB",
		NVMLNames: []string{"NVIDIA H100 NVL"}, VRAMGB: 94, MaxPowerW: 400, ECC: true,
		idlePowerW: 60, idleClockMHz: 345, boostClockMHz: 1785},
	{Key: "H200_SXM_141GB", Aliases: []string{"H200", "H200-SXM"}, Name: "H200 SXM 141GB",
		NVMLNames: []string{"NVIDIA H200", "NVIDIA H200 141GB HBM3e"}, VRAMGB: 141, MaxPowerW: 700, ECC: true,
		idlePowerW: 76, idleClockMHz: 345, boostClockMHz: 1980},
	{Key: "A100_SXM_40GB", Aliases: []string{"A100-40", "A100-SXM-40"}, Name: "A100 40GB SXM",
		NVMLNames: []string{"NVIDIA A100-SXM4-40GB"}, VRAMGB: 40, MaxPowerW: 400, ECC: true,
		idlePowerW: 55, idleClockMHz: 210, boostClockMHz: 1410},
	{Key: "A100_PCIE_40GB", Aliases: []string{"A100-PCIE-40"}, Name: "A100 40GB PCIe",
		NVMLNames: []string{"NVIDIA A100-PCIE-40GB"}, VRAMGB: 40, MaxPowerW: 250, ECC: true,
		idlePowerW: 35, idleClockMHz: 210, boostClockMHz: 1410},
	{Key: "A100_SXM_80GB", Aliases: []string{"A100", "A100-80", "A100-SXM-80"}, Name: "A100 80GB SXM",
		NVMLNames: []string{"NVIDIA A100-SXM4-80GB"}, VRAMGB: 80, MaxPowerW: 400, ECC: true,
		idlePowerW: 60, idleClockMHz: 210, boostClockMHz: 1410},
	{Key: "A100_PCIE_80GB", Aliases: []string{"A100-PCIE", "A100-PCIE-80"}, Name: "A100 80GB PCIe",
		NVMLNames: []string{"NVIDIA A100 80GB PCIe", "NVIDIA A100-PCIE-80GB"}, VRAMGB: 80, MaxPowerW: 300, ECC: true,
		idlePowerW: 40, idleClockMHz: 210, boostClockMHz: 1410},
	{Key: "L40S_48GB", Aliases: []string{"L40S"}, Name: "L40S 48GB",
		NVMLNames: []string{"NVIDIA L40S"}, VRAMGB: 48, MaxPowerW: 350, ECC: true,
		idlePowerW: 34, idleClockMHz: 210, boostClockMHz: 2520},
	{Key: "L4_24GB", Aliases: []string{"L4"}, Name: "L4 24GB",
		NVMLNames: []string{"NVIDIA L4"}, VRAMGB: 24, MaxPowerW: 72, ECC: true,
		idlePowerW: 16, idleClockMHz: 210, boostClockMHz: 2040},
	{Key: "RTX_4090_24GB", Aliases: []string{"RTX4090", "RTX-4090", "4090"}, Name: "GeForce RTX 4090 24GB",
		NVMLNames: []string{"NVIDIA GeForce RTX 4090"}, VRAMGB: 24, MaxPowerW: 450, ECC: false,
		idlePowerW: 22, idleClockMHz: 210, boostClockMHz: 2520},
	{Key: "RTX_A6000_48GB", Aliases: []string{"A6000", "RTX-A6000", "RTXA6000"}, Name: "RTX A6000 48GB",
		NVMLNames: []string{"NVIDIA RTX A6000"}, VRAMGB: 48, MaxPowerW: 300, ECC: true,
		idlePowerW: 24, idleClockMHz: 210, boostClockMHz: 1800},
}

// Models returns the supported models, in the application form's order.
// The slice is a copy; changing it changes nothing here.
func Models() []Model {
	out := make([]Model, len(models))
	for i, m := range models {
		m.Aliases = slices.Clone(m.Aliases)
		m.NVMLNames = slices.Clone(m.NVMLNames)
		out[i] = m
	}
	return out
}

// MatchModel returns the supported model whose NVML product name is name,
// ignoring case and repeated spaces. It reports false for models outside
// the supported list; the server then lists the GPU as "other".
func MatchModel(name string) (Model, bool) {
	want := normalizeName(name)
	for _, m := range models {
		for _, n := range m.NVMLNames {
			if normalizeName(n) == want {
				return m, true
			}
		}
	}
	return Model{}, false
}

// LookupModel returns the model a --simulate name stands for: a key such as
// "H100_SXM_80GB" or an alias such as "H100" or "rtx4090", ignoring case
// and treating '-' and '_' alike.
func LookupModel(name string) (Model, bool) {
	want := normalizeAlias(name)
	if want == "" {
		return Model{}, false
	}
	for _, m := range models {
		if normalizeAlias(m.Key) == want {
			return m, true
		}
		for _, a := range m.Aliases {
			if normalizeAlias(a) == want {
				return m, true
			}
		}
	}
	return Model{}, false
}

// ModelAliases lists the short names --simulate accepts, for error messages
// and help text.
func ModelAliases() []string {
	out := make([]string, 0, len(models))
	for _, m := range models {
		out = append(out, m.Aliases[0])
	}
	return out
}

func normalizeName(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

func normalizeAlias(s string) string {
	return strings.ReplaceAll(strings.ToUpper(strings.TrimSpace(s)), "_", "-")
}
