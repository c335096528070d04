/* exec_async.c - the instructions of the asynchronous machinery and of clusters: cp.async
 * and its groups, bulk and tensor copies, bulk reductions, st.async/red.async (all queued
 * on the asynchronous engine, async.c), mbarrier.*, mapa, getctarank, elect,
 * griddepcontrol, setmaxnreg, createpolicy. Operands are checked when the instruction is
 * issued, so misuse faults at its PTX line. */
#include <stdio.h>
#include <string.h>
#include "async.h"
#include "asyncop.h"
#include "exec.h"
#include "fp.h"
#include "memory.h"
#include "scheduler.h"
#include "tma.h"
#include "observe.h"

/* Inst fields for this family: space = destination space, cmp = source space,
 * bop = ARED_* reduction, t = element type, vec = tensor dimensions, aux8 = CPF_* flags. */
enum { CPF_SRCSIZE = 1, CPF_IGNORE = 2, CPF_MULTICAST = 4, CPF_CPMASK = 8, CPF_IM2COL = 16,
       CPF_NOINC = 32 };

#define RANK_MASK ((1ull << CLUSTER_RANK_SHIFT) - 1)

static uint64_t rowv(Warp *w, uint32_t row, int l) { return ROW(w, row)[l]; }
static uint64_t addr0(Warp *w, const Inst *in, int l) { return rowv(w, in->base, l) + (uint64_t)in->imm; }

static int bad_code(Warp *w, int l, const Inst *in, int code, const char *fmt,
                    unsigned long long a, unsigned long long b)
{
    char msg[300];
    snprintf(msg, sizeof msg, fmt, a, b);
    return warp_fault(w, l, code, "%s: %s", op_info[in->op].name, msg);
}

static int bad(Warp *w, int l, const Inst *in, const char *fmt, unsigned long long a,
               unsigned long long b)
{
    return bad_code(w, l, in, EMU_ERR_ILLEGAL_INSTRUCTION, fmt, a, b);
}

/* ---- mbarrier -------------------------------------------------------------------------- */

enum { MB_INIT, MB_INVAL, MB_ARRIVE, MB_ARRIVE_DROP, MB_EXPECT_TX, MB_COMPLETE_TX, MB_TEST,
       MB_TRY, MB_PENDING_COUNT };

/* touch: for the race detector, the instruction reads (MB_TOUCH_READ) or writes
 * (MB_TOUCH_WRITE) the mbarrier object: init and inval plainly, the others as the atomic
 * operations they are, so an init that other threads' arrivals or waits do not come after
 * is a race. */
enum { MB_TOUCH_NONE, MB_TOUCH_READ, MB_TOUCH_WRITE };

static inline __attribute__((always_inline)) uint64_t *mbar_at_touch(Warp *w, const Inst *in, int l,
                                                                     int need_init, int touch, uint32_t obs)
{
    uint64_t a = addr0(w, in, l);
    uint64_t *m = mem_lane_ptr(w, in->space ? in->space : SP_GENERIC, a, 8, 8, l, ACC_ATOMIC);
    if (m && touch && OBSERVING(obs, OBS_SYNC)) {
        OBSERVE(obs, mbar_touch, w, in, l, (uint8_t *)m, touch == MB_TOUCH_WRITE);
        if (touch == MB_TOUCH_WRITE && need_init && !(*m & MB_VALID))
            OBSERVE(obs, mbar_uninit, w, in, l, (const uint8_t *)m);
    }
    if (m && need_init && !(*m & MB_VALID)) {
        warp_fault(w, l, EMU_ERR_ILLEGAL_INSTRUCTION, "mbarrier at 0x%llx is not initialised "
                   "(or was invalidated)", (unsigned long long)a);
        return NULL;
    }
    return m;
}

static uint64_t *mbar_at(Warp *w, const Inst *in, int l, int need_init)
{
    return mbar_at_touch(w, in, l, need_init, MB_TOUCH_NONE, 0);
}

/* Each handler that tells the tools something comes in a plain and an observed variant
 * (observe.h: OBS_VARIANTS); `obs` is 0 in the plain one. */
static inline __attribute__((always_inline)) int mb_init(Warp *w, const Inst *in, uint32_t mask, const int V)
{
    uint32_t obs = OBS_IF(V, w->launch->obs);
    FOR_LANES(mask, l) {
        uint64_t *m = mbar_at_touch(w, in, l, 0, MB_TOUCH_WRITE, obs);
        uint64_t n = rowv(w, in->s[0], l) & 0xffffffffu;
        if (!m) return STEP_FAULT;
        if (n < 1 || n > MB_MAXCOUNT) return bad(w, l, in, "count %llu is outside 1..%llu", n, MB_MAXCOUNT);
        *m = MB_VALID | n << 20 | n;
        OBSERVE(obs, mbar_init, w, m);
    }
    return STEP_NEXT;
}
OBS_VARIANTS(mb_init)

static inline __attribute__((always_inline)) int mb_inval(Warp *w, const Inst *in, uint32_t mask, const int V)
{
    uint32_t obs = OBS_IF(V, w->launch->obs);
    FOR_LANES(mask, l) {
        uint64_t *m = mbar_at_touch(w, in, l, 0, MB_TOUCH_WRITE, obs);
        if (!m) return STEP_FAULT;
        *m = 0;
    }
    return STEP_NEXT;
}
OBS_VARIANTS(mb_inval)

