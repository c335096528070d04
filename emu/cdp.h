/* cdp.h - dynamic parallelism (CDP2): the device runtime's entry points (__cudaCDP2*), which
 * kernels call as extern functions (bound in exec_call.c), and the work they queue.
 *
 * Contract: a device-side launch (or cudaMemcpyAsync / cudaMemsetAsync) records an item in
 * the queue of the running launch; nothing runs while the grid runs. When every CTA of the
 * grid has finished, emu.c calls cdp_run_children on the launching thread: the items run in
 * order (below), each child launch through the ordinary launch path, so that a child's own
 * children run right after it, recursively, before the launch returns to the host. Under
 * CDP2 a parent cannot wait for its children, so running them after the parent is one of
 * the orders the GPU may choose.
 * Order: the items of one CTA in the order its threads issued them (the GPU's per-block
 * stream order, whatever the streams), CTAs interleaved round-robin (the k-th item of every
 * CTA before the (k+1)-th of any, lower CTA first: the GPU issues from all CTAs at once),
 * tail launches (cudaStreamTailLaunch) after everything else.
 */
#ifndef PTXEMU_CDP_H
#define PTXEMU_CDP_H

#include <stddef.h>
#include <stdint.h>
#include "machine.h"
#include "emu.h"

/* the extern functions (arguments of 12 bytes, dim3, come as pointers to their bytes) */
uint64_t cdp_get_parameter_buffer_v2(uint64_t func, uint64_t grid, uint64_t block, uint32_t shmem);
uint64_t cdp_get_parameter_buffer(uint64_t align, uint64_t size);
uint32_t cdp_launch_device_v2(uint64_t buf, uint64_t stream);
uint32_t cdp_launch_device(uint64_t func, uint64_t buf, uint64_t grid, uint64_t block,
                           uint32_t shmem, uint64_t stream);
uint32_t cdp_get_last_error(void);
uint32_t cdp_peek_at_last_error(void);
uint64_t cdp_get_error_string(uint32_t code);
uint64_t cdp_get_error_name(uint32_t code);
uint32_t cdp_stream_create_with_flags(uint64_t pstream, uint32_t flags);
uint32_t cdp_stream_destroy(uint64_t stream);
uint32_t cdp_event_create_with_flags(uint64_t pevent, uint32_t flags);
uint32_t cdp_event_record(uint64_t event, uint64_t stream);
uint32_t cdp_stream_wait_event(uint64_t stream, uint64_t event, uint32_t flags);
uint32_t cdp_event_destroy(uint64_t event);
uint32_t cdp_memcpy_async(uint64_t dst, uint64_t src, uint64_t count, uint32_t kind, uint64_t stream);
uint32_t cdp_memset_async(uint64_t dst, uint32_t value, uint64_t count, uint64_t stream);
uint32_t cdp_malloc(uint64_t pptr, uint64_t size);
uint32_t cdp_free(uint64_t ptr);

/* How cdp_run_children launches a child (emu.c's launch path): k at nesting depth `depth`. */
typedef int (*CdpLaunchFn)(EmuKernel *k, const unsigned grid[3], const unsigned block[3],
                           size_t dyn, void **args, uint32_t depth, char *err, size_t errlen);
/* Run the queued work of L (its grid has finished). EMU_OK, or the first failure, its
 * message in err. Frees the queue. */
int cdp_run_children(Launch *L, CdpLaunchFn run_child, char *err, size_t errlen);
/* Drop the queue of L without running it (the grid failed). */
void cdp_discard(Launch *L);


/* Device-side malloc's heap (exec_call.c): device cudaMalloc/cudaFree use it too. */
uint64_t exec_heap_alloc(uint64_t size);
int exec_heap_free(uint64_t ptr);
/* The thread calling a host function (exec_call.c), and marking that call as faulted. */
Warp *exec_call_warp(int *lane);
void exec_call_fault(void);

/* The H100 launched 40 levels deep without an error (tests/cuda/cdp); children run nested on
 * the launching thread here, so the emulator keeps a limit of its own, well past that. */
#define CDP_MAX_DEPTH 128

#endif
