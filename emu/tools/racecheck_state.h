/* racecheck_state.h - private to the race detector (racecheck.c checks, racereport.c
 * prints): its access log, findings, launches and process-wide state. */
#ifndef PTXEMU_RACECHECK_STATE_H
#define PTXEMU_RACECHECK_STATE_H

#include "racecheck.h"

/* A map from 64-bit keys to pointers (open addressing, racecheck.c). */
typedef struct Map { uint64_t *k; void **v; uint32_t cap, n; } Map;

/* One access record: the warp instruction that made accesses at one clock. */
typedef struct Acc {
    uint32_t launch;            /* index into the launches the detector has seen           */
    uint32_t cta, clus, pc, clk, pgen;
    uint16_t warp;
    uint8_t rank;
} Acc;

typedef struct Log { Acc *a; uint32_t n, cap, gen; } Log;   /* gen: compactions so far */

/* A shadow word: its last write and up to two reads, each (log index << 5 | lane), 0 =
 * none, with the bytes of the word each touched (bit i: byte i), so that accesses to
 * different bytes of one word never conflict. */
typedef struct Cell { uint32_t w, r, r2; uint8_t wm, rm, r2m, wmulti; } Cell;
#define CELL_KEPT 0x10u             /* in rm/r2m: the slot holds a plain write kept aside     */
/* wmulti: the last write is one warp instruction whose lanes wrote different bytes of the
 * word (wm is their union, w names the last lane): it conflicts with other warps' accesses
 * to any of those bytes; within the warp it is taken as ordered (lanes are not told apart). */
#define CELL_PENDING 0x80000000u    /* in w: an async copy in flight will write the word */
#define LOG_MAX (1u << 26)

typedef struct RaceFinding {
    int kind, global;
    const Program *prog1;       /* the earlier access's program (another launch's, maybe)   */
    int32_t unannounced;        /* K_TX found when the block ended: bytes no expect_tx named */
    uint32_t owner;             /* shared memory: the CTA whose memory it is (DSMEM: another) */
    uint32_t launch1;
    uint32_t pc1, pc2, cta1, cta2, t1, t2, offset, count;   /* t: thread index in its CTA */
    uint32_t scope;             /* the widest pair of threads met (RS_*, racecheck.c); the      */
                                /*   pair shown (cta, t) is one of that scope                   */
    uint64_t addr;
} RaceFinding;

enum { K_RAW, K_WAR, K_WAW, K_ASYNC_READ, K_ASYNC_WRITE, K_ASYNC_SRC, K_PROXY, K_MBINIT,
       K_PARITY, K_TX, K_WGACC };

#define MAX_FINDINGS 256
#define PAGE_WORDS 256u         /* global shadow pages: 1 KiB of memory, 4 KiB of shadow  */

/* A launch as the detector knows it: its stream, its number there, its program. A copy or
 * fill the host issued is one too, without a program: `api` names it. */
typedef struct RaceLaunch {
    uint32_t stream; uint64_t clock;
    const Program *prog;
    const char *api;
    uint32_t grid[3], block[3];
} RaceLaunch;

/* A race between a host copy and earlier work: the earlier access (a kernel's, or another
 * copy's), folded by its place. */
typedef struct HostCopyFinding {
    int kind;
    uint32_t launch1, pc1, cta1, t1, count;
    uint64_t addr;
} HostCopyFinding;

void race_report_copy(const RaceLog *g, const HostCopyFinding *f, uint32_t n, uint32_t dropped);

/* The detector's state. Findings, mbarriers and synchronising locations live for one launch;
 * the global shadow, its log and the launches for the process, so that launches of streams
 * nothing ordered are checked against each other. */
struct RaceLog {
    RaceFinding f[MAX_FINDINGS];
    uint32_t n, dropped;
    RaceLaunch *launches; uint32_t nlaunches, caplaunches;
    uint32_t cur;               /* the running launch                                        */
    uint64_t *after; uint32_t nafter;   /* per stream: launches the running one comes after  */
    uint64_t *next_after; uint32_t next_nafter, next_stream;   /* set by race_order         */
    uint64_t next_clock, default_clock;
    int have_order;
    uint32_t owner;             /* the CTA whose shared memory is being checked             */
    uint64_t last_key; Cell *last_page;   /* the global page touched last                  */
    uint32_t D, nw;             /* dense clock size (warps of a cluster), warps of a CTA  */
    Log glog;
    Map pages, mbars, locs, allocs;
    int full;
    uint32_t compactions;
    int compact_always;         /* PTXEMU_RACECHECK_COMPACT=1: compact logs at every fill (tests) */
    size_t shadow, shadow_peak, logbytes_peak;
    size_t checked, checked_peak;   /* bytes of resident shared memory and touched allocations */
};

#endif