/* arrive / arrive_drop, with a count or an expected transaction count; lanes in order */
static inline __attribute__((always_inline)) int mb_arrive_common(Warp *w, const Inst *in, uint32_t mask,
                                                                  int drop, const int V)
{
    int expect = in->aux8 & 1, nocomplete = in->aux8 & 2;
    uint32_t obs = OBS_IF(V, w->launch->obs);
    FOR_LANES(mask, l) {
        uint64_t *m = mbar_at_touch(w, in, l, 1, MB_TOUCH_WRITE, obs);
        if (!m) return STEP_FAULT;
        OBSERVE(obs, mbar_use, w, l, (const uint8_t *)m);
        OBSERVE(obs, mbar_arrive, w, in, m);
        uint64_t v = *m, count = 1;
        if (in->ns && !expect) count = rowv(w, in->s[0], l) & 0xffffffffu;
        if (expect) {
            int64_t tx = mbar_tx(v) + (int64_t)(rowv(w, in->s[0], l) & 0xffffffffu);
            if (tx > MB_MAXCOUNT)   /* the H100 fails the launch (cudaErrorLaunchFailure) */
                return bad_code(w, l, in, EMU_ERR_LAUNCH_FAILURE, "transaction count overflows (%llu > %llu)", (unsigned long long)tx, (unsigned long long)MB_MAXCOUNT);
            mbar_add_tx(m, (int32_t)(rowv(w, in->s[0], l) & 0xffffffffu));
        }
        if (count == 0 || count > MB_PENDING(*m))
            return bad(w, l, in, "arrival count %llu exceeds the %llu pending arrivals", count, MB_PENDING(*m));
        if (drop) *m -= count << 20;   /* later phases expect fewer arrivals */
        *m -= count;
        if (nocomplete && !MB_PENDING(*m) && !mbar_tx(*m))
            return bad(w, l, in, ".noComplete arrival would complete the phase (%llu of %llu "
                       "arrivals)", MB_EXPECTED(*m), MB_EXPECTED(*m));
        mbar_try_flip(m);
        OBSERVE(obs, mbar_sync, w->launch, m);
        if (in->nd && in->d[0] != ROW_SINK) ROW(w, in->d[0])[l] = v & ~MB_DONE;
    }
    return STEP_NEXT;
}

static inline __attribute__((always_inline)) int mb_arrive(Warp *w, const Inst *in, uint32_t mask, const int V)
{
    return mb_arrive_common(w, in, mask, 0, V);
}
OBS_VARIANTS(mb_arrive)
static inline __attribute__((always_inline)) int mb_arrive_drop(Warp *w, const Inst *in, uint32_t mask, const int V)
{
    return mb_arrive_common(w, in, mask, 1, V);
}
OBS_VARIANTS(mb_arrive_drop)

static inline __attribute__((always_inline)) int mb_tx(Warp *w, const Inst *in, uint32_t mask, const int V)
{
    int complete_tx = in->aux8 & 4;
    uint32_t obs = OBS_IF(V, w->launch->obs);
    FOR_LANES(mask, l) {
        uint64_t *m = mbar_at_touch(w, in, l, 1, MB_TOUCH_WRITE, obs);
        if (!m) return STEP_FAULT;
        int64_t d = (int64_t)(rowv(w, in->s[0], l) & 0xffffffffu);
        int64_t tx = mbar_tx(*m) + (complete_tx ? -d : d);
        if (tx > MB_MAXCOUNT || tx < -MB_MAXCOUNT)   /* cudaErrorLaunchFailure on the H100 */
            return bad_code(w, l, in, EMU_ERR_LAUNCH_FAILURE, "transaction count out of range (%llu, %llu allowed)", (unsigned long long)tx, (unsigned long long)MB_MAXCOUNT);
        mbar_add_tx(m, (int32_t)(complete_tx ? -d : d));
        mbar_try_flip(m);
        OBSERVE(obs, mbar_sync, w->launch, m);
    }
    return STEP_NEXT;
}
OBS_VARIANTS(mb_tx)

/* test_wait/try_wait: with a state, the phase it was taken in must be over; with .parity,
 * the phase of that parity. A try_wait that fails first lets the engine complete what
 * signals mbarriers (the latest moment it may), then yields the warp's turn. */
static inline __attribute__((always_inline)) int mb_wait(Warp *w, const Inst *in, uint32_t mask, const int V)
{
    int parity = in->aux8 & 8;
    uint32_t obs = OBS_IF(V, w->launch->obs);
    uint32_t done = 0;
    uint64_t *mb[WARP_SIZE];
    for (int pass = 0; pass < 2; pass++) {
        done = 0;
        FOR_LANES(mask, l) {
            uint64_t *m = mb[l] = mbar_at_touch(w, in, l, 0, MB_TOUCH_READ, obs);
            if (!m) return STEP_FAULT;
            if (!(*m & MB_VALID))   /* the H100 reads the invalidated word as phase 0 */
                warp_warn(w, l, "waiting on an mbarrier that is not initialised or was "
                          "invalidated (undefined behaviour)");
            uint64_t s = rowv(w, in->s[0], l);
            uint64_t want = parity ? (s & 1) : (s >> 62 & 1);
            if ((*m >> 62 & 1) != want) done |= 1u << l;
            if (parity && want && !(*m & (MB_DONE | MB_PHASE)) && !w->fresh_mbar) {
                w->fresh_mbar = m;
                w->fresh_pc = w->pc;
            }
        }
        /* a wait that would fail (test_wait in a polling loop too) is the latest legal
         * moment for what signals mbarriers */
        if (done == mask || pass) break;
        if (async_force_mbarriers(w)) return STEP_FAULT;
    }
    uint32_t *p = &w->P[in->d[0]];
    *p = (*p & ~mask) | done;
    /* the race detector: a lane that observed a completed phase acquires its arrivals */
    if (OBSERVING(obs, OBS_SYNC))
        FOR_LANES(done, l) OBSERVE(obs, mbar_waited, w, in, l, mb[l], parity ? 1 : 0);
    if (done == mask) return STEP_NEXT;
    int l = __builtin_ctz(mask & ~done);
    w->spin_mbar = mb[l];
    w->spin_parity = parity ? (uint32_t)(rowv(w, in->s[0], l) & 1) : 2;
    w->spin_pc = w->pc;
    w->spin = 1;
    w->pc++;
    return STEP_YIELD;
}
OBS_VARIANTS(mb_wait)

