/* events.h - the emulated clock and the intervals (spans) measured on it: launches, thread
 * blocks on workers, each warp's running and waiting intervals, asynchronous copies from issue
 * to completion, and host memory copies. The scheduler, the asynchronous engine and the
 * driver's copies produce them, only while a tool subscribes to OBS_SPAN (observe.h), which
 * receives each one; the timeline (tools/timeline.c) writes them to a file.
 *
 * Time is an emulated clock, not the host's: each worker counts the warp instructions it ran
 * (one instruction, one nanosecond), a launch starts on every worker at the device clock and
 * the device clock moves to the latest worker's at its end; a memory copy takes one nanosecond
 * per 64 bytes. Under a seed one thread runs everything, so the same seed gives the same spans.
 */
#ifndef PTXEMU_EVENTS_H
#define PTXEMU_EVENTS_H

#include <stdint.h>

typedef enum { EV_LAUNCH, EV_CTA, EV_RUN, EV_WAIT, EV_ASYNC, EV_MEMCPY } EvKind;

/* What a waiting warp waits for (EV_WAIT), or which copy (EV_MEMCPY: EV_H2D...). */
enum { EVW_BARRIER, EVW_CLUSTER_BARRIER, EVW_WARP_SYNC, EVW_WGMMA, EVW_MBARRIER };
enum { EV_H2D, EV_D2H, EV_D2D, EV_H2H };

struct Launch;

typedef struct Event {
    EvKind kind;
    int what;                   /* EVW_* / EV_H2D.. / the async operation's name index      */
    uint64_t t0, t1;            /* emulated clock, nanoseconds                               */
    uint64_t launch;            /* the launch's sequence number (0: none)                    */
    struct Launch *L;           /* and the launch itself (NULL: none)                        */
    const char *name;           /* kernel name (EV_LAUNCH, EV_CTA), operation (EV_ASYNC)     */
    uint32_t cta[3], cta_linear, warp, nwarps, worker;
    uint64_t bytes;
} Event;

/* The emulated clock of the calling worker, and the device's between launches. */
uint64_t ev_now(void);
void ev_advance(uint64_t ticks);
void ev_run_begin(const uint64_t *steps);   /* a warp's turn: the clock follows its count */
void ev_run_end(void);                      /* ... and keeps what it ran                */
void ev_launch_begin(void);     /* the calling worker starts on the current launch */
uint64_t ev_device_clock(void);
void ev_launch_end(void);       /* the device clock moves to the latest worker's */
void ev_set_worker(uint32_t id);
uint32_t ev_worker(void);

/* A host copy of n bytes (EV_H2D..): an interval on the copies row, after which the device
 * clock stands; nothing without a tool subscribed to spans. */
void ev_memcpy(int dir, uint64_t n);

#endif
