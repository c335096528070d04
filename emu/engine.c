/* engine.c - the interpreter loop of one warp: fetch, guard, call the handler, follow the
 * result (divergence rules: warp.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine.h"
#include "scheduler.h"
#include "exec.h"
#include "observe.h"
#include "memory.h"
#include "native.h"


/* S: the short turn after a CTA barrier (sched.c's run_short): it also ends after the first
 * instruction other warps can observe. Backward jumps end it only as they end any turn, as in
 * compiled code, so both tiers leave the barrier with the same first accesses. */
static inline __attribute__((always_inline)) int interp_t(Warp *w, uint32_t budget, const int S)
{
    const Inst *code = w->prog->code;
    /* Instructions are counted in the warp (%clock reads w->steps); thread instructions as
     * 32 a step less the lanes partial masks leave out, so a full warp pays no popcount (16
     * instructions without the popcnt instruction) and no second counter. Issue slots (the
     * time model's, which its %clock reads) in the warp too. */
    uint64_t steps0 = w->steps, missing = 0;
    int result;
    for (;;) {
        const Inst *in = &code[w->pc];
        uint32_t m = w->active & (w->P[in->pg] ^ in->pneg);
        if (__builtin_expect(w->wg_inflight != 0, 0)) wgmma_check_access(w, in);
        w->steps++;
        w->slots += in->cost;
        if (__builtin_expect(m != FULL_MASK, 0)) missing += WARP_SIZE - popcount32(m);
        /* an instruction no lane executes is skipped without calling its handler, and
         * counted apart: the profile's instructions are those some lane executes */
        int r;
        if (__builtin_expect(m != 0, 1)) r = in->fn(w, in, m);
        else { r = STEP_NEXT; w->idle_steps++; }
        if (__builtin_expect(r == STEP_NEXT, 1)) {
            if (++w->pc == w->merge_pc) warp_regroup(w);   /* pc+1 cannot skip merge_pc */
            if (!S || !(in->flags & IF_PREEMPT) || !m) continue;
            result = w->active ? RUN_YIELD : (w->alive ? RUN_BLOCKED : RUN_DONE);
            break;
        }
        if (r == STEP_FAULT) { result = RUN_FAULT; break; }
        if (r == STEP_YIELD) {
            if (past_merge(w)) warp_regroup(w);
            result = w->active ? RUN_YIELD : RUN_BLOCKED;
            break;
        }
        if (r == STEP_JUMP) {
            if (past_merge(w)) warp_regroup(w);
            /* a backward jump may be a spin loop waiting for another warp: yield now and
             * then so that warp gets to run */
            if ((w->pc <= (uint32_t)(in - code) && --budget == 0) || (S && m && (in->flags & IF_PREEMPT))) {
                result = w->active ? RUN_YIELD : (w->alive ? RUN_BLOCKED : RUN_DONE);
                break;
            }
        }
        if (!w->active) { result = w->alive ? RUN_BLOCKED : RUN_DONE; break; }
    }
    w->lane_steps += (w->steps - steps0) * WARP_SIZE - missing;
    return result;
}

/* Compiled code hands instructions it does not compile to this, from w->pc: the short turn's
 * end holds there too. */
static int interp(Warp *w, uint32_t budget)
{
    return __builtin_expect(w->short_turn, 0) ? interp_t(w, budget, 1) : interp_t(w, budget, 0);
}

/* What compiled kernels call back (native.h). */
static const NativeRt native_rt = { warp_regroup, wgmma_check_access, interp, mem_warp_ptrs,
                                     mem_warp_fast, mem_warp_span, mem_arena_block, mem_span_cache,
                                     &mem_generation, cta_barrier_release };

/* A kernel the compiled tier has built runs its compiled code (native.h): the same steps. */
int warp_run(Warp *w, uint32_t budget)
{
    NativeFn f = (NativeFn)__atomic_load_n(&w->prog->native, __ATOMIC_ACQUIRE);
    return f ? f(w, budget, &native_rt) : interp(w, budget);
}

/* A loop that polls memory nobody writes spins forever: every pass leaves the warp's
 * registers as they were. Every 64th backward jump compares a hash of the warp's state with
 * the one at the previous check; the same state at the same branch with no store, atomic or
 * synchronisation in between marks the warp as spinning without progress (mem_spin). The
 * deterministic scheduler counts such turns as it counts failed mbarrier polls, and when
 * nothing else runs for long enough it reports the deadlock (sched.c). A loop that reads a
 * clock, counts, or walks memory changes its registers and is never marked. */
static void spin_check(Warp *w, uint32_t branch_pc)
{
    if (++w->back_jumps & 63) return;
    uint64_t h = warp_state_hash(w, 1469598103934665603ull);
    w->mem_spin = h == w->loop_hash && branch_pc == w->loop_pc && !w->wrote;
    w->loop_hash = h;
    w->loop_pc = branch_pc;
    w->wrote = 0;
}

/* Instructions after which a spinning loop may see something new. */
static inline int may_publish(int op)
{
    return op != OP_ld && op != OP_ldu && op != OP_fence && op != OP_membar;
}

/* Deterministic mode: run w up to and including its next instruction that other warps can
 * observe (memory, barriers, fences, atomics, asynchronous operations), so that the
 * scheduler chooses every interleaving of such instructions. */
static inline __attribute__((always_inline)) int run_det(Warp *w, const int V)
{
    const Inst *code = w->prog->code;
    for (;;) {
        const Inst *in = &code[w->pc];
        uint32_t m = w->active & (w->P[in->pg] ^ in->pneg);
        if (__builtin_expect(w->wg_inflight != 0, 0)) wgmma_check_access(w, in);
        w->steps++;
        w->slots += in->cost;
        w->lane_steps += popcount32(m);
        OBSERVE(OBS_IF(V, w->launch->obs), step_before, w, in, m);
        int r = m ? in->fn(w, in, m) : STEP_NEXT;
        w->idle_steps += !m;
        OBSERVE(OBS_IF(V, w->launch->obs), step_after, w, in, m);
        int stop = m && (in->flags & IF_PREEMPT);
        if (stop && may_publish(in->op)) { w->wrote = 1; w->mem_spin = 0; }
        if (r == STEP_NEXT) {
            if (++w->pc == w->merge_pc) warp_regroup(w);
        } else if (r == STEP_FAULT) {
            return RUN_FAULT;
        } else if (r == STEP_JUMP || r == STEP_YIELD) {
            if (past_merge(w)) warp_regroup(w);
            /* a backward jump ends the turn (spin loops too), except the first one of a turn
             * that resumes a failed wait: that turn goes back to the wait, so a polling loop
             * that never succeeds keeps failing turn after turn and is seen as spinning */
            int back = w->pc <= (uint32_t)(in - code) && !w->spin_resume;
            if (w->pc <= (uint32_t)(in - code)) {
                w->spin_resume = 0;
                spin_check(w, (uint32_t)(in - code));
            } else if (w->mem_spin && (uint32_t)(in - code) >= w->loop_pc) {
                w->mem_spin = 0;   /* a forward jump out of the loop */
            }
            stop |= r == STEP_YIELD || back;
        }
        if (!w->active) return w->alive ? RUN_BLOCKED : RUN_DONE;
        if (stop) return RUN_YIELD;
    }
}

/* A tool that watches every instruction (the step debugger) gets the observed loop. */
int warp_run_det(Warp *w)
{
    return OBSERVING(w->launch->obs, OBS_STEP) ? run_det(w, 1) : run_det(w, 0);
}
