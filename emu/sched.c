/* sched.c - the worker pool, CTA setup, the warp round-robin, and CTA barriers.
 *
 * A launch hands out CTAs in index order through one atomic counter, in small batches; each
 * worker runs its CTA to completion before taking the next, so only resident CTAs hold
 * registers, shared and local memory (memory stays bounded for any grid size). Inside a CTA, warps run in
 * round-robin order, each until it blocks, exits or uses up its time slice.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "scheduler.h"
#include "stop.h"
#include "engine.h"
#include "exec.h"
#include "memory.h"
#include "async.h"
#include "asyncop.h"
#include "events.h"
#include "model.h"
#include "observe.h"
#include "report.h"
#include "kernel.h"

#define SLICE_JUMPS 64   /* backward jumps a warp may take before others get a turn */

/* What one CTA of a worker's resident cluster uses; kept from one cluster to the next. */
typedef struct CtaSlot {
    uint8_t *shared; size_t shared_cap;
    uint64_t *regs; size_t regs_cap;
    uint32_t *preds; size_t preds_cap;
    uint8_t *local; size_t local_cap;
    Warp *warps; size_t warps_cap;
    uint64_t ready_launch;   /* launch whose constant rows the first ready_warps hold */
    uint32_t ready_warps;
} CtaSlot;

typedef struct WorkerBuf {
    CtaSlot slot[MAX_CLUSTER];
    Cta cta[MAX_CLUSTER];
    Cluster cluster;
    AsyncQueue *aq;
} WorkerBuf;

static void *reserve(void **p, size_t *cap, size_t need)
{
    if (need <= *cap) return *p;
    void *n = realloc(*p, need);
    if (!n) return NULL;
    *p = n;
    *cap = need;
    return n;
}

/* ---- barriers ---------------------------------------------------------------------- */

typedef uint32_t u32x4 __attribute__((vector_size(16)));

/* Whether every lane of w is parked (none runs, none exited, no divergence region open) at
 * one pc: a warp whose 32 lanes reached the same __syncthreads. Released, it runs as one
 * group from there (warp_regroup would find that group and no other lanes); the release of
 * such warps inline, without warp_unpark's call and scans, is most of what a barrier costs
 * when barriers come every few instructions (cuda-samples scan). */
static inline int whole_parked(const Warp *w)
{
    if (w->waiting != FULL_MASK || w->alive != FULL_MASK || w->active || w->sp) return 0;
    uint32_t pc = w->lane_pc[0];
    const u32x4 want = { pc, pc, pc, pc };
    u32x4 diff = { 0, 0, 0, 0 };
#pragma GCC unroll 8
    for (int k = 0; k < WARP_SIZE / 4; k++) {
        u32x4 v;
        memcpy(&v, &w->lane_pc[4 * k], sizeof v);
        diff |= v ^ want;
    }
    return !(diff[0] | diff[1] | diff[2] | diff[3]);
}

static void bar_release(Cta *c, int id)
{
    int kind = c->bar_red_op[id];
    uint32_t result = c->bar_red[id], obs = c->launch->obs;   /* once: calls below may not change it */
    c->bar_arrived[id] = 0;
    for (uint32_t i = 0; i < c->nwarps; i++) {
        Warp *w = &c->warps[i];
        if (!w->bar_wait) continue;
        if (w->bar_whole == id + 1 && kind < BAR_RED_POPC) {
            /* The whole warp arrived here together (cta_barrier_arrive's first case) and has
             * not moved since: a parked warp runs nothing, and only this barrier's release
             * unparks lanes parked at it. Released as below, without the checks that find
             * it so (its 32 barrier ids, its 32 lane pcs). */
            OBSERVE(obs, bar_acquire, w, id);
            w->bar_whole = 0;
            w->bar_wait = 0;
            w->bar_left = 1;
            w->waiting = 0;
            w->active = FULL_MASK;
            w->pc = w->lane_pc[0];
            w->merge_pc = UINT32_MAX;
            continue;
        }
        w->bar_whole = 0;
        /* this runs for every warp at every barrier: mostly all 32 lanes wait on this one
         * (four 8-byte compares); else each lane's id */
        uint64_t ids[WARP_SIZE / 8], diff = 0, want = 0x0101010101010101ull * (uint8_t)id;
        memcpy(ids, w->bar_id, sizeof ids);
#pragma GCC unroll 4
        for (int k = 0; k < WARP_SIZE / 8; k++) diff |= ids[k] ^ want;
        uint32_t lanes = 0;
        if (!diff) lanes = FULL_MASK;
        else for (int l = 0; l < WARP_SIZE; l++) lanes |= (uint32_t)(w->bar_id[l] == id) << l;
        lanes &= w->bar_wait;
        if (!lanes) continue;
        OBSERVE(obs, bar_acquire, w, id);
        if (kind >= BAR_RED_POPC)
            for (uint32_t m = lanes; m; m &= m - 1) {
                int l = __builtin_ctz(m);
                const Inst *in = &w->prog->code[w->lane_pc[l] - 1];
                if (kind == BAR_RED_POPC) ROW(w, in->d[0])[l] = result;
                else w->P[in->d[0]] = (w->P[in->d[0]] & ~(1u << l)) | ((result & 1u) << l);
            }
        w->bar_wait &= ~lanes;
        w->bar_left = 1;
        if (lanes == FULL_MASK && whole_parked(w)) {   /* what warp_unpark does for it */
            w->waiting = 0;
            w->active = FULL_MASK;
            w->pc = w->lane_pc[0];
            w->merge_pc = UINT32_MAX;
        } else {
            warp_unpark(w, lanes);
        }
    }
    OBSERVE(obs, bar_reset, c, id);
}

static void bar_check(Cta *c, int id)
{
    if (!c->bar_arrived[id]) return;
    uint32_t expected = c->bar_expected[id] ? c->bar_expected[id] : c->nthreads - c->exited_threads;
    if (c->bar_arrived[id] >= expected) bar_release(c, id);
}

_Static_assert(BAR_SYNC == 0, "engine.h's bar_sync_whole writes 0 for BAR_SYNC");

void cta_barrier_release(Cta *c, int id)
{
    bar_release(c, id);
}

int cta_barrier_arrive(Warp *w, int id, uint32_t count, uint32_t mask, int kind, uint32_t cbits,
                       uint32_t obs)
{
    Cta *c = w->cta;
    if (!c->bar_arrived[id]) {
        c->bar_expected[id] = count;
        c->bar_red_op[id] = kind;
        c->bar_red[id] = kind == BAR_RED_AND ? 1 : 0;
    }
    uint32_t lanes = mask & w->valid;
    c->bar_arrived[id] += lanes == FULL_MASK ? WARP_SIZE : popcount32(lanes);
    OBSERVE(obs, bar_arrive, w, id);
    if (kind == BAR_RED_POPC) c->bar_red[id] += popcount32(cbits);
    else if (kind == BAR_RED_AND) c->bar_red[id] &= (cbits & mask) == mask;
    else if (kind == BAR_RED_OR) c->bar_red[id] |= cbits != 0;
    w->pc++;
    if (kind == BAR_ARRIVE) {
        bar_check(c, id);
        return STEP_JUMP;
    }
    if (mask == FULL_MASK && w->active == FULL_MASK && !w->sp && !w->waiting) {
        /* the whole warp arrives with no region open and nothing else parked: what
         * warp_regroup does (every lane's pc is the next one, no lane can run) without it */
        bar_park_whole(w, id, w->pc);
    } else {
        w->waiting |= mask;
        w->bar_wait |= mask;
        if (mask == 0xffffffffu) memset(w->bar_id, id, WARP_SIZE);
        else
            for (uint32_t m = mask; m; m &= m - 1) w->bar_id[__builtin_ctz(m)] = (uint8_t)id;
        warp_regroup(w);
    }
    bar_check(c, id);
    /* The warp whose arrival released the barrier ends its turn like the others it released:
     * on the GPU every warp leaves a barrier at about the same time, and a warp that ran on
     * alone from there would reach what comes after the barrier long before the others
     * (HeCBench's groupnorm reuses a shared array one channel later without a second
     * barrier: its thread 0 reads the sums before the other warps write the next ones). */
    return (w->bar_wait & mask) ? STEP_BLOCK : STEP_YIELD;
}

/* ---- barrier.cluster: arrive marks the phase a thread arrived in; wait parks it until
 * that phase is over (all live threads of the cluster arrived) ---- */

static void cluster_bar_check(Cluster *cl)
{
    if (!cl->bar_arrived || cl->bar_arrived < cl->nthreads - cl->exited_threads) return;
    uint32_t obs = cl->launch->obs;
    cl->bar_arrived = 0;
    cl->bar_phase ^= 1;
    OBSERVE(obs, cbar_complete, cl, cl->bar_phase ^ 1);
    for (uint32_t r = 0; r < cl->n; r++)
        for (uint32_t i = 0; i < cl->ctas[r]->nwarps; i++) {
            Warp *w = &cl->ctas[r]->warps[i];
            uint32_t lanes = 0;
            for (uint32_t m = w->bar_wait; m; m &= m - 1)
                if (w->bar_id[__builtin_ctz(m)] == CLUSTER_BARRIER_ID) lanes |= 1u << __builtin_ctz(m);
            if (!lanes) continue;
            OBSERVE(obs, cbar_acquire, w, cl->bar_phase ^ 1);
            w->bar_wait &= ~lanes;
            warp_unpark(w, lanes);
        }
}

int cluster_barrier_arrive(Warp *w, uint32_t mask, int release, uint32_t obs)
{
    Cluster *cl = w->cta->cluster;
    for (uint32_t m = mask; m; m &= m - 1) w->cl_phase[__builtin_ctz(m)] = cl->bar_phase;
    cl->bar_arrived += popcount32(mask & w->valid);
    OBSERVE(obs, cbar_arrive, w, cl->bar_phase, release);
    w->pc++;
    cluster_bar_check(cl);
    return STEP_JUMP;
}

int cluster_barrier_wait(Warp *w, uint32_t mask, uint32_t obs)
{
    Cluster *cl = w->cta->cluster;
    uint32_t park = 0;
    /* a lane whose phase is still the current one has not seen it complete */
    for (uint32_t m = mask; m; m &= m - 1)
        if (w->cl_phase[__builtin_ctz(m)] == cl->bar_phase) park |= 1u << __builtin_ctz(m);
    w->pc++;
    if (park != mask) OBSERVE(obs, cbar_acquire, w, cl->bar_phase ^ 1);
    if (!park) return STEP_JUMP;
    w->waiting |= park;
    w->bar_wait |= park;
    for (uint32_t m = park; m; m &= m - 1) w->bar_id[__builtin_ctz(m)] = CLUSTER_BARRIER_ID;
    warp_regroup(w);
    return STEP_BLOCK;
}

