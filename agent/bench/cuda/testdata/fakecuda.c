// A fake libcuda.so for the package's tests: the entry points the binding
// resolves, with "device memory" in host memory and kernels emulated on the
// host from their parameters (so the Go side's verification runs on real
// results), simulated GPU time, failures on demand and a call log.
//
// It is configured by the file <this library's path>.conf, read by cuInit,
// and logs to <this library's path>.log. Each test copies the library to
// its own directory, so every test has its own instance, state and files.
//
// Configuration lines:
//   device <uuid> <cc major> <cc minor> <SMs> <L2 bytes>
//   free <bytes>               cuMemGetInfo's free memory (default 8 GiB)
//   occupancy <blocks>         blocks per SM (default 2)
//   rate <kernel> <work/ms>    flops (or bytes) per simulated millisecond
//   scales <kernel> a,b,...    the nth launch of kernel takes scales[n] times
//                              as long (cyclic)
//   fail <call> <code> <skip>  the call after skip good ones returns code
//   wrong <kernel>             the kernel leaves a wrong result
//   init <code>                cuInit returns code
//   sleep_ms <ms>              cuEventSynchronize sleeps (real time)
//   jitlog <text>              the JIT error log of a failed module load
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int CUresult;

#define MAXDEV 8
#define MAXK 16
#define MAXALLOC 256

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static char base[4096];

static struct {
	char uuid[64];
	int major, minor, sms, l2;
} devs[MAXDEV];
static int ndev;
static long long free_bytes = 8LL << 30;
static int occupancy = 2;
static int init_code;
static int sleep_ms;
static char jitlog[512];
static struct {
	char name[32];
	double rate;
	double scales[16];
	int nscales, launches;
	int wrong;
} ks[MAXK];
static int nk;
static struct {
	char call[64];
	int code, skip, seen;
} fails[8];
static int nfails;

static struct {
	unsigned char *p;
	size_t n;
} allocs[MAXALLOC];

typedef struct {
	double clock;
	int dev;
} ctx_t;
typedef struct {
	double t;
} event_t;
typedef struct {
	char *image;
} module_t;
typedef struct {
	char name[64];
} function_t;

static __thread ctx_t *current;

