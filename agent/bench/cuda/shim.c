#include "shim.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

// Each entry point by the name the binding resolves; the _v2 names are the
// driver ABI's current ones (the unsuffixed symbols are the 32-bit-size
// originals kept for old binaries).
static const struct {
	const char *name;
	const char *fallback;
	size_t offset;
} symbols[] = {
	{"cuInit", NULL, offsetof(gpx_api, cuInit)},
	{"cuGetErrorName", NULL, offsetof(gpx_api, cuGetErrorName)},
	{"cuDeviceGetCount", NULL, offsetof(gpx_api, cuDeviceGetCount)},
	{"cuDeviceGet", NULL, offsetof(gpx_api, cuDeviceGet)},
	{"cuDeviceGetUuid_v2", "cuDeviceGetUuid", offsetof(gpx_api, cuDeviceGetUuid)},
	{"cuDeviceGetAttribute", NULL, offsetof(gpx_api, cuDeviceGetAttribute)},
	{"cuCtxCreate_v2", NULL, offsetof(gpx_api, cuCtxCreate)},
	{"cuCtxDestroy_v2", NULL, offsetof(gpx_api, cuCtxDestroy)},
	{"cuMemGetInfo_v2", NULL, offsetof(gpx_api, cuMemGetInfo)},
	{"cuMemAlloc_v2", NULL, offsetof(gpx_api, cuMemAlloc)},
	{"cuMemFree_v2", NULL, offsetof(gpx_api, cuMemFree)},
	{"cuMemsetD32_v2", NULL, offsetof(gpx_api, cuMemsetD32)},
	{"cuMemcpyDtoH_v2", NULL, offsetof(gpx_api, cuMemcpyDtoH)},
	{"cuModuleLoadDataEx", NULL, offsetof(gpx_api, cuModuleLoadDataEx)},
	{"cuModuleUnload", NULL, offsetof(gpx_api, cuModuleUnload)},
	{"cuModuleGetFunction", NULL, offsetof(gpx_api, cuModuleGetFunction)},
	{"cuOccupancyMaxActiveBlocksPerMultiprocessor", NULL,
	 offsetof(gpx_api, cuOccupancyMaxActiveBlocksPerMultiprocessor)},
	{"cuLaunchKernel", NULL, offsetof(gpx_api, cuLaunchKernel)},
	{"cuEventCreate", NULL, offsetof(gpx_api, cuEventCreate)},
	{"cuEventDestroy_v2", NULL, offsetof(gpx_api, cuEventDestroy)},
	{"cuEventRecord", NULL, offsetof(gpx_api, cuEventRecord)},
	{"cuEventSynchronize", NULL, offsetof(gpx_api, cuEventSynchronize)},
	{"cuEventElapsedTime", NULL, offsetof(gpx_api, cuEventElapsedTime)},
};

int gpx_open(const char *path, gpx_api *api, const char **err) {
	memset(api, 0, sizeof(*api));
	api->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (api->lib == NULL) {
		*err = dlerror();
		return 1;
	}
	for (size_t i = 0; i < sizeof(symbols) / sizeof(symbols[0]); i++) {
		void *fn = dlsym(api->lib, symbols[i].name);
		if (fn == NULL && symbols[i].fallback != NULL) {
			fn = dlsym(api->lib, symbols[i].fallback);
		}
		if (fn == NULL) {
			*err = symbols[i].name;
			dlclose(api->lib);
			api->lib = NULL;
			return 2;
		}
		*(void **)((char *)api + symbols[i].offset) = fn;
	}
	return 0;
}

void gpx_close(gpx_api *api) {
	if (api->lib != NULL) {
		dlclose(api->lib);
	}
	memset(api, 0, sizeof(*api));
}

gpx_result gpx_cuInit(const gpx_api *a, unsigned flags) {
	return ((gpx_result(*)(unsigned))a->cuInit)(flags);
}

const char *gpx_error_name(const gpx_api *a, gpx_result r) {
	const char *name = NULL;
	if (((gpx_result(*)(gpx_result, const char **))a->cuGetErrorName)(r, &name) != 0) {
		return NULL;
	}
	return name;
}

gpx_result gpx_cuDeviceGetCount(const gpx_api *a, int *n) {
	return ((gpx_result(*)(int *))a->cuDeviceGetCount)(n);
}

gpx_result gpx_cuDeviceGet(const gpx_api *a, gpx_device *d, int ordinal) {
	return ((gpx_result(*)(gpx_device *, int))a->cuDeviceGet)(d, ordinal);
}

gpx_result gpx_cuDeviceGetUuid(const gpx_api *a, unsigned char *uuid16, gpx_device d) {
	return ((gpx_result(*)(unsigned char *, gpx_device))a->cuDeviceGetUuid)(uuid16, d);
}

gpx_result gpx_cuDeviceGetAttribute(const gpx_api *a, int *v, int attr, gpx_device d) {
	return ((gpx_result(*)(int *, int, gpx_device))a->cuDeviceGetAttribute)(v, attr, d);
}

