/* warp.c - a warp's lanes: divergence and reconvergence (which group of lanes runs), lanes
 * parked at barriers and warp-synchronous instructions, and the hash spin checks compare. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine.h"
#include "exec.h"

/* The lane scans below run on every barrier and every regroup (scan's profile: a third of
 * its time), so they are written over all 32 lanes without branches, a form the compiler
 * turns into a few vector instructions, instead of walking the mask bit by bit. */

/* Lowest lane_pc among the lanes of `from` (UINT32_MAX if none). */
static inline uint32_t lowest_pc(const Warp *w, uint32_t from)
{
    uint32_t lo = UINT32_MAX;
    if (!from) return lo;   /* a warp's exit: two scans of nothing were an eighth of saxpy */
    for (int l = 0; l < WARP_SIZE; l++) {
        uint32_t v = (from >> l) & 1u ? w->lane_pc[l] : UINT32_MAX;
        lo = v < lo ? v : lo;
    }
    return lo;
}

typedef uint32_t u32x4 __attribute__((vector_size(16)));

/* The lanes of `from` whose lane_pc is pc. Four lanes a step in vector code written out
 * (the plain loop's variable shifts kept it scalar: 7 instructions a lane); each step's
 * compare selects its lanes' bits, put at their place by the step's shift. */
static inline uint32_t lanes_at(const Warp *w, uint32_t from, uint32_t pc)
{
    const u32x4 bit = { 1, 2, 4, 8 }, want = { pc, pc, pc, pc };
    u32x4 set = { 0, 0, 0, 0 };
#pragma GCC unroll 8
    for (int k = 0; k < WARP_SIZE / 4; k++) {
        u32x4 v;
        memcpy(&v, &w->lane_pc[4 * k], sizeof v);
        set |= ((u32x4)(v == want) & bit) << (4 * k);
    }
    return (set[0] | set[1] | set[2] | set[3]) & from;
}

/* The lanes of a nibble of a mask as a vector selection (nib_sel[m]: lane k all ones when bit
 * k of m is set): one load instead of a broadcast, a mask and a compare a step. */
#define NIB(m) { -((m) & 1u), -((m) >> 1 & 1u), -((m) >> 2 & 1u), -((m) >> 3 & 1u) }
static const u32x4 nib_sel[16] = { NIB(0), NIB(1), NIB(2), NIB(3), NIB(4), NIB(5), NIB(6), NIB(7),
                                   NIB(8), NIB(9), NIB(10), NIB(11), NIB(12), NIB(13), NIB(14), NIB(15) };
#undef NIB

/* lane_pc of every lane = pc (eight vector stores) */
static inline void lane_pcs_all(Warp *w, uint32_t pc)
{
    const u32x4 v = { pc, pc, pc, pc };
#pragma GCC unroll 8
    for (int k = 0; k < WARP_SIZE / 4; k++) memcpy(&w->lane_pc[4 * k], &v, sizeof v);
}

/* lane_pc of the lanes of mask = pc: a few lanes one by one, more four at a time in vector
 * code (a branch taken by 31 lanes cost 7 instructions a lane one by one, and 115 in all
 * with the selection computed from the mask's bits) */
static inline void lane_pcs_set(Warp *w, uint32_t mask, uint32_t pc)
{
    if (popcount32(mask) <= 4) {
        for (uint32_t m = mask; m; m &= m - 1) w->lane_pc[__builtin_ctz(m)] = pc;
        return;
    }
    const u32x4 v = { pc, pc, pc, pc };
#pragma GCC unroll 8
    for (int k = 0; k < WARP_SIZE / 4; k++) {
        u32x4 cur, sel = nib_sel[mask >> (4 * k) & 15];
        memcpy(&cur, &w->lane_pc[4 * k], sizeof cur);
        cur = (cur & ~sel) | (v & sel);
        memcpy(&w->lane_pc[4 * k], &cur, sizeof cur);
    }
}

/* Lowest pc among runnable lanes outside the running group: the running group merges
 * with them when it gets there (the rule outside divergence regions). */
static uint32_t min_other_pc(const Warp *w)
{
    return lowest_pc(w, warp_runnable(w) & ~w->active);
}

/* Run the runnable lanes of `from` that have the lowest pc. */
static void run_lowest(Warp *w, uint32_t from)
{
    if (!from) { w->active = 0; w->pc = 0; return; }
    /* mostly the lanes of from are at one pc (a whole warp leaving a barrier, a branch's
     * paths met): one scan finds them, and that pc is the lowest */
    uint32_t lo = w->lane_pc[__builtin_ctz(from)];
    uint32_t group = lanes_at(w, from, lo);
    if (group != from) {
        lo = lowest_pc(w, from);
        group = lanes_at(w, from, lo);
    }
    w->active = group;
    w->pc = lo;
}

