/* cudart_internal.h - state shared by the files of the libcudart shim (private header).
 *
 * Contract: every exported entry point takes the runtime lock (rt_lock) around any shared
 * state it touches and returns through rt_ret(), which records the per-thread last error.
 * Calls that use the (single, emulated) context start with RT_STICKY_CHECK(): once a kernel
 * has faulted, they all return that fault, as CUDA does with sticky errors.
 */
#ifndef PTXEMU_CUDART_INTERNAL_H
#define PTXEMU_CUDART_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "emu/emu.h"

/* ---- errors.c: names, strings, last/sticky error (no dependency on the emulator) ---- */
const char *rt_error_name(int code);     /* NULL when CUDA does not know the code       */
const char *rt_error_string(int code);   /* NULL when CUDA does not know the code       */
int rt_error_is_sticky(int code);        /* errors that corrupt the context            */
cudaError_t rt_ret(cudaError_t e);       /* record e as this thread's last error       */
cudaError_t rt_sticky(void);             /* the sticky error, or cudaSuccess           */
/* Make e the sticky error (the first one wins) and print msg once on stderr. */
void rt_set_sticky(cudaError_t e, const char *msg);
void rt_clear_sticky(void);              /* cudaDeviceReset                           */
void rt_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Body of every stub in unimplemented.c (which declares it itself: it cannot include the
 * CUDA headers). Prints once per *told flag, records and returns cudaErrorNotSupported. */
int rt_not_implemented(const char *name, int *told);

#define RT_STICKY_CHECK()                                                        \
    do { cudaError_t st_ = rt_sticky(); if (st_ != cudaSuccess) return rt_ret(st_); } while (0)

/* ---- cudart.c: initialisation and the lock ---- */
cudaError_t rt_init(void);               /* lazy emu_init with PTXEMU_* settings       */
extern size_t rt_default_heap, rt_default_stack;   /* emulator defaults, for reset   */
void rt_lock(void);
void rt_unlock(void);

/* ---- registry.c: fatbinaries, kernels, variables ---- */
typedef struct RtFunc RtFunc;
RtFunc *rt_func_by_stub(const void *stub);          /* caller holds the lock           */
RtFunc *rt_func_by_handle(const void *handle);      /* NULL unless a live RtFunc       */
const char *rt_func_name(const RtFunc *f);
/* Load the kernel's module if needed and find the kernel; caller holds the lock. */
cudaError_t rt_func_kernel(RtFunc *f, EmuKernel **out);
size_t rt_func_max_dyn_smem(const RtFunc *f, const EmuKernelInfo *info);
void rt_func_set_max_dyn_smem(RtFunc *f, size_t bytes);
int rt_func_carveout(const RtFunc *f);
void rt_func_set_carveout(RtFunc *f, int pct);
int rt_func_report_once(RtFunc *f);                 /* 1 the first time it is asked    */
int rt_func_nonportable(const RtFunc *f);            /* clusters above 8 CTAs allowed   */
void rt_func_set_nonportable(RtFunc *f, int on);
/* Device address and size of the variable behind a host shadow (or device) address. */
cudaError_t rt_symbol(const void *symbol, uint64_t *addr, size_t *size);
void rt_registry_reset(void);                        /* cudaDeviceReset: unload modules */

/* ---- memory_api.c ---- */
void rt_memory_reset(void);                          /* free every runtime allocation   */

/* ---- stream_event.c ---- */
int rt_stream_valid(cudaStream_t s);                 /* caller holds the lock           */
/* Stream order for the race detector (stream_event.c): a launch on s is being issued; the
 * host waited for all work. Caller holds the lock. */
void rt_order_launch(cudaStream_t s);
void rt_order_host_waits_all(void);
void rt_order_host_waits_legacy(void);
void rt_stream_event_reset(void);

/* ---- device_api.c: the emulated H100's limits ---- */
#define RT_MAX_THREADS_PER_BLOCK 1024
#define RT_MAX_BLOCK_X 1024
#define RT_MAX_BLOCK_Y 1024
#define RT_MAX_BLOCK_Z 64
#define RT_MAX_GRID_X 2147483647u
#define RT_MAX_GRID_YZ 65535u
#define RT_SMEM_PER_BLOCK (48u * 1024)
#define RT_SMEM_PER_BLOCK_OPTIN (227u * 1024)
#define RT_SMEM_PER_SM (228u * 1024)
#define RT_SMEM_RESERVED_PER_BLOCK 1024u
#define RT_NUM_SMS 132
#define RT_THREADS_PER_SM 2048
#define RT_BLOCKS_PER_SM 32
#define RT_REGS_PER_SM 65536
void rt_device_reset(void);

/* Per-thread-default-stream (_ptsz/_ptds) twins of entry points that exist in libcudart.
 * The emulator runs all work in issue order, so each twin is the plain function. */
#define RT_TWIN(ret, twin, plain, params, args) \
    ret CUDARTAPI twin params; ret CUDARTAPI twin params { return plain args; }

#endif
