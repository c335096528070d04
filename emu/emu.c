/* emu.c - the emulator's face to the runtime: its setup, and launches of the kernels the layer
 * above (jit/) translates. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "emu.h"
#include "machine.h"
#include "memory.h"
#include "scheduler.h"
#include "stop.h"
#include "events.h"
#include "engine.h"
#include "tma.h"
#include "call.h"
#include "cdp.h"
#include "kernel.h"
#include "model.h"
#include "idle.h"
#include "observe.h"

int emu_log_level = 1;

static size_t stack_size = 1024;        /* CUDA's default stack per thread          */

void emu_set_stack_size(size_t b) { stack_size = b; }
size_t emu_stack_size(void) { return stack_size; }
static size_t printf_fifo = 8650752;    /* the H100's and H200's default (132 x 64 KiB) */
void emu_set_printf_fifo(size_t b) { printf_fifo = b; }

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

/* Tensor copies check global elements against the live allocations (tma.h) the launch may
 * touch (its device's, its peers', every device's). */
static int live_range(uint64_t addr, uint64_t *lo, uint64_t *hi)
{
    size_t size = 0;
    uint64_t base = mem_find_reachable(addr, &size);
    if (!base) return 0;
    *lo = base; *hi = base + size;
    return 1;
}

/* Tensor stores write global memory element by element: each element is an event. */
static void tensor_wrote(uint64_t addr, size_t n)
{
    OBSERVE(obs_mask, tensor_wrote, addr, n);
}

static int init_threads, init_status;

/* The tools are attached (tools/attach.c) before this runs: their needs decide the mode. */
static void do_init(void)
{
    const char *lv = getenv("PTXEMU_LOG");
    if (lv && *lv >= '0' && *lv <= '3' && !lv[1]) emu_log_level = *lv - '0';
    init_status = mem_init();
    tma_global_range = live_range;
    if (OBSERVING(obs_mask, OBS_MEM)) tma_store_hook = tensor_wrote;
    const char *seed = getenv("PTXEMU_SEED"), *out = getenv("PTXEMU_SCHEDULE_OUT");
    const char *in = getenv("PTXEMU_SCHEDULE_IN");
    if ((obs_needs() & OBS_NEEDS_DETERMINISTIC) && (!seed || !*seed))
        seed = "1";   /* one thread runs every warp */
    if (!init_status && ((seed && *seed) || (in && *in) || (out && *out))) {
        char *end = NULL, err[600];
        unsigned long long s = seed && *seed ? strtoull(seed, &end, 0) : 0;
        if (seed && *seed && (!end || *end)) {
            fprintf(stderr, "ptxemu: PTXEMU_SEED=%s is not a number\n", seed);
            init_status = -1;
        } else if (sched_set_deterministic(s, out, in, err, sizeof err) < 0) {
            fprintf(stderr, "%s\n", err);
            init_status = -1;
        }
    }
    if (!init_status) sched_init(init_threads);
    stop_init();   /* PTXEMU_REPORT: a SIGTERM/SIGINT/SIGALRM leaves the report complete */
}

int emu_init(int nthreads)
{
    init_threads = nthreads;
    pthread_once(&init_once, do_init);
    return init_status;
}

int emu_threads(void)
{
    return sched_threads();
}

/* ---- what the host does, for the tools ---- */

void emu_launch_order(uint32_t stream, uint64_t clock, const uint64_t *after, uint32_t n)
{
    OBSERVE(obs_mask, stream_order, stream, clock, after, n);
}

int emu_wants_stream_order(void)
{
    return (obs_needs() & OBS_NEEDS_STREAM_ORDER) != 0;
}

void emu_host_copy_begin(const char *api)
{
    OBSERVE(obs_mask, host_copy_begin, api);
}

void emu_host_copy(uint64_t addr, size_t n, int write)
{
    OBSERVE(obs_mask, host_access, addr, n, write);
}

void emu_host_copy_end(void)
{
    OBSERVE(obs_mask, host_copy_end);
}

void emu_programs_gone(void)
{
    OBSERVE(obs_mask, programs_gone);
}

/* ---- launches ----------------------------------------------------------------------- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int emu_launch(EmuKernel *k, const unsigned grid[3], const unsigned block[3], size_t dyn_shared,
               void **args, char *err, size_t errlen)
{
    return emu_launch_ex(k, grid, block, NULL, dyn_shared, args, err, errlen);
}

int emu_launch_ex(EmuKernel *k, const unsigned grid[3], const unsigned block[3],
                  const unsigned cluster[3], size_t dyn_shared, void **args, char *err,
                  size_t errlen)
{
    return emu_launch_flags(k, grid, block, cluster, dyn_shared, args, 0, err, errlen);
}

/* The grid workspace of a cooperative launch, as the H100's driver lays it out (cooperative
 * groups' grid_workspace): its size (16, as recorded) and the grid barrier counter. */
