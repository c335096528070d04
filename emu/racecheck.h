/* racecheck.h - the shared-memory race detector (PTXEMU_RACECHECK).
 *
 * Contract: every access a warp makes to shared memory (ld/st/atom/red, also through
 * generic and shared::cluster addresses) goes through race_access. Two accesses to the same
 * 4-byte word by different threads conflict when at least one writes, they are not both
 * atomic, and no barrier (bar.sync, barrier.cluster) of the word's CTA separates them —
 * nor a bar.warp.sync, for threads of one warp. Bytes an asynchronous copy will write are
 * pending from its issue to its completion; touching them then is a hazard too. Findings
 * are folded by the pair of instructions, and printed (and written as JSON lines to
 * PTXEMU_REPORT) when the launch ends, with the seed that replays the schedule.
 */
#ifndef PTXEMU_RACECHECK_H
#define PTXEMU_RACECHECK_H

#include "machine.h"

/* Inst.aux8 bit of ld/st that are strong operations (volatile, relaxed, acquire, release):
 * they race with nothing but plain writes, like atomics. */
#define RACE_STRONG 4

RaceLog *race_log_new(void);
int race_setup_cta(Cta *c);          /* allocate the CTA's shadow (racecheck mode only) */
void race_free_cta(Cta *c);
void race_access(Warp *w, const Inst *in, uint32_t mask, unsigned size, int access,
                 uint8_t *const host[WARP_SIZE]);
/* An asynchronous copy will write [dst, dst+size) of some CTA's shared memory. */
void race_async_issue(Warp *w, int lane, const uint8_t *dst, uint32_t size);
void race_async_done(Warp *w, const uint8_t *dst, uint32_t size);
/* A bulk/tensor store reads [src, src+size) through the async proxy until it completes. */
void race_async_read_issue(Warp *w, int lane, const uint8_t *src, uint32_t size);
void race_async_read_done(Warp *w, const uint8_t *src, uint32_t size);
/* An arrive on an mbarrier: from another CTA, its initialisation must have been made
 * visible with fence.mbarrier_init first. */
void race_mbar_use(Warp *w, int lane, const uint8_t *mbar);
/* Print and write the launch's findings; returns how many distinct hazards there were. */
int race_report(Launch *L);

#endif
