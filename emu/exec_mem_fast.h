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