static uint64_t grid_workspace(void)
{
    uint64_t ws = mem_alloc(16, MEM_PARAM);
    if (ws) {
        uint32_t *h = mem_host(ws, 16);
        memset(h, 0, 16);
        h[0] = 16;
    }
    return ws;
}

static int launch_run(EmuKernel *k, const unsigned grid[3], const unsigned block[3],
                      const unsigned cluster[3], size_t dyn_shared, void **args, unsigned flags,
                      uint32_t depth, char *err, size_t errlen);

int emu_launch_flags(EmuKernel *k, const unsigned grid[3], const unsigned block[3],
                     const unsigned cluster[3], size_t dyn_shared, void **args, unsigned flags,
                     char *err, size_t errlen)
{
    return launch_run(k, grid, block, cluster, dyn_shared, args, flags, 0, err, errlen);
}

/* ---- dynamic parallelism (cdp.c) ---- */

/* A launch from the device (cdp.c runs them after their parent's grid). */
static int launch_child(EmuKernel *k, const unsigned grid[3], const unsigned block[3], size_t dyn,
                        void **args, uint32_t depth, char *err, size_t errlen)
{
    return launch_run(k, grid, block, NULL, dyn, args, 0, depth, err, errlen);
}

/* A launch set up but not yet run: its parameters copied, its memory allocated. */
struct EmuPending {
    Launch L;
    double t0;
    int started;   /* sched_run has begun it (it parked) */
};

static void launch_free(Launch *L)
{
    cdp_discard(L);
    if (L->param_addr) mem_free(L->param_addr, MEM_PARAM);
    if (L->grid_ws) mem_free(L->grid_ws, MEM_PARAM);
    free(L->const_rows);
    free(L->out);
    free(L->limit_js);
    OBSERVE(L->obs, launch_free, L);
    pthread_mutex_destroy(&L->lock);
}

