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

/* The warp's lanes that are parked (waiting), runnable, or running. */
static inline uint32_t warp_runnable(const Warp *w) { return w->alive & ~w->waiting; }

#endif