void cta_threads_exited(Cta *c, uint32_t n)
{
    c->exited_threads += n;
    c->cluster->exited_threads += n;
    cluster_bar_check(c->cluster);
    /* threads that exit no longer count towards barriers that wait for all threads (most
     * exits find no barrier with arrivals: one vectorized test for them) */
    u32x4 any = { 0, 0, 0, 0 };
#pragma GCC unroll 4
    for (int k = 0; k < 16 / 4; k++) {
        u32x4 v;
        memcpy(&v, &c->bar_arrived[4 * k], sizeof v);
        any |= v;
    }
    if (!(any[0] | any[1] | any[2] | any[3])) return;
    for (int id = 0; id < 16; id++)
        if (c->bar_arrived[id] && !c->bar_expected[id]) bar_check(c, id);
}

/* ---- CTAs -------------------------------------------------------------------------- */

/* Thread coordinates of a warp's lanes, stepping x, then y, then z (no division per lane:
 * warp setup was a fifth of a small kernel's time with one). */
static void lane_tids(const Launch *L, uint32_t first, uint32_t tid[3][WARP_SIZE])
{
    uint32_t bx = L->block[0], by = L->block[1];
    uint32_t x = first % bx, y = first / bx % by, z = first / (bx * by);
    for (int l = 0; l < WARP_SIZE; l++) {
        tid[0][l] = x; tid[1][l] = y; tid[2][l] = z;
        if (++x == bx) { x = 0; if (++y == by) { y = 0; z++; } }
    }
}

static uint64_t sreg_value(int id, const Warp *w, const Launch *L, const Cta *c)
{
    switch (id) {
    case SR_NTID_X: case SR_NTID_Y: case SR_NTID_Z: return L->block[id - SR_NTID_X];
    case SR_CTAID_X: case SR_CTAID_Y: case SR_CTAID_Z: return c->ctaid[id - SR_CTAID_X];
    case SR_NCTAID_X: case SR_NCTAID_Y: case SR_NCTAID_Z: return L->grid[id - SR_NCTAID_X];
    case SR_WARPID: return w->id;
    case SR_NWARPID: return 64;                 /* H100: 64 warp slots per SM */
    case SR_SMID: return c->linear % 132;       /* H100 SXM: 132 SMs           */
    case SR_NSMID: return 132;
    case SR_GRIDID: return 1;
    case SR_DYN_SMEM: return L->dyn_shared;
    /* shared memory is allocated in 128-byte units (H100: 100 bytes read as 128) */
    case SR_TOTAL_SMEM: return (c->shared_size + 127u) & ~127u;
    case SR_PARAMBASE: return L->param_addr;
    case SR_CLUSTERID_X: case SR_CLUSTERID_Y: case SR_CLUSTERID_Z:
        return c->cluster->id[id - SR_CLUSTERID_X];
    case SR_NCLUSTERID_X: case SR_NCLUSTERID_Y: case SR_NCLUSTERID_Z:
        return L->grid[id - SR_NCLUSTERID_X] / L->cluster[id - SR_NCLUSTERID_X];
    case SR_CLUSTER_CTAID_X: case SR_CLUSTER_CTAID_Y: case SR_CLUSTER_CTAID_Z:
        return c->cl_ctaid[id - SR_CLUSTER_CTAID_X];
    case SR_CLUSTER_NCTAID_X: case SR_CLUSTER_NCTAID_Y: case SR_CLUSTER_NCTAID_Z:
        return L->cluster[id - SR_CLUSTER_NCTAID_X];
    case SR_CLUSTER_CTARANK: return c->rank;
    case SR_CLUSTER_NCTARANK: return L->cluster_size;
    case SR_IS_EXPLICIT_CLUSTER: return (uint64_t)L->explicit_cluster;
    /* Recorded on an H100 (driver 580): 1 KiB of shared memory is reserved per block, of
     * which the driver uses [0, 288); %aggr_smem_size counts it with the block's own. */
    case SR_AGGR_SMEM: return 1024u + L->shared_total;
    case SR_RESERVED_SMEM_END: return 288;
    case SR_RESERVED_SMEM_CAP: return 1024;
    case SR_CURRENT_GRAPH_EXEC: return L->graph_exec;
    /* The driver's environment registers as the H100 read them: %envreg1:%envreg2 is the
     * cooperative grid workspace (0 outside cooperative launches); 0, 6 and 10 held these
     * constants in every launch recorded; the others 0. */
    case SR_ENVREG0: return 58995400;
    case SR_ENVREG0 + 1: return L->grid_ws >> 32;
    case SR_ENVREG0 + 2: return L->grid_ws & 0xffffffffu;
    case SR_ENVREG0 + 6: return 1;
    case SR_ENVREG0 + 10: return 288;
    /* %pm*: performance-monitor counters read 0 unless a profiler programs them (H100) */
    default: return 0;
    }
}

/* The special registers whose value changes from one CTA to the next. */
static const uint8_t cta_sregs[] = {
    SR_CTAID_X, SR_CTAID_Y, SR_CTAID_Z, SR_SMID, SR_CLUSTERID_X, SR_CLUSTERID_Y,
    SR_CLUSTERID_Z, SR_CLUSTER_CTAID_X, SR_CLUSTER_CTAID_Y, SR_CLUSTER_CTAID_Z,
    SR_CLUSTER_CTARANK,
};

/* The rows of cta_sregs the kernel reads and their values in CTA c, computed once a CTA
 * (none of them depends on the warp): looking each id up again for every warp was a
 * twentieth of saxpy's time. Returns how many. */
typedef struct CtaSreg { int32_t row; uint64_t v; } CtaSreg;
static int cta_sreg_values(const Launch *L, const Cta *c, CtaSreg out[sizeof cta_sregs])
{
    const Program *p = L->prog;
    int n = 0;
    for (size_t k = 0; k < sizeof cta_sregs; k++) {
        int id = cta_sregs[k];
        if (p->sreg_row[id] < 0) continue;
        out[n].row = p->sreg_row[id];
        out[n++].v = sreg_value(id, NULL, L, c);
    }
    return n;
}

/* Rows that change from one CTA to the next; the others stay valid in a reused slot. Only
 * the ids of cta_sregs are visited: a loop over every special register cost a small
 * kernel's setup more than its warps' first instructions. */
typedef uint64_t u64x2 __attribute__((vector_size(16), may_alias));

static void fill_cta_sregs(Warp *w, const CtaSreg *cs, int n)
{
    for (int k = 0; k < n; k++) {
        /* two lanes a store, unrolled (the plain loop compiled to a store and a branch a
         * lane: 36M of saxpy's 1.6G instructions on one worker) */
        uint64_t *r = ROW(w, cs[k].row);
        const u64x2 v = { cs[k].v, cs[k].v };
#pragma GCC unroll 16
        for (int l = 0; l < WARP_SIZE; l += 2) memcpy(r + l, &v, sizeof v);
    }
}

static void fill_sregs(Warp *w, const Launch *L, const Cta *c)
{
    const Program *p = w->prog;
    uint32_t tid[3][WARP_SIZE];
    if (p->sreg_row[SR_TID_X] >= 0 || p->sreg_row[SR_TID_Y] >= 0 || p->sreg_row[SR_TID_Z] >= 0)
        lane_tids(L, w->id * WARP_SIZE, tid);
    for (int id = 0; id < SR_COUNT_STATIC; id++) {
        if (p->sreg_row[id] < 0) continue;
        uint64_t *r = ROW(w, p->sreg_row[id]);
        switch (id) {
        case SR_TID_X: case SR_TID_Y: case SR_TID_Z:
            for (int l = 0; l < WARP_SIZE; l++) r[l] = tid[id - SR_TID_X][l];
            break;
        case SR_LANEID: for (int l = 0; l < WARP_SIZE; l++) r[l] = (uint32_t)l; break;
        case SR_LANEMASK_EQ: for (int l = 0; l < WARP_SIZE; l++) r[l] = 1u << l; break;
        case SR_LANEMASK_LT: for (int l = 0; l < WARP_SIZE; l++) r[l] = (1u << l) - 1; break;
        case SR_LANEMASK_LE: for (int l = 0; l < WARP_SIZE; l++) r[l] = (uint32_t)((2ull << l) - 1); break;
        case SR_LANEMASK_GT: for (int l = 0; l < WARP_SIZE; l++) r[l] = ~(uint32_t)((2ull << l) - 1); break;
        case SR_LANEMASK_GE: for (int l = 0; l < WARP_SIZE; l++) r[l] = ~((1u << l) - 1); break;
        default: {
            uint64_t v = sreg_value(id, w, L, c);
            for (int l = 0; l < WARP_SIZE; l++) r[l] = v;
        }
        }
    }
}

/* memset of a size the compiler cannot see. With a constant size of about a kilobyte (a
 * Warp's header, a Cta) GCC inlines `rep stos`, whose start-up costs more than the C
 * library's vector stores: the warp header's clearing was 37% of setup_cta's samples, the
 * largest item of a 65536-CTA grid's setup, and the library call takes less than half the
 * time. */
static void zero(void *p, size_t n)
{
    __asm__("" : "+r"(n));
    memset(p, 0, n);
}

static int setup_cta(CtaSlot *b, Launch *L, Cluster *cl, uint32_t rank, Cta *c)
{
    const Program *p = L->prog;
    zero(c, sizeof *c);
    c->launch = L;
    c->cluster = cl;
    c->rank = rank;
    c->cl_ctaid[0] = rank % L->cluster[0];
    c->cl_ctaid[1] = rank / L->cluster[0] % L->cluster[1];
    c->cl_ctaid[2] = rank / (L->cluster[0] * L->cluster[1]);
    for (int k = 0; k < 3; k++) c->ctaid[k] = cl->id[k] * L->cluster[k] + c->cl_ctaid[k];
    c->linear = c->ctaid[0] + L->grid[0] * (c->ctaid[1] + L->grid[1] * c->ctaid[2]);
    c->nthreads = L->block[0] * L->block[1] * L->block[2];
    c->nwarps = (c->nthreads + WARP_SIZE - 1) / WARP_SIZE;
    c->shared_size = L->shared_total;
    size_t regs = (size_t)p->nrows * WARP_SIZE * sizeof(uint64_t);
    size_t stride = L->local_stride;
    if (!reserve((void **)&b->shared, &b->shared_cap, c->shared_size + 16) ||
        !reserve((void **)&b->regs, &b->regs_cap, regs * c->nwarps) ||
        !reserve((void **)&b->preds, &b->preds_cap, (size_t)p->npreds * 4 * c->nwarps) ||
        !reserve((void **)&b->warps, &b->warps_cap, sizeof(Warp) * c->nwarps) ||
        (stride && !reserve((void **)&b->local, &b->local_cap, stride * WARP_SIZE * c->nwarps)))
        return -1;
    /* shared memory starts zeroed so runs are repeatable (the GPU leaves it undefined) */
    memset(b->shared, 0, c->shared_size);
    c->shared = b->shared;
    c->warps = b->warps;
    CtaSreg cs[sizeof cta_sregs];
    int ncs = cta_sreg_values(L, c, cs);
    /* the warps' predicates lie one after another: one memset, not a call of a few bytes each */
    memset(b->preds, 0, (size_t)p->npreds * 4 * c->nwarps);
    for (uint32_t i = 0; i < c->nwarps; i++) {
        Warp *w = &c->warps[i];
        zero(w, offsetof(Warp, cta));
        w->cta = c; w->launch = L; w->prog = p; w->id = i;
        w->R = b->regs + (regs / sizeof(uint64_t)) * i;
        w->P = b->preds + (size_t)p->npreds * i;
        /* constant rows survive in a worker's buffer from one CTA to the next of a launch
         * (handlers never write them): copying them for every warp cost 6% of vectorAdd */
        int ready = b->ready_launch == L->seq && i < b->ready_warps;
        if (!ready)
            memcpy(w->R, L->const_rows, (size_t)p->first_var_row * WARP_SIZE * sizeof(uint64_t));
        w->P[PRED_TRUE] = FULL_MASK;
        uint32_t first = i * WARP_SIZE, n = c->nthreads - first;
        w->valid = n >= WARP_SIZE ? FULL_MASK : (1u << n) - 1;
        w->alive = w->active = w->valid;
        w->merge_pc = UINT32_MAX;
        w->local = stride ? b->local + stride * WARP_SIZE * i : NULL;
        w->local_stride = (uint32_t)stride;
        if (ready) fill_cta_sregs(w, cs, ncs); else fill_sregs(w, L, c);
    }
    if (b->ready_launch != L->seq) { b->ready_launch = L->seq; b->ready_warps = 0; }
    if (c->nwarps > b->ready_warps) b->ready_warps = c->nwarps;
    return OBSERVE(L->obs, cta_begin, c) ? -1 : 0;
}