/* Choose the next running group. Inside a divergence region (a branch split the lanes and
 * they meet again at its reconvergence pc), a group runs until it reaches that pc, then the
 * region's other lanes run; when all have arrived the region closes and they go on
 * together. This is the order an H100 shows (the fall-through path first, each path to the
 * join). Outside regions, the lanes with the lowest pc run and merge by pc. */
static void regroup_scan(Warp *w);

void warp_regroup(Warp *w)
{
    /* The running group reached the join of the innermost region, and every other lane of
     * the region went straight there by its branch (e.at: an `if` without else, reduction's
     * `if (lane == 0)`): the region closes and all its lanes go on together, which is what
     * the loop below finds (every member arrived, none parked), without writing the group's
     * lane pcs (they run on: nothing reads them) or scanning the lanes. */
    if (w->sp) {
        struct DivEntry *e = &w->stk[w->sp - 1];
        uint32_t members = e->mask & w->alive;
        if (w->pc == e->rpc && w->active && !(w->active & ~members) && !(members & w->waiting) &&
            !(members & ~(w->active | e->at)) && e->rpc != RPC_EXIT) {
            w->sp--;
            w->active = members;
            w->merge_pc = w->sp ? w->stk[w->sp - 1].rpc : min_other_pc(w);
            return;
        }
    }
    regroup_scan(w);
}

/* warp_regroup's general case, apart so that the join above runs without its frame */
static __attribute__((noinline)) void regroup_scan(Warp *w)
{
    if (w->active == 0xffffffffu)
        for (int l = 0; l < WARP_SIZE; l++) w->lane_pc[l] = w->pc;
    else
        lane_pcs_set(w, w->active, w->pc);
    while (w->sp) {
        const struct DivEntry *e = &w->stk[w->sp - 1];
        uint32_t members = e->mask & w->alive, arrived = lanes_at(w, members, e->rpc);
        if (e->rpc == RPC_EXIT)
            for (uint32_t m = members; m; m &= m - 1)
                if (w->depth[__builtin_ctz(m)] < e->depth) arrived |= 1u << __builtin_ctz(m);
        uint32_t pending = members & ~arrived & ~w->waiting;
        if (pending) {
            run_lowest(w, pending);
            w->merge_pc = e->rpc;
            return;
        }
        uint32_t rpc = e->rpc, go = arrived & ~w->waiting;
        if ((members & ~arrived) && !go) {  /* the rest are parked and nobody can go on */
            w->active = 0;
            w->merge_pc = rpc;
            return;
        }
        /* All arrived, or the others wait at a barrier: the arrived lanes go on (an early
         * return before __syncthreads must reach its exit, or the barrier would wait for
         * it forever); the parked lanes continue on their own when released. */
        w->sp--;
        if (rpc != RPC_EXIT && go) {
            w->active = go;
            w->pc = rpc;
            w->merge_pc = w->sp ? w->stk[w->sp - 1].rpc : min_other_pc(w);
            return;
        }
        /* paths that met only by returning or exiting: the enclosing rule decides */
    }
    run_lowest(w, warp_runnable(w));
    w->merge_pc = min_other_pc(w);
}

/* A branch split the running group: `taken` lanes go to target, the others to pc+1. The
 * not-taken path runs first, up to the reconvergence pc rpc. */
void warp_diverge(Warp *w, uint32_t taken, uint32_t target, uint32_t rpc)
{
    warp_diverge_at(w, taken, target, w->pc + 1, rpc);
}

/* The same, the other lanes going to rest_pc (an indirect call: they call their own
 * targets when they run this instruction again). */
void warp_diverge_at(Warp *w, uint32_t taken, uint32_t target, uint32_t rest_pc, uint32_t rpc)
{
    uint32_t all = w->active;
    /* Lanes outside the running group keep their pcs; when there are none (the whole warp
     * runs), every lane's pc is written, the group's own ones being unread while it runs. */
    if (!(w->alive & ~all)) lane_pcs_all(w, target);
    else lane_pcs_set(w, taken, target);
    struct DivEntry *top = w->sp ? &w->stk[w->sp - 1] : NULL;
    /* a region with the same join already covers these lanes (a loop's exit branch taken
     * again); past DIV_MAX the enclosing region's join is used */
    int same = top && top->rpc == rpc && (top->mask & all) == all;
    if (!same && w->sp < DIV_MAX) {
        struct DivEntry *e = &w->stk[w->sp++];
        e->rpc = rpc;
        e->mask = all;
        e->depth = w->depth[__builtin_ctz(all)];
        e->at = target == rpc ? taken : 0;   /* they wait at the join (warp_regroup) */
    } else if (same && target == rpc) {
        top->at |= taken;
    }
    w->active = all & ~taken;
    w->pc = rest_pc;
    if (!w->active || w->pc == rpc) {
        warp_regroup(w);
        return;
    }
    w->merge_pc = w->sp ? w->stk[w->sp - 1].rpc : min_other_pc(w);
}

