/* exec_warp.c - warp-level operations: shfl.sync, vote.sync, match.sync, redux.sync and
 * activemask.
 *
 * Every .sync form first waits (warp_converge_sync, warp.c) until all lanes of membermask
 * that have not exited execute it together; the operation then runs once for the whole
 * group. The group of a result is mask & membermask. A lane that executes one of them with
 * a membermask that does not name it makes the instruction undefined in PTX: that is
 * reported (warp_sync_outside), and the instruction then runs as an H200 runs it, over every
 * lane that executes it whatever the masks say (tests/gpu/warp_edges_h200.txt: a ballot
 * with mask 0x0000ffff executed by 32 lanes gives 0xffffffff, a redux.add of 1 gives 32).
 * The pre-sm_70 forms without .sync are rejected.
 */
#include <string.h>
#include "exec.h"
#include "jitop.h"

/* Every lane named by any executing lane's membermask (what the group waits for). */
static inline uint32_t all_members(Warp *w, uint32_t row, uint32_t mask)
{
    const uint64_t *m = ROW(w, row);
    uint32_t u = 0;
    FOR_LANES(mask, l) u |= (uint32_t)m[l];
    return u;
}

/* Lanes may pass different membermasks (tiled_partition<16> gives each half-warp its
 * own): lanes passing the same mask form one group, computed on its own. Returns the
 * lanes of `todo` whose mask equals the first one's, and that mask in *grp. */
static inline uint32_t same_members(Warp *w, uint32_t row, uint32_t todo, uint32_t *grp)
{
    const uint64_t *m = ROW(w, row);
    uint32_t v = (uint32_t)m[__builtin_ctz(todo)], lanes = 0;
    FOR_LANES(todo, l) if ((uint32_t)m[l] == v) lanes |= 1u << l;
    *grp = v;
    return lanes;
}

/* Lanes of mask whose membermask (row) does not name them. */
static inline uint32_t outside(Warp *w, uint32_t row, uint32_t mask)
{
    const uint64_t *m = ROW(w, row);
    uint32_t o = 0;
    FOR_LANES(mask, l) o |= (uint32_t)(~m[l] >> l & 1) << l;
    return o;
}

/* The groups of lanes that share a membermask; with a lane outside its mask (ub, reported
 * once) the whole executing group is one group, as on the GPU. */
#define FOR_GROUPS(row, lanes, grp)                                                  \
    for (uint32_t todo_ = mask, ub_ = sync_ub(w, (row), mask, op_name), lanes = 0, grp = 0; \
         todo_ && (ub_ ? (lanes = grp = todo_)                                       \
                       : ((lanes = same_members(w, (row), todo_, &grp)), grp &= mask), 1); \
         todo_ &= ~lanes)

static inline uint32_t sync_ub(Warp *w, uint32_t row, uint32_t mask, const char *op)
{
    uint32_t o = outside(w, row, mask);
    if (__builtin_expect(o != 0, 0)) warp_sync_outside(w, op, o, row);
    return o;
}

static inline void set_pred(Warp *w, uint32_t p, uint32_t mask, uint32_t bits)
{
    w->P[p] = (w->P[p] & ~mask) | (bits & mask);
}

/* kinds: the operands that are predicates (warp_converge_sync) */
#define CONVERGE(members, kinds)                                                     \
    do {                                                                             \
        int r_ = warp_converge_sync(w, in, mask, (members), (kinds));                \
        if (r_) return r_;                                                           \
    } while (0)
#define PRED_S0 1u
#define PRED_D0 (1u << 8)
#define PRED_D1 (1u << 9)

/* ---- shfl.sync.mode.b32 d[|p], a, b, c, membermask ----
 * The source lane j follows the PTX ISA pseudo-code: c[4:0] is the clamp, c[12:8] the
 * segment mask. Out of range (pval false), a lane keeps its own a. An in-range source lane
 * that is not executing is undefined in PTX; the H100 gives 0 (with pval true), measured
 * (tests/ptx/warp_shfl_inactive; the CUDA sample `reduction` depends on it). */
