/* exec_mem_fast.h - what ld/st handlers and the compiled tier's loads and stores share: the
 * host fences an ld/st adds, and the whole-warp path of an access bound to .shared. */
#ifndef PTXEMU_EXEC_MEM_FAST_H
#define PTXEMU_EXEC_MEM_FAST_H

#include "machine.h"

enum { MO_ACQUIRE = 1, MO_RELEASE = 2 };   /* Inst.aux8 of ld and st: the host fences to add */

/* The hot case of tiled kernels: the lanes mask's access of an ld/st bound to .shared (the
 * binder picks the lds_/sts_ handlers for those when no tool watches memory), in bounds and
 * aligned. Returns the block's shared memory with each lane's offset in off[] (the lanes of
 * mask only), or NULL for the general handler (mem_warp_ptrs), which also reports what is
 * wrong. Skipping the per-lane host pointers lets a whole warp's lane loops run as gathers;
 * part of a warp (`if (lane == 0) sums[warp] = v`) checks its lanes alone, a few
 * instructions where the general handler's pointers cost hundreds. */
static inline uint8_t *shared_fast(Warp *w, const Inst *in, uint32_t mask, unsigned size,
                                   uint32_t off[WARP_SIZE])
{
    const Cta *c = w->cta;
    if (!mask || !c || c->shared_size < size) return NULL;
    const uint64_t *a = ROW(w, in->base);
    uint32_t imm = (uint32_t)in->imm, lim = c->shared_size - size, bad = 0;
    if (mask == FULL_MASK)
        for (int l = 0; l < WARP_SIZE; l++) {
            off[l] = (uint32_t)a[l] + imm;
            bad |= (off[l] > lim) | (off[l] & (size - 1));
        }
    else
        for (uint32_t m = mask; m; m &= m - 1) {
            int l = __builtin_ctz(m);
            off[l] = (uint32_t)a[l] + imm;
            bad |= (off[l] > lim) | (off[l] & (size - 1));
        }
    return bad ? NULL : c->shared;
}

/* Each worker thread caches the last MEM_CACHE_WAYS allocations it resolved (memory.c: a kernel
 * typically streams through a few arrays: one entry thrashed between them and cost a third of
 * vectorAdd's time in lookups); mem_free bumps mem_generation, which invalidates every cache
 * at once (allocating never invalidates: live blocks do not move). Filled round robin, so a
 * loop over more arrays than ways misses on every access: 8 ways, as HeCBench dslash's
 * make_back reads and writes six arrays a step (with 4, each access took the handler's
 * per-lane path). */
#define MEM_CACHE_WAYS 8
typedef struct MemCache { uint64_t start[MEM_CACHE_WAYS], len[MEM_CACHE_WAYS], gen; unsigned next; } MemCache;

/* Whether a whole warp's access of consecutive lanes from a0, size bytes a lane, of global,
 * const or param memory lies in one allocation the cache mc holds (mc valid for generation
 * gen, mem_generation read by the caller) and is aligned: memory.c's mem_warp_span, and the
 * compiled runs' own test (jit/compile.c), which reads the worker's cache once a run and
 * saves a call per access, so both tiers take exactly the same accesses this way. */
static inline int mem_span_cached(const MemCache *mc, uint64_t gen, uint64_t a0, unsigned size)
{
    if ((a0 & (size - 1)) || mc->gen != gen) return 0;
    uint64_t span = (uint64_t)size * WARP_SIZE;
    for (int k = 0; k < MEM_CACHE_WAYS; k++) {
        uint64_t o = a0 - mc->start[k];
        if (o < mc->len[k] && span <= mc->len[k] - o) return 1;
    }
    return 0;
}

static inline uint64_t lane_bit(uint32_t mask, int l) { return 0 - (uint64_t)((mask >> l) & 1); }

/* Offsets into a window of `limit` bytes at host base + l * stride. Lanes outside mask may
 * hold any offset: their pointers are formed as integers (never dereferenced), since pointer
 * arithmetic that wraps is undefined (UBSan, HeCBench-style heap_async test). */
static inline int window_fast(uint32_t mask, const uint64_t *off, unsigned size, uint8_t *base,
                              uint64_t stride, uint64_t limit, uint8_t **host)
{
    if (!base || size > limit) return -1;
    uint64_t lim = limit - size, bad = 0;
    for (int l = 0; l < WARP_SIZE; l++)
        host[l] = (uint8_t *)((uintptr_t)base + (uint64_t)l * stride + off[l]);
    if (mask == FULL_MASK) {   /* the common case, without a test of each lane's bit */
        for (int l = 0; l < WARP_SIZE; l++) bad |= (off[l] > lim) | (off[l] & (size - 1));
    } else if (popcount32(mask) <= 4) {   /* a lane or a few (a warp's lane 0 writing its sum) */
        for (uint32_t m = mask; m; m &= m - 1) {
            int l = __builtin_ctz(m);
            bad |= (off[l] > lim) | (off[l] & (size - 1));
        }
    } else {
        for (int l = 0; l < WARP_SIZE; l++)
            bad |= ((off[l] > lim) | (off[l] & (size - 1))) & lane_bit(mask, l);
    }
    return bad ? -1 : 0;
}

/* The whole-warp path of a .local access (and of a frame slot, IF_FRAME: each lane's frame
 * pointer added), for memory.c's fast_ptrs and the compiled tier's loads and stores alike, so
 * both accept exactly the same accesses: each lane's offset off[l] is the low 32 bits of its
 * address row plus imm (plus fp), and its host pointer host[l] = local + l * stride + off[l]
 * (every lane's, as integers: lanes outside mask may hold any offset); 0 when every lane of
 * mask is inside its stride and aligned (window_fast), else -1 for the general path, which faults. row and
 * frame are the instruction's address row and IF_FRAME: the compiled code passes them as
 * constants, so the frame's add folds away where there is none. */
static inline __attribute__((always_inline)) int local_fast(Warp *w, const uint64_t *row, uint64_t imm,
                                                            int frame, uint32_t mask, unsigned size,
                                                            uint8_t *host[WARP_SIZE], uint64_t off[WARP_SIZE])
{
    uint64_t fm = frame ? ~0ull : 0;
    for (int l = 0; l < WARP_SIZE; l++) off[l] = (uint32_t)(row[l] + imm + (w->fp[l] & fm));
    return window_fast(mask, off, size, w->local, w->local_stride, w->local_stride, host);
}

#endif
