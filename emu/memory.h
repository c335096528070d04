/* memory.h - device memory: the global arena, allocations, and address resolution per space.
 *
 * Contract: every device allocation (cudaMalloc, host-pinned, managed, module variables,
 * kernel parameter buffers) lives in one reserved address range, the arena; a device
 * address is the host address of the same byte, so the runtime can memcpy directly. Any
 * access outside a live allocation is a fault. Generic addresses of shared and local memory
 * are windows that no host mapping uses (see docs/architecture.md).
 */
#ifndef PTXEMU_MEMORY_H
#define PTXEMU_MEMORY_H

#include <stdint.h>
#include <stddef.h>
#include "machine.h"
#include "exec_mem_fast.h"


int mem_init(void);                              /* reserve the arena; 0 on success        */
uint64_t mem_alloc(size_t size, int kind);       /* 0 when out of memory                   */
/* Several devices share the arena. A block may belong to one device (cudaMalloc); then a
 * kernel touches it only while mem_set_access's mask has that device's bit (its own device,
 * or a peer with access enabled), else the access faults. Other blocks belong to every
 * device. Each device has the whole reported memory to itself (mem_used_on). */
#define MEM_MAX_DEVICES 16
#define MEM_ANY_DEVICE (-1)
uint64_t mem_alloc_on(size_t size, int kind, int dev);
size_t mem_used_on(int dev);                     /* device-side bytes device dev sees used */
void mem_set_access(uint32_t device_mask);       /* before a launch: devices it may touch  */
void mem_set_launch_device(int dev);             /* before a launch: the device running it */
/* Devices besides the owner that may touch the block at addr (memory pools' access, set by
 * cuMemPoolSetAccess): a kernel on one of them reaches it without peer access. -1: no block. */
int mem_grant(uint64_t addr, uint32_t devices);
/* mem_find for the running launch: 0 also when the block belongs to a device it may not touch. */
uint64_t mem_find_reachable(uint64_t addr, size_t *size_out);
/* 0 ok, -1 not the start of a live block of that kind (MEM_DEVICE also frees MEM_MANAGED,
 * as cudaFree does). mem_alloc(0) returns 0: the caller decides what a 0-byte request means. */
int mem_free(uint64_t addr, int kind);
/* Host view of [addr, addr+size) when it lies inside one live allocation, else NULL. */
void *mem_host(uint64_t addr, size_t size);
/* Start and size of the live allocation holding addr; 0 when none. */
uint64_t mem_find(uint64_t addr, size_t *size_out, int *kind_out);
void mem_usage(size_t *used, size_t *total);     /* for cudaMemGetInfo                     */
int mem_in_arena(uint64_t addr);

/* Registered host memory (cuMemHostRegister): the program's own bytes, which cannot move into
 * the arena, become a live allocation of kind MEM_REGISTERED where they are, so device code
 * reaches them at their host address. mem_register: 0 ok, MEM_REG_OVERLAP when the range
 * overlaps a live allocation or registered range, MEM_REG_UNUSABLE when it overlaps the
 * arena or the shared/local windows, MEM_REG_NOMEM. mem_unregister: 0 ok, MEM_REG_INSIDE
 * when addr lies inside a registered range but is not its start, MEM_REG_NONE when it lies
 * in none. */
enum { MEM_REG_OVERLAP = -1, MEM_REG_UNUSABLE = -2, MEM_REG_NOMEM = -3, MEM_REG_INSIDE = -4,
       MEM_REG_NONE = -5 };
int mem_register(uint64_t addr, size_t size, int read_only);
int mem_unregister(uint64_t addr);
/* Virtual memory management (cuMemAddressReserve, cuMemCreate, cuMemMap, cuMemSetAccess).
 * A reservation is a range of the arena that nothing else is given; physical memory is a
 * memfd the caller creates; mapping puts its pages at an address of a reservation (the same
 * bytes may be mapped at several); an accessible mapping is a live MEM_VMM block every
 * device may touch. All return 0 or a MEM_VMM_* error. */
enum { MEM_VMM_INVALID = -1, MEM_VMM_NOMEM = -2 };
uint64_t mem_vmm_reserve(size_t size, size_t align);          /* 0: out of address space   */
int mem_vmm_free(uint64_t addr, size_t size);                 /* an unmapped reservation   */
int mem_vmm_map(uint64_t addr, size_t size, int fd, size_t offset);
int mem_vmm_unmap(uint64_t addr, size_t size);                /* whole mappings            */
int mem_vmm_set_access(uint64_t addr, size_t size, int rw);   /* rw 0: no access           */
/* Interprocess sharing (cuIpcGetMemHandle, cuIpcOpenMemHandle). mem_ipc_export: the live
 * MEM_DEVICE block at start is moved in place onto the memfd fd (which it resizes), whole
 * pages [*lo, *lo + *len) - neighbours sharing its first or last page included - so another
 * process mapping fd shares its bytes; mem_ipc_unexport puts private pages holding the same
 * bytes back (before the block is freed). mem_ipc_map: maps len bytes of fd at fresh address
 * space and makes [offset, offset+size) of them a live MEM_IPC block every device may touch;
 * its start, 0 on failure. mem_ipc_unmap: that block goes. 0 ok, -1 otherwise. */
int mem_ipc_export(uint64_t start, int fd, uint64_t *lo, size_t *len);
int mem_ipc_unexport(uint64_t lo, size_t len);
uint64_t mem_ipc_map(int fd, size_t len, size_t offset, size_t size);
int mem_ipc_unmap(uint64_t start);
/* Global memory: the arena or a registered range. */
extern int mem_nregistered;
int mem_registered_at(uint64_t addr);
static inline int mem_is_global(uint64_t addr);