gpx_result gpx_cuCtxCreate(const gpx_api *a, gpx_handle *ctx, unsigned flags, gpx_device d) {
	return ((gpx_result(*)(gpx_handle *, unsigned, gpx_device))a->cuCtxCreate)(ctx, flags, d);
}

gpx_result gpx_cuCtxDestroy(const gpx_api *a, gpx_handle ctx) {
	return ((gpx_result(*)(gpx_handle))a->cuCtxDestroy)(ctx);
}

gpx_result gpx_cuMemGetInfo(const gpx_api *a, size_t *free, size_t *total) {
	return ((gpx_result(*)(size_t *, size_t *))a->cuMemGetInfo)(free, total);
}

gpx_result gpx_cuMemAlloc(const gpx_api *a, gpx_dptr *p, size_t bytes) {
	return ((gpx_result(*)(gpx_dptr *, size_t))a->cuMemAlloc)(p, bytes);
}

gpx_result gpx_cuMemFree(const gpx_api *a, gpx_dptr p) {
	return ((gpx_result(*)(gpx_dptr))a->cuMemFree)(p);
}

gpx_result gpx_cuMemsetD32(const gpx_api *a, gpx_dptr p, unsigned value, size_t words) {
	return ((gpx_result(*)(gpx_dptr, unsigned, size_t))a->cuMemsetD32)(p, value, words);
}

gpx_result gpx_cuMemcpyDtoH(const gpx_api *a, void *dst, gpx_dptr src, size_t bytes) {
	return ((gpx_result(*)(void *, gpx_dptr, size_t))a->cuMemcpyDtoH)(dst, src, bytes);
}

// The CUjit_option values of the driver ABI.
enum {
	GPX_JIT_INFO_LOG_BUFFER = 3,
	GPX_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
	GPX_JIT_ERROR_LOG_BUFFER = 5,
	GPX_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
};

gpx_result gpx_module_load(const gpx_api *a, gpx_handle *mod, const char *ptx, char *errlog, size_t errlog_size) {
	char info[4096];
	int options[4] = {GPX_JIT_INFO_LOG_BUFFER, GPX_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
			  GPX_JIT_ERROR_LOG_BUFFER, GPX_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
	void *values[4] = {info, (void *)(uintptr_t)sizeof(info), errlog, (void *)(uintptr_t)errlog_size};
	info[0] = 0;
	errlog[0] = 0;
	return ((gpx_result(*)(gpx_handle *, const void *, unsigned, int *, void **))a->cuModuleLoadDataEx)(
		mod, ptx, 4, options, values);
}

gpx_result gpx_cuModuleUnload(const gpx_api *a, gpx_handle mod) {
	return ((gpx_result(*)(gpx_handle))a->cuModuleUnload)(mod);
}

gpx_result gpx_cuModuleGetFunction(const gpx_api *a, gpx_handle *fn, gpx_handle mod, const char *name) {
	return ((gpx_result(*)(gpx_handle *, gpx_handle, const char *))a->cuModuleGetFunction)(fn, mod, name);
}

gpx_result gpx_occupancy(const gpx_api *a, int *blocks, gpx_handle fn, int block_size) {
	return ((gpx_result(*)(int *, gpx_handle, int, size_t))a->cuOccupancyMaxActiveBlocksPerMultiprocessor)(
		blocks, fn, block_size, 0);
}

gpx_result gpx_launch(const gpx_api *a, gpx_handle fn, unsigned grid, unsigned block,
		      unsigned char *blob, const size_t *offsets, int n) {
	void *params[16];
	if (n > 16) {
		return 1; // CUDA_ERROR_INVALID_VALUE
	}
	for (int i = 0; i < n; i++) {
		params[i] = blob + offsets[i];
	}
	return ((gpx_result(*)(gpx_handle, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
			       gpx_handle, void **, void **))a->cuLaunchKernel)(fn, grid, 1, 1, block, 1, 1, 0, NULL,
										params, NULL);
}

gpx_result gpx_cuEventCreate(const gpx_api *a, gpx_handle *ev) {
	return ((gpx_result(*)(gpx_handle *, unsigned))a->cuEventCreate)(ev, 0);
}

gpx_result gpx_cuEventDestroy(const gpx_api *a, gpx_handle ev) {
	return ((gpx_result(*)(gpx_handle))a->cuEventDestroy)(ev);
}

gpx_result gpx_cuEventRecord(const gpx_api *a, gpx_handle ev) {
	return ((gpx_result(*)(gpx_handle, gpx_handle))a->cuEventRecord)(ev, NULL);
}

gpx_result gpx_cuEventSynchronize(const gpx_api *a, gpx_handle ev) {
	return ((gpx_result(*)(gpx_handle))a->cuEventSynchronize)(ev);
}

gpx_result gpx_cuEventElapsedTime(const gpx_api *a, float *ms, gpx_handle start, gpx_handle end) {
	return ((gpx_result(*)(float *, gpx_handle, gpx_handle))a->cuEventElapsedTime)(ms, start, end);
}
