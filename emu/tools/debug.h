/* debug.h - the step debugger (`ptxemu debug`) and the instruction trace (`--trace`).
 *
 * Contract: both run in deterministic mode (one thread runs every warp), so while the
 * debugger waits for a command the whole machine stands still and a stop is reproducible.
 * The interpreter calls debug_before before, and debug_after after, every instruction of a
 * warp, only while debug_on is set; nothing else on the hot path changes. See docs/debug.md.
 */
#ifndef PTXEMU_DEBUG_H
#define PTXEMU_DEBUG_H

#include "emu/machine.h"

enum { DBG_OFF = 0, DBG_INTERACTIVE = 1, DBG_TRACE = 2 };
extern int debug_on;

/* Reads PTXEMU_DEBUG and its companions (emu_init); 1 when on (deterministic mode needed). */
int debug_init(void);
/* Before w runs `in` for the lanes of mask: stops here when a breakpoint or a step says so. */
void debug_before(Warp *w, const Inst *in, uint32_t mask);
/* After: the trace record of the instruction; tracks the focused warp's progress. */
void debug_after(Warp *w, const Inst *in, uint32_t mask);
/* mbarrier.init of the mbarrier at m (shared memory of w's CTA or its cluster). */
void debug_mbar_init(Warp *w, const uint64_t *m);
/* Does the debugger keep the PTX text of modules (for listings and traces)? */
int debug_wants_ptx(void);

#endif
