package cuda

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unsafe"

	"github.com/gpunex/gpunex/agent/protocol"
)

// The CUdevice_attribute values the suite reads.
const (
	attrSMCount      = 16
	attrL2Bytes      = 38
	attrComputeMajor = 75
	attrComputeMinor = 76
)

// ctxSchedBlockingSync (CU_CTX_SCHED_BLOCKING_SYNC) makes a synchronising
// thread sleep instead of spinning, so a benchmark does not hold a CPU core
// per GPU.
const ctxSchedBlockingSync = 0x04

// jitLogBytes is the size of the JIT error log kept for an error.
const jitLogBytes = 8192

// session is one Measure: a context on one device, created and used on one
// locked OS thread, and everything allocated in it.
type session struct {
	d   *Driver
	api *C.gpx_api

	uuid             string
	dev              C.gpx_device
	ccMajor, ccMinor int
	sms              int
	l2Bytes          int64

	ctx     C.gpx_handle
	modules map[string]C.gpx_handle
	funcs   map[string]C.gpx_handle
	allocs  map[C.gpx_dptr]struct{}
	events  [2]C.gpx_handle
	// mem is the memory benches' buffers, allocated by the first of them.
	mem *memory

	// metric is the metric being measured, named in errors.
	metric protocol.BenchMetric
	// seeds are the run's start values (from its nonce).
	seeds protocol.BenchSeeds

	// The budget: Measure's start, its budget, and the GPU time the timed
	// launches took (the fake's times are simulated, so the budget counts
	// the larger of wall time and GPU time).
	began  time.Time
	budget time.Duration
	gpu    time.Duration
}

// newSession is a Measure of the GPU with uuid on d, not yet opened.
func newSession(d *Driver, uuid string, budget time.Duration) *session {
	return &session{d: d, api: d.api, uuid: uuid, began: time.Now(), budget: budget,
		modules: map[string]C.gpx_handle{}, funcs: map[string]C.gpx_handle{}, allocs: map[C.gpx_dptr]struct{}{}}
}

// check turns a driver result into the session's error.
func (s *session) check(call string, r C.gpx_result) error {
	if r == 0 {
		return nil
	}
	e := s.d.fail(call, r)
	e.Metric = s.metric
	return e
}

// open finds the device with s.uuid, reads its attributes and creates the
// context (current on this thread) and the timing events. What it created
// before a failure is released by close.
func (s *session) open() error {
	var n C.int
	if err := s.check("cuDeviceGetCount", C.gpx_cuDeviceGetCount(s.api, &n)); err != nil {
		return err
	}
	var seen []string
	found := false
	for i := 0; i < int(n) && !found; i++ {
		var dev C.gpx_device
		if err := s.check("cuDeviceGet", C.gpx_cuDeviceGet(s.api, &dev, C.int(i))); err != nil {
			return err
		}
		var raw [16]byte
		if err := s.check("cuDeviceGetUuid", C.gpx_cuDeviceGetUuid(s.api, (*C.uchar)(unsafe.Pointer(&raw[0])), dev)); err != nil {
			return err
		}
		u := formatUUID(raw)
		seen = append(seen, u)
		if strings.EqualFold(u, s.uuid) {
			s.dev, found = dev, true
		}
	}
	if !found {
		return &Error{Name: NameGPUNotFound, Call: "cuDeviceGetUuid",
			Detail: fmt.Sprintf("no CUDA device has UUID %q (the driver sees %d: %s)", s.uuid, int(n), strings.Join(seen, ", "))}
	}
	for _, a := range []struct {
		attr int
		dst  *int
	}{{attrComputeMajor, &s.ccMajor}, {attrComputeMinor, &s.ccMinor}, {attrSMCount, &s.sms}} {
		var v C.int
		if err := s.check("cuDeviceGetAttribute", C.gpx_cuDeviceGetAttribute(s.api, &v, C.int(a.attr), s.dev)); err != nil {
			return err
		}
		*a.dst = int(v)
	}
	var l2 C.int
	if err := s.check("cuDeviceGetAttribute", C.gpx_cuDeviceGetAttribute(s.api, &l2, attrL2Bytes, s.dev)); err != nil {
		return err
	}
	s.l2Bytes = int64(l2)
	if s.sms <= 0 {
		s.sms = 1
	}
	if err := s.check("cuCtxCreate_v2", C.gpx_cuCtxCreate(s.api, &s.ctx, ctxSchedBlockingSync, s.dev)); err != nil {
		return err
	}
	for i := range s.events {
		if err := s.check("cuEventCreate", C.gpx_cuEventCreate(s.api, &s.events[i])); err != nil {
			return err
		}
	}
	return nil
}

// close releases everything the session holds, whatever state the context
// is in (after a sticky error the frees fail; destroying the context still
// releases them).
func (s *session) close() {
	for p := range s.allocs {
		C.gpx_cuMemFree(s.api, p)
	}
	for _, m := range s.modules {
		C.gpx_cuModuleUnload(s.api, m)
	}
	for _, ev := range s.events {
		if ev != nil {
			C.gpx_cuEventDestroy(s.api, ev)
		}
	}
	if s.ctx != nil {
		C.gpx_cuCtxDestroy(s.api, s.ctx)
	}
}