void warp_unpark(Warp *w, uint32_t lanes)
{
    w->bar_whole = 0;   /* its lanes no longer all wait together (sched.c's bar_release) */
    w->waiting &= ~lanes;
    if (!w->active) {
        /* The common release: the whole warp, parked at one pc with no region open (every
         * lane reached the __syncthreads). What warp_regroup finds (run_lowest's group is
         * every lane, min_other_pc none), without its calls and scans: a barrier releases
         * every warp of the CTA, and scan's barriers every few instructions made this a
         * twentieth of its time. */
        if (lanes == FULL_MASK && w->alive == FULL_MASK && !w->waiting && !w->sp &&
            lanes_at(w, FULL_MASK, w->lane_pc[0]) == FULL_MASK) {
            w->active = FULL_MASK;
            w->pc = w->lane_pc[0];
            w->merge_pc = UINT32_MAX;
            return;
        }
        warp_regroup(w);
        return;
    }
    if (w->sp) return;   /* released lanes run when the running group reaches its join */
    /* keep running the current group; the released lanes join by pc */
    for (uint32_t m = lanes & w->alive; m; m &= m - 1) {
        uint32_t pc = w->lane_pc[__builtin_ctz(m)];
        if (pc < w->merge_pc) w->merge_pc = pc;
    }
    if (w->merge_pc <= w->pc) warp_regroup(w);
}

/* .aligned instructions (mma, wgmma, ldmatrix...): every lane of members executes this very
 * instruction; a lane that has exited never will. The lanes wait here; when all are here
 * the instruction runs again with the whole group (regroup merges lanes that share a pc). */
int warp_converge(Warp *w, const Inst *in, uint32_t mask, uint32_t members)
{
    members &= w->valid;
    uint32_t missing = members & ~mask;
    if (!missing) return 0;
    if (missing & ~w->alive)
        return warp_fault(w, __builtin_ctz(mask), EMU_ERR_ILLEGAL_INSTRUCTION,
                          "warp-synchronous %s waits for lane %d, which has exited",
                          op_info[in->op].name, __builtin_ctz(missing & ~w->alive));
    uint32_t pc = (uint32_t)(in - w->prog->code);
    uint32_t parked = 0;
    for (uint32_t m = w->sync_wait; m; m &= m - 1)
        if (w->lane_pc[__builtin_ctz(m)] == pc) parked |= 1u << __builtin_ctz(m);
    if (!(members & ~(mask | parked))) {
        w->sync_wait &= ~parked;
        w->waiting &= ~parked;
        warp_regroup(w);
        return STEP_JUMP;
    }
    w->sync_wait |= mask;
    w->waiting |= mask;
    warp_regroup(w);
    return STEP_BLOCK;
}

/* One value of an operand of lane l: a GPR row, or a predicate bit (pred). */
static inline uint64_t opnd_get(const Warp *w, uint32_t r, int pred, int l)
{
    return pred ? (w->P[r] >> l & 1) : ROW(w, r)[l];
}

static inline void opnd_put(Warp *w, uint32_t r, int pred, int l, uint64_t v)
{
    if (pred) w->P[r] = (w->P[r] & ~(1u << l)) | (uint32_t)(v & 1) << l;
    else ROW(w, r)[l] = v;
}

/* Whether lanes at `other` can run in one execution of `in`: the same operation, and no two
 * sources of `in` share a register that other's hold apart (the operands are lent lane by
 * lane, see join_run). */
static int joinable(const Inst *in, const Inst *other)
{
    if (other->fn != in->fn || other->flags != in->flags || other->nd != in->nd || other->ns != in->ns)
        return 0;
    for (int a = 0; a < in->ns; a++)
        for (int b = a + 1; b < in->ns; b++)
            if (in->s[a] == in->s[b] && other->s[a] != other->s[b]) return 0;
    return 1;
}

/* Run `in` once for the running lanes (mask) and the lanes released with them (rel): those
 * at this pc, and those at another instruction of the same kind, whose operands are lent to
 * in's registers for the run and whose results go back to their own registers. This is
 * what the GPU does: a __ballot_sync in an unrolled loop and the same ballot in the loop's
 * remainder, reached by lanes that left the loop at different trip counts, give one result
 * (tests/cuda/warp_exited.cu, leave_one_by_one). Returns STEP_JUMP with every lane past
 * its instruction, or the handler's fault. */