static int mb_pending_count(Warp *w, const Inst *in, uint32_t mask)
{
    uint64_t *d = ROW(w, in->d[0]);
    const uint64_t *s = ROW(w, in->s[0]);
    FOR_LANES(mask, l) d[l] = MB_PENDING(s[l]);
    return STEP_NEXT;
}

const char *bind_mbarrier(Inst *in, const InstDesc *d)
{
    in->space = (uint8_t)(d->nspaces ? d->spaces[0] : SP_NONE);
    if (in->space && in->space != SP_SHARED && in->space != SP_SHARED_CLUSTER)
        return "mbarrier objects live in shared memory";
    int cluster = in->space == SP_SHARED_CLUSTER;
    in->aux8 = (uint8_t)(desc_has(d, MOD_EXPECT_TX) | desc_has(d, MOD_NOCOMPLETE) << 1 |
                         desc_has(d, MOD_COMPLETE_TX) << 2 | desc_has(d, MOD_PARITY) << 3 |
                         desc_has(d, MOD_TRY_WAIT) << 4);
    uint32_t obs = d->obs;
    int remote_ok = 0;   /* the forms that take a .shared::cluster barrier */
    if (desc_has(d, MOD_INIT)) { if (d->ns != 1) return "mbarrier.init takes [addr], count"; in->fn = OBS_PICK(obs, OBS_SYNC, mb_init); }
    else if (desc_has(d, MOD_INVAL)) in->fn = OBS_PICK(obs, OBS_SYNC, mb_inval);
    else if (desc_has(d, MOD_ARRIVE_DROP)) { in->fn = OBS_PICK(obs, OBS_SYNC, mb_arrive_drop); remote_ok = 1; }
    else if (desc_has(d, MOD_ARRIVE)) { in->fn = OBS_PICK(obs, OBS_SYNC, mb_arrive); remote_ok = 1; }
    else if (desc_has(d, MOD_EXPECT_TX) || desc_has(d, MOD_COMPLETE_TX)) {
        if (d->ns != 1) return "expect_tx/complete_tx take [addr], txCount";
        in->fn = OBS_PICK(obs, OBS_SYNC, mb_tx);
        remote_ok = 1;
    } else if (desc_has(d, MOD_TEST_WAIT) || desc_has(d, MOD_TRY_WAIT)) {
        if (cluster) return "test_wait/try_wait need a barrier of the own CTA (.shared::cta)";
        if (d->nd != 1 || d->ns < 1) return "test_wait/try_wait take p, [addr], state";
        in->fn = OBS_PICK(obs, OBS_SYNC, mb_wait);
    } else if (desc_has(d, MOD_PENDING_COUNT)) {
        if (d->nd != 1 || d->ns != 1) return "pending_count takes d, state";
        in->fn = mb_pending_count;
    } else
        return "unknown mbarrier operation";
    if (cluster && !remote_ok)
        return "only arrive, arrive_drop, expect_tx and complete_tx take a .shared::cluster barrier";
    return NULL;
}

/* ---- cp.async (non-bulk) ------------------------------------------------------------------ */

static inline __attribute__((always_inline)) int cp_async(Warp *w, const Inst *in, uint32_t mask, const int V)
{
    uint32_t obs = OBS_IF(V, w->launch->obs);
    FOR_LANES(mask, l) {
        uint32_t size = (uint32_t)rowv(w, in->s[1], l), src_size = size;
        if (size != 4 && size != 8 && size != 16) return bad(w, l, in, "cp-size %llu is not 4, 8 or 16 (%llu)", size, size);
        if (in->t2 == 1 && size != 16) return bad(w, l, in, ".cg needs cp-size 16 (got %llu, %llu)", size, size);
        if (in->aux8 & CPF_SRCSIZE) src_size = (uint32_t)rowv(w, in->s[2], l);
        if ((in->aux8 & CPF_IGNORE) && (w->P[in->s[2]] >> l & 1)) src_size = 0;
        if (src_size > size) return bad(w, l, in, "src-size %llu exceeds cp-size %llu", src_size, size);
        uint8_t *dst = mem_lane_ptr(w, in->space, addr0(w, in, l), size, size, l, ACC_WRITE);
        if (!dst) return STEP_FAULT;
        const uint8_t *src = NULL;
        uint64_t sa = rowv(w, in->s[0], l);
        if (src_size && !(src = mem_lane_ptr(w, in->cmp, sa, src_size, size, l, ACC_READ))) return STEP_FAULT;
        AsyncOp *op = async_push(w, l, AOP_CPASYNC);
        if (!op) return warp_fault(w, l, EMU_ERR_MEMORY_ALLOCATION, "out of host memory");
        op->dst = dst; op->src = src; op->size = size; op->src_size = src_size;
        OBSERVE(obs, async_issue, w, l, dst, size);
        op->group_kind = GROUP_CPASYNC;
        op->group = w->cpa_group[l];
    }
    return STEP_NEXT;
}
OBS_VARIANTS(cp_async)

static int cp_commit(Warp *w, const Inst *in, uint32_t mask)
{
    uint32_t *g = in->aux8 ? w->bulk_group : w->cpa_group;
    FOR_LANES(mask, l) g[l]++;
    return STEP_NEXT;
}

