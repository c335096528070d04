/* exec_mem.c - ld/ldu, st, prefetch, cvta, isspacep and fence/membar.
 *
 * One handler per element kind and vector width; the state space is resolved per
 * instruction by mem_warp_ptrs (memory.c), which checks the whole warp at once in the common
 * case. The emulator keeps a single coherent copy of memory, so cache operators (.ca .cg .cs
 * .lu .cv .nc, .L1::*, .L2::*) and .volatile/.relaxed/.weak/.mmio only select plain
 * accesses; .acquire and .release add the matching host fence.
 */
#include <string.h>
#include "exec.h"
#include "memory.h"
#include "observe.h"
#include "jitop.h"
#include "exec_mem_fast.h"


/* ---- ld / ldu: one handler per (element type, vector width) ---- */

/* The hot case of element-wise kernels: a whole warp's access of an ld/st in global memory
 * (or const, param, generic; the binder picks the ldg_/stg_ handlers for those when no tool
 * watches memory) where lane l's address is the first lane's plus l times the access size,
 * aligned, inside one allocation the worker's cache holds - what mem_warp_ptrs accepts
 * without a fault, in one range check. Returns the first lane's host address, or NULL for the
 * general handler. The lanes then move one contiguous run: no per-lane host pointers, and
 * the loops vectorize. */
typedef uint64_t u64x2 __attribute__((vector_size(16)));
static inline uint8_t *global_run(Warp *w, const Inst *in, uint32_t mask, unsigned size)
{
    if (mask != FULL_MASK) return NULL;
    const uint64_t *a = ROW(w, in->base);
    /* two lanes at a time in vector code (gcc leaves the plain loop scalar) */
    u64x2 want = { a[0], a[0] + size }, step = { 2ull * size, 2ull * size }, diff = { 0, 0 };
#pragma GCC unroll 16
    for (int l = 0; l < WARP_SIZE; l += 2) {
        u64x2 v;
        memcpy(&v, a + l, sizeof v);
        diff |= v ^ want;
        want += step;
    }
    uint64_t x = a[0] + (uint64_t)in->imm;
    if (diff[0] | diff[1] | (x & (size - 1))) return NULL;
    return mem_cache_hit(x, (uint64_t)size * WARP_SIZE) ? (uint8_t *)(uintptr_t)x : NULL;
}

/* Loads write whole 64-bit rows: converting T to uint64_t zero-extends unsigned types and
 * sign-extends signed ones, as ld.s8/.s16 into a wider register requires. Each lane reads its
 * whole vector in one host access (up to 16 bytes, aligned as PTX requires): as on the GPU,
 * another thread never sees half of a v2/v4 access (CUB's look-back flags rely on it). */
#define DEF_LD_GEN(PFX, PTRS, K, T, V)                                               \
    static int PFX##_##K##_v##V(Warp *w, const Inst *in, uint32_t mask)              \
    {                                                                                \
        uint8_t *p[WARP_SIZE];                                                       \
        if (PTRS(w, in, mask, sizeof(T) * V, ACC_READ, p)) return STEP_FAULT;        \
        uint64_t *d[V];                                                              \
        for (int e = 0; e < V; e++) d[e] = ROW(w, in->d[e]);                         \
        FOR_LANES(mask, l) {                                                         \
            T v[V];                                                                  \
            memcpy(v, p[l], sizeof v);                                               \
            for (int e = 0; e < V; e++) d[e][l] = (uint64_t)v[e];                    \
        }                                                                            \
        if (in->aux8 & MO_ACQUIRE) __atomic_thread_fence(__ATOMIC_ACQUIRE);          \
        return STEP_NEXT;                                                            \
    }
/* ld_ plain, ldo_ observed (the accesses are an event), lds_ plain .shared, ldg_ plain
 * global (const, param, generic): a run of consecutive addresses first */