static void logf_(const char *fmt, ...) {
	char path[4200];
	snprintf(path, sizeof(path), "%s.log", base);
	FILE *f = fopen(path, "a");
	if (f == NULL) {
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
}

static int kindex(const char *name) {
	for (int i = 0; i < nk; i++) {
		if (strcmp(ks[i].name, name) == 0) {
			return i;
		}
	}
	if (nk == MAXK) {
		return 0;
	}
	snprintf(ks[nk].name, sizeof(ks[nk].name), "%s", name);
	ks[nk].rate = 1e9;
	return nk++;
}

// failing says whether call fails now, and with which code.
static int failing(const char *call) {
	for (int i = 0; i < nfails; i++) {
		if (strcmp(fails[i].call, call) == 0) {
			if (fails[i].seen++ == fails[i].skip) {
				logf_("fail %s %d", call, fails[i].code);
				return fails[i].code;
			}
		}
	}
	return 0;
}

static void configure(void) {
	Dl_info info;
	if (dladdr((void *)configure, &info) == 0 || info.dli_fname == NULL) {
		return;
	}
	snprintf(base, sizeof(base), "%s", info.dli_fname);
	char path[4200];
	snprintf(path, sizeof(path), "%s.conf", base);
	FILE *f = fopen(path, "r");
	if (f == NULL) {
		return;
	}
	char line[1024];
	while (fgets(line, sizeof(line), f) != NULL) {
		char a[256], b[256];
		long long v;
		int i1, i2, i3, i4;
		if (sscanf(line, "device %63s %d %d %d %d", a, &i1, &i2, &i3, &i4) == 5 && ndev < MAXDEV) {
			snprintf(devs[ndev].uuid, sizeof(devs[ndev].uuid), "%s", a);
			devs[ndev].major = i1, devs[ndev].minor = i2, devs[ndev].sms = i3, devs[ndev].l2 = i4;
			ndev++;
		} else if (sscanf(line, "free %lld", &v) == 1) {
			free_bytes = v;
		} else if (sscanf(line, "occupancy %d", &i1) == 1) {
			occupancy = i1;
		} else if (sscanf(line, "init %d", &i1) == 1) {
			init_code = i1;
		} else if (sscanf(line, "sleep_ms %d", &i1) == 1) {
			sleep_ms = i1;
		} else if (sscanf(line, "rate %31s %255s", a, b) == 2) {
			ks[kindex(a)].rate = atof(b);
		} else if (sscanf(line, "wrong %31s", a) == 1) {
			ks[kindex(a)].wrong = 1;
		} else if (sscanf(line, "scales %31s %255s", a, b) == 2) {
			int k = kindex(a);
			for (char *s = strtok(b, ","); s != NULL && ks[k].nscales < 16; s = strtok(NULL, ",")) {
				ks[k].scales[ks[k].nscales++] = atof(s);
			}
		} else if (sscanf(line, "fail %63s %d %d", a, &i1, &i2) == 3 && nfails < 8) {
			snprintf(fails[nfails].call, sizeof(fails[nfails].call), "%s", a);
			fails[nfails].code = i1, fails[nfails].skip = i2;
			nfails++;
		} else if (strncmp(line, "jitlog ", 7) == 0) {
			snprintf(jitlog, sizeof(jitlog), "%s", line + 7);
			jitlog[strcspn(jitlog, "\n")] = 0;
		}
	}
	fclose(f);
}

// span is the host memory behind [p, p+n) of one allocation, or NULL.
static unsigned char *span(unsigned long long p, size_t n) {
	for (int i = 0; i < MAXALLOC; i++) {
		unsigned char *a = allocs[i].p;
		if (a != NULL && (uintptr_t)p >= (uintptr_t)a && (uintptr_t)p + n <= (uintptr_t)a + allocs[i].n) {
			return (unsigned char *)(uintptr_t)p;
		}
	}
	return NULL;
}

#define LOCK() pthread_mutex_lock(&mu)
#define RETURN(code)                        \
	do {                                \
		CUresult r_ = (code);       \
		pthread_mutex_unlock(&mu);  \
		return r_;                  \
	} while (0)
#define NEEDCTX()                             \
	do {                                  \
		if (current == NULL) {        \
			logf_("noctx %s", __func__); \
			RETURN(201);          \
		}                             \
	} while (0)
#define FAIL(name)                      \
	do {                            \
		int c_ = failing(name); \
		if (c_ != 0) {          \
			RETURN(c_);     \
		}                       \
	} while (0)

CUresult cuInit(unsigned flags) {
	LOCK();
	if (flags != 0) {
		RETURN(1);
	}
	configure();
	logf_("init");
	RETURN(init_code);
}

CUresult cuGetErrorName(CUresult r, const char **name) {
	static const struct {
		int code;
		const char *name;
	} names[] = {
		{0, "CUDA_SUCCESS"},
		{1, "CUDA_ERROR_INVALID_VALUE"},
		{2, "CUDA_ERROR_OUT_OF_MEMORY"},
		{3, "CUDA_ERROR_NOT_INITIALIZED"},
		{100, "CUDA_ERROR_NO_DEVICE"},
		{101, "CUDA_ERROR_INVALID_DEVICE"},
		{201, "CUDA_ERROR_INVALID_CONTEXT"},
		{214, "CUDA_ERROR_ECC_UNCORRECTABLE"},
		{218, "CUDA_ERROR_INVALID_PTX"},
		{400, "CUDA_ERROR_INVALID_HANDLE"},
		{500, "CUDA_ERROR_NOT_FOUND"},
		{719, "CUDA_ERROR_LAUNCH_FAILED"},
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (names[i].code == r) {
			*name = names[i].name;
			return 0;
		}
	}
	*name = NULL;
	return 1;
}

CUresult cuDeviceGetCount(int *n) {
	LOCK();
	FAIL("cuDeviceGetCount");
	*n = ndev;
	RETURN(0);
}

CUresult cuDeviceGet(int *d, int ordinal) {
	LOCK();
	if (ordinal < 0 || ordinal >= ndev) {
		RETURN(101);
	}
	*d = ordinal;
	RETURN(0);
}

static int hexval(char c) {
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

CUresult cuDeviceGetUuid_v2(unsigned char *uuid, int d) {
	LOCK();
	if (d < 0 || d >= ndev) {
		RETURN(101);
	}
	const char *s = devs[d].uuid + 4; // after "GPU-"
	int k = 0;
	for (; *s != 0 && k < 16; s++) {
		if (*s == '-') continue;
		uuid[k++] = (unsigned char)(hexval(s[0]) << 4 | hexval(s[1]));
		s++;
	}
	RETURN(0);
}

CUresult cuDeviceGetAttribute(int *v, int attr, int d) {
	LOCK();
	if (d < 0 || d >= ndev) {
		RETURN(101);
	}
	switch (attr) {
	case 75: *v = devs[d].major; break;
	case 76: *v = devs[d].minor; break;
	case 16: *v = devs[d].sms; break;
	case 38: *v = devs[d].l2; break;
	default: RETURN(1);
	}
	RETURN(0);
}

CUresult cuCtxCreate_v2(ctx_t **ctx, unsigned flags, int d) {
	LOCK();
	FAIL("cuCtxCreate_v2");
	if (d < 0 || d >= ndev) {
		RETURN(101);
	}
	*ctx = calloc(1, sizeof(ctx_t));
	(*ctx)->dev = d;
	current = *ctx;
	logf_("ctx_create %p flags=%u", (void *)*ctx, flags);
	RETURN(0);
}

CUresult cuCtxDestroy_v2(ctx_t *ctx) {
	LOCK();
	if (current == ctx) {
		current = NULL;
	}
	logf_("ctx_destroy %p", (void *)ctx);
	free(ctx);
	RETURN(0);
}

CUresult cuMemGetInfo_v2(size_t *fr, size_t *total) {
	LOCK();
	NEEDCTX();
	*fr = (size_t)free_bytes;
	*total = (size_t)free_bytes * 2;
	RETURN(0);
}

CUresult cuMemAlloc_v2(unsigned long long *p, size_t n) {
	LOCK();
	NEEDCTX();
	FAIL("cuMemAlloc_v2");
	for (int i = 0; i < MAXALLOC; i++) {
		if (allocs[i].p == NULL) {
			allocs[i].p = malloc(n);
			allocs[i].n = n;
			*p = (unsigned long long)(uintptr_t)allocs[i].p;
			logf_("alloc %llx %zu", *p, n);
			RETURN(0);
		}
	}
	RETURN(2);
}

CUresult cuMemFree_v2(unsigned long long p) {
	LOCK();
	NEEDCTX();
	for (int i = 0; i < MAXALLOC; i++) {
		if ((uintptr_t)allocs[i].p == p && p != 0) {
			free(allocs[i].p);
			allocs[i].p = NULL;
			logf_("free %llx", p);
			RETURN(0);
		}
	}
	logf_("badfree %llx", p);
	RETURN(1);
}

CUresult cuMemsetD32_v2(unsigned long long p, unsigned v, size_t words) {
	LOCK();
	NEEDCTX();
	uint32_t *w = (uint32_t *)span(p, 4 * words);
	if (w == NULL) {
		logf_("badspan memset %llx %zu", p, words);
		RETURN(1);
	}
	for (size_t i = 0; i < words; i++) {
		w[i] = v;
	}
	RETURN(0);
}

CUresult cuMemcpyDtoH_v2(void *dst, unsigned long long src, size_t n) {
	LOCK();
	NEEDCTX();
	FAIL("cuMemcpyDtoH_v2");
	unsigned char *s = span(src, n);
	if (s == NULL) {
		logf_("badspan copy %llx %zu", src, n);
		RETURN(1);
	}
	memcpy(dst, s, n);
	RETURN(0);
}

CUresult cuModuleLoadDataEx(module_t **mod, const void *image, unsigned n, int *options, void **values) {
	LOCK();
	NEEDCTX();
	int code = failing("cuModuleLoadDataEx");
	char *errlog = NULL;
	size_t errsize = 0;
	for (unsigned i = 0; i < n; i++) {
		if (options[i] == 5) errlog = values[i];
		if (options[i] == 6) errsize = (size_t)(uintptr_t)values[i];
	}
	if (errlog == NULL || errsize == 0) {
		logf_("nojitlog");
		RETURN(1);
	}
	if (code != 0) {
		snprintf(errlog, errsize, "%s", jitlog);
		RETURN(code);
	}
	const char *ptx = image;
	if (strstr(ptx, ".version ") == NULL || strstr(ptx, ".target sm_") == NULL) {
		snprintf(errlog, errsize, "fake ptxas: no .version or .target");
		RETURN(218);
	}
	const char *t = strstr(ptx, ".target sm_");
	int sm = atoi(t + strlen(".target sm_"));
	int dev = current->dev;
	if (sm > devs[dev].major * 10 + devs[dev].minor) {
		snprintf(errlog, errsize, "fake ptxas: sm_%d is higher than the device's", sm);
		RETURN(218);
	}
	*mod = calloc(1, sizeof(module_t));
	(*mod)->image = strdup(ptx);
	logf_("module_load %p sm_%d", (void *)*mod, sm);
	RETURN(0);
}

CUresult cuModuleUnload(module_t *mod) {
	LOCK();
	logf_("module_unload %p", (void *)mod);
	free(mod->image);
	free(mod);
	RETURN(0);
}

CUresult cuModuleGetFunction(function_t **fn, module_t *mod, const char *name) {
	LOCK();
	NEEDCTX();
	char want[128];
	snprintf(want, sizeof(want), ".visible .entry %s(", name);
	if (strstr(mod->image, want) == NULL) {
		RETURN(500);
	}
	// Functions live as long as their module in the real driver; the fake
	// keeps one per name and never frees them.
	static function_t fns[32];
	static int nfns;
	for (int i = 0; i < nfns; i++) {
		if (strcmp(fns[i].name, name) == 0) {
			*fn = &fns[i];
			RETURN(0);
		}
	}
	if (nfns == 32) RETURN(2);
	snprintf(fns[nfns].name, sizeof(fns[nfns].name), "%s", name);
	*fn = &fns[nfns++];
	RETURN(0);
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, function_t *fn, int block, size_t smem) {
	(void)fn;
	LOCK();
	NEEDCTX();
	if (block <= 0 || smem != 0) RETURN(1);
	*blocks = occupancy;
	RETURN(0);
}

static float half_to_float(uint16_t h) {
	int sign = h >> 15, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
	float v = exp == 0 ? ldexpf((float)mant, -24) : ldexpf((float)(mant | 0x400), exp - 25);
	return sign ? -v : v;
}

static float bf16_to_float(uint16_t h) {
	uint32_t bits = (uint32_t)h << 16;
	float v;
	memcpy(&v, &bits, 4);
	return v;
}

#define P(i, T) (*(T *)params[i])

// emulate runs kernel name on the host and returns its work (flops or
// bytes), or -1 for bad parameters.
static double emulate(const char *name, unsigned grid, unsigned block, void **params, int wrong) {
	size_t threads = (size_t)grid * block;
	if (strcmp(name, "fma_f32") == 0 || strcmp(name, "fma_f16x2") == 0) {
		int f16 = name[4] == 'f' && name[5] == '1';
		unsigned n = P(5, uint32_t), rounds = P(6, uint32_t);
		int64_t *out = (int64_t *)span(P(0, unsigned long long), threads * 8);
		if (out == NULL) return -1;
		int lanes = f16 ? 2 : 1;
		int64_t sum = 0;
		for (int lane = 0; lane < lanes; lane++) {
			float start, mul, inc, back;
			if (f16) {
				start = half_to_float((uint16_t)(P(1, uint32_t) >> (16 * lane)));
				mul = half_to_float((uint16_t)(P(2, uint32_t) >> (16 * lane)));
				inc = half_to_float((uint16_t)(P(3, uint32_t) >> (16 * lane)));
				back = half_to_float((uint16_t)(P(4, uint32_t) >> (16 * lane)));
			} else {
				start = P(1, float), mul = P(2, float), inc = P(3, float), back = P(4, float);
			}
			float x[8];
			x[0] = start;
			for (int j = 1; j < 8; j++) x[j] = fmaf(x[j - 1], mul, inc);
			// Every round is the same; emulate at most a few.
			unsigned emulated = rounds < 4 ? rounds : 4;
			int64_t round_sum = 0;
			for (unsigned r = 0; r < emulated; r++) {
				round_sum = 0;
				for (unsigned i = 0; i < n * 8; i++)
					for (int j = 0; j < 8; j++) x[j] = fmaf(x[j], mul, inc);
				for (int j = 0; j < 8; j++) {
					round_sum += llrintf(x[j]);
					x[j] = fmaf(x[j], mul, back);
				}
				sum += round_sum;
			}
			sum += (int64_t)(rounds - emulated) * round_sum;
		}
		for (size_t t = 0; t < threads; t++) out[t] = sum;
		if (wrong) out[threads - 1] += 1;
		return (double)threads * rounds * n * 64 * (f16 ? 4 : 2);
	}
	if (strcmp(name, "mma_f16") == 0 || strcmp(name, "mma_bf16") == 0) {
		int bf = name[4] == 'b';
		unsigned n = P(6, uint32_t), rounds = P(7, uint32_t);
		int64_t *out = (int64_t *)span(P(0, unsigned long long), threads * 8);
		if (out == NULL || threads % 32 != 0) return -1;
		uint16_t ab = (uint16_t)P(1, uint32_t), bb = (uint16_t)P(2, uint32_t);
		float a = bf ? bf16_to_float(ab) : half_to_float(ab);
		float b = bf ? bf16_to_float(bb) : half_to_float(bb);
		float start = P(3, float), inc = P(4, float), back = P(5, float);
		int64_t sum = 0;
		float c[8];
		c[0] = start;
		for (int j = 1; j < 8; j++) c[j] = c[j - 1] + inc;
		for (unsigned r = 0; r < rounds; r++) {
			for (int j = 0; j < 8; j++) {
				c[j] += (float)n * 4 * 16 * a * b;
				sum += 4 * llrintf(c[j]);
				c[j] += back;
			}
		}
		for (size_t t = 0; t < threads; t++) out[t] = sum;
		if (wrong) out[0] -= 1;
		return (double)(threads / 32) * rounds * n * 32 * 4096;
	}
	if (strcmp(name, "mem_read") == 0) {
		unsigned long long nv = P(2, unsigned long long);
		unsigned passes = P(3, uint32_t);
		uint32_t *out = (uint32_t *)span(P(0, unsigned long long), threads * 4);
		uint32_t *src = (uint32_t *)span(P(1, unsigned long long), nv * 16);
		if (out == NULL || src == NULL) return -1;
		for (size_t t = 0; t < threads; t++) {
			uint32_t s = 0;
			for (size_t i = t; i < nv; i += threads)
				s += src[4 * i] + src[4 * i + 1] + src[4 * i + 2] + src[4 * i + 3];
			out[t] = s * passes;
		}
		if (wrong) out[0] += 1;
		return (double)nv * 16 * passes;
	}
	if (strcmp(name, "mem_write") == 0) {
		unsigned long long nv = P(1, unsigned long long);
		uint32_t v = P(2, uint32_t);
		unsigned passes = P(3, uint32_t);
		uint32_t *dst = (uint32_t *)span(P(0, unsigned long long), nv * 16);
		if (dst == NULL) return -1;
		for (size_t i = 0; i < nv * 4; i++) dst[i] = v;
		if (wrong) dst[nv * 4 - 1] ^= 2;
		return (double)nv * 16 * passes;
	}
	if (strcmp(name, "mem_copy") == 0) {
		unsigned long long nv = P(2, unsigned long long);
		unsigned passes = P(3, uint32_t);
		unsigned char *dst = span(P(0, unsigned long long), nv * 16);
		unsigned char *src = span(P(1, unsigned long long), nv * 16);
		if (dst == NULL || src == NULL) return -1;
		memcpy(dst, src, nv * 16);
		if (wrong) dst[0] ^= 2;
		return 2.0 * nv * 16 * passes;
	}
	return -1;
}

CUresult cuLaunchKernel(function_t *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
			unsigned bz, unsigned smem, void *stream, void **params, void **extra) {
	LOCK();
	NEEDCTX();
	FAIL("cuLaunchKernel");
	if (gy != 1 || gz != 1 || by != 1 || bz != 1 || smem != 0 || stream != NULL || extra != NULL || params == NULL) {
		RETURN(1);
	}
	int k = kindex(fn->name);
	double work = emulate(fn->name, gx, bx, params, ks[k].wrong);
	if (work < 0) {
		logf_("badlaunch %s", fn->name);
		RETURN(1);
	}
	double scale = ks[k].nscales > 0 ? ks[k].scales[ks[k].launches % ks[k].nscales] : 1;
	ks[k].launches++;
	current->clock += work / ks[k].rate * scale;
	logf_("launch %s grid=%u block=%u work=%.0f", fn->name, gx, bx, work);
	RETURN(0);
}

CUresult cuEventCreate(event_t **ev, unsigned flags) {
	LOCK();
	NEEDCTX();
	if (flags != 0) RETURN(1);
	*ev = calloc(1, sizeof(event_t));
	logf_("event_create %p", (void *)*ev);
	RETURN(0);
}

CUresult cuEventDestroy_v2(event_t *ev) {
	LOCK();
	logf_("event_destroy %p", (void *)ev);
	free(ev);
	RETURN(0);
}

CUresult cuEventRecord(event_t *ev, void *stream) {
	LOCK();
	NEEDCTX();
	if (stream != NULL) RETURN(1);
	ev->t = current->clock;
	RETURN(0);
}

CUresult cuEventSynchronize(event_t *ev) {
	(void)ev;
	LOCK();
	NEEDCTX();
	FAIL("cuEventSynchronize");
	int ms = sleep_ms;
	pthread_mutex_unlock(&mu);
	if (ms > 0) usleep((useconds_t)ms * 1000);
	return 0;
}

CUresult cuEventElapsedTime(float *ms, event_t *start, event_t *end) {
	LOCK();
	NEEDCTX();
	*ms = (float)(end->t - start->t);
	RETURN(0);
}