/* wait_group N: every group but the newest N is complete; completing them now is the
 * latest legal moment */
static inline __attribute__((always_inline)) int cp_wait(Warp *w, const Inst *in, uint32_t mask, const int V)
{
    int bulk = in->aux8 & 1, all = in->aux8 & 2;
    uint32_t obs = OBS_IF(V, w->launch->obs);
    uint32_t *g = bulk ? w->bulk_group : w->cpa_group;
    FOR_LANES(mask, l) {
        if (all) g[l]++;
        uint32_t n = all ? 0 : (uint32_t)rowv(w, in->s[0], l);
        if (g[l] > n && async_force_groups(w, l, bulk ? GROUP_BULK : GROUP_CPASYNC, g[l] - n))
            return STEP_FAULT;
        /* the sources of the retired bulk groups may be written again */
        if (bulk && g[l] > n) OBSERVE(obs, async_read_waited, w, l, g[l] - n);
    }
    /* the waiting thread now sees what the groups wrote (a bulk store's global bytes too);
     * .read only says the sources were read */
    if (!(in->aux8 & 4)) OBSERVE(obs, async_acquire, w);
    return STEP_NEXT;
}
OBS_VARIANTS(cp_wait)

static int cp_mbar_arrive(Warp *w, const Inst *in, uint32_t mask)
{
    FOR_LANES(mask, l) {
        uint64_t *m = mbar_at(w, in, l, 1);
        if (!m) return STEP_FAULT;
        if (!(in->aux8 & CPF_NOINC)) {
            if (MB_PENDING(*m) >= MB_MAXCOUNT) return bad(w, l, in, "pending count overflows (%llu of %llu)", MB_MAXCOUNT, MB_MAXCOUNT);
            *m += 1;   /* the asynchronous arrive will take it back */
        }
        AsyncOp *op = async_push(w, l, AOP_CPASYNC_ARRIVE);
        if (!op) return warp_fault(w, l, EMU_ERR_MEMORY_ALLOCATION, "out of host memory");
        op->mbar = m;
    }
    return STEP_NEXT;
}

/* ---- bulk copies and reductions -------------------------------------------------------- */

/* The shared memory a shared::cluster (or shared::cta) destination points at, and the
 * CTA-relative offset multicast repeats in every CTA of the mask. */
static uint8_t *shared_range(Warp *w, int space, uint64_t a, uint32_t size, uint32_t align,
                             int l, int acc, uint32_t *off)
{
    if (space == SP_GENERIC || space == SP_NONE) {
        if (a - SHARED_WINDOW >= WINDOW_SIZE) {
            warp_fault(w, l, EMU_ERR_ILLEGAL_ADDRESS, "generic address 0x%llx is not in shared "
                       "memory", (unsigned long long)a);
            return NULL;
        }
        a -= SHARED_WINDOW;
        space = SP_SHARED_CLUSTER;
    }
    if (off) *off = (uint32_t)(a & RANK_MASK);
    return mem_lane_ptr(w, space, a, size, align, l, acc);
}

static int check_mask(Warp *w, int l, const Inst *in, uint32_t cta_mask)
{
    uint32_t n = w->cta->cluster->n;
    if (!cta_mask || (n < 16 && cta_mask >> n))   /* cudaErrorLaunchFailure on the H100 */
        return bad_code(w, l, in, EMU_ERR_LAUNCH_FAILURE, "ctaMask 0x%llx names CTAs outside the cluster of %llu", cta_mask, n);
    return 0;
}

static int multicast_targets(Warp *w, int l, const Inst *in, AsyncOp *op)
{
    Cluster *cl = w->cta->cluster;
    for (uint32_t r = 0; r < cl->n; r++)
        if (op->cta_mask >> r & 1) {
            if ((uint64_t)op->dst_off + op->size > cl->ctas[r]->shared_size ||
                (op->mbar && (uint64_t)op->mbar_off + 8 > cl->ctas[r]->shared_size))
                return bad(w, l, in, "multicast destination runs past the shared memory of CTA rank %llu of %llu", r, cl->n);
        }
    return 0;
}

/* A multicast copy will write every CTA of its mask: one issue event each. */
static void issue_multicast(Warp *w, int l, const AsyncOp *op, uint32_t size, uint32_t obs)
{
    Cluster *cl = w->cta->cluster;
    for (uint32_t r = 0; r < cl->n; r++)
        if (op->cta_mask >> r & 1) OBSERVE(obs, async_issue, w, l, cl->ctas[r]->shared + op->dst_off, size);
}

