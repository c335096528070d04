/* warp.c - a warp's lanes: divergence and reconvergence (which group of lanes runs), lanes
 * parked at barriers and warp-synchronous instructions, and the hash spin checks compare. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine.h"
#include "exec.h"

/* Lowest pc among runnable lanes outside the running group: the running group merges
 * with them when it gets there (the rule outside divergence regions). */
static uint32_t min_other_pc(const Warp *w)
{
    uint32_t next = UINT32_MAX;
    for (uint32_t m = warp_runnable(w) & ~w->active; m; m &= m - 1)
        if (w->lane_pc[__builtin_ctz(m)] < next) next = w->lane_pc[__builtin_ctz(m)];
    return next;
}

/* Run the runnable lanes of `from` that have the lowest pc. */
static void run_lowest(Warp *w, uint32_t from)
{
    uint32_t lo = UINT32_MAX, group = 0;
    for (uint32_t m = from; m; m &= m - 1)
        if (w->lane_pc[__builtin_ctz(m)] < lo) lo = w->lane_pc[__builtin_ctz(m)];
    for (uint32_t m = from; m; m &= m - 1)
        if (w->lane_pc[__builtin_ctz(m)] == lo) group |= 1u << __builtin_ctz(m);
    w->active = group;
    w->pc = group ? lo : 0;
}

/* Choose the next running group. Inside a divergence region (a branch split the lanes and
 * they meet again at its reconvergence pc), a group runs until it reaches that pc, then the
 * region's other lanes run; when all have arrived the region closes and they go on
 * together. This is the order an H100 shows (the fall-through path first, each path to the
 * join). Outside regions, the lanes with the lowest pc run and merge by pc. */
void warp_regroup(Warp *w)
{
    for (uint32_t m = w->active; m; m &= m - 1) w->lane_pc[__builtin_ctz(m)] = w->pc;
    while (w->sp) {
        const struct DivEntry *e = &w->stk[w->sp - 1];
        uint32_t members = e->mask & w->alive, arrived = 0;
        for (uint32_t m = members; m; m &= m - 1) {
            int l = __builtin_ctz(m);
            if (w->lane_pc[l] == e->rpc || (e->rpc == RPC_EXIT && w->depth[l] < e->depth))
                arrived |= 1u << l;
        }
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
    for (uint32_t m = taken; m; m &= m - 1) w->lane_pc[__builtin_ctz(m)] = target;
    const struct DivEntry *top = w->sp ? &w->stk[w->sp - 1] : NULL;
    /* a region with the same join already covers these lanes (a loop's exit branch taken
     * again); past DIV_MAX the enclosing region's join is used */
    if (!(top && top->rpc == rpc && (top->mask & all) == all) && w->sp < DIV_MAX) {
        struct DivEntry *e = &w->stk[w->sp++];
        e->rpc = rpc;
        e->mask = all;
        e->depth = w->depth[__builtin_ctz(all)];
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
    w->waiting &= ~lanes;
    if (!w->active) {
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

int warp_converge(Warp *w, const Inst *in, uint32_t mask, uint32_t members)
{
    members &= w->valid & w->alive;   /* exited lanes are not waited for (exec.h) */
    uint32_t missing = members & ~mask;
    if (!missing) return 0;
    uint32_t pc = (uint32_t)(in - w->prog->code);
    uint32_t parked = 0;
    for (uint32_t m = w->sync_wait; m; m &= m - 1)
        if (w->lane_pc[__builtin_ctz(m)] == pc) parked |= 1u << __builtin_ctz(m);
    if (!(members & ~(mask | parked))) {
        /* everyone is here: release the parked lanes and run the instruction again with
         * the whole group (regroup merges lanes that share a pc) */
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

void warp_lanes_exited(Warp *w)
{
    uint32_t parked = w->sync_wait & w->alive;
    if (!parked) return;
    w->sync_wait &= ~parked;
    w->waiting &= ~parked;   /* they run their instruction again: regroup merges them */
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