static int join_run(Warp *w, const Inst *in, uint32_t mask, uint32_t rel, uint32_t kinds)
{
    const Inst *code = w->prog->code;
    uint32_t pc = (uint32_t)(in - code), far = 0;
    uint64_t saved[WARP_SIZE][INST_MAXS + INST_MAXD];
    int ns = in->ns < INST_MAXS ? in->ns : INST_MAXS, nd = in->nd < INST_MAXD ? in->nd : INST_MAXD;
    for (uint32_t m = rel; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        const Inst *o = &code[w->lane_pc[l]];
        if (w->lane_pc[l] == pc) continue;
        far |= 1u << l;
        for (int k = 0; k < ns; k++) saved[l][k] = opnd_get(w, in->s[k], kinds >> k & 1, l);
        for (int k = 0; k < nd; k++) saved[l][INST_MAXS + k] = opnd_get(w, in->d[k], kinds >> (8 + k) & 1, l);
        for (int k = 0; k < ns; k++) opnd_put(w, in->s[k], kinds >> k & 1, l, opnd_get(w, o->s[k], kinds >> k & 1, l));
    }
    w->sync_join = 1;
    int r = in->fn(w, in, mask | rel);
    w->sync_join = 0;
    for (uint32_t m = far; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        const Inst *o = &code[w->lane_pc[l]];
        uint64_t res[INST_MAXD];
        for (int k = 0; k < nd; k++) res[k] = opnd_get(w, in->d[k], kinds >> (8 + k) & 1, l);
        for (int k = 0; k < ns; k++) opnd_put(w, in->s[k], kinds >> k & 1, l, saved[l][k]);
        for (int k = 0; k < nd; k++) opnd_put(w, in->d[k], kinds >> (8 + k) & 1, l, saved[l][INST_MAXS + k]);
        for (int k = 0; k < nd; k++) opnd_put(w, o->d[k], kinds >> (8 + k) & 1, l, res[k]);
    }
    if (r == STEP_FAULT) return r;
    for (uint32_t m = rel; m; m &= m - 1) w->lane_pc[__builtin_ctz(m)]++;
    w->waiting &= ~rel;
    w->pc = pc + 1;
    warp_regroup(w);
    return STEP_JUMP;
}

/* .sync instructions with a membermask (shfl, vote, match, redux, bar.warp.sync, elect):
 * wait until every lane of `members` that has not exited is at a warp-synchronous
 * instruction (the CUDA programming guide defines the mask over non-exited threads;
 * warp_lanes_exited gives waiting lanes another try when lanes exit). Lanes parked at one
 * count wherever they are: on the GPU lanes at two different sites synchronise with each
 * other. When all are there, the lanes parked at this instruction or at another of the same
 * kind run with this one (join_run; kinds: bit k set when source k is a predicate, bit 8+k
 * for destination k; JOIN_NONE for instructions that exchange no data), and lanes parked
 * elsewhere are released with sync_go to run theirs without waiting again. */
int warp_converge_sync(Warp *w, const Inst *in, uint32_t mask, uint32_t members, uint32_t kinds)
{
    if (w->sync_join) return 0;   /* join_run's own execution */
    members &= w->valid & w->alive;
    uint32_t go = mask & w->sync_go;
    w->sync_go &= ~mask;
    if (go == mask || !(members & ~mask)) return 0;
    if (members & ~mask & ~w->sync_wait & ~w->sync_go) {   /* someone has yet to come */
        w->sync_wait |= mask;
        w->waiting |= mask;
        warp_regroup(w);
        return STEP_BLOCK;
    }
    const Inst *code = w->prog->code;
    uint32_t pc = (uint32_t)(in - code), rel = w->sync_wait & members, join = 0;
    for (uint32_t m = rel; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        if (w->lane_pc[l] == pc || (kinds != JOIN_NONE && joinable(in, &code[w->lane_pc[l]])))
            join |= 1u << l;
    }
    w->sync_wait &= ~rel;
    w->waiting &= ~(rel & ~join);
    w->sync_go |= rel & ~join;
    if (!join) return 0;
    return join_run(w, in, mask, join, kinds);
}

/* Lanes of w exited: lanes parked at a warp sync may now have every non-exited member with
 * them, so they run their instruction again (and park again if not). */
void warp_lanes_exited(Warp *w)
{
    uint32_t parked = w->sync_wait & w->alive;
    w->sync_wait = 0;
    w->waiting &= ~parked;
}

/* A hash of what a warp's progress changes: its pc, lanes, registers and predicates, folded
 * into h (FNV-1a style). Spin detection compares it from one check to the next. */
uint64_t warp_state_hash(const Warp *w, uint64_t h)
{
    const Program *p = w->prog;
    h ^= w->active ^ (uint64_t)w->pc << 32;
    const uint64_t *r = ROW(w, p->first_var_row), *end = ROW(w, p->nrows);
    for (; r < end; r++) h = (h ^ *r) * 1099511628211ull;
    for (uint32_t i = 0; i < p->npreds; i++) h = (h ^ w->P[i]) * 1099511628211ull;
    return h;
}