/* cp.async.bulk and cp.reduce.async.bulk: [dst], [src], size{, [mbar]}{, ctaMask}... */
static inline __attribute__((always_inline)) int cp_bulk(Warp *w, const Inst *in, uint32_t mask, const int V)
{
    int reduce = in->op == OP_cp && in->bop != 0xff, to_global = in->space == SP_GLOBAL;
    uint32_t obs = OBS_IF(V, w->launch->obs);
    FOR_LANES(mask, l) {
        uint64_t da = addr0(w, in, l), sa = rowv(w, in->s[0], l);
        uint32_t size = (uint32_t)rowv(w, in->s[1], l);
        if (size % 16) {
            /* undefined; measured on an H100: no fault, the whole 16-byte units are copied
             * and counted, so a barrier expecting `size` bytes never completes */
            warp_warn(w, l, "bulk copy size %u is not a multiple of 16 (undefined behaviour: "
                      "only %u bytes are copied and signalled)", size, size & ~15u);
            size &= ~15u;
        }
        if (da % 16 || sa % 16)
            return bad_code(w, l, in, EMU_ERR_MISALIGNED_ADDRESS, "addresses must be 16-byte aligned (dst 0x%llx, src 0x%llx)", da, sa);
        AsyncOp *op = async_push(w, l, reduce ? AOP_BULK_REDUCE : AOP_BULK);
        if (!op) return warp_fault(w, l, EMU_ERR_MEMORY_ALLOCATION, "out of host memory");
        op->size = size;
        op->byte_mask = 0xffff;
        op->redop = in->bop; op->rtype = in->t;
        if (!(op->src = in->cmp == SP_GLOBAL ? mem_lane_ptr(w, SP_GLOBAL, sa, size, 16, l, ACC_READ)
                                             : shared_range(w, in->cmp, sa, size, 16, l, ACC_READ, NULL)))
            return STEP_FAULT;
        if (to_global) {
            if (!(op->dst = mem_lane_ptr(w, SP_GLOBAL, da, size, 16, l, ACC_WRITE))) return STEP_FAULT;
            OBSERVE(obs, async_read_issue, w, l, op->src, size);
            OBSERVE(obs, async_issue, w, l, op->dst, size);   /* the global bytes are pending */
            op->group_kind = GROUP_BULK;
            op->group = w->bulk_group[l];
            if (in->aux8 & CPF_CPMASK) op->byte_mask = (uint16_t)rowv(w, in->s[in->ns - 1], l);
            continue;
        }
        if (!(op->dst = shared_range(w, in->space, da, size, 16, l, ACC_WRITE, &op->dst_off)))
            return STEP_FAULT;
        uint64_t ma = rowv(w, in->s[2], l);
        if (!(op->mbar = (uint64_t *)shared_range(w, in->space, ma, 8, 8, l, ACC_ATOMIC, &op->mbar_off)))
            return STEP_FAULT;
        if (!(in->aux8 & CPF_MULTICAST)) OBSERVE(obs, async_issue, w, l, op->dst, size);
        OBSERVE(obs, async_mbar_issue, w->launch, op->mbar, &op->tag);
        if (in->aux8 & CPF_MULTICAST) {
            op->cta_mask = (uint16_t)rowv(w, in->s[3], l);
            if (check_mask(w, l, in, (uint32_t)rowv(w, in->s[3], l)) ||
                multicast_targets(w, l, in, op)) return STEP_FAULT;
            if (OBSERVING(obs, OBS_ASYNC)) issue_multicast(w, l, op, size, obs);
        }
    }
    return STEP_NEXT;
}
OBS_VARIANTS(cp_bulk)

/* prefetches only warm caches: nothing to do but accept well-formed operands */
static int cp_prefetch(Warp *w, const Inst *in, uint32_t mask)
{
    (void)w; (void)in; (void)mask;
    return STEP_NEXT;
}

/* ---- tensor copies ----------------------------------------------------------------------- */

static inline __attribute__((always_inline)) int cp_tensor(Warp *w, const Inst *in, uint32_t mask, const int V)
{
    int n = in->vec, load = in->space != SP_GLOBAL;
    uint32_t obs = OBS_IF(V, w->launch->obs);
    FOR_LANES(mask, l) {
        AsyncOp *op = async_push(w, l, AOP_TENSOR);
        if (!op) return warp_fault(w, l, EMU_ERR_MEMORY_ALLOCATION, "out of host memory");
        uint64_t map = load ? rowv(w, in->s[0], l) : addr0(w, in, l);
        const uint8_t *tm = mem_lane_ptr(w, SP_GENERIC, map, TMAP_BYTES, 64, l, ACC_READ);
        if (!tm) return STEP_FAULT;
        memcpy(op->tmap, tm, TMAP_BYTES);
        char err[200];
        if (!tma_valid(op->tmap, err, sizeof err))
            return warp_fault(w, l, EMU_ERR_ILLEGAL_INSTRUCTION, "%s: %s", op_info[in->op].name, err);
        int c0 = load ? 1 : 0;
        for (int k = 0; k < n; k++) op->coords[k] = (int32_t)rowv(w, in->s[c0 + k], l);
        op->ndims = (uint8_t)n;
        op->tmode = (in->aux8 & CPF_IM2COL) ? TMA_MODE_IM2COL : TMA_MODE_TILE;
        op->redop = in->bop;
        op->tdir = load ? TMA_LOAD : in->bop != 0xff ? TMA_REDUCE : TMA_STORE;
        uint32_t bytes = tma_box_bytes(op->tmap);
        if (load) {
            uint64_t da = addr0(w, in, l), ma = rowv(w, in->s[1 + n], l);
            int next = 2 + n;
            if (op->tmode == TMA_MODE_IM2COL)
                for (int k = 0; k < n - 2; k++) op->offsets[k] = (uint16_t)rowv(w, in->s[next++], l);
            if (!(op->dst = shared_range(w, in->space, da, bytes, 128, l, ACC_WRITE, &op->dst_off)) ||
                !(op->mbar = (uint64_t *)shared_range(w, in->space, ma, 8, 8, l, ACC_ATOMIC, &op->mbar_off)))
                return STEP_FAULT;
            op->smem_avail = w->cta->shared_size - (op->dst_off < w->cta->shared_size ? op->dst_off : w->cta->shared_size);
            if (bytes != tma_box_elem_bytes(op->tmap))
                warp_warn(w, l, "interleaved tensor copy: the H100 moves and signals %u bytes for this box "
                          "(a 16/32-byte row per dim-0 coordinate or im2col pixel; dimension rank-2 is not "
                          "walked), not its %u bytes of elements; "
                          "an mbarrier expecting another count completes at random there and never here",
                          bytes, tma_box_elem_bytes(op->tmap));
            if (!(in->aux8 & CPF_MULTICAST)) OBSERVE(obs, async_issue, w, l, op->dst, bytes);
            OBSERVE(obs, async_mbar_issue, w->launch, op->mbar, &op->tag);
            if (in->aux8 & CPF_MULTICAST) {
                op->cta_mask = (uint16_t)rowv(w, in->s[next], l);
                op->size = bytes;
                if (check_mask(w, l, in, (uint32_t)rowv(w, in->s[next], l)) ||
                    multicast_targets(w, l, in, op)) return STEP_FAULT;
                if (OBSERVING(obs, OBS_ASYNC)) issue_multicast(w, l, op, bytes, obs);
            }
        } else {
            uint64_t sa = rowv(w, in->s[n], l);
            uint32_t off;
            if (!(op->dst = shared_range(w, in->cmp, sa, bytes, 128, l, ACC_READ, &off))) return STEP_FAULT;
            OBSERVE(obs, async_read_issue, w, l, op->dst, bytes);
            op->src_off = off;
            op->smem_avail = w->cta->shared_size - (off < w->cta->shared_size ? off : w->cta->shared_size);
            op->group_kind = GROUP_BULK;
            op->group = w->bulk_group[l];
        }
    }
    return STEP_NEXT;
}
OBS_VARIANTS(cp_tensor)

