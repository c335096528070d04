/* cudart_internal.h - state shared by the files of ptxemu's libcudart.so.13 (private header).
 *
 * The runtime is a face over ptxemu's libcuda.so.1, which holds the one implementation of
 * devices, contexts, modules, memory, streams, events and launches: every entry point here
 * translates to cu* calls and their CUresult back to cudaError_t, adding what the runtime
 * adds - the implicit primary context, registration of the program's fatbinaries, the
 * per-thread last error, and the runtime's own argument checks (recorded on an H100).
 *
 * Contract: entry points return through rt_ret(), which records the per-thread last error.
 */
#ifndef PTXEMU_CUDART_INTERNAL_H
#define PTXEMU_CUDART_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <cuda.h>
#include <cuda_runtime_api.h>

/* ---- errors.c: names, strings, last error (no dependency on the driver) ---- */
const char *rt_error_name(int code);     /* NULL when CUDA does not know the code       */
const char *rt_error_string(int code);   /* NULL when CUDA does not know the code       */
/* Record e as this thread's last error (and, with PTXEMU_REPORT, as an error entry point
 * `api` returned: written at exit with whether the program asked about it afterwards). */
cudaError_t rt_ret_in(cudaError_t e, const char *api);
#define rt_ret(e) rt_ret_in((e), __func__)
/* An entry point that returns through a shared helper (rt_memcpy...): errors the helper
 * returns are reported under the entry point's name. */
extern _Thread_local const char *rt_api;
#define RT_VIA(call) (rt_api = __func__, (call))
void rt_clear_last_error(void);
void rt_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Body of every stub in unimplemented.c (which declares it itself: it cannot include the
 * CUDA headers). Prints once per *told flag, records and returns cudaErrorNotSupported. */
int rt_not_implemented(const char *name, int *told);
/* The runtime's error for a driver result (the numbers mostly agree). */
cudaError_t rt_err(CUresult e);

/* ---- cudart.c: the runtime's context ---- */
/* Make sure the driver is initialised and a context is current on this thread: the one the
 * program made current through the driver API, else the device's primary context; and
 * return the context's sticky error (rt_enter_any: not). */
cudaError_t rt_enter(void);
cudaError_t rt_enter_any(void);
void rt_lock(void);
void rt_unlock(void);
/* Devices: the driver's ordinals (PTXEMU_DEVICES of them); each thread has a current one. */
#define RT_MAX_DEVICES 16
cudaError_t rt_init(void);                       /* cuInit, once                           */
cudaError_t rt_check_device(int device);         /* cudaErrorInvalidDevice unless valid    */
cudaError_t rt_primary(int device, CUcontext *out);   /* retained once for the process     */
cudaError_t rt_set_device(int device);           /* its primary context current here       */
int rt_current_device(void);
void rt_forget_primary(int device);              /* after cudaDeviceReset                  */

/* Enter, or return the error through rt_ret. */
#define RT_ENTER()                                                      \
    do {                                                                \
        cudaError_t enter_ = rt_enter();                                \
        if (enter_ != cudaSuccess) return rt_ret(enter_);               \
    } while (0)

/* ---- registry.c: fatbinaries, kernels, variables ---- */
typedef struct RtFunc RtFunc;
RtFunc *rt_func_by_stub(const void *stub);          /* caller holds the lock           */
RtFunc *rt_func_by_handle(const void *handle);      /* NULL unless a live RtFunc       */
/* The driver function behind a registered kernel (its library loaded on first use). */
cudaError_t rt_func_driver(RtFunc *f, CUfunction *out);
/* The driver function behind a host stub; cudaErrorInvalidDeviceFunction if not a kernel. */
cudaError_t rt_stub_function(const void *stub, CUfunction *out);
/* The driver function that `func` names: a kernel's host stub, or a cudaKernel_t from
 * cudaGetKernel or cudaLibraryGetKernel; `none` when it is none of these. Lock held. */
cudaError_t rt_func_named(const void *func, CUfunction *out, cudaError_t none);
/* The host stub of a kernel the runtime found for the program (graph kernel nodes name
 * kernels by stub); NULL when none. */
const void *rt_stub_of(CUfunction fn);
/* Device address and size of the variable behind a host shadow (or device) address. */
cudaError_t rt_symbol(const void *symbol, uint64_t *addr, size_t *size);
void rt_registry_reset(void);                        /* cudaDeviceReset                 */

/* ---- device_api.c ---- */
void rt_device_reset(int device);

/* Per-thread-default-stream (_ptsz/_ptds) twins of entry points that exist in libcudart.
 * The emulator runs all work in issue order, so each twin is the plain function. */
#define RT_TWIN(ret, twin, plain, params, args) \
    ret CUDARTAPI twin params; ret CUDARTAPI twin params { return plain args; }

#endif
