/* init.c - cuInit and the driver's process-wide state: the lock, settings from PTXEMU_*,
 * diagnostics, error names and strings.
 *
 * The emulator starts at cuInit (the arena is reserved then), not at load time, so that a
 * program which links libcuda but never initialises it pays nothing.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cudaProfiler.h>
#include "runtime/driver/drv.h"
#include "emu/tools/attach.h"

/* Recursive: host functions run from streams and nested helpers may re-enter the driver. */
static pthread_mutex_t drv_mutex;
static pthread_once_t drv_mutex_once = PTHREAD_ONCE_INIT;

static void drv_mutex_make(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&drv_mutex, &a);
    pthread_mutexattr_destroy(&a);
}

/* The lock's depth: the race detector's page protections (hostrace.c) are lifted while
 * the driver runs and applied when the program runs again. */
static int drv_depth;

void drv_lock(void)
{
    pthread_once(&drv_mutex_once, drv_mutex_make);
    pthread_mutex_lock(&drv_mutex);
    if (drv_depth++ == 0) drv_hostrace_lift();
}

void drv_unlock(void)
{
    if (--drv_depth == 0) drv_hostrace_apply();
    pthread_mutex_unlock(&drv_mutex);
}

/* One diagnostic line on stderr, prefixed "ptxemu: " unless the message already is. */
void drv_diag(const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    size_t n = strlen(buf);
    while (n > 0 && buf[n - 1] == '\n') buf[--n] = 0;
    int prefixed = !strncmp(buf, "ptxemu: ", 8);
    fprintf(stderr, "%s%s\n", prefixed ? "" : "ptxemu: ", buf);
}

int drv_not_implemented(const char *name, int *told)
{
    if (!__atomic_exchange_n(told, 1, __ATOMIC_RELAXED))
        drv_diag("%s is not implemented yet (CUDA_ERROR_NOT_SUPPORTED)", name);
    return CUDA_ERROR_NOT_SUPPORTED;
}

/* Integer environment setting in [lo, hi]; a bad value warns and yields the default. */
static int env_int(const char *name, int lo, int hi, int dflt)
{
    const char *s = getenv(name);
    if (!s || !*s) return dflt;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi) {
        drv_diag("warning: ignoring %s=%s (expected an integer from %d to %d)", name, s, lo, hi);
        return dflt;
    }
    return (int)v;
}

static CUresult init_status = CUDA_ERROR_NOT_INITIALIZED;
static int init_done;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;

/* A child forked after cuInit cannot use the driver: every call, cuInit too, answers
 * CUDA_ERROR_NOT_INITIALIZED, as a GPU's driver does (Numba detects a fork by exactly that:
 * its test_fork, written for GPUs, expects it). The child has none of the parent's worker
 * threads, so using the copied state could never work anyway. */
static void forked_child(void)
{
    __atomic_store_n(&init_done, 0, __ATOMIC_RELEASE);
    init_status = CUDA_ERROR_NOT_INITIALIZED;
}

static void init_run(void)
{
    emu_log_level = env_int("PTXEMU_LOG", 0, 3, 1);
    int d = drv_devices_init();
    if (d) {   /* -2: CUDA_VISIBLE_DEVICES hides every device */
        init_status = d == -2 ? CUDA_ERROR_NO_DEVICE : CUDA_ERROR_INVALID_VALUE;
        return;
    }
    int threads = env_int("PTXEMU_THREADS", 0, 4096, 0);
    tools_attach();   /* what it could not attach it said why; the program runs without it */
    drv_hostrace_attach();   /* the race detector's host side (hostrace.c) */
    if (emu_init(threads) != EMU_OK) {
        drv_diag("cannot start the emulator: device memory could not be reserved");
        init_status = CUDA_ERROR_OUT_OF_MEMORY;
        return;
    }
    init_status = CUDA_SUCCESS;
    __atomic_store_n(&init_done, 1, __ATOMIC_RELEASE);
    pthread_atfork(NULL, NULL, forked_child);
}

