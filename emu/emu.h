/* emu.h - what the emulator offers the runtime: its setup, launches, and what the tools
 * should hear of the host's work (stream order, copies).
 *
 * Contract: the runtime knows nothing of warps; it gets kernels from the module layer
 * (jit/jit.h) and launches them here. The kernels come as opaque EmuKernel handles from a
 * kernel source the module layer registers: it gives each kernel's Program, translated for the
 * events the attached tools observe, and resolves device function pointers. Errors come back
 * as cudaError_t values (below) plus one message line for stderr.
 */
#ifndef PTXEMU_EMU_H
#define PTXEMU_EMU_H

#include <stddef.h>
#include <stdint.h>

/* The cudaError_t values the emulator itself produces (same numbers as CUDA's). */
enum {
    EMU_OK = 0,
    EMU_ERR_INVALID_VALUE = 1,
    EMU_ERR_MEMORY_ALLOCATION = 2,
    EMU_ERR_INVALID_CONFIGURATION = 9,
    EMU_ERR_INVALID_SYMBOL = 13,
    EMU_ERR_INVALID_DEVICE_FUNCTION = 98,
    EMU_ERR_NO_KERNEL_IMAGE = 209,
    EMU_ERR_INVALID_PTX = 218,
    EMU_ERR_UNSUPPORTED_PTX_VERSION = 222,
    EMU_ERR_ILLEGAL_ADDRESS = 700,
    EMU_ERR_LAUNCH_OUT_OF_RESOURCES = 701,
    EMU_ERR_LAUNCH_TIMEOUT = 702,
    EMU_ERR_ASSERT = 710,
    EMU_ERR_HARDWARE_STACK_ERROR = 714,
    EMU_ERR_ILLEGAL_INSTRUCTION = 715,
    EMU_ERR_MISALIGNED_ADDRESS = 716,
    EMU_ERR_INVALID_ADDRESS_SPACE = 717,
    EMU_ERR_INVALID_PC = 718,
    EMU_ERR_LAUNCH_FAILURE = 719,
    EMU_ERR_NOT_SUPPORTED = 801,
    EMU_ERR_UNKNOWN = 999
};

typedef struct EmuKernel EmuKernel;   /* a kernel as its source (the module layer) knows it */
typedef struct Program Program;

typedef struct EmuKernelSource {
    /* k's Program bound for the observed events `obs` (observe.h); NULL with err and *code */
    const Program *(*program)(EmuKernel *k, uint32_t obs, char *err, size_t errlen, int *code);
    /* the kernel a device function pointer names, in parent's module; NULL if none */
    EmuKernel *(*from_pointer)(EmuKernel *parent, uint64_t fnptr);
    /* a plain Program p of k has run `total` thread instructions so far (the compiled tier
     * builds the kernels that run long); any worker may call it */
    void (*hot)(EmuKernel *k, const Program *p, uint64_t total);
} EmuKernelSource;
void emu_set_kernel_source(const EmuKernelSource *src);

/* Global setup: arena, worker count (0 = number of cores). Idempotent. */
int emu_init(int nthreads);
int emu_threads(void);

/* Run a kernel to completion. args[i] points at the i-th argument's bytes (as in
 * cudaLaunchKernel). Returns EMU_OK or a cudaError_t; err receives the one-line diagnostic.
 * Launch-configuration errors come back before anything runs; faults during execution come
 * back after the grid is aborted. Device printf output is written to stdout before return. */
int emu_launch(EmuKernel *k, const unsigned grid[3], const unsigned block[3],
               size_t dyn_shared, void **args, char *err, size_t errlen);

/* The same with thread-block clusters: cluster[3] CTAs per cluster (all 1 = no clusters,
 * unless the kernel declares .reqnctapercluster / .explicitcluster). */
/* Whether an attached tool (the race detector) wants the stream order of all work: then give
 * every launch and copy its place with emu_launch_order first, and never park a launch. */
int emu_wants_stream_order(void);
/* Stream order of the next launch or copy: it is number `clock` of stream `stream` and comes
 * after the first after[i] of each stream i < n. Without a call, each comes after every
 * earlier one. */