enum { SH_UP, SH_DOWN, SH_BFLY, SH_IDX };

/* Lane l's source lane j (the PTX ISA pseudo-code) and whether it is in range (pval). */
static inline int shfl_src(int mode, int l, int bval, int cval, int seg, int *ok)
{
    int maxl = (l & seg) | (cval & ~seg), j;
    switch (mode) {
    case SH_UP:   j = l - bval; *ok = j >= maxl; return j;
    case SH_DOWN: j = l + bval; break;
    case SH_BFLY: j = l ^ bval; break;
    default:      j = (l & seg) | (bval & ~seg); break;
    }
    *ok = j <= maxl;
    return j;
}

/* Lanes [lo, hi) of 32 as a mask. */
static inline uint32_t lane_range(int lo, int hi)
{
    if (lo < 0) lo = 0;
    if (hi > WARP_SIZE) hi = WARP_SIZE;
    if (lo >= hi) return 0;
    uint32_t below_hi = hi == WARP_SIZE ? FULL_MASK : (1u << hi) - 1;
    return below_hi & ~((1u << lo) - 1);
}

typedef uint64_t u64x2 __attribute__((vector_size(16)));

/* shfl's aux8: b, c and the membermask are immediates (constant rows, the binder saw it) */
#define SHFL_IMM 1

/* d[i] = the low 32 bits of s[i] for i < n, two lanes a step (the library is built for the
 * baseline vector unit, where the plain loop stayed scalar); ascending, each step reading
 * before it writes, so d may be s + k for k >= 0. */
static inline void lo32_up(uint64_t *d, const uint64_t *s, int n)
{
    const u64x2 lo = { 0xffffffffu, 0xffffffffu };
    int i = 0;
    for (; i + 2 <= n; i += 2) {
        u64x2 x;
        memcpy(&x, s + i, sizeof x);
        x &= lo;
        memcpy(d + i, &x, sizeof x);
    }
    if (i < n) d[i] = (uint32_t)s[i];
}

/* The same descending, for d = s + k with k >= 0. */
static inline void lo32_down(uint64_t *d, const uint64_t *s, int n)
{
    const u64x2 lo = { 0xffffffffu, 0xffffffffu };
    int i = n;
    for (; i >= 2; i -= 2) {
        u64x2 x;
        memcpy(&x, s + i - 2, sizeof x);
        x &= lo;
        memcpy(d + i - 2, &x, sizeof x);
    }
    if (i) d[0] = (uint32_t)s[0];
}

/* The common case: the whole warp shuffles with one lane offset and one clamp (warp
 * reductions and scans), so there is no one to wait for and every source lane executes.
 * The uniformity test runs two lanes at a time in vector code; without a segment mask
 * (width 32) up, down and idx read each lane's source in one pass over the rows, without
 * the PTX ISA's per-lane formula (lane_range gives its pval; equal for every offset and
 * clamp). */
