// Package gpu tells the agent which NVIDIA GPUs its host has and how they
// are doing: an inventory read once at registration ([Device]) and live
// telemetry read for every heartbeat ([Sample]).
//
// # One seam, three implementations
//
// The rest of the agent sees only the [Detector] interface. Behind it:
//
//   - [NVML] reads real GPUs through an nvml.Interface that main builds once
//     (nvml.New()) and injects; nothing in this package calls go-nvml's
//     package-level functions, so tests drive the same code with go-nvml's
//     own mock servers (pkg/nvml/mock/dgxh100, dgxh200, …).
//   - [Simulator] invents GPUs for `--simulate 2xH100,1xL4`: names as NVML
//     reports them, stable UUIDs derived from the machine id, datasheet VRAM
//     and power, and telemetry that follows the jobs the agent runs
//     ([Simulator.SetBusy]). Every simulated device has Simulated set, so the
//     server can keep demo hardware apart from real hardware.
//   - [Unavailable] is the null detector for a host without the NVIDIA
//     library: every call returns the error that explains the fix.
//
// [Open] picks among them from the `--simulate` flag.
//
// # Fields a GPU does not support
//
// NVML answers ERROR_NOT_SUPPORTED for fields a board lacks (ECC counters on
// a GeForce card, power readings on some PCIe boards, …). That is a normal
// answer, not a failure: the field is left nil. Any other error on an
// optional field also leaves it nil and is recorded in the device's or
// sample's Problems, so one broken sensor never hides the rest. Only the
// identity of a GPU (index, UUID, name) is required; a GPU whose identity
// cannot be read is left out and named in the returned error, while the
// other GPUs are still returned.
//
// # Supported models
//
// [MatchModel] maps the product name NVML reports to a key of the
// platform's supported-model list ([Models]), which is internal/catalog's
// gpus.json, the table the server uses too; the figures come from the
// vendor datasheets it names.
package gpu
