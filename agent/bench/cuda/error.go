package cuda

import (
	"fmt"

	"github.com/gpunex/gpunex/agent/protocol"
)

// The names of the failures that are the suite's own rather than the
// driver's (those are the driver's CUDA_ERROR_* names).
const (
	// NameDriverMissing: the driver library could not be loaded.
	NameDriverMissing = "GPUNEX_DRIVER_MISSING"
	// NameDriverTooOld: the library lacks an entry point the suite calls.
	NameDriverTooOld = "GPUNEX_DRIVER_TOO_OLD"
	// NameGPUNotFound: no device has the UUID Measure was given.
	NameGPUNotFound = "GPUNEX_GPU_NOT_FOUND"
	// NameVerifyFailed: a kernel's result on the device was not the one the
	// host computed, so the metric has no figure.
	NameVerifyFailed = "GPUNEX_VERIFY_FAILED"
	// NameCancelled: Measure's context ended; the error wraps ctx.Err().
	NameCancelled = "GPUNEX_CANCELLED"
	// NameClosed: Measure was called after Close.
	NameClosed = "GPUNEX_DRIVER_CLOSED"
)

// Error is why one GPU's benchmark ended: a driver call's failure with the
// driver's error name, or one of the suite's own (the Name* constants).
// The orchestrator reports ErrorName to the server.
type Error struct {
	// Name is the driver's error name (CUDA_ERROR_OUT_OF_MEMORY, ...) or a
	// Name* constant.
	Name string
	// Call is the failing driver call (cuLaunchKernel, ...) or step.
	Call string
	// Code is the driver's CUresult, 0 for the suite's own failures.
	Code int
	// Metric is the metric being measured, empty outside one.
	Metric protocol.BenchMetric
	// Detail says more: the JIT log, what a verification expected and got.
	Detail string
	// Err is the cause, for errors.Is (context.Canceled for NameCancelled).
	Err error
}

// Error says what failed, where, and the driver's name for it.
func (e *Error) Error() string {
	s := "cuda: "
	if e.Metric != "" {
		s += string(e.Metric) + ": "
	}
	s += e.Call + ": " + e.Name
	if e.Code != 0 {
		s += fmt.Sprintf(" (%d)", e.Code)
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// ErrorName is the name the orchestrator reports to the server.
func (e *Error) ErrorName() string { return e.Name }

// Unwrap is the cause.
func (e *Error) Unwrap() error { return e.Err }