/* What a warp is doing, for the deadlock and time-limit reports. */
const char *sched_warp_state(const Warp *w, int l)
{
    if (!(w->alive >> l & 1)) return "exited";
    if (w->bar_wait >> l & 1)
        return w->bar_id[l] == CLUSTER_BARRIER_ID ? "waits at barrier.cluster"
             : w->bar_id[l] == WGMMA_GATE_ID ? "waits for its warpgroup at a wgmma"
             : "waits at a barrier (bar.sync / __syncthreads)";
    if (w->sync_wait >> l & 1) return "waits at a warp-synchronous instruction for the other lanes";
    if (w->waiting >> l & 1) return "waits";
    if (w->spin) return "polls (a wait that keeps failing: mbarrier try_wait or a spin loop)";
    if (w->mem_spin) return "spins in a loop that reads memory without progress";
    return "runs";
}

/* Points w's pc at where its first live lane stands (a parked lane's pc is past a barrier);
 * returns the lane and the pc to restore. */
static int warp_place(Warp *w, uint32_t *saved_pc)
{
    int l = __builtin_ctz(w->alive & w->waiting ? w->alive & w->waiting : w->alive);
    *saved_pc = w->pc;
    if (w->spin && w->spin_mbar && (w->active >> l & 1)) w->pc = w->spin_pc;   /* the failing wait */
    else if (!(w->active >> l & 1) && w->lane_pc[l])
        w->pc = w->lane_pc[l] - ((w->bar_wait >> l & 1) && w->bar_id[l] != WGMMA_GATE_ID ? 1 : 0);
    return l;
}

/* The mbarrier a polling warp waits on: its shared offset and state, in words and as JSON
 * fields; 0 when w polls none (a spin loop on memory). */
static int spin_mbar(const Warp *w, uint32_t *off, uint64_t *v)
{
    const Cta *c = w->cta;
    const uint8_t *m = (const uint8_t *)w->spin_mbar;
    if (!w->spin || !m || m < c->shared || m >= c->shared + c->shared_size) return 0;
    *off = (uint32_t)(m - c->shared);
    *v = *w->spin_mbar;
    return 1;
}

static void mbar_words(const Warp *w, char *buf, size_t n)
{
    uint32_t off;
    uint64_t v;
    *buf = 0;
    if (!spin_mbar(w, &off, &v)) return;
    char want[40] = "the phase of its state";
    if (w->spin_parity < 2) snprintf(want, sizeof want, "parity %u", w->spin_parity);
    snprintf(buf, n, " (mbarrier at shared offset 0x%x: phase of parity %u in progress, %u of %u "
             "arrivals and %d transaction bytes pending; the wait is for %s)", off,
             (unsigned)(v >> 62 & 1), MB_PENDING(v), MB_EXPECTED(v), mbar_tx(v), want);
}

static void mbar_json(FILE *js, const Warp *w)
{
    uint32_t off;
    uint64_t v;
    if (!spin_mbar(w, &off, &v)) return;
    fprintf(js, ",\"mbarrier\":{\"shared_offset\":%u,\"phase_parity\":%u,\"pending_arrivals\":%u,"
            "\"expected_arrivals\":%u,\"pending_tx\":%d,\"wait_parity\":", off,
            (unsigned)(v >> 62 & 1), MB_PENDING(v), MB_EXPECTED(v), mbar_tx(v));
    if (w->spin_parity < 2) fprintf(js, "%u}", w->spin_parity);
    else fprintf(js, "null}");
}

/* A deadlock on an mbarrier that some warp earlier waited on with parity 1 while it was
 * fresh (no phase completed): that wait passed at once, so the parities are likely off by
 * one. Writes the hint (empty when there is none). */
static void wrong_parity_hint(Cluster *cl, const Warp *w, char *buf, size_t n)
{
    *buf = 0;
    if (!w->spin || !w->spin_mbar) return;
    for (uint32_t r = 0; r < cl->n; r++) {
        Cta *c = cl->ctas[r];
        for (uint32_t i = 0; i < c->nwarps; i++) {
            const Warp *o = &c->warps[i];
            if (o->fresh_mbar != w->spin_mbar) continue;
            const Program *p = o->prog;
            const Inst *in = &p->code[o->fresh_pc < p->ncode ? o->fresh_pc : 0];
            char src[640] = "";
            if (src_place(p, in, src, sizeof src - 2, 0)) strcat(src, ", ");
            snprintf(buf, n, "; likely a wrong parity: the wait at %sPTX line %u (warp %u) passed at "
                     "once on this mbarrier while it was fresh - a wait on parity 1 returns at once "
                     "until the barrier completes its first phase, so the first wait for a phase "
                     "is on parity 0", src, in->line, o->id);
            return;
        }
    }
}

/* PTXEMU_REPORT: one JSON line for a deadlock or a time limit, with every live warp of the
 * cluster: its place, what it does, and the barrier it waits at. */
static void report_cluster(Cluster *cl, Launch *L, const char *kind, const char *msg)
{
    FILE *js = report_open();
    if (!js) return;
    fprintf(js, "{\"kind\":\"%s\",\"code\":%d,", kind, L->fault.code);
    report_kernel(js, L->prog);
    fprintf(js, ",\"message\":");
    report_str(js, msg);
    fprintf(js, ",\"warps\":[");
    int first = 1;
    for (uint32_t r = 0; r < cl->n; r++) {
        Cta *c = cl->ctas[r];
        for (uint32_t i = 0; i < c->nwarps; i++) {
            Warp *w = &c->warps[i];
            if (!w->alive) continue;
            uint32_t pc;
            int l = warp_place(w, &pc);
            fprintf(js, "%s{", first ? "" : ",");
            first = 0;
            report_place(js, w, l);
            fprintf(js, ",\"state\":");
            report_str(js, sched_warp_state(w, l));
            if ((w->bar_wait >> l & 1) && w->bar_id[l] < CLUSTER_BARRIER_ID) fprintf(js, ",\"barrier\":%u", w->bar_id[l]);
            mbar_json(js, w);
            fputc('}', js);
            w->pc = pc;
        }
    }
    fprintf(js, "],\"seed\":%llu}\n", (unsigned long long)(L->det ? L->seed : 0));
    report_close(js);
}

/* A warp of cl that spins on memory without progress (engine.c), else NULL. */
static Warp *mem_spinner(Cluster *cl)
{
    for (uint32_t r = 0; r < cl->n; r++)
        for (uint32_t i = 0; i < cl->ctas[r]->nwarps; i++) {
            Warp *w = &cl->ctas[r]->warps[i];
            if (w->alive && w->active && w->mem_spin) return w;
        }
    return NULL;
}

static void deadlock(Cluster *cl)
{
    Warp *sw = mem_spinner(cl);
    if (sw) {
        char msg[600];
        snprintf(msg, sizeof msg, "deadlock: this loop spins without progress: each pass reads the same "
                 "values and leaves the warp's registers as they were, and no thread of the launch "
                 "writes memory any more (a flag nobody sets, or one only a block that cannot run "
                 "would set: blocks that wait for each other need a cooperative launch)");
        uint32_t saved_pc;
        int l = warp_place(sw, &saved_pc);
        Launch *L = sw->launch;
        int first = !L->aborted;
        warp_fault(sw, l, EMU_ERR_LAUNCH_FAILURE, "%s", msg);
        if (first) report_cluster(cl, L, "deadlock", msg);
        return;
    }
    for (uint32_t r = 0; r < cl->n; r++) {
        Cta *c = cl->ctas[r];
        for (uint32_t i = 0; i < c->nwarps; i++) {
            Warp *w = &c->warps[i];
            if (!w->alive) continue;
            uint32_t saved_pc;
            int l = warp_place(w, &saved_pc);   /* the launch ends here: the pc stays */
            char msg[1400];
            if ((w->bar_wait >> l & 1) && w->bar_id[l] == CLUSTER_BARRIER_ID) {
                snprintf(msg, sizeof msg, "deadlock: barrier.cluster.wait waits for %u threads of the cluster "
                         "but only %u arrived and no other thread can run",
                         cl->nthreads - cl->exited_threads, cl->bar_arrived);
            } else if ((w->bar_wait >> l & 1) && w->bar_id[l] == WGMMA_GATE_ID) {
                snprintf(msg, sizeof msg, "deadlock: wgmma.mma_async waits for the other warps of its warpgroup "
                         "(warps %u..%u), which never issue it", w->id / 4 * 4, w->id / 4 * 4 + 3);
            } else if (w->bar_wait >> l & 1) {
                int id = w->bar_id[l];
                uint32_t expected = c->bar_expected[id] ? c->bar_expected[id] : c->nthreads - c->exited_threads;
                snprintf(msg, sizeof msg, "deadlock: barrier %d waits for %u threads but only %u arrived and no "
                         "other thread of the block can run", id, expected, c->bar_arrived[id]);
            } else if (w->waiting >> l & 1) {
                snprintf(msg, sizeof msg, "deadlock: warp-synchronous instruction waits for lanes that never arrive");
            } else {
                char mb[300], hint[700];
                mbar_words(w, mb, sizeof mb);
                wrong_parity_hint(cl, w, hint, sizeof hint);
                snprintf(msg, sizeof msg, "deadlock: mbarrier wait never completes: every thread of the %s "
                         "waits and no asynchronous operation is in flight%s%s",
                         cl->n > 1 ? "cluster" : "block", mb, hint);
            }
            Launch *L = w->launch;
            int first = !L->aborted;
            warp_fault(w, l, EMU_ERR_LAUNCH_FAILURE, "%s", msg);
            if (first) report_cluster(cl, L, "deadlock", msg);
            return;
        }
    }
}