static int red_op_of(const InstDesc *d)
{
    static const int mods[] = { MOD_ADD, MOD_MIN, MOD_MAX, MOD_INC, MOD_DEC, MOD_AND, MOD_OR, MOD_XOR };
    for (int i = 0; i < 8; i++) if (desc_has(d, mods[i])) return i;
    return -1;
}

/* cp.reduce.async.bulk (not .tensor): the .redOp/.type table of PTX ISA 9.7.9.25.4.2, per
 * destination, and .noftz exactly on .add.f16/.bf16 into .global. ptxas (CUDA 13.0, sm_90a)
 * accepts these pairs and no others; the driver refuses the rest as invalid PTX. */
static const char *check_bulk_red_type(int op, int t, int to_global, int noftz)
{
    int half = t == TY_F16 || t == TY_BF16, ok;
    switch (op) {
    case ARED_ADD:
        ok = t == TY_U32 || t == TY_S32 || t == TY_U64 ||
             (to_global && (t == TY_F32 || t == TY_F64 || half));
        break;
    case ARED_MIN: case ARED_MAX:
        ok = t == TY_U32 || t == TY_S32 || (to_global && (t == TY_U64 || t == TY_S64 || half));
        break;
    case ARED_INC: case ARED_DEC: ok = t == TY_U32; break;
    default: ok = t == TY_B32 || (to_global && t == TY_B64); break;
    }
    if (!ok)
        return to_global
            ? "no such reduction into .global (add: u32 s32 u64 f32 f64 f16 bf16; min/max: u32 s32 "
              "u64 s64 f16 bf16; inc/dec: u32; and/or/xor: b32 b64)"
            : "no such reduction into .shared::cluster (add: u32 s32 u64; min/max: u32 s32; "
              "inc/dec: u32; and/or/xor: b32)";
    if (noftz != (op == ARED_ADD && half))
        return noftz ? ".noftz is only for .add.f16 and .add.bf16"
                     : ".add.f16 and .add.bf16 need .noftz";
    return NULL;
}

const char *bind_cp(Inst *in, const InstDesc *d)
{
    if (!desc_has(d, MOD_ASYNC)) return "only the asynchronous cp forms exist";
    int reduce = desc_has(d, MOD_REDUCE), bulk = desc_has(d, MOD_BULK);
    in->space = (uint8_t)(d->nspaces > 0 ? d->spaces[0] : SP_NONE);
    in->cmp = (uint8_t)(d->nspaces > 1 ? d->spaces[1] : SP_NONE);
    in->t = d->ntypes ? d->types[0] : TY_NONE;
    in->bop = 0xff;
    in->aux8 = 0;
    if (desc_has(d, MOD_COMMIT_GROUP)) { in->aux8 = (uint8_t)bulk; in->fn = cp_commit; return NULL; }
    if (desc_has(d, MOD_WAIT_GROUP) || desc_has(d, MOD_WAIT_ALL)) {
        in->aux8 = (uint8_t)(bulk | desc_has(d, MOD_WAIT_ALL) << 1 | desc_has(d, MOD_READ) << 2);
        if (!desc_has(d, MOD_WAIT_ALL) && d->ns != 1) return "wait_group takes N";
        in->fn = OBS_PICK(d->obs, OBS_ASYNC, cp_wait);
        return NULL;
    }
    if (desc_has(d, MOD_PREFETCH)) { in->fn = cp_prefetch; return NULL; }
    if (!bulk && desc_has(d, MOD_MBARRIER)) {
        if (!desc_has(d, MOD_ARRIVE)) return "cp.async.mbarrier needs .arrive";
        in->space = (uint8_t)(in->cmp ? in->cmp : in->space);
        in->aux8 = desc_has(d, MOD_NOINC) ? CPF_NOINC : 0;
        in->fn = cp_mbar_arrive;
        return NULL;
    }
    if (reduce) {
        int op = red_op_of(d);
        if (op < 0) return "cp.reduce needs a reduction operation";
        /* a tensor reduction takes its element type from the tensor map (tma.c checks) */
        const char *msg = desc_has(d, MOD_TENSOR) ? NULL
            : check_bulk_red_type(op, in->t, in->space == SP_GLOBAL, desc_has(d, MOD_NOFTZ));
        if (msg) return msg;
        if (!desc_has(d, MOD_TENSOR) && in->space != SP_GLOBAL && desc_has(d, MOD_L2_CACHE_HINT))
            return ".L2::cache_hint needs a .global destination";
        in->bop = (uint8_t)op;
    }
    if (desc_has(d, MOD_MULTICAST_CLUSTER)) in->aux8 |= CPF_MULTICAST;
    if (desc_has(d, MOD_CP_MASK)) in->aux8 |= CPF_CPMASK;
    if (desc_has(d, MOD_IM2COL)) in->aux8 |= CPF_IM2COL;
    if (desc_has(d, MOD_TENSOR)) {
        if (d->tensor_dims < 1) return "tensor copies need .1d ... .5d";
        in->vec = (uint8_t)d->tensor_dims;
        in->fn = OBS_PICK(d->obs, OBS_ASYNC, cp_tensor);
        return NULL;
    }
    if (bulk) {
        if (in->space != SP_GLOBAL && d->ns < 3) return "bulk copies into shared memory need [mbar]";
        /* ptxas rejects a constant size that is not a multiple of 16 (cudaErrorInvalidPtx) */
        if ((d->src_imm_mask >> 1 & 1) && (d->imm_val[1] % 16 || !d->imm_val[1]))
            return "the size of a bulk copy must be a positive multiple of 16";
        in->fn = OBS_PICK(d->obs, OBS_ASYNC, cp_bulk);
        return NULL;
    }
    /* cp.async.ca/.cg.shared.global [dst], [src], cp-size{, src-size | ignore-src} */
    if (d->ns < 2) return "cp.async takes [dst], [src], cp-size";
    int extra = d->ns - 2 - desc_has(d, MOD_L2_CACHE_HINT);
    if (extra == 1) in->aux8 |= (d->src_pred_mask >> 2 & 1) ? CPF_IGNORE : CPF_SRCSIZE;
    in->t2 = (uint8_t)desc_has(d, MOD_CG);
    if (!in->space) in->space = SP_SHARED;
    if (!in->cmp) in->cmp = SP_GLOBAL;
    in->fn = OBS_PICK(d->obs, OBS_ASYNC, cp_async);
    return NULL;
}

