package nvmldetect

import (
	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/gpunex/gpunex/agent/gpu"
)

// Open returns the detector the agent runs with: a gpu.Simulator when spec
// (the --simulate flag) is not empty, else a Detector over lib.
//
// A bad spec is an error and no detector. When NVML cannot start, Open
// returns the error (it wraps gpu.ErrNoNVML and names the fix) together
// with a gpu.Unavailable detector that repeats it: a caller that must have
// GPUs exits with the error, one that keeps running to tell the server why
// it has none uses the detector.
//
// To mark simulated GPUs busy while jobs run, type-assert the result to
// *gpu.Simulator.
func Open(spec string, lib nvml.Interface, opts ...gpu.Option) (gpu.Detector, error) {
	if spec != "" {
		s, err := gpu.ParseSimSpec(spec)
		if err != nil {
			return nil, err
		}
		return gpu.NewSimulator(s, opts...), nil
	}
	d, err := New(lib, opts...)
	if err != nil {
		return gpu.Unavailable{Err: err}, err
	}
	return d, nil
}