static void out_of_memory(Launch *L, uint32_t threads)
{
    pthread_mutex_lock(&L->lock);
    if (!L->aborted) {
        L->fault.code = EMU_ERR_MEMORY_ALLOCATION;
        snprintf(L->fault.msg, sizeof L->fault.msg, "ptxemu: kernel %s: out of host memory "
                 "for a block of %u threads", L->prog->dname, threads);
        L->aborted = 1;
    }
    pthread_mutex_unlock(&L->lock);
}

/* Rounds in which every warp only failed an mbarrier wait before that counts as a
 * deadlock: programs poll with bounded loops of up to 2^22 tries (and so do the tests). */
#define SPIN_ROUNDS (1u << 24)

/* A poll that failed with the warp's pc, lanes, registers and predicates as they were at
 * one of its last four failed polls (a turn may end at one of a few places of the loop):
 * the loop has no counter, and it can only end when the memory it polls changes. Once every warp that can run polls like that, with nothing in flight,
 * nothing can change that memory any more: a deadlock, reported at once instead of after
 * SPIN_ROUNDS (a bounded polling loop changes its counter and still gets them). Hashing
 * starts after POLL_QUIET failed polls in a row, so short waits pay nothing. */
#define POLL_QUIET 64
static int poll_still(Warp *w)
{
    uint64_t h = warp_state_hash(w, 1469598103934665603ull);
    int still = 0;
    for (int i = 0; i < 4; i++) still |= h == w->poll_hash[i];
    memmove(&w->poll_hash[1], &w->poll_hash[0], 3 * sizeof w->poll_hash[0]);
    w->poll_hash[0] = h;
    return still;
}

/* Run one cluster (or lone CTA): its warps take turns round-robin; between turns the
 * asynchronous engine may complete operations in flight. */
static int setup_cluster(WorkerBuf *b, Launch *L, uint64_t index)
{
    Cluster *cl = &b->cluster;
    memset(cl, 0, sizeof *cl);
    cl->launch = L;
    cl->n = L->cluster_size;
    uint32_t ncl0 = L->grid[0] / L->cluster[0], ncl1 = L->grid[1] / L->cluster[1];
    cl->id[0] = (uint32_t)(index % ncl0);
    cl->id[1] = (uint32_t)(index / ncl0 % ncl1);
    cl->id[2] = (uint32_t)(index / ((uint64_t)ncl0 * ncl1));
    if (!b->aq && !(b->aq = async_queue_new())) { out_of_memory(L, 0); return -1; }
    async_queue_reset(b->aq);
    cl->aq = b->aq;
    for (uint32_t r = 0; r < cl->n; r++) {
        cl->ctas[r] = &b->cta[r];
        if (setup_cta(&b->slot[r], L, cl, r, &b->cta[r]) < 0) {
            out_of_memory(L, b->cta[r].nthreads);
            return -1;
        }
        cl->nthreads += b->cta[r].nthreads;
        if (OBSERVING(L->obs, OBS_SPAN)) {
            Cta *c = &b->cta[r];
            c->span_t0 = ev_now();
            for (uint32_t i = 0; i < c->nwarps; i++) c->warps[i].span_since = c->span_t0;
        }
    }
    return 0;
}

/* ---- spans (events.h): blocks on workers, each warp's running and waiting ---- */

static int wait_reason(const Warp *w)
{
    uint32_t bw = w->bar_wait & w->alive;
    if (w->spin) return EVW_MBARRIER;
    if (bw) {
        int id = w->bar_id[__builtin_ctz(bw)];
        return id == CLUSTER_BARRIER_ID ? EVW_CLUSTER_BARRIER : id == WGMMA_GATE_ID ? EVW_WGMMA : EVW_BARRIER;
    }
    return w->sync_wait & w->alive ? EVW_WARP_SYNC : EVW_BARRIER;
}

static void ev_warp(const Warp *w, EvKind k, int what, uint64_t t0, uint64_t t1)
{
    Event e = { .kind = k, .what = what, .t0 = t0, .t1 = t1, .launch = w->launch->seq, .L = w->launch,
                .cta_linear = w->cta->linear, .warp = w->id, .worker = ev_worker() };
    OBSERVE(w->launch->obs, span, &e);
}

/* run_warp's short turn (below). The interpreter stops after the first instruction other
 * warps can observe (engine.c: interp_t); compiled code stops after it too, or after its first run
 * of lane arithmetic and loads (jit/compile.c: w->short_turn): a turn that ended inside a run
 * would make the next one enter the compiled code in its middle, one instruction at a time.
 * Backward jumps end neither before its budget (a loop whose body starts with a barrier and
 * jumps back to its load: HeCBench's qtclustering compacts an array that way). */
static int run_short(Warp *w)
{
    w->short_turn = 1;
    int rc = warp_run(w, SLICE_JUMPS);
    w->short_turn = 0;
    return rc;
}

/* One turn of w. A warp runs until it blocks (a barrier), starts polling an mbarrier
 * (try_wait failed) or exits; then it waits until its next turn (barrier), or until a poll
 * succeeds (mbarrier). Time slices in between merge into one running interval. */
static inline __attribute__((always_inline)) int run_warp(Warp *w, int det)
{
    /* The first turn after a CTA barrier released the warp ends at its first instruction that
     * other warps can observe (a memory access, a barrier: the deterministic mode's switch
     * points), so that every warp leaving the barrier makes its first accesses before any of
     * them runs on: on the GPU all warps leave a barrier within a few cycles, and memory
     * latency keeps them together for a while. A block reduction that reads its result from
     * shared memory after the barrier and reuses the same word in its next call (HeCBench's
     * layernorm: thread 0 writes it again, with no second barrier) reads the result as the GPU
     * does (tests/cuda/bar_leave_order.cu). */
    int first = w->bar_left && !det;
    w->bar_left = 0;
    if (!OBSERVING(w->launch->obs, OBS_SPAN))
        return det ? warp_run_det(w) : first ? run_short(w) : warp_run(w, SLICE_JUMPS);
    uint64_t t = ev_now();
    if (w->span_wait && w->span_reason != EVW_MBARRIER) {   /* released from its barrier */
        ev_warp(w, EV_WAIT, w->span_reason, w->span_since, t);
        w->span_wait = 0;
        w->span_since = t;
    }
    ev_run_begin(&w->steps);
    int rc = det ? warp_run_det(w) : first ? run_short(w) : warp_run(w, SLICE_JUMPS);
    ev_run_end();
    uint64_t now = ev_now();
    if (w->span_wait) {   /* it polled an mbarrier */
        if (w->spin) return rc;
        ev_warp(w, EV_WAIT, EVW_MBARRIER, w->span_since, t);
        w->span_wait = 0;
        w->span_since = t;
    }
    if (rc == RUN_DONE || rc == RUN_BLOCKED || (rc != RUN_FAULT && w->spin)) {
        ev_warp(w, EV_RUN, 0, w->span_since, now);
        w->span_since = now;
        w->span_wait = rc != RUN_DONE;
        w->span_reason = (uint8_t)wait_reason(w);
    }
    return rc;
}

static void ev_ctas(Cluster *cl, Launch *L)
{
    for (uint32_t r = 0; r < cl->n; r++) {
        Cta *c = cl->ctas[r];
        Event e = { .kind = EV_CTA, .t0 = c->span_t0, .t1 = ev_now(), .launch = L->seq, .L = L,
                    .name = L->prog->dname, .cta = { c->ctaid[0], c->ctaid[1], c->ctaid[2] },
                    .cta_linear = c->linear, .nwarps = c->nwarps, .worker = ev_worker() };
        OBSERVE(L->obs, span, &e);
    }
}

/* A worker's instruction counts, added to its launch's counters every COUNT_BATCH blocks
 * and when the worker leaves the scheduler (count_flush at each entry's end), not at every
 * block's end: with many workers the counters' cache line moved between them at every
 * block. */
#define COUNT_BATCH 64
static __thread struct { Launch *L; uint64_t wi, si, ti; uint32_t n; } counts;

static void count_flush(void)
{
    if (!counts.L) return;
    __atomic_fetch_add(&counts.L->warp_insts, counts.wi, __ATOMIC_RELAXED);
    __atomic_fetch_add(&counts.L->warp_slots, counts.si, __ATOMIC_RELAXED);
    __atomic_fetch_add(&counts.L->thread_insts, counts.ti, __ATOMIC_RELAXED);
    counts.L = NULL;
    counts.wi = counts.si = counts.ti = 0;
    counts.n = 0;
}

static void count_add(Launch *L, uint64_t wi, uint64_t si, uint64_t ti)
{
    if (counts.L != L) { count_flush(); counts.L = L; }
    counts.wi += wi;
    counts.si += si;
    counts.ti += ti;
    if (++counts.n >= COUNT_BATCH) count_flush();
}

static void finish_cluster(Cluster *cl, Launch *L)
{
    if (OBSERVING(L->obs, OBS_SPAN)) ev_ctas(cl, L);
    for (uint32_t r = 0; r < cl->n; r++) {
        OBSERVE(L->obs, cta_end, cl->ctas[r]);
        wgmma_free_queue(cl->ctas[r]);
    }
    uint64_t wi = 0, ti = 0, si = 0, idle = 0;
    WarpMax m = { 0, 0, 0, 0 };
    for (uint32_t r = 0; r < cl->n; r++)
        for (uint32_t i = 0; i < cl->ctas[r]->nwarps; i++) {
            const Warp *w = &cl->ctas[r]->warps[i];
            wi += w->steps;
            idle += w->idle_steps;
            si += w->slots;
            ti += w->lane_steps;
            m.slots = w->slots > m.slots ? w->slots : m.slots;
            m.steps = w->steps > m.steps ? w->steps : m.steps;
            m.m_sect = w->m_sect > m.m_sect ? w->m_sect : m.m_sect;
            m.m_wave = w->m_wave > m.m_wave ? w->m_wave : m.m_wave;
        }
    model_warps_done(L, &m);
    count_add(L, wi - idle, si, ti);
    kernel_ran(L, ti);
}

/* ---- the time limit (PTXEMU_TIMEOUT / ptxemu --timeout) ---- */

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void set_deadline(Launch *L)
{
    const char *e = getenv("PTXEMU_TIMEOUT");
    double secs = e && *e ? strtod(e, NULL) : 0;
    L->deadline_ns = secs > 0 ? mono_ns() + (uint64_t)(secs * 1e9) : 0;
}

