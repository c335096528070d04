/* asyncop.h - private to the asynchronous engine (async.c) and its instructions
 * (exec_async.c): the queued operation, mbarrier word fields, and group bookkeeping. */
#ifndef PTXEMU_ASYNCOP_H
#define PTXEMU_ASYNCOP_H

#include <string.h>
#include "machine.h"

enum { AOP_CPASYNC = 1, AOP_CPASYNC_ARRIVE, AOP_BULK, AOP_BULK_REDUCE, AOP_TENSOR,
       AOP_ST_ASYNC, AOP_RED_ASYNC };
enum { GROUP_NONE = 0, GROUP_CPASYNC, GROUP_BULK };
enum { ARED_ADD = 0, ARED_MIN, ARED_MAX, ARED_INC, ARED_DEC, ARED_AND, ARED_OR, ARED_XOR };

typedef struct AsyncOp {
    uint8_t kind, group_kind, lane, done;
    uint8_t redop, rtype;               /* reductions: ARED_*, TY_*                       */
    uint8_t tdir, tmode, ndims;         /* tensor copies                                  */
    uint16_t cta_mask;                  /* multicast: the CTAs of the cluster written     */
    uint16_t byte_mask;                 /* .cp_mask: bytes of each 16 written (0xffff all)*/
    Warp *w;                            /* issuing warp (for faults and groups)           */
    uint32_t group;                     /* the thread's group the operation belongs to    */
    uint32_t pc;                        /* issuing instruction                            */
    uint8_t *dst;
    const uint8_t *src;
    uint32_t size, src_size, smem_avail;
    uint32_t dst_off, mbar_off;         /* multicast: CTA-relative offsets                */
    uint32_t src_off;                   /* tensor stores: the shared source's offset      */
    uint64_t *mbar;                     /* complete-tx / arrive target, or NULL           */
    uint32_t tag;                       /* a word a tool keeps with it (async_mbar_issue) */
    uint64_t span_t0;                   /* spans: the issuing worker's clock at issue     */
    int32_t coords[5];
    uint16_t offsets[4];
    /* not cleared by async_push: */
    _Alignas(8) uint8_t value[32];      /* st.async / red.async data (red.async reads it
                                         * as its element type, up to 8 bytes)            */
    uint8_t tmap[128];                  /* tensor map, copied at issue                    */
} AsyncOp;

AsyncOp *async_push(Warp *w, int lane, int kind);
/* The i-th operation in the cluster's queue (i < async_count), for the debugger. */
const AsyncOp *async_op_at(const Cluster *cl, uint32_t i);
/* Complete the thread's operations of `kind` (GROUP_*) in groups numbered below `before`. */
int async_force_groups(Warp *w, int lane, int kind, uint32_t before);
/* Complete every operation that signals an mbarrier (a wait that would fail needs them). */
int async_force_mbarriers(Warp *w);

#define MB_VALID (1ull << 63)
#define MB_PHASE (1ull << 62)
/* a phase has completed since init: emulator bookkeeping, never in a state a program reads
 * (a wait on parity 1 that passes on a barrier without it passed because the barrier is
 * fresh, the classic wrong-parity bug the deadlock report points at) */
#define MB_DONE (1ull << 61)
#define MB_PENDING(v) ((uint32_t)((v) & 0xfffff))
#define MB_EXPECTED(v) ((uint32_t)((v) >> 20 & 0xfffff))
#define MB_MAXCOUNT 0xfffff

static inline int32_t mbar_tx(uint64_t v)
{
    int32_t t = (int32_t)(v >> 40 & 0x1fffff);
    return t & 0x100000 ? t - 0x200000 : t;
}

static inline void mbar_add_tx(uint64_t *m, int32_t d)
{
    int32_t t = mbar_tx(*m) + d;
    *m = (*m & ~(0x1fffffull << 40)) | ((uint64_t)(t & 0x1fffff) << 40);
}

/* The phase completes when every expected arrival came and no transaction is pending. */
static inline int mbar_try_flip(uint64_t *m)
{
    uint64_t v = *m;
    if (!(v & MB_VALID) || MB_PENDING(v) || mbar_tx(v)) return 0;
    *m = ((v ^ MB_PHASE) & ~0xfffffull & ~(0x1fffffull << 40)) | MB_DONE | MB_EXPECTED(v);
    return 1;
}

#endif
