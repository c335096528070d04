/* model.h - the H100 timing model: an estimate of the time each launch would take on the GPU,
 * which the driver's timeline places on its streams in every run (CUDA events, graph memory
 * reuse), and under --clock model the clock that %clock, %clock64 and %globaltimer read.
 *
 * Contract: model_launch runs when a launch is set up, model_warps_done as each block ends;
 * model_estimate reads what the launch counted (Launch.prof, filled by the profile tool when
 * one is attached) and never changes the launch. */
#ifndef PTXEMU_MODEL_H
#define PTXEMU_MODEL_H

#include "machine.h"
#include "clock.h"

#define H100_SMS 132.0
#define H100_GHZ 1.98
#define H100_DRAM_BPS 3.35e12
#define H100_LAUNCH_NS 3000.0
#define H100_WARPS_PER_SM 64
#define H100_BLOCKS_PER_SM 32
#define H100_SHARED_PER_SM (228u * 1024u)
/* Fitted on the reduction probes of tests/perf (the others fitted nothing): with 8, three
 * barriers cost more than the shuffles that replace them, as recorded on the H100. */

/* Global atomics as the profile tool counts them (tools/profile.c) and the model times them
 * (model.c): updates a global address and a 4 KiB region received, each in a table of
 * ATOM_SLOTS, in Launch.prof.atoms; a float add counts 2 (half-steps), an integer one 1. Lanes
 * of a shared atomic on one word replay, ATOM_SHARED_PASS wavefronts each. */
#define ATOM_REGION_BITS 12
#define ATOM_SHARED_PASS 2
#define ATOM_SLOTS (1u << 16)
typedef struct AtomSlot { uint64_t key, n; } AtomSlot;

typedef struct ModelEstimate {
    double issue_ns, clock_ns, dram_ns, smem_ns, atom_ns, total_ns;
    const char *bound;          /* what limits it, in words                                 */
} ModelEstimate;

ModelEstimate model_estimate(const Launch *L);
/* Blocks of L an SM holds at once (by warps, blocks and shared memory), its warps a block and
 * the limit in words; the waves of such blocks the grid runs in. */
uint32_t model_sm_blocks(const Launch *L, uint32_t *warps_out, const char **limit_out);
double model_waves(const Launch *L, uint32_t blocks);

/* A launch's setup: how many warps share an SM, which sets %clock's pace (Launch.prof). */
void model_launch(Launch *L);
/* A warp's clock in SM cycles since its launch began. */
double model_warp_cycles(const Warp *w);
/* The ends of a block's warps (for the estimate): the largest of each count over them. */
typedef struct WarpMax { uint64_t slots, steps; uint32_t m_sect, m_wave; } WarpMax;
void model_warps_done(const Launch *L, const WarpMax *m);

/* The driver's timeline: where the next launch starts under --clock model, and the estimate
 * of the launch that ended last. */
void model_set_next_start(double ns);
void model_set_last_launch(double ns);
double model_last_launch_ns(void);

/* --clock model: the clock provider (clock.h), and whether it is the one in use. */
extern const ClockProvider model_clock;
int model_clock_on(void);

#endif
