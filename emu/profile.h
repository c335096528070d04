/* profile.h - `ptxemu --profile` (PTXEMU_PROFILE=1): per-launch counters of what a
 * performance lesson talks about, and an estimate of the time an H100 would take.
 *
 * Counted while the kernel runs: warp and thread instructions (average active lanes: the
 * divergence), global load and store requests and the 32-byte sectors each touches (the
 * coalescing), shared-memory requests and the wavefronts they need (the bank conflicts), and,
 * on the timeline's clock, how long warps waited at barriers and mbarriers. From the launch
 * configuration: the theoretical occupancy (threads, blocks and shared memory per SM; the
 * registers ptxas would allocate are unknown to PTX). One line block per launch on stderr,
 * and a "kind":"profile" line to PTXEMU_REPORT. */
#ifndef PTXEMU_PROFILE_H
#define PTXEMU_PROFILE_H

#include "machine.h"

extern int profile_mode;      /* counting: PTXEMU_PROFILE=1 or PTXEMU_CLOCK=model */
extern int profile_print;     /* PTXEMU_PROFILE=1: the report after every launch   */
extern int clock_model;       /* PTXEMU_CLOCK=model: CUDA events read model time   */
void profile_access(Warp *w, const Inst *in, uint32_t mask, unsigned size, int access,
                    uint8_t *const host[WARP_SIZE]);
void profile_wait(Launch *L, uint64_t ns);           /* a warp's wait interval ended */
void profile_run(Launch *L, uint64_t ns);
void profile_report(Launch *L);    /* at the end of the launch */
double profile_estimate_ns(const Launch *L);         /* the model's H100 time of a launch */
/* --clock model: the estimate of the launch that ended last, which the driver places on its
 * stream's timeline (runtime/driver/stream.c). */
void profile_set_last_launch(double ns);
/* --clock model: the start of the next launch on the model's timeline (set by the driver),
 * its setup (emu.c), and a warp's clock in SM cycles since then (%clock64, %globaltimer). */
void profile_set_next_start(double ns);
void profile_model_launch(Launch *L);
double profile_warp_cycles(const Warp *w);
void profile_warp_done(const Warp *w);       /* a warp's clock at its end, for the estimate */
double profile_last_launch_ns(void);

#endif