static inline int shfl_full_uniform(Warp *w, const Inst *in, int mode)
{
    const uint64_t *a = ROW(w, in->s[0]), *b = ROW(w, in->s[1]), *c = ROW(w, in->s[2]);
    const uint64_t *m = ROW(w, in->s[3]);
    if (in->aux8 & SHFL_IMM) {
        /* offset, clamp and membermask are immediates: constant rows, the same in every
         * lane (the test below was half of a reduction's shuffle) */
        if ((uint32_t)m[0] != FULL_MASK) return 0;
    } else {
        /* the three rows equal in every lane, all 64 bits (stricter than the fields that
         * matter, so cheaper: three compares a lane; a row that differs only above those
         * fields takes the general path, which gives the same result), and every lane in
         * the membermask */
        u64x2 b0 = { b[0], b[0] }, c0 = { c[0], c[0] }, m0 = { m[0], m[0] }, diff = { 0, 0 };
#pragma GCC unroll 16
        for (int l = 0; l < WARP_SIZE; l += 2) {
            u64x2 vb, vc, vm;
            memcpy(&vb, b + l, sizeof vb);
            memcpy(&vc, c + l, sizeof vc);
            memcpy(&vm, m + l, sizeof vm);
            diff |= (vb ^ b0) | (vc ^ c0) | (vm ^ m0);
        }
        if (diff[0] | diff[1] || (uint32_t)m[0] != FULL_MASK) return 0;
    }
    int bval = (int)(b[0] & 31), cval = (int)(c[0] & 31), seg = (int)((c[0] >> 8) & 31);
    uint64_t *d = ROW(w, in->d[0]);
    if (!seg && mode != SH_BFLY) {
        /* up: lanes from c + b on read lane l - b; down: lanes up to c - b read lane l + b
         * (maxl = c); the others keep their own value (b lanes in a reduction's or scan's
         * step). Each loop reads a lane before any lane it reads is written (down
         * ascending, up descending), so d may be a; no staging copy. */
        uint32_t pv;
        switch (mode) {
        case SH_UP: {
            int lo = cval + bval;
            pv = lane_range(lo, WARP_SIZE);
            if (lo < WARP_SIZE) lo32_down(d + lo, a + lo - bval, WARP_SIZE - lo);
            lo32_up(d, a, lo < WARP_SIZE ? lo : WARP_SIZE);
            break;
        }
        case SH_DOWN: {
            int hi = cval - bval + 1;
            if (hi < 0) hi = 0;
            pv = lane_range(0, hi);
            lo32_up(d, a + bval, hi);
            lo32_up(d + hi, a + hi, WARP_SIZE - hi);
            break;
        }
        default: {   /* idx: every lane reads lane b, when b <= c */
            pv = bval <= cval ? FULL_MASK : 0;
            if (pv) { uint64_t v = (uint32_t)a[bval]; for (int l = 0; l < WARP_SIZE; l++) d[l] = v; }
            else for (int l = 0; l < WARP_SIZE; l++) d[l] = (uint32_t)a[l];
        }
        }
        w->P[in->d[1]] = pv;
        return 1;
    }
    uint32_t src[WARP_SIZE], pv = 0;
    for (int l = 0; l < WARP_SIZE; l++) src[l] = (uint32_t)a[l];   /* d may be a */
#define SHFL_LANES(MODE)                                                             \
    for (int l = 0; l < WARP_SIZE; l++) {                                            \
        int ok, j = shfl_src(MODE, l, bval, cval, seg, &ok);                         \
        d[l] = src[ok ? j : l];                                                      \
        pv |= (uint32_t)ok << l;                                                     \
    }
    switch (mode) {   /* one loop a mode, so that none tests the mode per lane */
    case SH_UP:   SHFL_LANES(SH_UP) break;
    case SH_DOWN: SHFL_LANES(SH_DOWN) break;
    case SH_BFLY: SHFL_LANES(SH_BFLY) break;
    default:      SHFL_LANES(SH_IDX) break;
    }
#undef SHFL_LANES
    w->P[in->d[1]] = pv;
    return 1;
}

static inline int shfl_run(Warp *w, const Inst *in, uint32_t mask, int mode)
{
    if (mask == FULL_MASK && shfl_full_uniform(w, in, mode)) return STEP_NEXT;
    CONVERGE(all_members(w, in->s[3], mask), PRED_D1);
    sync_ub(w, in->s[3], mask, "shfl.sync");   /* the source lanes are the executing ones anyway */
    const uint64_t *a = ROW(w, in->s[0]), *b = ROW(w, in->s[1]), *c = ROW(w, in->s[2]);
    uint64_t *d = ROW(w, in->d[0]);
    uint32_t src[WARP_SIZE], out[WARP_SIZE], pv = 0;
    for (int l = 0; l < WARP_SIZE; l++) src[l] = (uint32_t)a[l];   /* d may be a */
    FOR_LANES(mask, l) {
        int ok, j = shfl_src(mode, l, (int)(b[l] & 31), (int)(c[l] & 31), (int)((c[l] >> 8) & 31), &ok);
        out[l] = !ok ? src[l] : (mask >> j & 1) ? src[j] : 0;
        pv |= (uint32_t)ok << l;
    }
    FOR_LANES(mask, l) d[l] = out[l];
    set_pred(w, in->d[1], mask, pv);
    return STEP_NEXT;
}