/* The launch ran past its time limit, or the run is being stopped from outside (stop.c):
 * says where every warp of the cluster is, then fails the launch (cudaErrorLaunchTimeout
 * for the time limit). Every worker reports its own resident clusters; their warps go into
 * the launch's one "timeout" record, which sched_report_limit writes when the launch ends. */
static void time_limit(Cluster *cl, Launch *L)
{
    int stop = emu_stop_signal;
    pthread_mutex_lock(&L->lock);
    int first = !L->aborted;
    if (first) {
        L->fault.code = stop ? EMU_ERR_LAUNCH_FAILURE : EMU_ERR_LAUNCH_TIMEOUT;
        if (stop)
            snprintf(L->fault.msg, sizeof L->fault.msg, "ptxemu: kernel %s: stopped from outside (signal %d) "
                     "while running; where its warps were is above", L->prog->dname, stop);
        else
            snprintf(L->fault.msg, sizeof L->fault.msg, "ptxemu: kernel %s: ran past the time limit of "
                     "PTXEMU_TIMEOUT=%s seconds (cudaErrorLaunchTimeout); where its warps were is above",
                     L->prog->dname, getenv("PTXEMU_TIMEOUT") ? getenv("PTXEMU_TIMEOUT") : "?");
        L->aborted = 1;
        L->limit_stop = stop != 0;
    }
    if (L->fault.code == EMU_ERR_LAUNCH_TIMEOUT || (L->limit_stop && first)) {
        if (first)
            fprintf(stderr, "ptxemu: %s: kernel %s still running; its resident warps:\n",
                    L->limit_stop ? "stopped" : "time limit", L->prog->dname);
        char *buf = NULL;
        size_t blen = 0;
        FILE *m = L->limit_stop ? NULL : open_memstream(&buf, &blen);
        for (uint32_t r = 0; r < cl->n; r++) {
            Cta *c = cl->ctas[r];
            for (uint32_t i = 0; i < c->nwarps; i++) {
                Warp *w = &c->warps[i];
                if (!w->alive) continue;
                uint32_t pc;
                int l = warp_place(w, &pc);
                char at[512];
                warp_where(w, l, at, sizeof at);
                fprintf(stderr, "ptxemu:   warp %u (%s): %s\n", w->id, at, sched_warp_state(w, l));
                if (m) {
                    fprintf(m, "%s{", L->limit_len || ftell(m) ? "," : "");
                    report_place(m, w, l);
                    fprintf(m, ",\"state\":");
                    report_str(m, sched_warp_state(w, l));
                    if ((w->bar_wait >> l & 1) && w->bar_id[l] < CLUSTER_BARRIER_ID) fprintf(m, ",\"barrier\":%u", w->bar_id[l]);
                    mbar_json(m, w);
                    fputc('}', m);
                }
                w->pc = pc;
            }
        }
        if (m) {
            fclose(m);
            char *grown = buf && blen ? realloc(L->limit_js, L->limit_len + blen + 1) : NULL;
            if (grown) {
                memcpy(grown + L->limit_len, buf, blen + 1);
                L->limit_js = grown;
                L->limit_len += blen;
            }
            free(buf);
        }
    }
    pthread_mutex_unlock(&L->lock);
}

/* The launch's one "timeout" record: where all its warps were (every cluster resident when
 * the time limit struck), written once the launch has ended. */
void sched_report_limit(Launch *L)
{
    if (L->fault.code != EMU_ERR_LAUNCH_TIMEOUT) return;
    FILE *js = report_open();
    if (js) {
        fprintf(js, "{\"kind\":\"timeout\",\"code\":%d,", L->fault.code);
        report_kernel(js, L->prog);
        fprintf(js, ",\"message\":");
        report_str(js, "the launch ran past its time limit (PTXEMU_TIMEOUT)");
        fprintf(js, ",\"warps\":[%s],\"seed\":%llu}\n", L->limit_js ? L->limit_js : "",
                (unsigned long long)(L->det ? L->seed : 0));
        report_close(js);
    }
    free(L->limit_js);
    L->limit_js = NULL;
    L->limit_len = 0;
}

/* One round of a resident cluster (or lone CTA): each runnable warp runs one time slice;
 * between turns the asynchronous engine may complete operations in flight. 1 while the
 * cluster has live warps, 0 when it is done, -1 when the launch ends here (abort or
 * deadlock: operations in flight are drained), -2 after a fault (they are not). */
static int cluster_round(Cluster *cl, Launch *L, uint32_t *spins)
{
    int progress = 0, spun = 1;
    uint32_t live = 0;
    for (uint32_t r = 0; r < cl->n; r++) {
        Cta *c = cl->ctas[r];
        for (uint32_t i = 0; i < c->nwarps; i++) {
            Warp *w = &c->warps[i];
            if (w->active) {
                progress = 1;
                w->spin = 0;
                if (run_warp(w, 0) == RUN_FAULT) return -2;
                spun &= w->spin;
                if (async_round(cl) < 0) return -2;
            }
            live += w->alive != 0;
        }
    }
    if (__atomic_load_n(&L->aborted, __ATOMIC_ACQUIRE)) {
        if (L->deadline_ns && L->fault.code == EMU_ERR_LAUNCH_TIMEOUT) time_limit(cl, L);
        return -1;
    }
    if (emu_stop_signal || (L->deadline_ns && mono_ns() > L->deadline_ns)) { time_limit(cl, L); return -1; }
    /* an mbarrier wait that can never complete spins forever on a GPU; here it ends */
    *spins = progress && spun && !async_pending(cl) ? *spins + 1 : 0;
    if (*spins > POLL_QUIET) {
        int still = 1;
        for (uint32_t r = 0; r < cl->n; r++)
            for (uint32_t i = 0; i < cl->ctas[r]->nwarps; i++) {
                Warp *w = &cl->ctas[r]->warps[i];
                if (w->active) still &= poll_still(w);
            }
        cl->still_rounds = still ? cl->still_rounds + 1 : 0;
    } else {
        cl->still_rounds = 0;
    }
    if (live && (!progress || *spins > SPIN_ROUNDS || cl->still_rounds > 2)) { deadlock(cl); return -1; }
    return live != 0;
}

/* ---- parking: a launch that waits for the host ----
 * A kernel may spin on a flag the host sets only after the launch returns (a "blocking
 * kernel" that holds a stream while the host queues work behind it). ptxemu runs a launch
 * when it is made, so such a launch would never return. When the driver allows it
 * (L->may_park: a launch of one cluster, not deterministic, no race detector), a cluster
 * whose warps keep the same pcs, registers and predicates from one check to the next, with
 * nothing in flight, after PARK_AFTER_NS of running, parks: its worker buffer is kept as it
 * is, the launch returns, and sched_resume continues it when the driver next gets the call.
 * A kernel that spins while counting changes its registers and never parks. */
#define PARK_AFTER_NS 20000000ull
#define PARK_CHECK_ROUNDS 4096u
#define PARK_RESUMED 1   /* park_t0 of a launch that parked before: it spun long enough, so it
                          * is checked every PARK_CHECK_ROUNDS / 64 rounds and parks again at
                          * the first check that finds the state it parked in */

static uint64_t cluster_hash(const Cluster *cl)
{
    uint64_t h = 1469598103934665603ull;
    for (uint32_t r = 0; r < cl->n; r++)
        for (uint32_t i = 0; i < cl->ctas[r]->nwarps; i++) h = warp_state_hash(&cl->ctas[r]->warps[i], h);
    return h;
}

static int park_due(Cluster *cl, Launch *L, uint32_t *rounds)
{
    uint32_t every = L->park_t0 == PARK_RESUMED ? PARK_CHECK_ROUNDS / 64 : PARK_CHECK_ROUNDS;
    if (!L->may_park || ++*rounds % every) return 0;
    if (async_pending(cl)) { L->park_hash = 0; return 0; }
    uint64_t now = mono_ns();
    if (!L->park_t0) L->park_t0 = now;
    if (now - L->park_t0 < PARK_AFTER_NS) return 0;
    uint64_t h = cluster_hash(cl);
    int same = h == L->park_hash;
    L->park_hash = h;
    return same;
}

/* ---- blocks that wait for each other ----
 * A launch that is not cooperative has no promise that its blocks run at the same time, but
 * on the H100 every block of a grid that fits on the device at once is resident from the
 * start, and programs rely on it: a block that spins until another block sets a flag, a
 * persistent kernel whose blocks share a work queue. A worker runs one cluster to its end;
 * when that cluster has run for RESIDE_AFTER_NS while clusters of the launch wait to start,
 * the worker takes more of them and runs all it holds round-robin, doubling what it holds
 * each RESIDE_AFTER_NS, up to its share of what the H100 holds at once (model_sm_blocks on
 * 132 SMs, registers not counted) and of RESIDE_BYTES of host memory; a cluster that ends
 * makes room for the next one of the launch, as on the GPU. It keeps growing while clusters end: blocks that finish may still
 * leave others waiting for blocks not yet started (a graph colouring whose blocks each wait
 * for their neighbours' colours). Clusters that end sooner never notice. */
#define RESIDE_AFTER_NS 50000000ull
static void workerbuf_free(WorkerBuf *b);
#define RESIDE_CHECK_ROUNDS 16u

/* Clusters are handed out in index order from L->next_cta, in batches: a worker takes up
 * to HAND_MAX consecutive clusters at once (fewer as the launch nears its end, so workers
 * still finish together) and runs them in order before it takes more. One atomic add per
 * cluster on the counter every worker shares moved its cache line between the workers at
 * every cluster; a 65536-CTA grid of small CTAs paid that 65536 times. The batch a worker
 * holds is taken first by run_held too, so a cluster that waits for the next ones still
 * gets them beside it. Deterministic launches (run_det) and cooperative ones do not come
 * here. */
#define HAND_MAX 16u
#define HAND_SHARE 8u    /* a batch is at most 1/HAND_SHARE of a worker's share of what is left */
static __thread struct { uint64_t seq, next, end; } hand;   /* seq: the launch it belongs to */

static int pool_workers(void);

static int hand_left(const Launch *L) { return hand.seq == L->seq && hand.next < hand.end; }

/* The clusters handed out: those of [idle.lo, idle.hi) (idle.h: the blocks outside it leave
 * at once, counted as run when the launch began), numbered from 0. */
static uint64_t clusters_run(const Launch *L)
{
    return L->idle.hi - L->idle.lo;
}