void emu_launch_order(uint32_t stream, uint64_t clock, const uint64_t *after, uint32_t n);
/* Copies and fills the host issues: the copy named api begins, reads or writes [addr, addr+n)
 * (any number of times; also outside begin/end), and ends. */
void emu_host_copy_begin(const char *api);
void emu_host_copy(uint64_t addr, size_t n, int write);
void emu_host_copy_end(void);
/* Every Program of a module is going away (tools forget what named them). */
void emu_programs_gone(void);

int emu_launch_ex(EmuKernel *k, const unsigned grid[3], const unsigned block[3],
                  const unsigned cluster[3], size_t dyn_shared, void **args, char *err,
                  size_t errlen);

/* The same with flags: EMU_LAUNCH_COOPERATIVE runs every CTA of the grid at once and gives
 * it the grid workspace that cooperative groups' grid.sync() uses (%envreg1:%envreg2); the
 * caller checks that the grid fits the device. */
#define EMU_LAUNCH_COOPERATIVE 1u
int emu_launch_flags(EmuKernel *k, const unsigned grid[3], const unsigned block[3],
                     const unsigned cluster[3], size_t dyn_shared, void **args, unsigned flags,
                     char *err, size_t errlen);

/* Cooperative launches of several devices that wait for each other through memory must run
 * at the same time: emu_launch_defer sets one up (arguments copied, errors of the
 * configuration returned) without running it, and emu_launch_together runs up to
 * EMU_MAX_TOGETHER of them in one pass of the workers, then reports and frees each (rc[i],
 * err[i] as emu_launch_flags gives them). Not in deterministic mode. */
typedef struct EmuPending EmuPending;
#define EMU_MAX_TOGETHER 16
#define EMU_ERR_LEN 2048
int emu_launch_defer(EmuKernel *k, const unsigned grid[3], const unsigned block[3],
                     const unsigned cluster[3], size_t dyn_shared, void **args, unsigned flags,
                     EmuPending **out, char *err, size_t errlen);
void emu_launch_together(EmuPending **p, int n, int *rc, char (*err)[EMU_ERR_LEN]);
/* A launch that may wait for the host (sched.c, "parking"): emu_launch_park runs it like
 * emu_launch_flags, but a launch of one cluster that spins without progress returns early
 * with *parked set (EMU_OK). emu_launch_resume continues a parked launch, or starts one
 * emu_launch_defer set up: to the end, or (may_park) until it parks again (*parked); a
 * launch that ends is reported (the return value, err) and freed. Not in deterministic mode. */
int emu_launch_park(EmuKernel *k, const unsigned grid[3], const unsigned block[3],
                    const unsigned cluster[3], size_t dyn_shared, void **args, unsigned flags,
                    EmuPending **parked, char *err, size_t errlen);
int emu_launch_resume(EmuPending *P, int may_park, int *parked, char *err, size_t errlen);
/* Drop a launch set up or parked, without running (the rest of) it. */
void emu_launch_discard(EmuPending *P);

/* Device heap size for device-side malloc (cudaLimitMallocHeapSize). */
void emu_set_heap_size(size_t bytes);
size_t emu_heap_size(void);
/* Per-thread stack size (cudaLimitStackSize). */
void emu_set_stack_size(size_t bytes);
size_t emu_stack_size(void);
/* The device printf FIFO of the launches to come (cudaLimitPrintfFifoSize, the launching
 * context's): a launch keeps the printf lines that fit, EMU_PRINTF_RECORD bytes each, and
 * says how many it dropped. emu_printf_used: a kernel has called printf (the limit cannot
 * change after that). Measured on an H200: tests/gpu/printf_fifo_h200.txt. */
#define EMU_PRINTF_RECORD 256
#define EMU_PRINTF_FIFO_MIN 524288
void emu_set_printf_fifo(size_t bytes);
extern int emu_printf_used;

/* Device-side launches that may be pending at once (cudaLimitDevRuntimePendingLaunchCount);
 * one more fails with cudaErrorLaunchPendingCountExceeded (emu/cdp.c). */
void emu_set_pending_launch_limit(size_t n);

/* Diagnostics level from PTXEMU_LOG: 0 errors only, 1 and warnings (default), 2 and
 * information, 3 and a trace of every launch. */
extern int emu_log_level;

#endif
