/* idle.h - blocks of a launch whose every thread leaves at the kernel's first branch.
 *
 * Contract: idle_plan looks at the straight-line start of a kernel (pure integer arithmetic on
 * %tid, %ctaid, %ntid, %nctaid, constants and kernel parameters, up to its first guarded branch
 * or ret) with the launch's values, and finds which blocks it sends to `ret`/`exit` with every
 * thread. Such a block does nothing anyone can see - no memory, no barrier, no fault - so the
 * scheduler does not set it up: a grid rounded far past its data (`if (i < n)` over 500000
 * blocks of which 977 have work) costs what its working blocks cost. What the skipped blocks
 * would have counted (instructions, issue slots, the timing model's warp time) is added as
 * if they had run, so statistics, %clock-free estimates and outputs stay the same; only the
 * plain scheduler uses it (no tool attached, not deterministic, no clusters, not
 * cooperative). PTXEMU_IDLE_BLOCKS=run turns it off.
 */
#ifndef PTXEMU_IDLE_H
#define PTXEMU_IDLE_H

#include <stdint.h>

typedef struct Launch Launch;

typedef struct IdleRule {
    int on;                     /* some blocks may be idle: test each (idle_block)          */
    int dir;                    /* idle when S >= bound (+1) or S <= bound (-1), where      */
    int64_t b[3];               /*   S = b . ctaid                                          */
    __int128 bound;
    uint64_t lo, hi;            /* clusters handed out: [lo, hi); blocks outside it (a one-  */
                                /*   dimensional grid of single blocks) are idle             */
    /* what an idle block would have counted */
    uint64_t warp_insts, slots, thread_insts;
    uint64_t warp_steps, warp_slots;   /* one warp's: the timing model's maximum */
    uint64_t skipped;           /* idle blocks counted so far (atomic)                       */
} IdleRule;

/* Decide L's rule (L->idle) from its program and launch values; counts the blocks outside
 * [lo, hi) at once. plain: the launch runs under the plain scheduler (not deterministic). */
void idle_plan(Launch *L, int plain);

/* Whether block `index` (linear) is idle under an `on` rule. */
int idle_block(const Launch *L, uint64_t index);

/* Count n idle blocks of L as run. */
void idle_count(Launch *L, uint64_t n);

#endif