static int take_any(Launch *L, uint64_t *i)
{
    if (hand_left(L)) { *i = hand.next++; return 1; }
    uint64_t n = clusters_run(L);
    uint64_t at = __atomic_load_n(&L->next_cta, __ATOMIC_RELAXED);
    if (at >= n) return 0;
    uint64_t k = (n - at) / ((uint64_t)pool_workers() * HAND_SHARE);
    k = k < 1 ? 1 : k > HAND_MAX ? HAND_MAX : k;
    uint64_t s = __atomic_fetch_add(&L->next_cta, k, __ATOMIC_RELAXED);
    if (s >= n) return 0;
    hand.seq = L->seq;
    hand.next = s + 1;
    hand.end = s + k < n ? s + k : n;
    *i = s;
    return 1;
}

/* The next cluster to run; idle blocks of a rule that tests each (idle_block) are counted
 * and passed over. */
static int take_cluster(Launch *L, uint64_t *i)
{
    uint64_t idle = 0;
    int rc;
    while ((rc = take_any(L, i))) {
        *i += L->idle.lo;
        if (!L->idle.on || !idle_block(L, *i)) break;
        idle++;
    }
    idle_count(L, idle);
    return rc;
}

/* Whether the cluster a worker runs alone has run long enough to take others beside it. */
static int share_due(Launch *L, uint32_t *rounds, uint64_t *t0)
{
    if (L->cooperative || L->det || ++*rounds % RESIDE_CHECK_ROUNDS) return 0;
    if (!hand_left(L) && __atomic_load_n(&L->next_cta, __ATOMIC_RELAXED) >= clusters_run(L))
        return 0;
    uint64_t now = mono_ns();
    if (!*t0) *t0 = now;
    return now - *t0 > RESIDE_AFTER_NS;
}

/* The clusters this worker may hold at once: its share of what the H100 holds, and of
 * RESIDE_BYTES of host memory for their registers, shared and local memory. */
#define RESIDE_BYTES (2ull << 30)
static uint32_t resident_share(const Launch *L)
{
    uint32_t workers = L->coop_workers ? L->coop_workers : 1;
    uint64_t device = (uint64_t)model_sm_blocks(L, NULL, NULL) * (uint64_t)H100_SMS / L->cluster_size;
    uint64_t warps = ((uint64_t)L->block[0] * L->block[1] * L->block[2] + WARP_SIZE - 1) / WARP_SIZE;
    uint64_t cta = warps * WARP_SIZE * ((uint64_t)L->prog->nrows * sizeof(uint64_t) + L->local_stride) +
                   L->shared_total + sizeof(WorkerBuf) / MAX_CLUSTER;
    uint64_t by_memory = RESIDE_BYTES / workers / (cta * L->cluster_size);
    uint64_t share = device / workers;
    if (by_memory < share) share = by_memory;
    return share < 2 ? 2 : share > 4096 ? 4096 : (uint32_t)share;
}

/* The next cluster of L into b, or 0 when none is left (or it cannot be set up). */
static int admit_next(WorkerBuf *b, Launch *L)
{
    if (__atomic_load_n(&L->aborted, __ATOMIC_ACQUIRE)) return 0;
    uint64_t i;
    if (!take_cluster(L, &i)) return 0;
    return setup_cluster(b, L, i) == 0;
}

/* Run `first` (mid-way) and more clusters of L beside it, round-robin, until none is left. */
static void run_held(WorkerBuf *first, Launch *L)
{
    uint32_t share = resident_share(L), n = 1, live = 1;
    WorkerBuf **held = calloc(share, sizeof *held);
    uint32_t *spins = calloc(share, sizeof *spins);
    uint8_t *on = calloc(share, 1);
    if (!held || !spins || !on) {   /* no room to hold more: the one it has, alone */
        free(held); free(spins); free(on);
        uint32_t sp = 0;
        int rc;
        while ((rc = cluster_round(&first->cluster, L, &sp)) > 0) {}
        if (rc != -2) async_drain(&first->cluster);
        finish_cluster(&first->cluster, L);
        return;
    }
    held[0] = first;
    on[0] = 1;
    uint64_t t0 = mono_ns();
    while (live) {
        for (uint32_t j = 0; j < n; j++) {
            if (!on[j]) continue;
            int rc = cluster_round(&held[j]->cluster, L, &spins[j]);
            if (rc > 0) continue;
            if (rc != -2) async_drain(&held[j]->cluster);
            finish_cluster(&held[j]->cluster, L);
            spins[j] = 0;
            if (!admit_next(held[j], L)) { on[j] = 0; live--; }
        }
        /* a round of many clusters is long: the clock is read after each */
        if (!live || n == share || mono_ns() - t0 <= RESIDE_AFTER_NS) continue;
        for (uint32_t add = n; add > 0 && n < share; add--) {
            WorkerBuf *b = calloc(1, sizeof *b);
            if (!b) break;
            if (!admit_next(b, L)) { workerbuf_free(b); free(b); break; }
            held[n] = b;
            on[n++] = 1;
            live++;
        }
        t0 = mono_ns();
    }
    for (uint32_t j = 1; j < n; j++) { workerbuf_free(held[j]); free(held[j]); }
    free(held);
    free(spins);
    free(on);
}

/* Rounds of b's cluster until it is done, or until it parks (L->park_buf = b), or until it
 * has run long enough to take other clusters beside it (run_held). */
static void cluster_continue(WorkerBuf *b, Launch *L)
{
    Cluster *cl = &b->cluster;
    uint32_t spins = 0, rounds = 0, share_rounds = 0;
    uint64_t t0 = 0;
    int rc;
    while ((rc = cluster_round(cl, L, &spins)) > 0) {
        if (park_due(cl, L, &rounds)) { L->park_buf = b; return; }
        if (share_due(L, &share_rounds, &t0)) { run_held(b, L); return; }
    }
    if (rc != -2) async_drain(cl);
    finish_cluster(cl, L);
}

static void run_cluster(WorkerBuf *b, Launch *L, uint64_t index)
{
    if (setup_cluster(b, L, index) < 0) return;
    cluster_continue(b, L);
}

static void workerbuf_free(WorkerBuf *b)
{
    for (int r = 0; r < MAX_CLUSTER; r++) {
        free(b->slot[r].shared); free(b->slot[r].regs); free(b->slot[r].preds);
        free(b->slot[r].local); free(b->slot[r].warps);
    }
    async_queue_free(b->aq);
}

/* Cooperative launches: grid-wide synchronisation (cooperative groups' grid.sync) spins on
 * global memory until every CTA has arrived, so every CTA of the grid must be resident at
 * once (the driver refused grids larger than the device holds). The launches of several
 * devices may also wait for each other through memory, so they run together
 * (emu_launch_together). Worker idx of nw holds clusters idx, idx+nw, ... of all of them,
 * numbered one launch after another, and runs them round-robin until all are done. A launch
 * that ends in a fault or a deadlock stops the others, which may be waiting for it. */
