/* racecheck.h - private to the race detector (racecheck.c checks, racereport.c prints).
 *
 * The detector (PTXEMU_RACECHECK=1, tools/attach.c) sees every access a warp makes to shared or
 * global memory (ld/st/atom/red, also through generic and shared::cluster addresses) and every
 * synchronising event through the observer interface. Two accesses to the same byte
 * conflict when at least one writes, they are not both atomic (or strong), and neither
 * happens before the other (a plain read and an atom.cas excepted: the compare-and-swap
 * loop). Happens-before is the PTX memory model's, at warp granularity:
 * barriers (bar.sync, barrier.cluster, bar.warp.sync), mbarrier phases (arrivals release,
 * a wait that observes the phase acquires), and release/acquire through strong accesses to
 * one location — a release operation or a fence before a strong write, a strong read or an
 * atomic on the other side — when each side's scope includes the other thread. Bytes an
 * asynchronous copy will write are pending from its issue to its completion; touching them
 * then is a hazard too, and so is touching them after it landed without the wait that shows
 * the landing (the copy writes as its CTA's async agent). The mbarrier protocol is checked as
 * well: a wait that observes a phase the thread has already observed (a parity not flipped),
 * and bytes of a copy that land after the phase they were issued for completed. Findings are
 * folded by the pair of source places and printed (and written as JSON lines to
 * PTXEMU_REPORT) when the launch ends, with the seed that replays the schedule.
 */
#ifndef PTXEMU_RACECHECK_H
#define PTXEMU_RACECHECK_H

#include "tools.h"

typedef struct RaceLog RaceLog;

/* The detector's slot in Launch/Cluster/Cta.tool[] (racecheck.c). */
extern int race_slot;
#define RACE_LOG(L) ((RaceLog *)(L)->tool[race_slot])
#define RACE_CTA(c) ((RaceCta *)(c)->tool[race_slot])
#define RACE_CL(cl) ((RaceCluster *)(cl)->tool[race_slot])

/* Print and write the launch's findings; returns how many distinct hazards there were. */
int race_report(Launch *L);

#endif