static int shfl_up(Warp *w, const Inst *in, uint32_t m) { return shfl_run(w, in, m, SH_UP); }
static int shfl_down(Warp *w, const Inst *in, uint32_t m) { return shfl_run(w, in, m, SH_DOWN); }
static int shfl_bfly(Warp *w, const Inst *in, uint32_t m) { return shfl_run(w, in, m, SH_BFLY); }
static int shfl_idx(Warp *w, const Inst *in, uint32_t m) { return shfl_run(w, in, m, SH_IDX); }
/* the compiled tier writes a whole warp's shuffle of one offset and clamp inline (jit/compile.c's
 * emit_shfl: shfl_src's formula, t[0] the mode as SH_*) and calls these for anything else */
JIT_OP(shfl_up, "SHFL", "0", "", "", "", "", "")
JIT_OP(shfl_down, "SHFL", "1", "", "", "", "", "")
JIT_OP(shfl_bfly, "SHFL", "2", "", "", "", "", "")
JIT_OP(shfl_idx, "SHFL", "3", "", "", "", "", "")

const char *bind_shfl(Inst *in, const InstDesc *d)
{
    if (!desc_has(d, MOD_SYNC)) return "shfl without .sync is not supported on sm_70 and later";
    int t = d->types[0];
    if (t != TY_B32 && t != TY_U32 && t != TY_S32 && t != TY_F32) return "shfl needs .b32";
    if (d->nd < 1 || d->ns < 4) return "shfl.sync needs d[|p], a, b, c, membermask";
    if (d->nd < 2) in->d[1] = PRED_SINK;
    if ((d->src_imm_mask & 0xe) == 0xe) in->aux8 = SHFL_IMM;
    if (desc_has(d, MOD_UP)) in->fn = shfl_up;
    else if (desc_has(d, MOD_DOWN)) in->fn = shfl_down;
    else if (desc_has(d, MOD_BFLY)) in->fn = shfl_bfly;
    else if (desc_has(d, MOD_IDX)) in->fn = shfl_idx;
    else return "shfl needs .up, .down, .bfly or .idx";
    return NULL;
}

/* ---- vote.sync.{all,any,uni}.pred d, a, membermask; vote.sync.ballot.b32 d, a, mask ---- */

static inline uint32_t vote_in(Warp *w, const Inst *in)
{
    return w->P[in->s[0]] ^ ((in->flags & IF_NEG_C) ? 0xffffffffu : 0);
}

#define DEF_VOTE(NAME, RESULT)                                                       \
    static int vote_##NAME(Warp *w, const Inst *in, uint32_t mask)                   \
    {                                                                                \
        const char *op_name = "vote.sync." #NAME;                                   \
        CONVERGE(all_members(w, in->s[1], mask), PRED_S0 | PRED_D0);                                    \
        FOR_GROUPS(in->s[1], lanes, grp) {                                           \
            uint32_t t = vote_in(w, in) & grp;                                       \
            set_pred(w, in->d[0], lanes, (RESULT) ? lanes : 0);                      \
        }                                                                            \
        return STEP_NEXT;                                                            \
    }
DEF_VOTE(all, t == grp)
DEF_VOTE(any, t != 0)
DEF_VOTE(uni, t == grp || t == 0)

