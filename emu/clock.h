/* clock.h - what %clock, %clock64 and %globaltimer read.
 *
 * By default a warp's clock counts its own instructions at the pace the model gives an SM
 * shared by as many warps (Launch.prof.clock_cpi), and %globaltimer is the host's time (the
 * scheduling steps in deterministic mode). A clock provider replaces both - `--clock model`
 * installs the timing model's (model.c) - and is chosen before the first kernel is translated:
 * the <sreg> handler is bound to it then. */
#ifndef PTXEMU_CLOCK_H
#define PTXEMU_CLOCK_H

#include <stdint.h>
#include "machine.h"

typedef struct ClockProvider {
    const char *name;
    uint64_t (*read)(const Warp *w, int id);   /* id: SR_CLOCK .. SR_GLOBALTIMER_HI */
} ClockProvider;

extern const ClockProvider *emu_clock;   /* NULL: the default clock */
void emu_set_clock(const ClockProvider *c);

#endif