// formatUUID writes a device UUID as NVML does.
func formatUUID(b [16]byte) string {
	return fmt.Sprintf("GPU-%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// function loads k's module on first use (JIT, with the log in the error)
// and returns k's function.
func (s *session) function(k kernel) (C.gpx_handle, error) {
	if fn, ok := s.funcs[k.name]; ok {
		return fn, nil
	}
	mod, ok := s.modules[k.module.file]
	if !ok {
		ptx := C.CString(k.module.ptx)
		defer C.free(unsafe.Pointer(ptx))
		log := (*C.char)(C.calloc(jitLogBytes, 1))
		defer C.free(unsafe.Pointer(log))
		r := C.gpx_module_load(s.api, &mod, ptx, log, jitLogBytes)
		if err := s.check("cuModuleLoadDataEx("+k.module.file+")", r); err != nil {
			err.(*Error).Detail = "JIT log: " + strings.TrimSpace(C.GoString(log))
			return nil, err
		}
		s.modules[k.module.file] = mod
	}
	name := C.CString(k.name)
	defer C.free(unsafe.Pointer(name))
	var fn C.gpx_handle
	if err := s.check("cuModuleGetFunction("+k.name+")", C.gpx_cuModuleGetFunction(s.api, &fn, mod, name)); err != nil {
		return nil, err
	}
	s.funcs[k.name] = fn
	return fn, nil
}

// grid is the number of blocks of k that fill the device once: SMs times
// the blocks of blockSize threads one SM holds.
func (s *session) grid(k kernel) (int, error) {
	fn, err := s.function(k)
	if err != nil {
		return 0, err
	}
	var per C.int
	if err := s.check("cuOccupancyMaxActiveBlocksPerMultiprocessor", C.gpx_occupancy(s.api, &per, fn, blockSize)); err != nil {
		return 0, err
	}
	return s.sms * max(1, int(per)), nil
}

// alloc allocates bytes of device memory.
func (s *session) alloc(bytes int64) (C.gpx_dptr, error) {
	var p C.gpx_dptr
	if err := s.check("cuMemAlloc_v2", C.gpx_cuMemAlloc(s.api, &p, C.size_t(bytes))); err != nil {
		return 0, err
	}
	s.allocs[p] = struct{}{}
	return p, nil
}

// free releases an allocation.
func (s *session) free(p C.gpx_dptr) error {
	delete(s.allocs, p)
	return s.check("cuMemFree_v2", C.gpx_cuMemFree(s.api, p))
}

// memset fills words 32-bit words at p with value.
func (s *session) memset(p C.gpx_dptr, value uint32, words int64) error {
	return s.check("cuMemsetD32_v2", C.gpx_cuMemsetD32(s.api, p, C.uint(value), C.size_t(words)))
}

// copyOut copies len(dst) 32-bit words from p.
func (s *session) copyOut32(dst []uint32, p C.gpx_dptr) error {
	if len(dst) == 0 {
		return nil
	}
	return s.check("cuMemcpyDtoH_v2", C.gpx_cuMemcpyDtoH(s.api, unsafe.Pointer(&dst[0]), p, C.size_t(4*len(dst))))
}

// copyOut64 copies len(dst) 64-bit words from p.
func (s *session) copyOut64(dst []int64, p C.gpx_dptr) error {
	if len(dst) == 0 {
		return nil
	}
	return s.check("cuMemcpyDtoH_v2", C.gpx_cuMemcpyDtoH(s.api, unsafe.Pointer(&dst[0]), p, C.size_t(8*len(dst))))
}

// launch enqueues k over grid blocks of blockSize threads.
func (s *session) launch(ctx context.Context, k kernel, grid int, args ...any) error {
	if err := ctx.Err(); err != nil {
		return &Error{Name: NameCancelled, Call: k.name, Metric: s.metric, Err: err}
	}
	fn, err := s.function(k)
	if err != nil {
		return err
	}
	b, err := k.encode(args...)
	if err != nil {
		return err
	}
	offsets := make([]C.size_t, len(b.offsets))
	for i, o := range b.offsets {
		offsets[i] = C.size_t(o)
	}
	r := C.gpx_launch(s.api, fn, C.uint(grid), blockSize,
		(*C.uchar)(unsafe.Pointer(&b.data[0])), &offsets[0], C.int(len(offsets)))
	return s.check("cuLaunchKernel("+k.name+")", r)
}

// timed launches k between the two events and waits for it: the kernel's
// time on the GPU, in seconds.
func (s *session) timed(ctx context.Context, k kernel, grid int, args ...any) (float64, error) {
	if err := s.check("cuEventRecord", C.gpx_cuEventRecord(s.api, s.events[0])); err != nil {
		return 0, err
	}
	if err := s.launch(ctx, k, grid, args...); err != nil {
		return 0, err
	}
	if err := s.check("cuEventRecord", C.gpx_cuEventRecord(s.api, s.events[1])); err != nil {
		return 0, err
	}
	if err := s.check("cuEventSynchronize", C.gpx_cuEventSynchronize(s.api, s.events[1])); err != nil {
		return 0, err
	}
	var ms C.float
	if err := s.check("cuEventElapsedTime", C.gpx_cuEventElapsedTime(s.api, &ms, s.events[0], s.events[1])); err != nil {
		return 0, err
	}
	sec := float64(ms) / 1e3
	s.gpu += time.Duration(sec * float64(time.Second))
	return sec, nil
}

// spent is how much of the budget is gone.
func (s *session) spent() time.Duration {
	return max(time.Since(s.began), s.gpu)
}

// freeMemory is cuMemGetInfo's free bytes.
func (s *session) freeMemory() (int64, error) {
	var free, total C.size_t
	if err := s.check("cuMemGetInfo_v2", C.gpx_cuMemGetInfo(s.api, &free, &total)); err != nil {
		return 0, err
	}
	return int64(free), nil
}