/* Allocations, frees and unmappings are events for the tools (observe.h: alloc, release). */

/* mem_lane_ptr(w, space, addr, size, align, lane, access), defined inline below:
 * resolve addr in `space` for one lane of w: checks alignment (addr % align), bounds and
 * liveness, and returns the host pointer. On failure records the fault (warp_fault) and
 * returns NULL; the handler then returns STEP_FAULT. */

/* The CTA (own or another of the cluster) a shared::cluster address refers to; NULL with
 * a fault recorded when the rank does not exist. */
Cta *mem_cluster_cta(Warp *w, uint64_t addr, int lane);

/* Which space a generic address falls in: SP_GLOBAL, SP_SHARED, SP_LOCAL or SP_NONE. */
int mem_generic_space(uint64_t addr);

/* Resolve the address of every lane of mask for the memory instruction `in`: lane l uses
 * ROW(w, in->base)[l] + in->imm (+ w->fp[l] in local space when in->flags has IF_FRAME) in
 * in->space (SP_GENERIC when none was named), for an access of `size` bytes that must be
 * size-aligned. Fills host[l] for the lanes of mask. Returns 0, or STEP_FAULT after
 * recording the fault of the lowest faulting lane. Shared and local offsets are 32-bit. */
int mem_warp_ptrs(Warp *w, const Inst *in, uint32_t mask, unsigned size, int access,
                  uint8_t *host[WARP_SIZE]);
/* Only the whole-warp paths of mem_warp_ptrs (no fault recorded): 0 when they resolved every
 * lane, else -1 (the compiled tier checks a run's loads before it runs them). */
int mem_warp_fast(Warp *w, const Inst *in, uint32_t mask, unsigned size, uint8_t *host[WARP_SIZE]);
/* A whole warp's global (const, param) access of size bytes a lane whose lanes' addresses the
 * caller has found consecutive (lane l at a0 + l * size, a0 lane 0's address): the host
 * address of a0 when it is aligned and the 32 lanes' bytes lie in one allocation the thread's
 * cache knows; otherwise NULL (then mem_warp_fast or the handler decide). Where it succeeds
 * mem_warp_fast would too, with host[l] = it + l * size. The compiled tier checks the lanes in
 * its own vectorized code (jit/compile.c), hence the split. */
uint8_t *mem_warp_span(Warp *w, const Inst *in, uint64_t a0, unsigned size);
/* arena_fast's lookup alone, for the compiled tier's whole-warp gathers (jit/compile.c checks
 * the lanes inline): the cached allocation holding a0, as its start and lim = its length
 * minus size; 0, or -1 when the cache holds none (or it is shorter than size). A warp's
 * access whose lanes all lie at offsets o <= lim from start, aligned to size, is what
 * mem_warp_fast accepts for global, const, param and generic addresses. */
int mem_arena_block(uint64_t a0, unsigned size, uint64_t *start, uint64_t *lim);
/* The same, then the accesses are an event for the tools of the launch (observe.h: mem): the
 * observed variants of memory handlers call this one. */
int mem_warp_ptrs_observed(Warp *w, const Inst *in, uint32_t mask, unsigned size, int access,
                           uint8_t *host[WARP_SIZE]);

/* ---- fast paths (state owned by memory.c) ----
 * The worker's cache of allocations (MemCache, exec_mem_fast.h: the compiled tier reads it
 * too). The arena bounds are fixed after mem_init. */
extern __thread MemCache mem_cache __attribute__((tls_model("initial-exec")));
/* The calling worker's mem_cache (native.h: compiled runs look their spans up in it). */
const MemCache *mem_span_cache(void);
extern uint64_t mem_generation;
extern uint64_t mem_arena_lo, mem_arena_hi;

/* [addr, addr+size) lies inside the cached live allocation. */
static inline int mem_cache_hit(uint64_t addr, uint64_t size)
{
    if (mem_cache.gen != __atomic_load_n(&mem_generation, __ATOMIC_ACQUIRE)) return 0;
    for (int i = 0; i < MEM_CACHE_WAYS; i++) {
        uint64_t off = addr - mem_cache.start[i];
        if (off < mem_cache.len[i] && size <= mem_cache.len[i] - off) return 1;
    }
    return 0;
}

static inline int mem_in_arena_fast(uint64_t addr)
{
    return addr - mem_arena_lo < mem_arena_hi - mem_arena_lo;
}

static inline int mem_is_global(uint64_t addr)
{
    return mem_in_arena_fast(addr) ||
           (__atomic_load_n(&mem_nregistered, __ATOMIC_ACQUIRE) && mem_registered_at(addr));
}

void *mem_lane_ptr_slow(Warp *w, int space, uint64_t addr, unsigned size, unsigned align,
                        int lane, int access);

/* A global access hitting the cached allocation is resolved inline; everything else, and
 * every fault, goes through mem_lane_ptr_slow. */
static inline void *mem_lane_ptr(Warp *w, int space, uint64_t addr, unsigned size,
                                 unsigned align, int lane, int access)
{
    if ((space == SP_GLOBAL || space == SP_CONST || space == SP_PARAM) && align &&
        !(addr & (align - 1)) && mem_cache_hit(addr, size))
        return (void *)(uintptr_t)addr;
    return mem_lane_ptr_slow(w, space, addr, size, align, lane, access);
}

#endif