static void stop_with(Launch *L, const Launch *by)
{
    pthread_mutex_lock(&L->lock);
    if (!__atomic_load_n(&L->aborted, __ATOMIC_ACQUIRE)) {
        snprintf(L->fault.msg, sizeof L->fault.msg, "ptxemu: kernel %s stopped: a kernel launched "
                 "with it to run at the same time (launch %llu) failed", L->prog->dname,
                 (unsigned long long)by->seq);
        L->fault.code = EMU_ERR_LAUNCH_FAILURE;
        __atomic_store_n(&L->aborted, 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&L->lock);
}

static void run_together(Launch **Ls, int n, uint32_t idx, uint32_t nw)
{
    uint64_t total = 0;
    for (int k = 0; k < n; k++) total += Ls[k]->ncta / Ls[k]->cluster_size;
    uint64_t mine = total > idx ? (total - idx + nw - 1) / nw : 0;
    if (!mine) return;
    WorkerBuf *b = calloc(mine, sizeof *b);
    Launch **of = calloc(mine, sizeof *of);
    uint32_t *spins = calloc(mine, sizeof *spins);
    int *state = calloc(mine, sizeof *state);
    uint64_t set = 0, live = 0;
    if (!b || !of || !spins || !state) { out_of_memory(Ls[0], 0); goto out; }
    for (; set < mine; set++) {
        uint64_t g = idx + set * nw;
        int k = 0;
        while (g >= Ls[k]->ncta / Ls[k]->cluster_size) {
            g -= Ls[k]->ncta / Ls[k]->cluster_size;
            k++;
        }
        of[set] = Ls[k];
        if (setup_cluster(&b[set], Ls[k], g) < 0) goto out;
        state[set] = 1;
        live++;
    }
    while (live) {
        for (uint64_t j = 0; j < mine; j++) {
            if (!state[j]) continue;
            int rc = cluster_round(&b[j].cluster, of[j], &spins[j]);
            if (rc > 0) continue;
            if (rc != -2) async_drain(&b[j].cluster);
            finish_cluster(&b[j].cluster, of[j]);
            state[j] = 0;
            live--;
            if (rc < 0)
                for (int k = 0; k < n; k++) if (Ls[k] != of[j]) stop_with(Ls[k], of[j]);
        }
    }
out:
    for (uint64_t j = 0; j < set; j++)
        if (state && state[j]) finish_cluster(&b[j].cluster, of[j]);
    if (b)
        for (uint64_t j = 0; j < mine; j++) workerbuf_free(&b[j]);
    free(b);
    free(of);
    free(spins);
    free(state);
}

/* ---- deterministic mode -------------------------------------------------------------
 * One thread runs the launch. A window of 1-4 clusters (chosen from the seed) is resident;
 * each step runs the runnable warp with the highest priority to its next switch point
 * (PCT: priorities are random at admission; at random steps the running warp drops to a
 * low priority, and a warp whose wait failed goes behind every other). After a step an operation in
 * flight may complete, with a per-launch probability that is 0 for some seeds (the latest
 * legal completion). A schedule file records the steps taken ("s SLOT RANK WARP",
 * "a SLOT INDEX") and can be replayed exactly (docs/determinism.md). */

static struct {
    int on;
    uint64_t seed;
    FILE *rec, *rep;
    char rep_path[512];
} det_cfg;

int sched_set_deterministic(uint64_t seed, const char *record_path, const char *replay_path,
                            char *err, size_t errlen)
{
    det_cfg.on = 1;
    det_cfg.seed = seed;
    if (record_path && *record_path && !(det_cfg.rec = fopen(record_path, "w"))) {
        snprintf(err, errlen, "ptxemu: cannot write the schedule to %s", record_path);
        return -1;
    }
    if (replay_path && *replay_path) {
        if (!(det_cfg.rep = fopen(replay_path, "r"))) {
            snprintf(err, errlen, "ptxemu: cannot read the schedule %s", replay_path);
            return -1;
        }
        snprintf(det_cfg.rep_path, sizeof det_cfg.rep_path, "%s", replay_path);
        char line[64];
        if (!fgets(line, sizeof line, det_cfg.rep) || strncmp(line, "ptxemu-schedule 1", 17)) {
            snprintf(err, errlen, "ptxemu: %s is not a ptxemu schedule", replay_path);
            return -1;
        }
        /* the recording's seed also chose when asynchronous work the host issued completed
         * (runtime/driver/defer.c): the replay takes it */
        unsigned long long rs;
        if (sscanf(line + 17, " seed %llu", &rs) == 1) det_cfg.seed = rs;
    }
    if (det_cfg.rec) fprintf(det_cfg.rec, "ptxemu-schedule 1 seed %llu\n", (unsigned long long)det_cfg.seed);
    return 0;
}

int sched_deterministic(uint64_t *seed)
{
    if (det_cfg.on && seed) *seed = det_cfg.seed;
    return det_cfg.on;
}

typedef struct Det {
    uint64_t rng;
    uint32_t async_per256;   /* chance of completing an operation after a step */
    uint32_t window;
    uint64_t low;            /* cooperative launches: the priority the last warp to run got */
    uint64_t spin_low;       /* the priority the last failed wait got: below every other one,
                              * so that a poller can never starve the warp it waits for (a
                              * poller that drew a random priority could, in a warp-specialised
                              * pipeline with many pollers, for millions of steps) */
    uint32_t cap;            /* slots allocated: the most the window may grow to */
    uint64_t since;          /* the step at which a cluster last started or the window grew */
    WorkerBuf *slot;
    int *used;
    Warp **top;              /* each slot's runnable warp of the highest priority, or NULL */
    Warp *last;              /* the warp of the last step, and how many steps in a row it took */
    uint32_t last_run;
    Launch *L;
} Det;

static uint64_t det_rand(Det *d)
{
    uint64_t z = (d->rng += 0x9e3779b97f4a7c15ull);   /* splitmix64 */
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void det_fault(Launch *L, const char *msg)
{
    pthread_mutex_lock(&L->lock);
    if (!L->aborted) {
        L->fault.code = EMU_ERR_LAUNCH_FAILURE;
        snprintf(L->fault.msg, sizeof L->fault.msg, "ptxemu: kernel %s: %s", L->prog->dname, msg);
        L->aborted = 1;
    }
    pthread_mutex_unlock(&L->lock);
}

/* Replay: the next decision line, skipping comments; 0 at the end of the launch. */
static int det_read(char *line, size_t n)
{
    while (fgets(line, (int)n, det_cfg.rep))
        if (line[0] != '#' && line[0] != '\n') return strncmp(line, "end", 3) != 0;
    return 0;
}

static Warp *det_warp(Det *d, uint32_t s, uint32_t r, uint32_t i)
{
    if (s >= d->window || !d->used[s]) return NULL;
    Cluster *cl = &d->slot[s].cluster;
    if (r >= cl->n || i >= cl->ctas[r]->nwarps) return NULL;
    return &cl->ctas[r]->warps[i];
}

/* Slot s's runnable warp of the highest priority (the first of equals), kept per slot so
 * that a step looks at the warps of the cluster it ran, not at every resident warp: only a
 * step or a completion in a cluster changes which of its warps can run, and only the warp
 * that ran changes its priority. */
static void det_top(Det *d, uint32_t s)
{
    Warp *best = NULL;
    if (d->used[s]) {
        Cluster *cl = &d->slot[s].cluster;
        for (uint32_t r = 0; r < cl->n; r++)
            for (uint32_t i = 0; i < cl->ctas[r]->nwarps; i++) {
                Warp *w = &cl->ctas[r]->warps[i];
                if (w->active && (!best || w->prio > best->prio)) best = w;
            }
    }
    d->top[s] = best;
}

static int det_admit(Det *d, uint32_t s, uint64_t index)
{
    if (setup_cluster(&d->slot[s], d->L, index) < 0) return -1;
    Cluster *cl = &d->slot[s].cluster;
    for (uint32_t r = 0; r < cl->n; r++)
        for (uint32_t i = 0; i < cl->ctas[r]->nwarps; i++)
            cl->ctas[r]->warps[i].prio = (det_rand(d) >> 33) | 1ull << 62;
    d->used[s] = 1;
    det_top(d, s);
    return 0;
}

/* The window grows as the parallel mode's workers take more clusters (run_held): on the
 * H100 every block of a grid that fits on the device is resident, and programs rely on it
 * (blocks that wait for blocks after them, persistent kernels). When clusters wait to start
 * and none has started for DET_GROW_STEPS steps, or every resident warp only spins, the
 * window doubles, up to what the device holds at once (resident_share). Steps, not time,
 * decide, so the seed still fixes everything; a schedule file records it ("g W"). */
#define DET_GROW_STEPS (1u << 16)
#define DET_TURN_STEPS 4096u

static int det_can_grow(const Det *d, uint64_t next, uint64_t ncl)
{
    return next < ncl && d->window < d->cap;
}

/* Widen the window to w slots (at most cap) and admit clusters into the new ones. */
static int det_grow(Det *d, uint32_t w, uint64_t *next, uint64_t ncl)
{
    if (w > d->cap) w = d->cap;
    uint32_t old = d->window;
    d->window = w;
    d->since = d->L->det_steps;
    if (det_cfg.rec) fprintf(det_cfg.rec, "g %u\n", w);
    for (uint32_t s = old; s < w && *next < ncl; s++)
        if (det_admit(d, s, (*next)++) < 0) return -1;
    return 0;
}

/* The warps of the resident clusters that can run (not parked at a barrier). */
static uint32_t det_runnable(const Det *d)
{
    uint32_t n = 0;
    for (uint32_t s = 0; s < d->window; s++) {
        if (!d->used[s]) continue;
        const Cluster *cl = &d->slot[s].cluster;
        for (uint32_t r = 0; r < cl->n; r++)
            for (uint32_t i = 0; i < cl->ctas[r]->nwarps; i++) n += cl->ctas[r]->warps[i].active != 0;
    }
    return n;
}

static uint32_t cluster_live(const Cluster *cl)
{
    uint32_t live = 0;
    for (uint32_t r = 0; r < cl->n; r++)
        for (uint32_t i = 0; i < cl->ctas[r]->nwarps; i++) live += cl->ctas[r]->warps[i].alive != 0;
    return live;
}

static void run_det(Launch *L)
{
    Det d;
    memset(&d, 0, sizeof d);
    d.L = L;
    if (OBSERVING(L->obs, OBS_SPAN)) ev_launch_begin();
    d.rng = det_cfg.seed ^ (L->seq * 0x632be59bd9b4e019ull);
    d.low = 1ull << 61;
    d.spin_low = 1ull << 40;   /* random drops land in [2^40, 2^40 + 2^24) */
    uint64_t ncl = L->ncta / L->cluster_size, next = 0;
    char line[128];
    d.window = (uint32_t)(1 + det_rand(&d) % (ncl < 4 ? ncl : 4));
    if (L->cooperative) d.window = (uint32_t)ncl;   /* the whole grid is resident */
    d.async_per256 = (det_rand(&d) & 3) == 0 ? 0 : (uint32_t)(det_rand(&d) % 256);
    if (det_cfg.rep) {
        unsigned wnd;
        if (!det_read(line, sizeof line) || sscanf(line, "launch %*s window %u", &wnd) != 1 || !wnd ||
            wnd > (L->cooperative ? ncl : 4)) {
            det_fault(L, "the replayed schedule does not match this launch");
            return;
        }
        d.window = wnd;
    }
    if (det_cfg.rec) fprintf(det_cfg.rec, "launch %s window %u\n", L->prog->name, d.window);
    d.cap = d.window;
    if (!L->cooperative) {
        uint32_t share = resident_share(L);
        d.cap = share < ncl ? share : (uint32_t)ncl;
        if (d.cap < d.window) d.cap = d.window;
    }
    /* slots for the whole cap at once: warps point into their slot, which must not move */
    d.slot = calloc(d.cap, sizeof *d.slot);
    d.used = calloc(d.cap, sizeof *d.used);
    d.top = calloc(d.cap, sizeof *d.top);
    if (!d.slot || !d.used || !d.top) { out_of_memory(L, 0); goto out; }
    for (uint32_t s = 0; s < d.window && next < ncl; s++)
        if (det_admit(&d, s, next++) < 0) goto out;
    uint32_t spins = 0, tick = 0, still = 0;
    for (;;) {
        if (emu_stop_signal || (L->deadline_ns && (++tick & 1023) == 0 && mono_ns() > L->deadline_ns)) {
            for (uint32_t s2 = 0; s2 < d.window; s2++)
                if (d.used[s2]) time_limit(&d.slot[s2].cluster, L);
            break;
        }
        if (__atomic_load_n(&L->aborted, __ATOMIC_ACQUIRE)) break;
        int any = 0;
        for (uint32_t s = 0; s < d.window; s++) any |= d.used[s];
        if (!any) break;
        L->det_steps++;
        Warp *best = NULL;
        uint32_t bs = 0;
        if (det_cfg.rep) {
            unsigned s, r, i, k;
            if (!det_read(line, sizeof line)) { det_fault(L, "the replayed schedule ends early"); break; }
            int after = line[0] == 'c';   /* completed after the step before: no step of its own */
            if (sscanf(line + after, after ? " %u %u" : "a %u %u", &s, &k) == 2) {
                if (s >= d.window || !d.used[s] || async_complete_index(&d.slot[s].cluster, k)) {
                    det_fault(L, "the replayed schedule does not match this launch");
                    break;
                }
                det_top(&d, s);
                L->det_steps -= (uint64_t)after;
                continue;
            }
            if (sscanf(line, "g %u", &s) == 1) {
                L->det_steps--;
                if (s <= d.window || s > d.cap || next >= ncl) {
                    det_fault(L, "the replayed schedule does not match this launch");
                    break;
                }
                if (det_grow(&d, s, &next, ncl) < 0) break;
                continue;
            }
            if (sscanf(line, "s %u %u %u", &s, &r, &i) != 3 || !(best = det_warp(&d, s, r, i)) ||
                !best->active) {
                det_fault(L, "the replayed schedule does not match this launch");
                break;
            }
            bs = s;
        } else {
            if (det_can_grow(&d, next, ncl) && L->det_steps - d.since > DET_GROW_STEPS &&
                det_grow(&d, d.window * 2, &next, ncl) < 0)
                break;
            for (uint32_t s = 0; s < d.window; s++) {
                Warp *w = d.top[s];
                if (w && (!best || w->prio > best->prio)) { best = w; bs = s; }
            }
        }
        if (!best) {
            /* nothing can run: an operation in flight must complete, else it is a deadlock */
            uint32_t s0 = (uint32_t)(det_rand(&d) % d.window), done = 0;
            for (uint32_t k = 0; k < d.window && !done; k++) {
                uint32_t s = (s0 + k) % d.window;
                if (!d.used[s] || !async_count(&d.slot[s].cluster)) continue;
                uint32_t idx = (uint32_t)det_rand(&d);
                if (det_cfg.rec) fprintf(det_cfg.rec, "a %u %u\n", s, idx % async_count(&d.slot[s].cluster));
                if (async_complete_index(&d.slot[s].cluster, idx)) goto out;
                det_top(&d, s);
                done = 1;
            }
            if (done) continue;
            for (uint32_t s = 0; s < d.window; s++)
                if (d.used[s] && cluster_live(&d.slot[s].cluster)) { deadlock(&d.slot[s].cluster); break; }
            break;
        }
        Cluster *cl = &d.slot[bs].cluster;
        if (det_cfg.rec)
            fprintf(det_cfg.rec, "s %u %u %u\n", bs, best->cta->rank, best->id);
        best->spin_resume = best->spin;
        best->spin = 0;
        if (run_warp(best, 1) == RUN_FAULT) break;
        if (!det_cfg.rep) {
            /* PCT: now and then the running warp drops low; a failed wait steps aside. In a
             * cooperative launch grid.sync polls a counter with plain loads, and a poller
             * that kept its priority (or drew a new one) could starve the block it waits
             * for: there the warp that just ran goes behind every other, give or take a
             * few places drawn from the seed. */
            if (L->cooperative)
                best->prio = (d.low -= 1 + (det_rand(&d) & 15));
            else if (best->spin || best->mem_spin)   /* behind every warp that can make progress: pollers */
                best->prio = --d.spin_low;   /* take turns, the longest waiting first */
            else if ((det_rand(&d) & 63) == 0)
                best->prio = det_rand(&d) >> 40 | 1ull << 40;
            /* a turn has an end: a loop that waits for other warps without looking like a
             * poll (it walks memory, so its registers change) would otherwise keep the
             * highest priority and starve the warps it waits for, which a GPU never does */
            d.last_run = best == d.last ? d.last_run + 1 : 1;
            d.last = best;
            if (d.last_run > DET_TURN_STEPS) {
                best->prio = --d.spin_low;
                d.last_run = 0;
            }
            spins = (best->spin || best->mem_spin) && !async_count(cl) ? spins + 1 : 0;
            /* pollers take turns (above), so once every resident warp that can run has
             * polled with its state unchanged twice in a row, nothing will change */
            still = spins > POLL_QUIET && poll_still(best) ? still + 1 : 0;
            if (spins > SPIN_ROUNDS || (still > POLL_QUIET && still > 2 * det_runnable(&d))) {
                /* only spinning: a block the device would hold may be the one they wait for */
                if (!det_can_grow(&d, next, ncl)) { deadlock(cl); break; }
                if (det_grow(&d, d.window * 2, &next, ncl) < 0) break;
                spins = still = 0;
            }
            uint32_t n = async_count(cl);
            if (n && (det_rand(&d) & 255) < d.async_per256) {
                uint32_t idx = (uint32_t)det_rand(&d);
                if (det_cfg.rec) fprintf(det_cfg.rec, "c %u %u\n", bs, idx % n);
                if (async_complete_index(cl, idx)) break;
            }
        }
        if (!cluster_live(cl)) {
            d.top[bs] = NULL;
            if (async_drain(cl) < 0) break;
            finish_cluster(cl, L);
            d.used[bs] = 0;
            if (next < ncl) {
                d.since = L->det_steps;
                if (det_admit(&d, bs, next++) < 0) break;
            }
        } else
            det_top(&d, bs);
    }
out:
    /* a launch that ended early (fault, deadlock, time limit) leaves clusters resident:
     * finished as run_together and run_cluster finish theirs, so their state is freed */
    if (d.slot && d.used)
        for (uint32_t s = 0; s < d.window; s++)
            if (d.used[s]) finish_cluster(&d.slot[s].cluster, L);
    if (det_cfg.rec) { fprintf(det_cfg.rec, "end\n"); fflush(det_cfg.rec); }
    if (det_cfg.rep && !L->aborted) {
        if (det_read(line, sizeof line)) det_fault(L, "the replayed schedule has steps left over");
    }
    if (d.slot)
        for (uint32_t s = 0; s < d.window; s++) workerbuf_free(&d.slot[s]);
    free(d.slot);
    free(d.used);
    free(d.top);
}

/* ---- the worker pool ------------------------------------------------------------------ */

static struct {
    pthread_mutex_t lock;
    pthread_cond_t go, done;
    Launch *launch;
    Launch **together;          /* or launches run together (sched_run_together) */
    int ntogether;
    uint32_t next_worker;
    uint64_t generation;
    int nthreads, busy;
    pthread_once_t once;
} pool = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER,
           NULL, NULL, 0, 0, 0, 0, 0, PTHREAD_ONCE_INIT };

/* Allocated, not a TLS array: libcuda.so.1 is dlopen'ed by programs, and its thread-local
 * block must fit the few hundred bytes of static TLS that glibc keeps for that (the memory
 * fast path's cache is initial-exec TLS, which puts the whole block there). */
static __thread WorkerBuf *tls_buf;

/* The program's own threads run launches too (sched_run): when one exits, its buffers go. */
static pthread_key_t tls_buf_key;
static pthread_once_t tls_buf_once = PTHREAD_ONCE_INIT;
static int tls_buf_keyed;

static void tls_buf_exit(void *b)
{
    workerbuf_free(b);
    free(b);
    tls_buf = NULL;
}

static void tls_buf_key_init(void)
{
    tls_buf_keyed = pthread_key_create(&tls_buf_key, tls_buf_exit) == 0;
}

static void work(Launch *L)
{
    if (OBSERVING(L->obs, OBS_SPAN)) ev_launch_begin();
    if (L->cooperative) {
        uint32_t idx = (uint32_t)__atomic_fetch_add(&L->next_cta, 1, __ATOMIC_RELAXED);
        run_together(&L, 1, idx, L->coop_workers);
        return;
    }
    if (!tls_buf) {
        if (!(tls_buf = calloc(1, sizeof *tls_buf))) {
            out_of_memory(L, 0);
            return;
        }
        pthread_once(&tls_buf_once, tls_buf_key_init);
        if (tls_buf_keyed) pthread_setspecific(tls_buf_key, tls_buf);
    }
    for (;;) {
        if (__atomic_load_n(&L->aborted, __ATOMIC_ACQUIRE)) return;
        uint64_t i;
        if (!take_cluster(L, &i)) return;
        run_cluster(tls_buf, L, i);
        if (L->park_buf) {   /* the parked cluster keeps the buffer; this thread takes a new one */
            tls_buf = NULL;
            if (tls_buf_keyed) pthread_setspecific(tls_buf_key, NULL);
            return;
        }
    }
}

static void *worker_main(void *arg)
{
    ev_set_worker((uint32_t)(uintptr_t)arg);
    uint64_t seen = 0;
    pthread_mutex_lock(&pool.lock);
    for (;;) {
        while (pool.generation == seen) pthread_cond_wait(&pool.go, &pool.lock);
        seen = pool.generation;
        Launch *L = pool.launch, **T = pool.together;
        int nt = pool.ntogether;
        uint32_t idx = T ? pool.next_worker++ : 0;
        pthread_mutex_unlock(&pool.lock);
        if (T) run_together(T, nt, idx, (uint32_t)pool.nthreads);
        else work(L);
        count_flush();
        pthread_mutex_lock(&pool.lock);
        if (--pool.busy == 0) pthread_cond_signal(&pool.done);
    }
    return NULL;
}

static int want_threads;

static void start_pool(void)
{
    int n = want_threads;
    if (n <= 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        n = c > 0 ? (int)c : 1;
    }
    pool.nthreads = 1;   /* the launching thread works too */
    for (int i = 1; i < n; i++) {
        pthread_t th;
        pthread_attr_t a;
        pthread_attr_init(&a);
        pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&th, &a, worker_main, (void *)(uintptr_t)pool.nthreads) == 0) pool.nthreads++;
        pthread_attr_destroy(&a);
    }
}

