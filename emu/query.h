/* query.h - what a tool may ask of the machine: read-only views of warps, memory, the
 * asynchronous engine's operations in flight, mbarrier words and the timing model.
 *
 * Contract: tools (emu/tools/) include this, observe.h and report.h, and no other core header
 * (a make check test holds them to it); nothing here changes the machine. */
#ifndef PTXEMU_QUERY_H
#define PTXEMU_QUERY_H

#include <stddef.h>
#include <stdint.h>
#include "machine.h"
#include "events.h"
#include "model.h"

/* What a warp is doing at lane l ("runs", "waits at a barrier ...", "exited"). */
const char *sched_warp_state(const Warp *w, int l);

/* Device memory: the live allocation holding addr (start; 0 none; its size and MEM_* kind),
 * the host view of [addr, addr+size) inside one, and whether addr is global memory. */
uint64_t mem_find(uint64_t addr, size_t *size_out, int *kind_out);
void *mem_host(uint64_t addr, size_t size);
int query_is_global(uint64_t addr);

/* The asynchronous operations of a cluster still in the queue (done ones included until the
 * queue compacts), the i-th of them. */
typedef struct QueryAsync {
    const char *what;           /* "cp.async", "cp.async.bulk", ...                         */
    const Warp *w;              /* issuing warp, lane and instruction                       */
    int lane;
    uint32_t pc;
    const uint8_t *dst;         /* where it writes, bytes                                   */
    uint32_t size;
    const uint64_t *mbar;       /* the mbarrier it signals, or NULL                         */
    int group_kind;             /* 0 none, 1 a cp.async group, 2 a bulk async-group         */
    uint32_t group;
    int done;
} QueryAsync;
uint32_t async_count(const Cluster *cl);
int query_async(const Cluster *cl, uint32_t i, QueryAsync *out);   /* 0, or -1 past the end */

/* An mbarrier word decoded. */
typedef struct QueryMbar {
    int valid;                  /* initialised                                              */
    int phase;                  /* parity of the phase in progress                          */
    int done;                   /* a phase has completed since init                         */
    uint32_t pending, expected; /* arrivals still pending in this phase, expected per phase */
    int32_t tx;                 /* transaction bytes pending (negative: sent before expected) */
} QueryMbar;
QueryMbar query_mbar(uint64_t word);

#endif
