// Package nvmldetect reads real NVIDIA GPUs for the agent: a gpu.Detector
// over go-nvml, and [Open], which picks it or the simulator from the
// --simulate flag.
//
// It is apart from package gpu because go-nvml needs cgo (it loads
// libnvidia-ml.so.1 at run time): the types, model matching and the
// simulator stay free of it, so the server, which runs simulated demo
// agents in-process, builds with CGO_ENABLED=0 as a static binary, while
// only gpunex-agent links this package.
//
// # One nvml.Interface, injected
//
// As in NVIDIA's k8s-device-plugin, main builds the library once
// (nvml.New()) and injects it; nothing here calls go-nvml's package-level
// functions, so tests drive the same code with go-nvml's own mock servers
// (pkg/nvml/mock/dgxh100, dgxh200, …).
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
package nvmldetect