/* ---- st.async / red.async -------------------------------------------------------------- */

static inline __attribute__((always_inline)) int st_async(Warp *w, const Inst *in, uint32_t mask, const int V)
{
    uint32_t obs = OBS_IF(V, w->launch->obs);
    int n = in->vec, es = ptx_type_size(in->t), red = in->op == OP_red_async;
    uint32_t size = (uint32_t)(n * es);
    FOR_LANES(mask, l) {
        uint64_t a = addr0(w, in, l), ma = rowv(w, in->s[n], l);
        AsyncOp *op = async_push(w, l, red ? AOP_RED_ASYNC : AOP_ST_ASYNC);
        if (!op) return warp_fault(w, l, EMU_ERR_MEMORY_ALLOCATION, "out of host memory");
        if (!(op->dst = shared_range(w, SP_SHARED_CLUSTER, a, size, size, l, red ? ACC_ATOMIC : ACC_WRITE, NULL)) ||
            !(op->mbar = (uint64_t *)shared_range(w, SP_SHARED_CLUSTER, ma, 8, 8, l, ACC_ATOMIC, NULL)))
            return STEP_FAULT;
        if ((a ^ ma) >> CLUSTER_RANK_SHIFT)
            return bad(w, l, in, "the data (0x%llx) and the mbarrier (0x%llx) must be in the same CTA", a, ma);
        for (int k = 0; k < n; k++) memcpy(op->value + k * es, &ROW(w, in->s[k])[l], (size_t)es);
        OBSERVE(obs, async_mbar_issue, w->launch, op->mbar, &op->tag);
        op->size = size;
        op->redop = in->bop; op->rtype = in->t;
    }
    return STEP_NEXT;
}
OBS_VARIANTS(st_async)

const char *bind_st_async(Inst *in, const InstDesc *d)
{
    if (d->nspaces && d->spaces[0] != SP_SHARED_CLUSTER)
        return "st.async to global memory (.release.global, .mmio) is an sm_100 form; sm_90 "
               "has st.async.shared::cluster only";
    if (!d->ntypes) return "st.async needs a type";
    in->t = d->types[0];
    in->vec = (uint8_t)d->vec;
    int es = ptx_type_size(in->t);
    if (es != 4 && es != 8) return "st.async stores 32- or 64-bit elements";
    if (d->vec * es > 16) return "st.async stores at most 16 bytes";
    if (d->ns != d->vec + 1) return "st.async takes [addr], value, [mbar]";
    in->bop = 0xff;
    in->fn = OBS_PICK(d->obs, OBS_ASYNC, st_async);
    return NULL;
}

const char *bind_red_async(Inst *in, const InstDesc *d)
{
    int op = red_op_of(d);
    if (!d->ntypes || op < 0) return "red.async needs an operation and a type";
    /* the pairs ptxas (CUDA 13.0, sm_90a) accepts; the driver refuses the rest as invalid PTX */
    int t = d->types[0];
    int ok = op == ARED_ADD ? t == TY_U32 || t == TY_S32 || t == TY_U64 || t == TY_S64
           : op == ARED_MIN || op == ARED_MAX ? t == TY_U32 || t == TY_S32
           : op == ARED_INC || op == ARED_DEC ? t == TY_U32 : t == TY_B32;
    if (!ok)
        return "no such red.async (add: u32 s32 u64 s64; min/max: u32 s32; inc/dec: u32; "
               "and/or/xor: b32)";
    if (d->ns != 2) return "red.async takes [addr], value, [mbar]";
    in->t = d->types[0];
    in->vec = 1;
    in->bop = (uint8_t)op;
    in->fn = OBS_PICK(d->obs, OBS_ASYNC, st_async);
    return NULL;
}