#define DEF_LD(K, T, V)                                                              \
    DEF_LD_GEN(ld, mem_warp_ptrs, K, T, V)                                           \
    DEF_LD_GEN(ldo, mem_warp_ptrs_observed, K, T, V)                                 \
    JIT_OP(ld_##K##_v##V, "LD", #T, #V, "", "", "", "")                              \
    static int lds_##K##_v##V(Warp *w, const Inst *in, uint32_t mask)                \
    {                                                                                \
        uint32_t off[WARP_SIZE];                                                     \
        const uint8_t *sh = shared_fast(w, in, mask, sizeof(T) * V, off);            \
        if (!sh) return ld_##K##_v##V(w, in, mask);                                  \
        uint64_t *d[V];                                                              \
        for (int e = 0; e < V; e++) d[e] = ROW(w, in->d[e]);                         \
        if (mask == FULL_MASK) {                                                     \
            for (int l = 0; l < WARP_SIZE; l++) {                                    \
                T v[V];                                                              \
                memcpy(v, sh + off[l], sizeof v);                                    \
                for (int e = 0; e < V; e++) d[e][l] = (uint64_t)v[e];                \
            }                                                                        \
        } else {                                                                     \
            for (uint32_t m = mask; m; m &= m - 1) {                                 \
                int l = __builtin_ctz(m);                                            \
                T v[V];                                                              \
                memcpy(v, sh + off[l], sizeof v);                                    \
                for (int e = 0; e < V; e++) d[e][l] = (uint64_t)v[e];                \
            }                                                                        \
        }                                                                            \
        if (in->aux8 & MO_ACQUIRE) __atomic_thread_fence(__ATOMIC_ACQUIRE);          \
        return STEP_NEXT;                                                            \
    }                                                                                \
    JIT_OP(lds_##K##_v##V, "LDS", #T, #V, "", "", "", "")                            \
    static int ldg_##K##_v##V(Warp *w, const Inst *in, uint32_t mask)                \
    {                                                                                \
        const uint8_t *g = global_run(w, in, mask, sizeof(T) * V);                   \
        if (!g) return ld_##K##_v##V(w, in, mask);                                   \
        uint64_t *d[V];                                                              \
        for (int e = 0; e < V; e++) d[e] = ROW(w, in->d[e]);                         \
        _Pragma("GCC ivdep") for (int l = 0; l < WARP_SIZE; l++) {                   \
            T v[V];                                                                  \
            memcpy(v, g + (size_t)l * sizeof v, sizeof v);                           \
            for (int e = 0; e < V; e++) d[e][l] = (uint64_t)v[e];                    \
        }                                                                            \
        if (in->aux8 & MO_ACQUIRE) __atomic_thread_fence(__ATOMIC_ACQUIRE);          \
        return STEP_NEXT;                                                            \
    }                                                                                \
    JIT_OP(ldg_##K##_v##V, "LD", #T, #V, "", "", "", "")
#define DEF_LD_ALL(K, T) DEF_LD(K, T, 1) DEF_LD(K, T, 2) DEF_LD(K, T, 4)
DEF_LD_ALL(u8, uint8_t)
DEF_LD_ALL(s8, int8_t)
DEF_LD_ALL(u16, uint16_t)
DEF_LD_ALL(s16, int16_t)
DEF_LD_ALL(u32, uint32_t)
DEF_LD_ALL(s32, int32_t)
DEF_LD_ALL(u64, uint64_t)

#define LD_ROW(K) { ld_##K##_v1, ld_##K##_v2, ld_##K##_v4 }
#define LDO_ROW(K) { ldo_##K##_v1, ldo_##K##_v2, ldo_##K##_v4 }
#define LDS_ROW(K) { lds_##K##_v1, lds_##K##_v2, lds_##K##_v4 }
#define LDG_ROW(K) { ldg_##K##_v1, ldg_##K##_v2, ldg_##K##_v4 }
enum { K_U8, K_S8, K_U16, K_S16, K_U32, K_S32, K_U64, K_COUNT };
static const Handler ld_fn[K_COUNT][3] = {
    LD_ROW(u8), LD_ROW(s8), LD_ROW(u16), LD_ROW(s16), LD_ROW(u32), LD_ROW(s32), LD_ROW(u64)
};
static const Handler ldo_fn[K_COUNT][3] = {
    LDO_ROW(u8), LDO_ROW(s8), LDO_ROW(u16), LDO_ROW(s16), LDO_ROW(u32), LDO_ROW(s32), LDO_ROW(u64)
};
static const Handler lds_fn[K_COUNT][3] = {
    LDS_ROW(u8), LDS_ROW(s8), LDS_ROW(u16), LDS_ROW(s16), LDS_ROW(u32), LDS_ROW(s32), LDS_ROW(u64)
};
static const Handler ldg_fn[K_COUNT][3] = {
    LDG_ROW(u8), LDG_ROW(s8), LDG_ROW(u16), LDG_ROW(s16), LDG_ROW(u32), LDG_ROW(s32), LDG_ROW(u64)
};

/* ---- st: one handler per (element size, vector width); lanes store in the H200's order
 * (FOR_LANES_ST, machine.h), so that when lanes write the same address the lane whose value
 * stays is the one the GPU keeps ---- */

#define DEF_ST_GEN(PFX, PTRS, T, V)                                                  \
    static int PFX##_##T##_v##V(Warp *w, const Inst *in, uint32_t mask)              \
    {                                                                                \
        uint8_t *p[WARP_SIZE];                                                       \
        const uint64_t *s[V];                                                        \
        if (PTRS(w, in, mask, sizeof(T) * V, ACC_WRITE, p)) return STEP_FAULT;       \
        for (int e = 0; e < V; e++) s[e] = ROW(w, in->s[e]);                         \
        if (in->aux8 & MO_RELEASE) __atomic_thread_fence(__ATOMIC_RELEASE);          \
        FOR_LANES_ST(mask, sizeof(T) * V, l) {                                       \
            T v[V];                                                                  \
            for (int e = 0; e < V; e++) v[e] = (T)s[e][l];                           \
            memcpy(p[l], v, sizeof v);   /* one host access per lane, as for ld */    \
        }                                                                            \
        return STEP_NEXT;                                                            \
    }
#define DEF_ST(T, V)                                                                 \
    DEF_ST_GEN(st, mem_warp_ptrs, T, V)                                              \
    DEF_ST_GEN(sto, mem_warp_ptrs_observed, T, V)                                    \
    JIT_OP(st_##T##_v##V, "ST", #T, #V, "", "", "", "")                              \
    static int sts_##T##_v##V(Warp *w, const Inst *in, uint32_t mask)                \
    {                                                                                \
        uint32_t off[WARP_SIZE];                                                     \
        uint8_t *sh = shared_fast(w, in, mask, sizeof(T) * V, off);                  \
        if (!sh) return st_##T##_v##V(w, in, mask);                                  \
        const uint64_t *s[V];                                                        \
        for (int e = 0; e < V; e++) s[e] = ROW(w, in->s[e]);                         \
        if (in->aux8 & MO_RELEASE) __atomic_thread_fence(__ATOMIC_RELEASE);          \
        if (mask == FULL_MASK) {                                                     \
            FOR_LANES_ST(FULL_MASK, sizeof(T) * V, l) {                              \
                T v[V];                                                              \
                for (int e = 0; e < V; e++) v[e] = (T)s[e][l];                       \
                memcpy(sh + off[l], v, sizeof v);                                    \
            }                                                                        \
        } else if (!(mask & (mask - 1))) {   /* one lane: no order to keep */         \
            int l = __builtin_ctz(mask);                                             \
            T v[V];                                                                  \
            for (int e = 0; e < V; e++) v[e] = (T)s[e][l];                           \
            memcpy(sh + off[l], v, sizeof v);                                        \
        } else {                                                                     \
            FOR_LANES_ST(mask, sizeof(T) * V, l) {                                   \
                T v[V];                                                              \
                for (int e = 0; e < V; e++) v[e] = (T)s[e][l];                       \
                memcpy(sh + off[l], v, sizeof v);                                    \
            }                                                                        \
        }                                                                            \
        return STEP_NEXT;                                                            \
    }                                                                                \
    JIT_OP(sts_##T##_v##V, "STS", #T, #V, "", "", "", "")                            \
    static int stg_##T##_v##V(Warp *w, const Inst *in, uint32_t mask)                \
    {                                                                                \
        uint8_t *g = global_run(w, in, mask, sizeof(T) * V);                         \
        if (!g) return st_##T##_v##V(w, in, mask);                                   \
        const uint64_t *s[V];                                                        \
        for (int e = 0; e < V; e++) s[e] = ROW(w, in->s[e]);                         \
        if (in->aux8 & MO_RELEASE) __atomic_thread_fence(__ATOMIC_RELEASE);          \
        _Pragma("GCC ivdep") for (int l = 0; l < WARP_SIZE; l++) {                   \
            T v[V];                                                                  \
            for (int e = 0; e < V; e++) v[e] = (T)s[e][l];                           \
            memcpy(g + (size_t)l * sizeof v, v, sizeof v);                           \
        }                                                                            \
        return STEP_NEXT;                                                            \
    }                                                                                \
    JIT_OP(stg_##T##_v##V, "ST", #T, #V, "", "", "", "")
#define DEF_ST_ALL(T) DEF_ST(T, 1) DEF_ST(T, 2) DEF_ST(T, 4)
DEF_ST_ALL(uint8_t)
DEF_ST_ALL(uint16_t)
DEF_ST_ALL(uint32_t)
DEF_ST_ALL(uint64_t)

#define ST_ROW(T) { st_##T##_v1, st_##T##_v2, st_##T##_v4 }
#define STO_ROW(T) { sto_##T##_v1, sto_##T##_v2, sto_##T##_v4 }
#define STS_ROW(T) { sts_##T##_v1, sts_##T##_v2, sts_##T##_v4 }
#define STG_ROW(T) { stg_##T##_v1, stg_##T##_v2, stg_##T##_v4 }
static const Handler st_fn[4][3] = {
    ST_ROW(uint8_t), ST_ROW(uint16_t), ST_ROW(uint32_t), ST_ROW(uint64_t)
};
static const Handler sto_fn[4][3] = {
    STO_ROW(uint8_t), STO_ROW(uint16_t), STO_ROW(uint32_t), STO_ROW(uint64_t)
};
static const Handler sts_fn[4][3] = {
    STS_ROW(uint8_t), STS_ROW(uint16_t), STS_ROW(uint32_t), STS_ROW(uint64_t)
};
static const Handler stg_fn[4][3] = {
    STG_ROW(uint8_t), STG_ROW(uint16_t), STG_ROW(uint32_t), STG_ROW(uint64_t)
};

/* ---- binders of ld and st ---- */

/* Element kind of a load type, or -1. Halves load as their bits. */
static int ld_kind(int t)
{
    switch (t) {
    case TY_B8: case TY_U8: return K_U8;
    case TY_S8: return K_S8;
    case TY_B16: case TY_U16: case TY_F16: case TY_BF16: return K_U16;
    case TY_S16: return K_S16;
    case TY_B32: case TY_U32: case TY_F32: case TY_F16X2: case TY_BF16X2: return K_U32;
    case TY_S32: return K_S32;
    case TY_B64: case TY_U64: case TY_S64: case TY_F64: return K_U64;
    default: return -1;
    }
}

static int vec_index(int vec) { return vec == 1 ? 0 : vec == 2 ? 1 : vec == 4 ? 2 : -1; }

/* The space the handler resolves in: frame-relative operands live in local memory (the
 * translator marks them IF_FRAME), and no space named means generic. */
static const char *bind_space(Inst *in, const InstDesc *d)
{
    int sp = (in->flags & IF_FRAME) ? SP_LOCAL : d->space;
    switch (sp) {
    case SP_NONE: case SP_GENERIC: in->space = SP_GENERIC; return NULL;
    case SP_GLOBAL: case SP_SHARED: case SP_SHARED_CLUSTER: case SP_LOCAL: case SP_CONST:
    case SP_PARAM:
        in->space = (uint8_t)sp;
        return NULL;
    default:
        return "unsupported state space for ld/st";
    }
}

/* Shared checks of ld and st: vector width, address operand, and the ordering fence. */
static const char *bind_access(Inst *in, const InstDesc *d, int nvals, int is_ld)
{
    if (d->types[0] == TY_B128)
        return is_ld ? "ld.b128 is not supported (registers are 64-bit rows)"
                     : "st.b128 is not supported (registers are 64-bit rows)";
    if (d->vec == 8)
        return is_ld ? "ld.v8 is not supported (sm_100 and later)"
                     : "st.v8 is not supported (sm_100 and later)";
    if (vec_index(d->vec) < 0) return "bad vector width";
    if (!d->has_addr) return "ld/st need an address operand [a]";
    if (nvals < d->vec) return "too few vector elements for the vector width";
    if (desc_has(d, MOD_RELEASE) && is_ld) return "ld cannot be .release";
    if (desc_has(d, MOD_ACQUIRE) && !is_ld) return "st cannot be .acquire";
    in->vec = (uint8_t)d->vec;
    in->aux8 = desc_has(d, MOD_ACQUIRE) ? MO_ACQUIRE : desc_has(d, MOD_RELEASE) ? MO_RELEASE : 0;
    return bind_space(in, d);
}

/* Spaces whose addresses are host addresses of the arena (generic ones may be): the
 * ldg_/stg_ handlers try global_run first. */
static int run_space(int space)
{
    return space == SP_GLOBAL || space == SP_CONST || space == SP_PARAM || space == SP_GENERIC;
}

const char *bind_ld(Inst *in, const InstDesc *d)
{
    const char *err = bind_access(in, d, d->nd, 1);
    if (err) return err;
    int k = ld_kind(d->types[0]);
    if (k < 0) return "unsupported type for ld";
    in->fn = (d->obs & OBS_MEM ? ldo_fn : in->space == SP_SHARED ? lds_fn
              : run_space(in->space) ? ldg_fn : ld_fn)[k][vec_index(d->vec)];
    return NULL;
}

const char *bind_st(Inst *in, const InstDesc *d)
{
    const char *err = bind_access(in, d, d->ns, 0);
    if (err) return err;
    int k = ld_kind(d->types[0]);
    if (k < 0) return "unsupported type for st";
    static const int size_index[K_COUNT] = { 0, 0, 1, 1, 2, 2, 3 };
    in->fn = (d->obs & OBS_MEM ? sto_fn : in->space == SP_SHARED ? sts_fn
              : run_space(in->space) ? stg_fn : st_fn)[size_index[k]][vec_index(d->vec)];
    return NULL;
}

/* ---- prefetch, prefetchu ----
 * A prefetch only warms caches; the GPU drops prefetches of invalid addresses instead of
 * faulting, and the emulator has no caches, so executing one has no effect at all. */
static int h_prefetch(Warp *w, const Inst *in, uint32_t mask)
{
    (void)w; (void)in; (void)mask;
    return STEP_NEXT;
}

const char *bind_prefetch(Inst *in, const InstDesc *d)
{
    if (!d->has_addr) return "prefetch needs an address operand [a]";
    in->fn = h_prefetch;
    return NULL;
}

/* ---- cvta: generic = window + offset for shared and local (local offsets are already
 * per-thread); global, const and param addresses are arena addresses, already generic. The
 * binder folds the window into imm, so d = src + imm, truncated for .u32. ---- */

static int cvta_u64(Warp *w, const Inst *in, uint32_t mask)
{
    uint64_t *d = ROW(w, in->d[0]);
    const uint64_t *a = ROW(w, in->base);
    uint64_t k = (uint64_t)in->imm;
    LANES(l, d[l] = a[l] + k);
    return STEP_NEXT;
}
JIT_OP(cvta_u64, "CVTA", "", "", "", "", "uint64_t", "")

static int cvta_u32(Warp *w, const Inst *in, uint32_t mask)
{
    uint64_t *d = ROW(w, in->d[0]);
    const uint64_t *a = ROW(w, in->base);
    uint64_t k = (uint64_t)in->imm;
    LANES(l, d[l] = (uint32_t)(a[l] + k));
    return STEP_NEXT;
}
JIT_OP(cvta_u32, "CVTA", "", "", "", "", "uint32_t", "")

const char *bind_cvta(Inst *in, const InstDesc *d)
{
    int t = d->types[0];
    if (t != TY_U32 && t != TY_U64 && t != TY_B32 && t != TY_B64)
        return "cvta needs .u32 or .u64";
    uint64_t window;
    switch (d->space) {
    case SP_GLOBAL: case SP_CONST: case SP_PARAM: window = 0; break;
    case SP_SHARED: case SP_SHARED_CLUSTER: window = SHARED_WINDOW; break;
    case SP_LOCAL: window = LOCAL_WINDOW; break;
    default: return "cvta needs a state space (.global .shared .local .const .param)";
    }
    if (d->nd < 1) return "cvta needs a destination";
    if (in->flags & IF_FRAME) return "cvta of a frame address (take it with mov first)";
    if (!d->has_addr) {                /* register or variable source: value + 0 */
        if (d->ns < 1) return "cvta needs a source";
        in->base = in->s[0];
        in->imm = 0;
    }
    in->imm += (int64_t)(desc_has(d, MOD_TO) ? 0 - window : window);
    int is32 = t == TY_U32 || t == TY_B32;
    in->t = is32 ? TY_U32 : TY_U64;
    in->fn = is32 ? cvta_u32 : cvta_u64;
    return NULL;
}

/* ---- isspacep: which window a generic address is in. The .param window (kernel
 * parameters) lies inside .global, as the PTX ISA says; .const is the blocks of module
 * .const variables (allocated as MEM_CONST). ---- */

static int in_kind(uint64_t a, int want)
{
    int kind;
    return mem_find(a, NULL, &kind) && kind == want;
}

#define DEF_ISSPACEP(NAME, TEST)                                                     \
    static int isspacep_##NAME(Warp *w, const Inst *in, uint32_t mask)              \
    {                                                                                \
        const uint64_t *a = ROW(w, in->s[0]);                                        \
        uint32_t r = 0;                                                              \
        FOR_LANES(mask, l) {                                                         \
            uint64_t x = a[l];                                                       \
            r |= (uint32_t)(TEST) << l;                                              \
        }                                                                            \
        uint32_t *p = &w->P[in->d[0]];                                               \
        *p = (*p & ~mask) | r;                                                       \
        return STEP_NEXT;                                                            \
    }
/* measured on an H100: a generic address of a .const variable is not .global */
DEF_ISSPACEP(global, x - SHARED_WINDOW >= WINDOW_SIZE && x - LOCAL_WINDOW >= WINDOW_SIZE &&
                     !in_kind(x, MEM_CONST))
/* .shared::cta: this CTA's window only (no rank bits, or its own); .shared::cluster: any */
DEF_ISSPACEP(shared, x - SHARED_WINDOW < WINDOW_SIZE &&
                     (!((x - SHARED_WINDOW) >> CLUSTER_RANK_SHIFT) ||
                      ((x - SHARED_WINDOW) >> CLUSTER_RANK_SHIFT) == w->cta->rank + 1))
DEF_ISSPACEP(shared_cluster, x - SHARED_WINDOW < WINDOW_SIZE)
DEF_ISSPACEP(local, x - LOCAL_WINDOW < WINDOW_SIZE)
DEF_ISSPACEP(const, in_kind(x, MEM_CONST))
DEF_ISSPACEP(param, in_kind(x, MEM_PARAM))

const char *bind_isspacep(Inst *in, const InstDesc *d)
{
    if (d->nd < 1 || d->ns < 1) return "isspacep needs a predicate and an address";
    switch (d->space) {
    case SP_GLOBAL: in->fn = isspacep_global; return NULL;
    case SP_SHARED: in->fn = isspacep_shared; return NULL;
    case SP_SHARED_CLUSTER: in->fn = isspacep_shared_cluster; return NULL;
    case SP_LOCAL: in->fn = isspacep_local; return NULL;
    case SP_CONST: in->fn = isspacep_const; return NULL;
    case SP_PARAM: in->fn = isspacep_param; return NULL;
    default: return "isspacep needs .global .shared .local .const or .param";
    }
}

/* ---- fence, membar: every form is a full host fence. Worker threads run CTAs in parallel
 * on one coherent memory, so a seq_cst fence gives every scope and every proxy the ordering
 * the program asked for. ---- */
static int h_fence(Warp *w, const Inst *in, uint32_t mask)
{
    (void)w; (void)in; (void)mask;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return STEP_NEXT;
}

/* The same, an event for the tools: the kind (Inst.aux8) is FENCE_PROXY_ASYNC for
 * fence.proxy.async (the CTA's generic-proxy writes become visible to the async proxy),
 * FENCE_MBAR_INIT for fence.mbarrier_init (its mbarrier inits become visible to the cluster). */
static int h_fence_obs(Warp *w, const Inst *in, uint32_t mask)
{
    (void)mask;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (w->launch && w->cta) OBSERVE(w->launch->obs, fence, w, in, in->aux8);
    return STEP_NEXT;
}

const char *bind_fence(Inst *in, const InstDesc *d)
{
    in->aux8 = desc_has(d, MOD_PROXY) && desc_has(d, MOD_ASYNC) ? FENCE_PROXY_ASYNC
             : desc_has(d, MOD_MBARRIER_INIT) ? FENCE_MBAR_INIT : FENCE_PLAIN;
    in->fn = d->obs & OBS_SYNC ? h_fence_obs : h_fence;
    return NULL;
}
