// Package gpu tells the agent which NVIDIA GPUs its host has and how they
// are doing: an inventory read once at registration ([Device]) and live
// telemetry read for every heartbeat ([Sample]).
//
// # One seam, three implementations
//
// The rest of the agent sees only the [Detector] interface. Behind it:
//
//   - nvmldetect.Detector (package agent/gpu/nvmldetect) reads real GPUs
//     through an nvml.Interface that main builds once and injects. It lives
//     in its own package because go-nvml needs cgo: this package does not
//     import it, so the server can link the simulator for its in-process
//     demo agents and still build with CGO_ENABLED=0. The fields a board
//     does not support are left nil (see nvmldetect's documentation).
//   - [Simulator] invents GPUs for `--simulate 2xH100,1xL4`: names as NVML
//     reports them, stable UUIDs derived from the machine id, datasheet VRAM
//     and power, and telemetry that follows the jobs the agent runs
//     ([Simulator.SetBusy]). Every simulated device has Simulated set, so the
//     server can keep demo hardware apart from real hardware.
//   - [Unavailable] is the null detector for a host without the NVIDIA
//     library: every call returns the error that explains the fix.
//
// nvmldetect.Open picks among them from the `--simulate` flag.
//
// # Supported models
//
// [MatchModel] maps the product name NVML reports to a key of the
// platform's supported-model list ([Models]), which is internal/catalog's
// gpus.json, the table the server uses too; the figures come from the
// vendor datasheets it names.
package gpu
