/* racecheck.h - the race detector (PTXEMU_RACECHECK).
 *
 * Contract: every access a warp makes to shared or global memory (ld/st/atom/red, also
 * through generic and shared::cluster addresses) goes through race_access, and every
 * synchronising event reaches one of the hooks below. Two accesses to the same byte
 * conflict when at least one writes, they are not both atomic (or strong), and neither
 * happens before the other (a plain read and an atom.cas excepted: the compare-and-swap
 * loop). Happens-before is the PTX memory model's, at warp granularity:
 * barriers (bar.sync, barrier.cluster, bar.warp.sync), mbarrier phases (arrivals release,
 * a wait that observes the phase acquires), and release/acquire through strong accesses to
 * one location — a release operation or a fence before a strong write, a strong read or an
 * atomic on the other side — when each side's scope includes the other thread. Bytes an
 * asynchronous copy will write are pending from its issue to its completion; touching them
 * then is a hazard too, and so is touching them after it landed without the wait that shows
 * the landing (the copy writes as its CTA's async agent). The mbarrier protocol is checked as well: a wait that observes a
 * phase the thread has already observed (a parity not flipped), and bytes of a copy that
 * land after the phase they were issued for completed. Findings are folded by the pair of
 * source places and printed (and written as JSON lines to PTXEMU_REPORT) when the launch
 * ends, with the seed that replays the schedule.
 */
#ifndef PTXEMU_RACECHECK_H
#define PTXEMU_RACECHECK_H

#include "machine.h"

/* A launch begins and ends. The detector's state outlives launches: global memory is
 * checked across the launches that stream order leaves unordered. */
RaceLog *race_log_new(const Launch *L);
void race_log_free(RaceLog *g);
/* The next launch is number `clock` of stream `stream` and comes after the first after[i]
 * launches of each stream i < n (without a call, every launch comes after the one before). */
void race_order(uint32_t stream, uint64_t clock, const uint64_t *after, uint32_t n);
/* The order of work a launch made from the device (dynamic parallelism): the running
 * launch's stream and clock, after everything it comes after and after itself. Fills a
 * malloc'd vector in *after (the caller frees it); -1 when there is none. Call it while the
 * parent is the running launch, before any child begins. */
int race_child_order(uint32_t *stream, uint64_t *clock, uint64_t **after, uint32_t *n);
/* Global memory [addr, addr+size) was freed; every program is going away. */
void race_forget(uint64_t addr, size_t size);
void race_forget_all(void);
int race_setup_cta(Cta *c);          /* allocate the CTA's shadow (racecheck mode only) */
void race_free_cta(Cta *c);
/* mbarrier operations on the barrier object (exec_async.c): its shadow check, and an
 * arrival on a barrier nobody initialised. */
void race_mbar_touch(Warp *w, const Inst *in, int lane, uint8_t *mbar, int write);
void race_mbar_uninit(Warp *w, const Inst *in, int lane, const uint8_t *mbar);
void race_access(Warp *w, const Inst *in, uint32_t mask, unsigned size, int access,
                 uint8_t *const host[WARP_SIZE]);

/* Synchronisation. */
void race_fence(Warp *w, const Inst *in);
/* wgmma: the operation of w read its operands; a wait_group of w returned (w is ordered
 * after the operand reads of its whole warpgroup). */
void race_wgmma_done(Warp *w);
void race_wgmma_acquire(Warp *w);
/* bar.warp.sync passed by the lanes of mask, lane l naming members[l]: orders each group */
void race_warp_sync(Warp *w, uint32_t mask, const uint64_t *members);
void race_bar_arrive(Warp *w, int id);          /* bar.sync/bar.arrive: release into barrier id */
void race_bar_acquire(Warp *w, int id);         /* a waiter leaves barrier id                  */
void race_bar_reset(Cta *c, int id);            /* barrier id completed                        */
void race_cbar_arrive(Warp *w, int phase);      /* barrier.cluster.arrive in phase (parity)    */
void race_cbar_acquire(Warp *w, int phase);     /* barrier.cluster.wait saw that phase end     */
void race_cbar_complete(Cluster *cl, int phase);
void race_mbar_init(Warp *w, const uint64_t *m);
void race_mbar_arrive(Warp *w, const Inst *in, const uint64_t *m);
void race_mbar_sync(Launch *L, const uint64_t *m);   /* after anything that may end a phase */
void race_mbar_waited(Warp *w, const Inst *in, int lane, const uint64_t *m, int parity);
/* Phases of m completed so far, plus one (0 when the detector does not know m). */
uint32_t race_mbar_phase(Launch *L, const uint64_t *m);
/* A copy issued in phase `issued` (race_mbar_phase then) signals m now. */
void race_mbar_tx(Warp *w, uint32_t pc, int lane, const uint64_t *m, uint32_t issued);

/* An asynchronous copy will write [dst, dst+size) of some CTA's shared memory. */
void race_async_issue(Warp *w, int lane, const uint8_t *dst, uint32_t size);
/* It landed (issued by lane of w at pc): its bytes are written by the CTA's async agent,
 * which releases into mbar (before the phase can end; NULL: cp.async, see below). */
void race_async_land(Warp *w, int lane, uint32_t pc, const uint8_t *dst, uint32_t size,
                     const uint64_t *mbar);
/* cp.async.mbarrier.arrive: the arrival carries the copies landed in w's CTA so far. */
void race_async_signal(Warp *w, const uint64_t *mbar);
/* cp.async.wait_group/wait_all passed: w sees the copies landed in its CTA so far. */
void race_async_acquire(Warp *w);
/* A bulk/tensor store of lane reads [src, src+size) through the async proxy until a
 * wait_group of that lane retires its bulk group (bulk groups below `before`). */
void race_async_read_issue(Warp *w, int lane, const uint8_t *src, uint32_t size);
void race_async_read_waited(Warp *w, int lane, uint32_t before);
/* A read of [src, src+size) through the async proxy (wgmma operands): written by the
 * generic proxy since the last fence.proxy.async, it is a hazard. */
void race_async_proxy_read(Warp *w, int lane, const uint8_t *src, uint32_t size);
/* An arrive on an mbarrier: from another CTA, its initialisation must have been made
 * visible with fence.mbarrier_init first. */
void race_mbar_use(Warp *w, int lane, const uint8_t *mbar);
/* A copy or fill the host issued (named api) begins: its place in stream order is the last
 * race_order's. It reads or writes [addr, addr+n) (only device memory is checked); at its end
 * the races it met are printed and written, and their number returned. */
void race_copy_begin(const char *api);
void race_copy_bytes(uint64_t addr, size_t n, int write);
int race_copy_end(void);
/* One report line as the detector prints it: "ptxemu: race: MSG; HINT TAIL", wrapped on a
 * terminal (racereport.c). */
void race_print(const char *msg, const char *hint, const char *tail);
/* The page-locked pages the last launch touched: page number << 1 | written, sorted. */
size_t race_host_pages(const uint64_t **pages);
/* An accumulator register of a wgmma.mma_async in flight (issued at wg_pc) is accessed by
 * lane of w before the wgmma.wait_group that completes it. */
void race_wgmma_early(Warp *w, const Inst *in, int lane, uint32_t wg_pc);
/* Print and write the launch's findings; returns how many distinct hazards there were. */
int race_report(Launch *L);

#endif
