/* sched.h - who runs when: workers take CTAs of a launch, and a CTA's warps take turns.
 *
 * Contract: every scheduling decision lives in sched.c (a later mode will take them all
 * from a seed). Barriers are CTA state, so their bookkeeping lives here too.
 */
#ifndef PTXEMU_SCHEDULER_H
#define PTXEMU_SCHEDULER_H

#include "machine.h"

enum { BAR_SYNC, BAR_ARRIVE, BAR_RED_POPC, BAR_RED_AND, BAR_RED_OR };

int sched_init(int nthreads);        /* start the worker pool (0 = number of cores) */

/* Deterministic mode (PTXEMU_SEED): launches run on the launching thread, every choice —
 * which resident cluster and warp run next, where a warp is preempted, when an
 * asynchronous operation completes — drawn from the seed, or replayed from a schedule
 * file. Returns 0, or -1 with a message when a schedule file cannot be opened. */
int sched_set_deterministic(uint64_t seed, const char *record_path, const char *replay_path,
                            char *err, size_t errlen);
int sched_deterministic(uint64_t *seed);
int sched_threads(void);
/* Run every CTA of L to completion or until a fault aborts it. */
void sched_run(Launch *L);
/* After a launch that ran past its time limit ended: its one "timeout" record. */
void sched_report_limit(Launch *L);
/* Continue a launch that parked waiting for the host (L->park_buf set by sched_run): to the
 * end, or (may_park) until it parks again. Returns 1 when it parked again. */
int sched_resume(Launch *L, int may_park);
void sched_discard(Launch *L);   /* a parked launch that will not continue */
/* Cooperative launches that must run at the same time (emu_launch_together). */
void sched_run_together(Launch **Ls, int n);

/* A group of lanes of w arrives at barrier id (count 0 = all live threads of the CTA);
 * kind is BAR_*; cbits the lanes whose predicate is true for bar.red. The arrival and the
 * cluster barrier's are events for the tools of `obs` (0 from a handler's plain variant). */
int cta_barrier_arrive(Warp *w, int id, uint32_t count, uint32_t mask, int kind, uint32_t cbits,
                       uint32_t obs);
void cta_threads_exited(Cta *c, uint32_t n);
/* Barrier id of c is complete (every expected thread arrived): its waiting lanes go on. For
 * compiled code that did a whole warp's arrival itself (jit/compile.c: emit_bar). */
void cta_barrier_release(Cta *c, int id);

/* barrier.cluster.arrive / .wait for the lanes of mask (bar_id of parked lanes). */
int cluster_barrier_arrive(Warp *w, uint32_t mask, int release, uint32_t obs);   /* release: not .relaxed */
int cluster_barrier_wait(Warp *w, uint32_t mask, uint32_t obs);

/* The four warps of a warpgroup meet at each wgmma.mma_async (exec_wgmma.c): a warp that
 * arrives first parks with this bar_id, without advancing its pc, until the last one comes. */
/* Drops the CTA's wgmma operations still in flight (never waited for) at its end. */
void wgmma_free_queue(Cta *c);
/* While a warp has wgmma operations in flight, the run loop hands each instruction here: one
 * that reads or writes their accumulators before wgmma.wait_group gets a warning. */
void wgmma_check_access(Warp *w, const Inst *in);

/* What a warp is doing at lane l ("runs", "waits at a barrier ...", "exited"), for reports. */
const char *sched_warp_state(const Warp *w, int l);

#endif