/* ---- clusters: mapa, getctarank; elect ------------------------------------------------------ */

static int h_mapa(Warp *w, const Inst *in, uint32_t mask)
{
    int generic = in->space != SP_SHARED_CLUSTER;
    uint64_t *d = ROW(w, in->d[0]);
    FOR_LANES(mask, l) {
        uint64_t a = rowv(w, in->s[0], l), r = rowv(w, in->s[1], l) & 0xffffffffu;
        if (generic) {
            if (a - SHARED_WINDOW >= WINDOW_SIZE)
                return bad(w, l, in, "0x%llx is not a generic address of shared memory (%llu)", a, a);
            a -= SHARED_WINDOW;
        }
        if (r >= w->cta->cluster->n)
            return bad(w, l, in, "rank %llu is outside the cluster of %llu CTAs", r, w->cta->cluster->n);
        uint64_t v = ((r + 1) << CLUSTER_RANK_SHIFT) | (a & RANK_MASK);
        d[l] = generic ? SHARED_WINDOW + v : (in->t == TY_U32 || in->t == TY_B32 ? (uint32_t)v : v);
    }
    return STEP_NEXT;
}

const char *bind_mapa(Inst *in, const InstDesc *d)
{
    if (d->nd != 1 || d->ns != 2) return "mapa takes d, a, rank";
    in->space = (uint8_t)(d->nspaces ? d->spaces[0] : SP_NONE);
    in->fn = h_mapa;
    return NULL;
}

static int h_getctarank(Warp *w, const Inst *in, uint32_t mask)
{
    uint64_t *d = ROW(w, in->d[0]);
    FOR_LANES(mask, l) {
        uint64_t a = rowv(w, in->s[0], l);
        if (in->space != SP_SHARED_CLUSTER) {
            if (a - SHARED_WINDOW >= WINDOW_SIZE)
                return bad(w, l, in, "0x%llx is not a generic address of shared memory (%llu)", a, a);
            a -= SHARED_WINDOW;
        }
        uint32_t r = (uint32_t)(a >> CLUSTER_RANK_SHIFT) & 0x1f;
        d[l] = r ? r - 1 : w->cta->rank;
    }
    return STEP_NEXT;
}

const char *bind_getctarank(Inst *in, const InstDesc *d)
{
    if (d->nd != 1 || d->ns != 1) return "getctarank takes d, a";
    in->space = (uint8_t)(d->nspaces ? d->spaces[0] : SP_NONE);
    in->fn = h_getctarank;
    return NULL;
}

/* elect.sync d|p, membermask: the lowest executing lane of the mask is the leader */
static int h_elect(Warp *w, const Inst *in, uint32_t mask)
{
    uint32_t members = (uint32_t)rowv(w, in->s[0], __builtin_ctz(mask));
    int r = warp_converge_sync(w, in, mask, members, JOIN_NONE);
    if (r) return r;
    uint32_t out = mask & ~members;
    if (out) warp_sync_outside(w, "elect.sync", out, in->s[0]);
    uint32_t cand = mask & members;
    uint32_t leader = cand ? (uint32_t)__builtin_ctz(cand) : 0;
    uint64_t *d = ROW(w, in->d[0]);
    FOR_LANES(mask, l) d[l] = leader;
    if (in->nd > 1) {
        uint32_t *p = &w->P[in->d[1]];
        *p = (*p & ~mask) | (cand ? 1u << leader : 0);
    }
    return STEP_NEXT;
}

const char *bind_elect(Inst *in, const InstDesc *d)
{
    if (!desc_has(d, MOD_SYNC) || d->ns != 1 || d->nd < 1) return "elect.sync takes d|p, membermask";
    in->fn = h_elect;
    return NULL;
}

/* ---- hints with nothing to do on this machine ---------------------------------------------- */

static int h_none(Warp *w, const Inst *in, uint32_t mask)
{
    (void)w; (void)in; (void)mask;
    return STEP_NEXT;
}

/* Launches run one after another, so the grid a dependent launch waits for has always
 * finished, and allowing dependents early changes nothing. */
const char *bind_griddepcontrol(Inst *in, const InstDesc *d)
{
    if (!desc_has(d, MOD_WAIT) && !desc_has(d, MOD_LAUNCH_DEPENDENTS))
        return "griddepcontrol needs .wait or .launch_dependents";
    in->fn = h_none;
    return NULL;
}

/* Registers are not a finite resource here; the count is still checked as ptxas would. */
static int h_setmaxnreg(Warp *w, const Inst *in, uint32_t mask)
{
    int l = __builtin_ctz(mask);
    uint64_t n = rowv(w, in->s[0], l);
    if (n < 24 || n > 256 || n % 8) return bad(w, l, in, "register count %llu is not a multiple of 8 in 24..%llu", n, 256);
    return STEP_NEXT;
}

const char *bind_setmaxnreg(Inst *in, const InstDesc *d)
{
    if ((!desc_has(d, MOD_INC) && !desc_has(d, MOD_DEC)) || d->ns != 1)
        return "setmaxnreg needs .inc or .dec and a count";
    in->fn = h_setmaxnreg;
    return NULL;
}

/* The policy only steers the L2 cache; instructions that take one accept any value. */
static int h_createpolicy(Warp *w, const Inst *in, uint32_t mask)
{
    uint64_t *d = ROW(w, in->d[0]);
    FOR_LANES(mask, l) d[l] = 0x1000000000000000ull;
    return STEP_NEXT;
}

const char *bind_createpolicy(Inst *in, const InstDesc *d)
{
    if (d->nd != 1) return "createpolicy takes a destination";
    in->fn = h_createpolicy;
    return NULL;
}