int drv_is_initialized(void)
{
    return __atomic_load_n(&init_done, __ATOMIC_ACQUIRE);
}

/* Flags must be 0 (measured: cuInit(1) is CUDA_ERROR_INVALID_VALUE). */
CUresult CUDAAPI cuInit(unsigned int Flags)
{
    if (Flags != 0) return CUDA_ERROR_INVALID_VALUE;
    pthread_once(&init_once, init_run);
    return init_status;
}

/* Works before cuInit, as the driver's does. */
CUresult CUDAAPI cuDriverGetVersion(int *driverVersion)
{
    if (!driverVersion) return CUDA_ERROR_INVALID_VALUE;
    *driverVersion = DRV_DRIVER_VERSION;
    return CUDA_SUCCESS;
}

/* ---- error names and strings ---- */

typedef struct ErrInfo { int code; const char *name, *msg; } ErrInfo;

static const ErrInfo errors[] = {
#define E(name, value, msg) { value, #name, msg },
#include "runtime/driver/errors.def"
#undef E
};

static const ErrInfo *err_find(int code)
{
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].code == code) return &errors[i];
    return NULL;
}

/* An unknown code gives CUDA_ERROR_INVALID_VALUE and a null string (measured). */
CUresult CUDAAPI cuGetErrorName(CUresult error, const char **pStr)
{
    if (!pStr) return CUDA_ERROR_INVALID_VALUE;
    const ErrInfo *e = err_find((int)error);
    *pStr = e ? e->name : NULL;
    return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuGetErrorString(CUresult error, const char **pStr)
{
    if (!pStr) return CUDA_ERROR_INVALID_VALUE;
    const ErrInfo *e = err_find((int)error);
    *pStr = e ? e->msg : NULL;
    return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* The emulator numbers its errors as cudaError_t; most share the driver's numbers. */
CUresult drv_from_emu(int emu_err)
{
    switch (emu_err) {
    case EMU_OK: return CUDA_SUCCESS;
    case EMU_ERR_INVALID_CONFIGURATION: return CUDA_ERROR_INVALID_VALUE;
    case EMU_ERR_INVALID_SYMBOL: return CUDA_ERROR_NOT_FOUND;
    case EMU_ERR_INVALID_DEVICE_FUNCTION: return CUDA_ERROR_INVALID_HANDLE;
    default: return (CUresult)emu_err;
    }
}

/* Faults that corrupt the context ("the context cannot be used again"). */
int drv_error_is_sticky(CUresult e)
{
    switch (e) {
    case CUDA_ERROR_ILLEGAL_ADDRESS: case CUDA_ERROR_LAUNCH_TIMEOUT: case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_HARDWARE_STACK_ERROR: case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS: case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC: case CUDA_ERROR_LAUNCH_FAILED: case CUDA_ERROR_TENSOR_MEMORY_LEAK:
    case CUDA_ERROR_EXTERNAL_DEVICE:
        return 1;
    default:
        return 0;
    }
}

/* No profiler is attached: starting and stopping collection has nothing to do. */
CUresult CUDAAPI cuProfilerStart(void)
{
    return drv_is_initialized() ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

CUresult CUDAAPI cuProfilerStop(void)
{
    return drv_is_initialized() ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

/* ---- driver functions by name (the table is procaddr.c's) ---- */

CUresult CUDAAPI cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
                                     cuuint64_t flags, CUdriverProcAddressQueryResult *symbolStatus)
{
    int st = 0;
    CUresult e = (CUresult)drv_proc_lookup(symbol, pfn, cudaVersion, flags, &st);
    if (symbolStatus && e != CUDA_ERROR_INVALID_VALUE) *symbolStatus = (CUdriverProcAddressQueryResult)st;
    return e;
}

#undef cuGetProcAddress
CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags);
CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags)
{
    return (CUresult)drv_proc_lookup(symbol, pfn, cudaVersion, flags, NULL);
}
