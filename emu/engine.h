/* engine.h - runs one warp's instructions (engine.c); the divergence and reconvergence rules
 * (warp.c).
 *
 * Contract: a warp runs one group of lanes at a time: the runnable lanes with the lowest pc
 * (min-pc reconvergence: lanes that fall behind are caught up first, so branches reconverge
 * where their paths meet, for any control flow). Lanes parked at a barrier or a warp sync
 * are not runnable. warp_run returns when the warp is done, blocked, its time slice is over,
 * or it faulted; the scheduler (sched.c) decides what runs next.
 */
#ifndef PTXEMU_ENGINE_H
#define PTXEMU_ENGINE_H

#include <string.h>
#include "machine.h"

enum { RUN_DONE, RUN_BLOCKED, RUN_YIELD, RUN_FAULT };

/* Run w for at most `budget` backward jumps before yielding. */
int warp_run(Warp *w, uint32_t budget);

/* Deterministic mode: run w to its next switch point (Inst flag IF_PREEMPT). */
int warp_run_det(Warp *w);

/* Re-pick the running group from the lane pcs: call after changing lane_pc/alive/waiting.
 * The running group's pc is saved first. */
void warp_regroup(Warp *w);

/* A branch or call split the running group: see warp.c. */
void warp_diverge(Warp *w, uint32_t taken, uint32_t target, uint32_t rpc);
void warp_diverge_at(Warp *w, uint32_t taken, uint32_t target, uint32_t rest_pc, uint32_t rpc);

/* Make lanes of `lanes` runnable again at their lane_pc (a barrier released them). */
void warp_unpark(Warp *w, uint32_t lanes);
/* Some lanes exited (alive updated): lanes waiting at a warp sync try it again. Call
 * before re-picking the running group. */
void warp_lanes_exited(Warp *w);
/* After a jump: inside a divergence region only its join ends the group's run (callee
 * code may lie beyond it); outside, a jump past waiting lanes lets them catch up. */
static inline int past_merge(const Warp *w)
{
    return w->sp ? w->pc == w->merge_pc : w->pc >= w->merge_pc;
}

/* A whole warp that arrives at barrier id parks, its lanes at next_pc (bar_sync_whole, and
 * sched.c's cta_barrier_arrive for the other kinds of barrier). */
static inline __attribute__((always_inline)) void bar_park_whole(Warp *w, int id, uint32_t next_pc)
{
    typedef uint32_t u32x4_ __attribute__((vector_size(16)));
    const u32x4_ v = { next_pc, next_pc, next_pc, next_pc };   /* vector stores: a plain loop stayed 32 scalar ones */
    w->waiting = w->bar_wait = 0xffffffffu;
    memset(w->bar_id, id, WARP_SIZE);
#pragma GCC unroll 8
    for (int k = 0; k < WARP_SIZE / 4; k++) memcpy(&w->lane_pc[4 * k], &v, sizeof v);
    w->bar_whole = id + 1;   /* bar_release's mark: the whole warp waits here, unmoved */
    w->active = 0;
    w->pc = 0;
    w->merge_pc = UINT32_MAX;
}

/* bar.sync id (kind BAR_SYNC, no thread count) of a whole warp: every lane running (w->active
 * is all 32), no divergence region open, no lane parked, id < 16. The arrival of
 * sched.c's cta_barrier_arrive for that case, for its handler and for compiled code (jit/
 * compile.c: emit_bar) alike: the warp parked at next_pc as warp_regroup would leave it (no
 * lane can run), without it; release(c, id) (cta_barrier_release) when the warp completes
 * the barrier, which releases the warp too. Returns STEP_BLOCK (the warp waits) or
 * STEP_YIELD (it was released: it ends its turn like the warps it released). No observer
 * event: the handler's observed variant does not come here. */
static inline __attribute__((always_inline)) int bar_sync_whole(Warp *w, int id, uint32_t next_pc,
                                                                void (*release)(Cta *, int))
{
    Cta *const c = w->cta;
    if (!c->bar_arrived[id]) {
        c->bar_expected[id] = 0;
        c->bar_red_op[id] = 0;   /* BAR_SYNC (scheduler.h; sched.c asserts it) */
        c->bar_red[id] = 0;
    }
    c->bar_arrived[id] += w->valid == 0xffffffffu ? WARP_SIZE : (uint32_t)__builtin_popcount(w->valid);
    bar_park_whole(w, id, next_pc);
    uint32_t expected = c->bar_expected[id] ? c->bar_expected[id] : c->nthreads - c->exited_threads;
    if (c->bar_arrived[id] >= expected) release(c, id);
    return w->bar_wait ? STEP_BLOCK : STEP_YIELD;
}

/* The warp's lanes that are parked (waiting), runnable, or running. */
static inline uint32_t warp_runnable(const Warp *w) { return w->alive & ~w->waiting; }

#endif