/* Check the configuration and set up *P's launch (parameters copied). */
static int launch_prepare(EmuKernel *k, const unsigned grid[3], const unsigned block[3],
                          const unsigned cluster[3], size_t dyn_shared, void **args,
                          unsigned flags, uint32_t depth, EmuPending *P, char *err, size_t errlen)
{
    if (err && errlen) err[0] = 0;
    if (emu_init(0)) { snprintf(err, errlen, "ptxemu: no device memory arena"); return EMU_ERR_MEMORY_ALLOCATION; }
    int rc;
    const Program *p = emu_kernel_program(k, err, errlen, &rc);
    if (!p) return rc;
    rc = kernel_check_config(p, grid, block, dyn_shared, err, errlen);
    if (rc) return rc;

    Launch *L = &P->L;
    memset(L, 0, sizeof *L);
    pthread_mutex_init(&L->lock, NULL);
    L->prog = p;
    L->kernel = k;
    L->cdp_depth = depth;
    rc = kernel_cluster_shape(p, grid, cluster, L, err, errlen);
    if (rc) { pthread_mutex_destroy(&L->lock); return rc; }
    static uint64_t launches;
    L->seq = __atomic_add_fetch(&launches, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < 3; i++) { L->grid[i] = grid[i]; L->block[i] = block[i]; }
    L->obs = p->obs;
    L->dyn_shared = (uint32_t)dyn_shared;
    L->shared_total = p->shared_static + (uint32_t)dyn_shared;
    L->printf_cap = printf_fifo / EMU_PRINTF_RECORD;
    L->ncta = (uint64_t)grid[0] * grid[1] * grid[2];
    if (p->uses_local) {
        size_t need = (p->frame_size + 15) & ~(size_t)15;
        /* frames here keep whole register rows of recursive functions where the GPU saves
         * only live registers: give the stack 8 times the configured size */
        L->local_stride = need + stack_size * 8;
    }
    rc = EMU_ERR_MEMORY_ALLOCATION;
    L->param_addr = mem_alloc(p->param_size ? p->param_size : 1, MEM_PARAM);
    L->const_rows = malloc((size_t)p->first_var_row * WARP_SIZE * sizeof(uint64_t));
    L->cooperative = (flags & EMU_LAUNCH_COOPERATIVE) != 0;
    if (L->cooperative) L->grid_ws = grid_workspace();
    if (!L->param_addr || !L->const_rows || (L->cooperative && !L->grid_ws)) {
        snprintf(err, errlen, "ptxemu: out of memory launching %s", p->dname);
        launch_free(L);
        return rc;
    }
    L->params = mem_host(L->param_addr, p->param_size ? p->param_size : 1);
    for (uint32_t i = 0; i < p->nparams; i++)
        if (p->param_size_of[i]) {
            if (!args || !args[i]) {
                snprintf(err, errlen, "ptxemu: kernel %s: argument %u is missing", p->dname, i);
                launch_free(L);
                return EMU_ERR_INVALID_VALUE;
            }
            memcpy(L->params + p->param_offset[i], args[i], p->param_size_of[i]);
        }
    for (uint32_t r = 0; r < p->first_var_row; r++)
        for (int l = 0; l < WARP_SIZE; l++) L->const_rows[r * WARP_SIZE + l] = p->row_init[r];
    for (uint32_t i = 0; i < p->nkparams; i++) {
        const KparamRow *kp = &p->kparams[i];
        uint64_t v = 0;
        memcpy(&v, L->params + kp->offset, kp->size);
        if (kp->is_signed && kp->size < 8 && (v >> (kp->size * 8 - 1) & 1)) v |= ~0ull << (kp->size * 8);
        for (int l = 0; l < WARP_SIZE; l++) L->const_rows[(size_t)kp->row * WARP_SIZE + l] = v;
    }

    if (emu_log_level >= 3)
        fprintf(stderr, "ptxemu: trace: launch %s: grid (%u,%u,%u) block (%u,%u,%u) cluster "
                "(%u,%u,%u), %u bytes of dynamic shared memory%s%s\n", p->dname, grid[0], grid[1],
                grid[2], block[0], block[1], block[2], L->cluster[0], L->cluster[1], L->cluster[2],
                L->dyn_shared, L->cooperative ? ", cooperative" : "", depth ? ", from the device" : "");
    L->span_t0 = OBSERVING(L->obs, OBS_SPAN) ? ev_device_clock() : 0;
    P->t0 = now_s();
    model_launch(L);
    idle_plan(L, !sched_deterministic(NULL));   /* after the model's launch values: idle blocks count their warps' time */
    if (OBSERVE(L->obs, launch_begin, L)) {
        snprintf(err, errlen, "ptxemu: out of memory launching %s", p->dname);
        launch_free(L);
        return EMU_ERR_MEMORY_ALLOCATION;
    }
    return EMU_OK;
}

/* After the grid ran: its reports, its printf output, its children; then free it. */
static int launch_finish(EmuPending *P, char *err, size_t errlen)
{
    Launch *L = &P->L;
    const Program *p = L->prog;
    double t0 = P->t0, t1 = now_s();
    int rc;
    if (OBSERVING(L->obs, OBS_SPAN)) {
        ev_launch_end();
        L->span_t1 = ev_device_clock();
        Event e = { .kind = EV_LAUNCH, .t0 = L->span_t0, .t1 = L->span_t1, .launch = L->seq, .L = L,
                    .name = p->dname };
        OBSERVE(L->obs, span, &e);
    }
    OBSERVE(L->obs, launch_end, L);
    double model_ns = model_estimate(L).total_ns;
    model_set_last_launch(model_ns);   /* the driver's timeline model */
    if (emu_log_level >= 3)
        fprintf(stderr, "ptxemu: trace: %s finished%s: %llu warp instructions, %llu thread "
                "instructions\n", p->dname, L->aborted ? " with a fault" : "",
                (unsigned long long)L->warp_insts, (unsigned long long)L->thread_insts);
    if (emu_log_level >= 3 && L->idle.skipped)
        fprintf(stderr, "ptxemu: trace: launch %s: %llu of its %llu blocks left at the kernel's "
                "first branch with every thread; not run (emu/idle.c)\n", p->dname,
                (unsigned long long)L->idle.skipped, (unsigned long long)L->ncta);

    /* device printf output appears when the kernel completes, after earlier host output */
    if (L->out_len) {
        fflush(stdout);
        fwrite(L->out, 1, L->out_len, stdout);
        fflush(stdout);
    }
    sched_report_limit(L);
    if (L->printf_dropped && emu_log_level >= 1)   /* the GPU drops them without a word */
        fprintf(stderr, "ptxemu: warning: kernel %s: device printf dropped %llu of its %llu lines: "
                "the printf FIFO (cudaLimitPrintfFifoSize, %zu bytes) holds %llu, %u bytes each, "
                "as on an H200; cudaDeviceSetLimit(cudaLimitPrintfFifoSize, ...) before the first "
                "launch makes it larger\n", p->dname, (unsigned long long)L->printf_dropped,
                (unsigned long long)(L->printf_dropped + L->printf_n), (size_t)(L->printf_cap * EMU_PRINTF_RECORD),
                (unsigned long long)L->printf_cap, EMU_PRINTF_RECORD);
    OBSERVE(L->obs, launch_report, L);
    const char *stats = getenv("PTXEMU_STATS");
    if (stats && *stats && *stats != '0')
        fprintf(stderr, "ptxemu-stats: kernel=%s thread_insts=%llu warp_insts=%llu issue_slots=%llu "
                "model_ns=%.1f seconds=%.6f\n", p->name, (unsigned long long)L->thread_insts,
                (unsigned long long)L->warp_insts, (unsigned long long)L->warp_slots, model_ns, t1 - t0);
    if (L->aborted) {
        snprintf(err, errlen, "%s", L->fault.msg);
        rc = L->fault.code;
    } else   /* the grid has finished: the work it launched runs now (cdp.h) */
        rc = cdp_run_children(L, launch_child, err, errlen);
    launch_free(L);
    return rc;
}