static int vote_ballot(Warp *w, const Inst *in, uint32_t mask)
{
    const char *op_name = "vote.sync.ballot";
    CONVERGE(all_members(w, in->s[1], mask), PRED_S0);
    uint64_t *d = ROW(w, in->d[0]);
    FOR_GROUPS(in->s[1], lanes, grp) {
        uint32_t t = vote_in(w, in) & grp;
        FOR_LANES(lanes, l) d[l] = t;
    }
    return STEP_NEXT;
}

const char *bind_vote(Inst *in, const InstDesc *d)
{
    if (!desc_has(d, MOD_SYNC)) return "vote without .sync is not supported on sm_70 and later";
    if (d->nd < 1 || d->ns < 2) return "vote.sync needs d, a, membermask";
    int ballot = desc_has(d, MOD_BALLOT);
    int t = d->types[0];
    if (ballot ? (t != TY_B32 && t != TY_U32) : t != TY_PRED)
        return ballot ? "vote.ballot needs .b32" : "vote.all/.any/.uni need .pred";
    if (ballot) in->fn = vote_ballot;
    else if (desc_has(d, MOD_ALL)) in->fn = vote_all;
    else if (desc_has(d, MOD_ANY)) in->fn = vote_any;
    else if (desc_has(d, MOD_UNI)) in->fn = vote_uni;
    else return "vote needs .all, .any, .uni or .ballot";
    return NULL;
}

/* ---- match.any.sync.bN d, a, membermask; match.all.sync.bN d[|p], a, membermask ---- */

#define DEF_MATCH(T)                                                                 \
    static int match_any_##T(Warp *w, const Inst *in, uint32_t mask)                 \
    {                                                                                \
        const char *op_name = "match.any.sync";                                     \
        CONVERGE(all_members(w, in->s[1], mask), 0);                                    \
        const uint64_t *a = ROW(w, in->s[0]);                                        \
        uint64_t *d = ROW(w, in->d[0]);                                              \
        FOR_GROUPS(in->s[1], lanes, grp) {                                           \
            uint32_t res[WARP_SIZE] = {0};                                           \
            for (uint32_t todo = grp; todo;) {  /* one pass per distinct value */    \
                T v = (T)a[__builtin_ctz(todo)];                                     \
                uint32_t eq = 0;                                                     \
                FOR_LANES(todo, k) if ((T)a[k] == v) eq |= 1u << k;                  \
                FOR_LANES(eq, k) res[k] = eq;                                        \
                todo &= ~eq;                                                         \
            }                                                                        \
            FOR_LANES(lanes, l) d[l] = res[l];                                       \
        }                                                                            \
        return STEP_NEXT;                                                            \
    }                                                                                \
    static int match_all_##T(Warp *w, const Inst *in, uint32_t mask)                 \
    {                                                                                \
        const char *op_name = "match.all.sync";                                     \
        CONVERGE(all_members(w, in->s[1], mask), PRED_D1);                                    \
        const uint64_t *a = ROW(w, in->s[0]);                                        \
        uint64_t *d = ROW(w, in->d[0]);                                              \
        FOR_GROUPS(in->s[1], lanes, grp) {                                           \
            T v = (T)a[__builtin_ctz(lanes)];                                        \
            uint32_t same = 1;                                                       \
            FOR_LANES(grp, l) same &= (T)a[l] == v;                                  \
            FOR_LANES(lanes, l) d[l] = same ? grp : 0;                               \
            set_pred(w, in->d[1], lanes, same ? lanes : 0);                          \
        }                                                                            \
        return STEP_NEXT;                                                            \
    }
DEF_MATCH(uint32_t)
DEF_MATCH(uint64_t)

