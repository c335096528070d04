/* events.c - the emulated clock (events.h): per worker, it follows the instructions of the
 * warps the worker runs; the device's clock moves to the latest worker's at a launch's end. */
#include "events.h"
#include "observe.h"

static uint64_t dev_clock, launch_max;
static __thread uint64_t my_clock;
static __thread uint32_t my_worker;
static __thread const uint64_t *run_steps;   /* the running warp's instruction count */
static __thread uint64_t run_s0;

/* Inside a warp's turn the clock runs on with its instructions: an async copy issued or
 * completed mid-turn gets its own time. */
uint64_t ev_now(void) { return my_clock + (run_steps ? *run_steps - run_s0 : 0); }
void ev_run_begin(const uint64_t *steps) { run_steps = steps; run_s0 = *steps; }
void ev_run_end(void)
{
    if (run_steps) ev_advance(*run_steps - run_s0);
    run_steps = NULL;
}
uint32_t ev_worker(void) { return my_worker; }
void ev_set_worker(uint32_t id) { my_worker = id; }
uint64_t ev_device_clock(void) { return __atomic_load_n(&dev_clock, __ATOMIC_ACQUIRE); }

void ev_advance(uint64_t ticks)
{
    my_clock += ticks;
    uint64_t m = __atomic_load_n(&launch_max, __ATOMIC_RELAXED);
    while (my_clock > m &&
           !__atomic_compare_exchange_n(&launch_max, &m, my_clock, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {}
}

void ev_launch_begin(void) { my_clock = ev_device_clock(); }

void ev_launch_end(void)
{
    uint64_t m = __atomic_load_n(&launch_max, __ATOMIC_ACQUIRE);
    if (m > dev_clock) __atomic_store_n(&dev_clock, m, __ATOMIC_RELEASE);
}

void ev_memcpy(int dir, uint64_t n)
{
    if (!OBSERVING(obs_mask, OBS_SPAN)) return;
    uint64_t t0 = ev_device_clock(), t1 = t0 + (n + 63) / 64;
    __atomic_store_n(&dev_clock, t1, __ATOMIC_RELEASE);
    if (launch_max < t1) launch_max = t1;
    Event e = { .kind = EV_MEMCPY, .what = dir, .t0 = t0, .t1 = t1, .bytes = n };
    OBSERVE(obs_mask, span, &e);
}