static int launch_run(EmuKernel *k, const unsigned grid[3], const unsigned block[3],
                      const unsigned cluster[3], size_t dyn_shared, void **args, unsigned flags,
                      uint32_t depth, char *err, size_t errlen)
{
    EmuPending P;
    int rc = launch_prepare(k, grid, block, cluster, dyn_shared, args, flags, depth, &P, err, errlen);
    if (rc) return rc;
    stop_launch_enter();
    sched_run(&P.L);
    rc = launch_finish(&P, err, errlen);
    stop_launch_leave();
    return rc;
}

int emu_launch_defer(EmuKernel *k, const unsigned grid[3], const unsigned block[3],
                     const unsigned cluster[3], size_t dyn_shared, void **args, unsigned flags,
                     EmuPending **out, char *err, size_t errlen)
{
    EmuPending *P = malloc(sizeof *P);
    if (!P) { snprintf(err, errlen, "ptxemu: out of memory"); return EMU_ERR_MEMORY_ALLOCATION; }
    int rc = launch_prepare(k, grid, block, cluster, dyn_shared, args, flags, 0, P, err, errlen);
    if (rc) { free(P); return rc; }
    P->started = 0;
    *out = P;
    return EMU_OK;
}

int emu_launch_park(EmuKernel *k, const unsigned grid[3], const unsigned block[3],
                    const unsigned cluster[3], size_t dyn_shared, void **args, unsigned flags,
                    EmuPending **parked, char *err, size_t errlen)
{
    *parked = NULL;
    EmuPending *P;
    int rc = emu_launch_defer(k, grid, block, cluster, dyn_shared, args, flags, &P, err, errlen);
    if (rc) return rc;
    int again;
    rc = emu_launch_resume(P, 1, &again, err, errlen);
    if (again) *parked = P;
    return rc;
}

int emu_launch_resume(EmuPending *P, int may_park, int *parked, char *err, size_t errlen)
{
    stop_launch_enter();
    if (!P->started) {
        P->started = 1;
        P->L.may_park = may_park;
        sched_run(&P->L);
    } else {
        sched_resume(&P->L, may_park);
    }
    *parked = P->L.park_buf != NULL;
    if (*parked) { stop_launch_leave(); return EMU_OK; }
    int rc = launch_finish(P, err, errlen);
    free(P);
    stop_launch_leave();
    return rc;
}

void emu_launch_discard(EmuPending *P)
{
    sched_discard(&P->L);
    launch_free(&P->L);
    free(P);
}

void emu_launch_together(EmuPending **p, int n, int *rc, char (*err)[EMU_ERR_LEN])
{
    Launch *Ls[EMU_MAX_TOGETHER];
    if (n > EMU_MAX_TOGETHER) n = EMU_MAX_TOGETHER;
    for (int i = 0; i < n; i++) Ls[i] = &p[i]->L;
    stop_launch_enter();
    sched_run_together(Ls, n);
    for (int i = 0; i < n; i++) {
        rc[i] = launch_finish(p[i], err[i], EMU_ERR_LEN);
        free(p[i]);
    }
    stop_launch_leave();
}