const char *bind_match(Inst *in, const InstDesc *d)
{
    if (!desc_has(d, MOD_SYNC)) return "match needs .sync";
    if (d->nd < 1 || d->ns < 2) return "match.sync needs d, a, membermask";
    int t = d->types[0], wide;
    if (t == TY_B32 || t == TY_U32 || t == TY_S32) wide = 0;
    else if (t == TY_B64 || t == TY_U64 || t == TY_S64) wide = 1;
    else return "match needs .b32 or .b64";
    if (desc_has(d, MOD_ANY)) {
        if (d->nd > 1) return "match.any has no predicate destination";
        in->fn = wide ? match_any_uint64_t : match_any_uint32_t;
    } else if (desc_has(d, MOD_ALL)) {
        if (d->nd < 2) in->d[1] = PRED_SINK;
        in->fn = wide ? match_all_uint64_t : match_all_uint32_t;
    } else {
        return "match needs .any or .all";
    }
    return NULL;
}

/* ---- redux.sync.op.type d, a, membermask (32-bit integers) ---- */

#define DEF_REDUX(NAME, T, INIT, COMBINE)                                            \
    static int redux_##NAME(Warp *w, const Inst *in, uint32_t mask)                  \
    {                                                                                \
        const char *op_name = "redux.sync";                                         \
        CONVERGE(all_members(w, in->s[1], mask), 0);                                    \
        const uint64_t *a = ROW(w, in->s[0]);                                        \
        uint64_t *d = ROW(w, in->d[0]);                                              \
        FOR_GROUPS(in->s[1], lanes, grp) {                                           \
            T acc = (INIT);                                                          \
            FOR_LANES(grp, l) {                                                      \
                T x = (T)a[l];                                                       \
                acc = (COMBINE);                                                     \
            }                                                                        \
            FOR_LANES(lanes, l) d[l] = (uint32_t)acc;                                \
        }                                                                            \
        return STEP_NEXT;                                                            \
    }
DEF_REDUX(add, uint32_t, 0, acc + x)
DEF_REDUX(min_u32, uint32_t, UINT32_MAX, x < acc ? x : acc)
DEF_REDUX(max_u32, uint32_t, 0, x > acc ? x : acc)
DEF_REDUX(min_s32, int32_t, INT32_MAX, x < acc ? x : acc)
DEF_REDUX(max_s32, int32_t, INT32_MIN, x > acc ? x : acc)
DEF_REDUX(and, uint32_t, UINT32_MAX, acc & x)
DEF_REDUX(or, uint32_t, 0, acc | x)
DEF_REDUX(xor, uint32_t, 0, acc ^ x)

const char *bind_redux(Inst *in, const InstDesc *d)
{
    if (!desc_has(d, MOD_SYNC)) return "redux needs .sync";
    if (d->nd < 1 || d->ns < 2) return "redux.sync needs d, a, membermask";
    int t = d->types[0];
    if (t == TY_F32) return "redux.sync on .f32 needs sm_100a (this emulator is sm_90)";
    int is_s = t == TY_S32, is_int = t == TY_U32 || t == TY_S32 || t == TY_B32;
    if (!is_int) return "redux.sync needs .u32, .s32 or .b32";
    if (desc_has(d, MOD_ADD)) in->fn = redux_add;
    else if (desc_has(d, MOD_MIN)) in->fn = is_s ? redux_min_s32 : redux_min_u32;
    else if (desc_has(d, MOD_MAX)) in->fn = is_s ? redux_max_s32 : redux_max_u32;
    else if (desc_has(d, MOD_AND)) in->fn = redux_and;
    else if (desc_has(d, MOD_OR)) in->fn = redux_or;
    else if (desc_has(d, MOD_XOR)) in->fn = redux_xor;
    else return "redux needs .add .min .max .and .or or .xor";
    return NULL;
}

/* ---- activemask.b32 d: the lanes executing this instruction ---- */

static int h_activemask(Warp *w, const Inst *in, uint32_t mask)
{
    uint64_t *d = ROW(w, in->d[0]);
    FOR_LANES(mask, l) d[l] = mask;
    return STEP_NEXT;
}

const char *bind_activemask(Inst *in, const InstDesc *d)
{
    if (d->nd < 1) return "activemask needs a destination";
    in->fn = h_activemask;
    return NULL;
}
