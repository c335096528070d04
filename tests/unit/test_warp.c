/* test_warp.c - unit tests of warp.c's divergence and reconvergence on hand-made warps: the
 * join of an `if` without else (a branch whose target is its own reconvergence pc), which
 * warp_regroup closes without scanning the lanes (DivEntry.at), and the cases that still scan.
 * Prints one line per failure and "N passed, N failed"; exits 1 on any failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../emu/engine.h"

#include "check.h"

static Warp *fresh(uint32_t pc)
{
    static Warp w;
    memset(&w, 0, sizeof w);
    w.valid = w.alive = w.active = FULL_MASK;
    w.pc = pc;
    w.merge_pc = UINT32_MAX;
    return &w;
}

int main(void)
{
    /* if (lane == 0) { ... }: 31 lanes branch to the join at 14, lane 0 runs 11..13 */
    Warp *w = fresh(10);
    warp_diverge(w, ~1u, 14, 14);
    CHECK(w->sp == 1 && w->stk[0].rpc == 14 && w->stk[0].mask == FULL_MASK, "region opened: sp %u", w->sp);
    CHECK(w->stk[0].at == ~1u, "lanes sent to the join: 0x%08x", w->stk[0].at);
    CHECK(w->active == 1u && w->pc == 11 && w->merge_pc == 14, "lane 0 runs the body: 0x%08x at %u, merge %u",
          w->active, w->pc, w->merge_pc);
    for (int l = 1; l < WARP_SIZE; l++) CHECK(w->lane_pc[l] == 14, "lane %d waits at %u", l, w->lane_pc[l]);
    /* The join is taken without a scan: lane 5's pc is made wrong here, which only the scan
     * reads (it would then run lane 5 from pc 99); the region closes with every lane. */
    w->lane_pc[5] = 99;
    w->pc = 14;
    warp_regroup(w);
    CHECK(w->sp == 0 && w->active == FULL_MASK && w->pc == 14 && w->merge_pc == UINT32_MAX,
          "join without a scan: sp %u, 0x%08x at %u, merge %u", w->sp, w->active, w->pc, w->merge_pc);

    /* two branches to one join: the second adds its lanes to the first's region */
    w = fresh(20);
    warp_diverge(w, 0xffff0000u, 30, 30);
    CHECK(w->active == 0x0000ffffu && w->pc == 21, "first branch: 0x%08x at %u", w->active, w->pc);
    w->pc = 23;
    warp_diverge(w, 0x0000fff0u, 30, 30);
    CHECK(w->sp == 1 && w->stk[0].at == 0xfffffff0u, "second branch, one region: sp %u, at 0x%08x", w->sp,
          w->stk[0].at);
    CHECK(w->active == 0xfu && w->pc == 24, "lanes 0-3 run on: 0x%08x at %u", w->active, w->pc);
    w->pc = 30;
    warp_regroup(w);
    CHECK(w->sp == 0 && w->active == FULL_MASK && w->pc == 30, "both joined: sp %u, 0x%08x at %u", w->sp,
          w->active, w->pc);

    /* if/else: the branch goes elsewhere than the join, so the join scans the lanes */
    w = fresh(40);
    warp_diverge(w, 0xffff0000u, 45, 50);
    CHECK(w->stk[0].at == 0, "an else branch waits nowhere: at 0x%08x", w->stk[0].at);
    w->pc = 50;
    warp_regroup(w);
    CHECK(w->sp == 1 && w->active == 0xffff0000u && w->pc == 45 && w->merge_pc == 50,
          "the else path runs: sp %u, 0x%08x at %u, merge %u", w->sp, w->active, w->pc, w->merge_pc);
    w->pc = 50;
    warp_regroup(w);
    CHECK(w->sp == 0 && w->active == FULL_MASK && w->pc == 50, "if/else joined: sp %u, 0x%08x at %u", w->sp,
          w->active, w->pc);

    /* the body's lane parks at a barrier: the lanes at the join go on without it (an early
     * exit before __syncthreads must reach its end), through the scan */
    w = fresh(60);
    warp_diverge(w, ~1u, 70, 70);
    w->lane_pc[0] = 66;   /* parked past its bar.sync at 65 */
    w->waiting = w->bar_wait = 1u;
    w->active = 0;
    warp_regroup(w);
    CHECK(w->sp == 0 && w->active == ~1u && w->pc == 70, "the others go on: sp %u, 0x%08x at %u", w->sp,
          w->active, w->pc);

    /* the body's lane exits: the others go on from the join */
    w = fresh(80);
    warp_diverge(w, ~1u, 90, 90);
    w->alive &= ~1u;
    w->active = 0;
    w->pc = 82;
    warp_regroup(w);
    CHECK(w->sp == 0 && w->active == ~1u && w->pc == 90, "after the exit: sp %u, 0x%08x at %u", w->sp,
          w->active, w->pc);

    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