static int pool_workers(void) { return pool.nthreads > 0 ? pool.nthreads : 1; }

int sched_init(int nthreads)
{
    want_threads = nthreads;
    pthread_once(&pool.once, start_pool);
    return 0;
}

int sched_threads(void)
{
    return pool.nthreads;
}

void sched_run(Launch *L)
{
    set_deadline(L);
    if (L->cooperative || L->ncta / L->cluster_size != 1) L->may_park = 0;
    if (det_cfg.on) {
        L->det = 1;
        L->seed = det_cfg.seed;
        run_det(L);
        count_flush();
        return;
    }
    sched_init(want_threads);
    int helpers = pool.nthreads - 1;
    if (clusters_run(L) < 2) helpers = 0;   /* one cluster: no point waking the pool */
    L->coop_workers = (uint32_t)helpers + 1;
    if (helpers) {
        pthread_mutex_lock(&pool.lock);
        pool.launch = L;
        pool.together = NULL;
        pool.busy = helpers;
        pool.generation++;
        pthread_cond_broadcast(&pool.go);
        pthread_mutex_unlock(&pool.lock);
    }
    work(L);
    count_flush();
    if (helpers) {
        pthread_mutex_lock(&pool.lock);
        while (pool.busy) pthread_cond_wait(&pool.done, &pool.lock);
        pthread_mutex_unlock(&pool.lock);
    }
}

/* Continue a parked launch (sched_run left L->park_buf); 1 when it parked again. */
int sched_resume(Launch *L, int may_park)
{
    WorkerBuf *b = L->park_buf;
    if (!b) return 0;
    L->park_buf = NULL;
    L->may_park = may_park;
    L->park_t0 = PARK_RESUMED;
    set_deadline(L);
    cluster_continue(b, L);
    count_flush();
    if (L->park_buf) return 1;
    workerbuf_free(b);
    free(b);
    return 0;
}

/* A parked launch that will not continue: its cluster's buffer goes. */
void sched_discard(Launch *L)
{
    if (!L->park_buf) return;
    workerbuf_free(L->park_buf);
    free(L->park_buf);
    L->park_buf = NULL;
}

void sched_run_together(Launch **Ls, int n)
{
    for (int k = 0; k < n; k++) set_deadline(Ls[k]);
    if (det_cfg.on) {   /* one at a time (the driver does not defer in this mode) */
        for (int k = 0; k < n; k++) sched_run(Ls[k]);
        return;
    }
    sched_init(want_threads);
    if (OBSERVING(obs_mask, OBS_SPAN)) ev_launch_begin();
    int helpers = pool.nthreads - 1;
    if (helpers) {
        pthread_mutex_lock(&pool.lock);
        pool.launch = NULL;
        pool.together = Ls;
        pool.ntogether = n;
        pool.next_worker = 1;   /* the launching thread is worker 0 */
        pool.busy = helpers;
        pool.generation++;
        pthread_cond_broadcast(&pool.go);
        pthread_mutex_unlock(&pool.lock);
    }
    run_together(Ls, n, 0, (uint32_t)pool.nthreads);
    count_flush();
    if (helpers) {
        pthread_mutex_lock(&pool.lock);
        while (pool.busy) pthread_cond_wait(&pool.done, &pool.lock);
        pool.together = NULL;
        pthread_mutex_unlock(&pool.lock);
    }
}
