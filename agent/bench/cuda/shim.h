// The driver API as this package calls it: a table of entry points found
// with dlsym, and one small wrapper per entry point that calls through the
// table. Nothing here comes from cuda.h (there is no CUDA toolkit); the
// types are the driver ABI's (CUresult and handles are ints and pointers,
// CUdeviceptr is 64-bit).
#ifndef GPUNEX_CUDA_SHIM_H
#define GPUNEX_CUDA_SHIM_H

#include <stddef.h>
#include <stdint.h>

typedef int gpx_result;
typedef int gpx_device;
typedef void *gpx_handle; // CUcontext, CUmodule, CUfunction, CUevent
typedef unsigned long long gpx_dptr;

// gpx_api holds the driver's entry points, resolved once by gpx_open.
typedef struct {
	void *lib;
	void *cuInit;
	void *cuGetErrorName;
	void *cuDeviceGetCount;
	void *cuDeviceGet;
	void *cuDeviceGetUuid; // cuDeviceGetUuid_v2 where the driver has it
	void *cuDeviceGetAttribute;
	void *cuCtxCreate;
	void *cuCtxDestroy;
	void *cuMemGetInfo;
	void *cuMemAlloc;
	void *cuMemFree;
	void *cuMemsetD32;
	void *cuMemcpyDtoH;
	void *cuModuleLoadDataEx;
	void *cuModuleUnload;
	void *cuModuleGetFunction;
	void *cuOccupancyMaxActiveBlocksPerMultiprocessor;
	void *cuLaunchKernel;
	void *cuEventCreate;
	void *cuEventDestroy;
	void *cuEventRecord;
	void *cuEventSynchronize;
	void *cuEventElapsedTime;
} gpx_api;

// gpx_open dlopens path and resolves every entry point. It returns 0, or 1
// with *err set to dlerror's message when the library cannot be loaded, or
// 2 with *err set to the first missing symbol's name.
int gpx_open(const char *path, gpx_api *api, const char **err);
void gpx_close(gpx_api *api);

gpx_result gpx_cuInit(const gpx_api *a, unsigned flags);
const char *gpx_error_name(const gpx_api *a, gpx_result r);
gpx_result gpx_cuDeviceGetCount(const gpx_api *a, int *n);
gpx_result gpx_cuDeviceGet(const gpx_api *a, gpx_device *d, int ordinal);
gpx_result gpx_cuDeviceGetUuid(const gpx_api *a, unsigned char *uuid16, gpx_device d);
gpx_result gpx_cuDeviceGetAttribute(const gpx_api *a, int *v, int attr, gpx_device d);
gpx_result gpx_cuCtxCreate(const gpx_api *a, gpx_handle *ctx, unsigned flags, gpx_device d);
gpx_result gpx_cuCtxDestroy(const gpx_api *a, gpx_handle ctx);
gpx_result gpx_cuMemGetInfo(const gpx_api *a, size_t *free, size_t *total);
gpx_result gpx_cuMemAlloc(const gpx_api *a, gpx_dptr *p, size_t bytes);
gpx_result gpx_cuMemFree(const gpx_api *a, gpx_dptr p);
gpx_result gpx_cuMemsetD32(const gpx_api *a, gpx_dptr p, unsigned value, size_t words);
gpx_result gpx_cuMemcpyDtoH(const gpx_api *a, void *dst, gpx_dptr src, size_t bytes);
// gpx_module_load JIT-compiles the NUL-terminated PTX image with info and
// error log buffers; the error log is left in errlog (errlog_size bytes).
gpx_result gpx_module_load(const gpx_api *a, gpx_handle *mod, const char *ptx, char *errlog, size_t errlog_size);
gpx_result gpx_cuModuleUnload(const gpx_api *a, gpx_handle mod);
gpx_result gpx_cuModuleGetFunction(const gpx_api *a, gpx_handle *fn, gpx_handle mod, const char *name);
gpx_result gpx_occupancy(const gpx_api *a, int *blocks, gpx_handle fn, int block_size);
// gpx_launch launches fn on the default stream with n parameters whose
// values lie in blob at the given byte offsets.
gpx_result gpx_launch(const gpx_api *a, gpx_handle fn, unsigned grid, unsigned block,
		      unsigned char *blob, const size_t *offsets, int n);
gpx_result gpx_cuEventCreate(const gpx_api *a, gpx_handle *ev);
gpx_result gpx_cuEventDestroy(const gpx_api *a, gpx_handle ev);
gpx_result gpx_cuEventRecord(const gpx_api *a, gpx_handle ev);
gpx_result gpx_cuEventSynchronize(const gpx_api *a, gpx_handle ev);
gpx_result gpx_cuEventElapsedTime(const gpx_api *a, float *ms, gpx_handle start, gpx_handle end);

#endif
