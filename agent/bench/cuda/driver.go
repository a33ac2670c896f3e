package cuda

/*
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"sync"
	"time"
	"unsafe"
)

// DefaultLibrary is the driver library Open loads when Config.Library is
// empty: the soname every NVIDIA driver installs.
const DefaultLibrary = "libcuda.so.1"

// DefaultRepetitions is how many timed repetitions a metric gets when
// Config.Repetitions is zero.
const DefaultRepetitions = 5

// DefaultBudget is the time Measure is meant for when it is given none.
const DefaultBudget = 50 * time.Second

// Config tunes the suite; zero values take defaults.
type Config struct {
	// Library is the driver library to load (default DefaultLibrary).
	Library string
	// Repetitions is how many timed repetitions each metric gets at most
	// (default DefaultRepetitions); a tight budget can leave fewer.
	Repetitions int
	// MemoryBytes is the size of each buffer the memory metrics stream
	// over (the copy uses two). Zero takes max(8×L2, 512 MiB), capped so
	// that both buffers together take at most a quarter of the free memory.
	MemoryBytes int64
}

// Driver is the NVIDIA driver's API, loaded at run time. It is safe for
// concurrent use: each Measure runs in its own context on its own locked
// OS thread, and the entry point table is read-only after Open.
type Driver struct {
	cfg Config
	// mu is held for reading by every Measure and for writing by Close, so
	// the library is not unloaded under a running benchmark.
	mu  sync.RWMutex
	api *C.gpx_api
}

// Open loads the driver library, resolves the entry points the suite calls
// and initialises the driver with cuInit(0). Without the NVIDIA driver the
// error says so (ErrorName NameDriverMissing).
func Open(cfg Config) (*Driver, error) {
	if cfg.Library == "" {
		cfg.Library = DefaultLibrary
	}
	if cfg.Repetitions <= 0 {
		cfg.Repetitions = DefaultRepetitions
	}
	if cfg.MemoryBytes < 0 {
		return nil, fmt.Errorf("cuda: Config.MemoryBytes is %d: it must be zero (the default) or positive", cfg.MemoryBytes)
	}
	api := (*C.gpx_api)(C.calloc(1, C.sizeof_gpx_api))
	path := C.CString(cfg.Library)
	defer C.free(unsafe.Pointer(path))
	var msg *C.char
	switch C.gpx_open(path, api, &msg) {
	case 0:
	case 1:
		C.free(unsafe.Pointer(api))
		return nil, &Error{Name: NameDriverMissing, Call: "dlopen",
			Detail: fmt.Sprintf("the NVIDIA driver is missing: cannot load %s (%s); install the NVIDIA driver, or run the agent container with the NVIDIA Container Toolkit", cfg.Library, C.GoString(msg))}
	default:
		C.free(unsafe.Pointer(api))
		return nil, &Error{Name: NameDriverTooOld, Call: "dlsym",
			Detail: fmt.Sprintf("%s has no %s: the NVIDIA driver is too old for the benchmark", cfg.Library, C.GoString(msg))}
	}
	d := &Driver{cfg: cfg, api: api}
	if r := C.gpx_cuInit(api, 0); r != 0 {
		err := d.fail("cuInit", r)
		C.gpx_close(api)
		C.free(unsafe.Pointer(api))
		return nil, err
	}
	return d, nil
}

// Close unloads the driver library. It waits for running Measure calls; a
// Measure after Close fails.
func (d *Driver) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.api == nil {
		return nil
	}
	C.gpx_close(d.api)
	C.free(unsafe.Pointer(d.api))
	d.api = nil
	return nil
}

// errorName is the driver's name for r (cuGetErrorName), or CUDA_ERROR_<r>
// when the driver does not know it.
func (d *Driver) errorName(r C.gpx_result) string {
	if name := C.gpx_error_name(d.api, r); name != nil {
		return C.GoString(name)
	}
	return fmt.Sprintf("CUDA_ERROR_%d", int(r))
}

// fail is the error of driver call that returned r.
func (d *Driver) fail(call string, r C.gpx_result) *Error {
	return &Error{Name: d.errorName(r), Call: call, Code: int(r)}
}
