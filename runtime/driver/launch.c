/* launch.c - kernel launches, function attributes and occupancy.
 *
 * Launches run to completion inside emu_launch_ex, holding the driver lock, so work happens
 * in issue order; only cooperative launches of several devices wait, to run together (below).
 * A fault during the run becomes the context's sticky error; like an asynchronous launch on
 * a GPU, the launch call itself still succeeds and the fault surfaces at the next call that
 * uses the context.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/driver/drv.h"
#include "emu/memory.h"
#include "runtime/driver/graph.h"
#include "emu/model.h"
#include "emu/scheduler.h"
#include "emu/demangle.h"

static int regs_limit(int regs, int warps);

/* Grid and block shape against the H100's limits (every bad shape is INVALID_VALUE). */
static CUresult check_shape(const unsigned g[3], const unsigned b[3])
{
    if (!g[0] || !g[1] || !g[2] || !b[0] || !b[1] || !b[2]) return CUDA_ERROR_INVALID_VALUE;
    if (b[0] > 1024 || b[1] > 1024 || b[2] > 64) return CUDA_ERROR_INVALID_VALUE;
    if ((uint64_t)b[0] * b[1] * b[2] > DRV_MAX_THREADS_PER_BLOCK) return CUDA_ERROR_INVALID_VALUE;
    if (g[0] > 2147483647u || g[1] > 65535u || g[2] > 65535u) return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

/* The kernel's own limits: .maxntid/.reqntid and its dynamic shared memory allowance. */
static CUresult check_kernel(CUfunction f, const JitKernelInfo *info, const unsigned b[3],
                             size_t smem)
{
    uint64_t threads = (uint64_t)b[0] * b[1] * b[2];
    if (threads > info->max_threads) return CUDA_ERROR_INVALID_VALUE;
    if (info->reqntid[0] > 0 && ((int)b[0] != info->reqntid[0] || (int)b[1] != info->reqntid[1] ||
                                 (int)b[2] != info->reqntid[2]))
        return CUDA_ERROR_INVALID_VALUE;
    if (smem > drv_func_max_dyn(f, info)) return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

/* The packed parameter buffer of `extra` as one pointer per parameter. */
CUresult drv_unpack_extra(void **extra, const JitKernelInfo *info, void **args)
{
    char *buf = NULL;
    size_t size = 0;
    int have_size = 0;
    for (int i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
        if (i > 64) return CUDA_ERROR_INVALID_VALUE;
        if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) buf = extra[i + 1];
        else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE) { size = *(size_t *)extra[i + 1]; have_size = 1; }
        else return CUDA_ERROR_INVALID_VALUE;
    }
    if (info->nparams && (!buf || !have_size || size < info->param_bytes)) return CUDA_ERROR_INVALID_VALUE;
    for (int i = 0; i < info->nparams; i++) args[i] = buf + info->param_offset[i];
    return CUDA_SUCCESS;
}

#define MAX_PARAMS 4096

/* The cluster shape a launch runs with: the attribute's, else the one set on the function
 * (the kernel's own __cluster_dims__ the emulator knows); NULL for no clusters. */
static const unsigned *launch_cluster(CUfunction f, const unsigned *cluster, unsigned out[3])
{
    if (cluster) return cluster;
    if (!f->cluster[0]) return NULL;
    for (int i = 0; i < 3; i++) out[i] = (unsigned)f->cluster[i];
    return out;
}

/* Everything checked before a launch runs; caller holds the lock. Fills the kernel and the
 * parameter pointers (from `extra`'s buffer when given). */
static CUresult launch_check(CUfunction f, const unsigned grid[3], const unsigned block[3],
                             unsigned smem, CUstream s, void ***params, void **extra,
                             const unsigned *cl, int cooperative, EmuKernel **k)
{
    static void *packed[MAX_PARAMS];
    if (drv_handle_kind(f) != H_FUNC) return CUDA_ERROR_INVALID_HANDLE;
    CUresult e = drv_stream_check(s);
    if (e == CUDA_SUCCESS) e = check_shape(grid, block);
    JitKernelInfo info;
    if (e == CUDA_SUCCESS) e = drv_func_kernel(f, k, &info);
    if (e == CUDA_SUCCESS) e = check_kernel(f, &info, block, smem);
    if (e != CUDA_SUCCESS) return e;
    /* a block of more than 256 threads may need more registers than an SM has (up to 256,
     * 255 registers a thread always fit): ask ptxas once, and refuse as the GPU does */
    int warps = (int)((block[0] * block[1] * block[2] + 31) / 32);
    if (warps > 8 && !f->regs) f->regs = drv_func_ptxas_regs(f);
    if (warps > 8 && f->regs > 0 && !regs_limit(f->regs, warps)) return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
    if (*params && extra) return CUDA_ERROR_INVALID_VALUE;
    if (extra) {
        if (info.nparams > MAX_PARAMS) return CUDA_ERROR_INVALID_VALUE;
        if ((e = drv_unpack_extra(extra, &info, packed)) != CUDA_SUCCESS) return e;
        *params = packed;
    }
    if (info.nparams > 0 && !*params) return CUDA_ERROR_INVALID_VALUE;
    /* 8 CTAs is the portable cluster size; up to 16 once the kernel allows non-portable */
    if (cl && (uint64_t)cl[0] * cl[1] * cl[2] > (f->nonportable ? 16u : 8u))
        return CUDA_ERROR_INVALID_CLUSTER_SIZE;
    if (cooperative) {   /* the grid must fit at once, registers counted as ptxas gives them */
        if (!f->regs) f->regs = drv_func_ptxas_regs(f);
        uint64_t blocks = (uint64_t)grid[0] * grid[1] * grid[2];
        int per_sm = drv_occupancy(f, &info, (int)(block[0] * block[1] * block[2]), smem);
        if (blocks > (uint64_t)per_sm * DRV_NUM_SMS) return CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
    }
    return CUDA_SUCCESS;
}

/* A launch on stream s, or (after != NULL) a graph's kernel node on its ordering lane. */
/* ---- cooperative launches of several devices ----
 * A launch runs to completion before the call returns, but the cooperative kernels of
 * several devices may wait for each other through memory (a multi-device conjugate gradient
 * launches one per device, each waiting for the others' flags in host memory). So while
 * more than one device exists, a cooperative launch is set up and kept; the next one on
 * another device joins it, and they run together before the host waits for work, queries
 * it, copies or fills memory or launches anything else (drv_run_held), at a second launch
 * on a device already waiting, or at exit. Not in deterministic mode, under the race
 * detector or under --clock model, which follow one launch at a time. Caller holds the
 * lock. */
static struct {
    EmuPending *p[EMU_MAX_TOGETHER];
    CUcontext c[EMU_MAX_TOGETHER];
    CUfunction f[EMU_MAX_TOGETHER];
    int n;
} held;

static int may_hold(int cooperative, const DrvOrder *after)
{
    return cooperative && !after && drv_device_count() > 1 && !sched_deterministic(NULL) &&
           !emu_wants_stream_order() && !model_clock_on();
}

static void launch_failed(CUcontext c, CUfunction f, CUresult e, const char *err);

/* ---- launches that wait for the host ----
 * A kernel may spin on a flag the host sets only after the launch returns (a blocking
 * kernel holding a stream while the host queues work behind it: UnifiedMemoryPerf, launch
 * overhead benchmarks). Such a launch parks (emu_launch_park: one cluster spinning without
 * progress) and the call returns. Launches that come after it in stream order are set up
 * and queued behind it. Each new launch gives the queue a turn first, in which a parked
 * launch continues until it ends or parks again. A host wait for a stream, and a copy or a
 * fill on one, run what that stream follows to the end and give the rest a turn
 * (drv_run_held_for); a device-wide wait, an event wait or query and a graph launch run the
 * queue to the end (drv_run_held); a stream query only gives it a turn and answers
 * CUDA_ERROR_NOT_READY while the stream has work queued. Caller holds the lock. */
#define QUEUE_MAX 256
static struct Queued { EmuPending *p; CUcontext c; CUfunction f; uint32_t stream; } queue[QUEUE_MAX];
static int nqueue;

static int queued_before(uint32_t si)
{
    for (int i = 0; i < nqueue; i++)
        if (drv_order_follows(si, queue[i].stream)) return 1;
    return 0;
}

int drv_queue_holds(CUstream s)
{
    return nqueue && queued_before(drv_order_stream_index(s));
}

void drv_run_queue(int mode, uint32_t si)
{
    uint32_t blocked[QUEUE_MAX];
    int nblocked = 0;
    for (int i = 0; i < nqueue;) {
        int held_back = 0;
        for (int b = 0; b < nblocked; b++) held_back |= drv_order_follows(queue[i].stream, blocked[b]);
        if (held_back) { i++; continue; }
        char err[EMU_ERR_LEN];
        int parked, finish = mode == DRV_QUEUE_ALL ||
                             (mode == DRV_QUEUE_STREAM && drv_order_follows(si, queue[i].stream));
        mem_set_access(drv_peer_mask(queue[i].c));
        mem_set_launch_device(queue[i].c->device);
        int rc = emu_launch_resume(queue[i].p, !finish, &parked, err, sizeof err);
        if (parked) { blocked[nblocked++] = queue[i++].stream; continue; }
        struct Queued q = queue[i];
        memmove(&queue[i], &queue[i + 1], (size_t)(nqueue - i - 1) * sizeof queue[0]);
        nqueue--;
        if (rc != EMU_OK) launch_failed(q.c, q.f, drv_from_emu(rc), err);
    }
}

/* Module m goes: its kernels still waiting for the host get a turn, and those that still
 * wait are dropped with a warning, as the end of a process drops a kernel still running. */
void drv_queue_drop_module(DrvModule *m)
{
    if (!nqueue) return;
    drv_run_queue(DRV_QUEUE_TURN, 0);
    for (int i = 0; i < nqueue;) {
        if (queue[i].f->mod != m) { i++; continue; }
        drv_diag("ptxemu: warning: kernel %s was still waiting for the host when its module was "
                 "unloaded; it is dropped", queue[i].f->name);
        emu_launch_discard(queue[i].p);
        memmove(&queue[i], &queue[i + 1], (size_t)(nqueue - i - 1) * sizeof queue[0]);
        nqueue--;
    }
}

static void run_held_at_exit(void);

/* Kept launches get a last turn at exit (run_held_at_exit). */
static void at_exit_once(void)
{
    static int registered;
    if (!registered) registered = atexit(run_held_at_exit) == 0;
}

static void queue_add(EmuPending *p, CUcontext c, CUfunction f, uint32_t stream)
{
    at_exit_once();
    queue[nqueue++] = (struct Queued){ p, c, f, stream };
}

/* Set up a launch that comes after queued ones in stream order, and queue it behind them. */
static CUresult queue_defer(CUcontext c, CUfunction f, EmuKernel *k, const unsigned grid[3],
                            const unsigned block[3], const unsigned *cl, unsigned smem,
                            void **params, uint32_t stream)
{
    char err[EMU_ERR_LEN];
    EmuPending *p;
    int rc = emu_launch_defer(k, grid, block, cl, smem, params, 0, &p, err, sizeof err);
    if (rc != EMU_OK) {
        if (err[0]) drv_diag("%s", err);
        return drv_from_emu(rc);
    }
    queue_add(p, c, f, stream);
    return CUDA_SUCCESS;
}


void drv_run_held(void)
{
    if (nqueue) drv_run_queue(DRV_QUEUE_ALL, 0);
    drv_run_held_coop();
}

/* The host waits for stream index si's work: what it follows in the queue ends, the rest
 * gets a turn. */
void drv_run_held_for(uint32_t si)
{
    if (nqueue) drv_run_queue(DRV_QUEUE_STREAM, si);
    drv_run_held_coop();
}

void drv_run_held_coop(void)
{
    if (!held.n) return;
    int n = held.n, rc[EMU_MAX_TOGETHER];
    static char err[EMU_MAX_TOGETHER][EMU_ERR_LEN];
    uint32_t mask = 0;
    for (int i = 0; i < n; i++) mask |= drv_peer_mask(held.c[i]);
    mem_set_access(mask);
    mem_set_launch_device(-1);
    held.n = 0;
    emu_launch_together(held.p, n, rc, err);
    for (int i = 0; i < n; i++)
        if (rc[i] != EMU_OK) launch_failed(held.c[i], held.f[i], drv_from_emu(rc[i]), err[i]);
}

/* At exit a kernel still waiting for the host gets one more turn and is then left, as the
 * process's end leaves a GPU kernel. */
static void run_held_at_exit(void)
{
    drv_lock();
    if (nqueue) drv_run_queue(DRV_QUEUE_TURN, 0);
    drv_run_held_coop();
    drv_unlock();
}

/* Keep a cooperative launch to run with those of other devices. */
static CUresult hold(CUcontext c, CUfunction f, EmuKernel *k, const unsigned grid[3],
                     const unsigned block[3], const unsigned *cl, unsigned smem, void **params)
{
    for (int i = 0; i < held.n; i++)
        if (held.c[i]->device == c->device) drv_run_held_coop();   /* that device's earlier one first */
    if (held.n == EMU_MAX_TOGETHER) drv_run_held_coop();
    at_exit_once();
    char err[EMU_ERR_LEN];
    int rc = emu_launch_defer(k, grid, block, cl, smem, params, EMU_LAUNCH_COOPERATIVE,
                              &held.p[held.n], err, sizeof err);
    if (rc != EMU_OK) {
        if (err[0]) drv_diag("%s", err);
        return drv_from_emu(rc);
    }
    held.c[held.n] = c;
    held.f[held.n++] = f;
    return CUDA_SUCCESS;
}

static CUresult launch(CUfunction f, const unsigned grid[3], const unsigned block[3],
                       unsigned smem, CUstream s, void **params, void **extra,
                       const unsigned *cluster, int cooperative, uint32_t lane, DrvOrder *after)
{
    CUcontext c;
    int keep = may_hold(cooperative, after);
    /* into a created stream with no context current: the stream's context */
    CUresult e = drv_ctx_enter_owner(after ? NULL : drv_stream_owner(s), 1, &c);
    if (e != CUDA_SUCCESS) return e;
    drv_lock();
    if (!keep) {
        if (nqueue) drv_run_queue(DRV_QUEUE_TURN, 0);   /* a turn for launches waiting for the host */
        drv_run_held_coop();
        drv_defer_turn();                               /* and for work deterministic mode kept */
    }
    unsigned clbuf[3];
    const unsigned *cl = drv_handle_kind(f) == H_FUNC ? launch_cluster(f, cluster, clbuf) : NULL;
    EmuKernel *k = NULL;
    e = launch_check(f, grid, block, smem, s, &params, extra, cl, cooperative, &k);
    int cap = 0;
    if (e == CUDA_SUCCESS && !after) e = drv_capture_work(s, &cap);
    if (e != CUDA_SUCCESS || cap) {
        if (cap) e = drv_capture_kernel(s, f, grid, block, smem, params, cluster, cooperative);
        drv_unlock();
        return e;
    }
    char err[2048] = "";
    emu_set_printf_fifo(c->printf_fifo);   /* the launching context's FIFO */
    if (after) drv_order_lane_launch(lane, after);
    else drv_order_launch(s);
    uint64_t blocks = (uint64_t)grid[0] * grid[1] * grid[2];
    if (model_clock_on()) model_set_next_start(drv_model_kernel_start(s, after != NULL, blocks));
    if (keep) {
        e = hold(c, f, k, grid, block, cl, smem, params);
        drv_unlock();
        return e;
    }
    /* a launch may wait for the host (parks), and one after a parked one in stream order
     * waits behind it; graph nodes and the modes that follow one launch at a time do not */
    int parkable = !after && !cooperative && !sched_deterministic(NULL) && !emu_wants_stream_order() &&
                   !model_clock_on();
    uint32_t si = drv_order_stream_index(s);
    if (!after && !cooperative && drv_defer_choose()) {   /* it runs later, as the seed says */
        EmuPending *p;
        int rc = emu_launch_defer(k, grid, block, cl, smem, params, 0, &p, err, sizeof err);
        if (rc == EMU_OK) drv_defer_kernel(p, c, f, s);
        drv_unlock();
        if (rc == EMU_OK) return CUDA_SUCCESS;
        if (err[0] && !f->reported) drv_diag("%s", err);
        f->reported = 1;
        return drv_from_emu(rc);
    }
    if (!after) drv_defer_settle_stream(s);   /* kept work it follows runs first */
    if (nqueue && (!parkable || nqueue == QUEUE_MAX)) drv_run_queue(DRV_QUEUE_ALL, 0);
    if (parkable && nqueue && queued_before(si)) {
        e = queue_defer(c, f, k, grid, block, cl, smem, params, si);
        drv_unlock();
        return e;
    }
    mem_set_access(drv_peer_mask(c));   /* the kernel's device and its enabled peers */
    mem_set_launch_device(c->device);   /* and memory pools that gave it access */
    int rc;
    EmuPending *parked = NULL;
    if (parkable) rc = emu_launch_park(k, grid, block, cl, smem, params, 0, &parked, err, sizeof err);
    else rc = emu_launch_flags(k, grid, block, cl, smem, params,
                               cooperative ? EMU_LAUNCH_COOPERATIVE : 0, err, sizeof err);
    if (parked) queue_add(parked, c, f, si);
    else if (rc == EMU_OK) drv_model_kernel(s, after != NULL, blocks);
    if (rc == EMU_OK && !parked && !after && drv_hostrace_on()) {   /* the host must wait for it */
        char *dn = emu_demangle(f->name);
        drv_hostrace_kernel(s, dn ? dn : f->name, f->name);
        free(dn);
    }
    drv_unlock();
    if (rc == EMU_OK) return CUDA_SUCCESS;
    e = drv_from_emu(rc);
    if (drv_error_is_sticky(e)) {
        launch_failed(c, f, e, err);
        return CUDA_SUCCESS;
    }
    if (err[0] && !f->reported) drv_diag("%s", err);
    f->reported = 1;
    return e;
}

/* A launch deterministic mode kept (defer.c) runs now, to its end. */
void drv_launch_complete(EmuPending *p, CUcontext c, CUfunction f)
{
    char err[EMU_ERR_LEN];
    int parked;
    mem_set_access(drv_peer_mask(c));
    mem_set_launch_device(c->device);
    int rc = emu_launch_resume(p, 0, &parked, err, sizeof err);
    if (rc != EMU_OK) launch_failed(c, f, drv_from_emu(rc), err);
}

/* A launch that failed while it ran: the context's sticky error, as on a GPU. */
static void launch_failed(CUcontext c, CUfunction f, CUresult e, const char *err)
{
    if (!drv_error_is_sticky(e)) {
        if (err[0] && !f->reported) drv_diag("%s", err);
        f->reported = 1;
        return;
    }
    /* a failed assert has printed the GPU's own lines already (emu/exec_call.c); the PTX
     * location is for PTXEMU_LOG=2 */
    drv_ctx_set_sticky(c, e, e == CUDA_ERROR_ASSERT && emu_log_level < 2 ? NULL : err);
}

CUresult drv_launch(CUfunction f, const unsigned grid[3], const unsigned block[3], unsigned smem,
                    CUstream s, void **params, void **extra, const unsigned *cluster,
                    int cooperative)
{
    return launch(f, grid, block, smem, s, params, extra, cluster, cooperative, 0, NULL);
}

CUresult drv_launch_node(CUfunction f, const unsigned grid[3], const unsigned block[3],
                         unsigned smem, void **params, const unsigned *cluster, int cooperative,
                         uint32_t lane, DrvOrder *after)
{
    return launch(f, grid, block, smem, NULL, params, NULL, cluster, cooperative, lane, after);
}

CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                                void **kernelParams, void **extra)
{
    unsigned g[3] = { gridDimX, gridDimY, gridDimZ }, b[3] = { blockDimX, blockDimY, blockDimZ };
    return drv_launch(f, g, b, sharedMemBytes, hStream, kernelParams, extra, NULL, 0);
}

CUresult CUDAAPI cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                           unsigned int gridDimZ, unsigned int blockDimX,
                                           unsigned int blockDimY, unsigned int blockDimZ,
                                           unsigned int sharedMemBytes, CUstream hStream,
                                           void **kernelParams)
{
    unsigned g[3] = { gridDimX, gridDimY, gridDimZ }, b[3] = { blockDimX, blockDimY, blockDimZ };
    return drv_launch(f, g, b, sharedMemBytes, hStream, kernelParams, NULL, NULL, 1);
}

/* Attributes that only tune performance and so cannot change results here. */
static int attr_is_hint(CUlaunchAttributeID id)
{
    switch (id) {
    case CU_LAUNCH_ATTRIBUTE_IGNORE: case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW:
    case CU_LAUNCH_ATTRIBUTE_PRIORITY: case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN: case CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
    case CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
    case CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING:
    /* it allows the next kernel to overlap this one; running them in order is allowed */
    case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION:
        return 1;
    default:
        return 0;
    }
}

/* Launch attributes: clusters and cooperative launch change what runs; the rest are hints or
 * refused by name. */
static CUresult read_attrs(const CUlaunchConfig *config, unsigned *cluster, int *has_cluster,
                           int *cooperative)
{
    static int told;
    for (unsigned i = 0; i < config->numAttrs; i++) {
        const CUlaunchAttribute *a = &config->attrs[i];
        if (attr_is_hint(a->id)) continue;
        if (a->id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
            cluster[0] = a->value.clusterDim.x;
            cluster[1] = a->value.clusterDim.y;
            cluster[2] = a->value.clusterDim.z;
            if (!cluster[0] || !cluster[1] || !cluster[2]) return CUDA_ERROR_INVALID_VALUE;
            *has_cluster = 1;
            continue;
        }
        if (a->id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE) {
            *cooperative = a->value.cooperative != 0;
            continue;
        }
        if (!__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED))
            drv_diag("cuLaunchKernelEx: launch attribute %d is not implemented yet (see "
                     "CUlaunchAttributeID)", (int)a->id);
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **kernelParams,
                                  void **extra)
{
    if (!config || (config->numAttrs && !config->attrs)) return CUDA_ERROR_INVALID_VALUE;
    unsigned cluster[3] = { 1, 1, 1 };
    int has_cluster = 0, coop = 0;
    CUresult e = read_attrs(config, cluster, &has_cluster, &coop);
    if (e != CUDA_SUCCESS) return e;
    unsigned g[3] = { config->gridDimX, config->gridDimY, config->gridDimZ };
    unsigned b[3] = { config->blockDimX, config->blockDimY, config->blockDimZ };
    return drv_launch(f, g, b, config->sharedMemBytes, config->hStream, kernelParams, extra,
                      has_cluster ? cluster : NULL, coop);
}

/* ---- attributes kept by streams and kernel nodes ---- */

/* The GPU's defaults: no window, no synchronization policy (measured: a stream that never
 * set one answers -1), the logical domains mapped to domains 0 and 1, the default domain. */
void drv_attrs_init(DrvLaunchAttrs *a)
{
    memset(a, 0, sizeof *a);
    a->sync = -1;
    a->domain_map.remote = 1;
}

CUresult drv_attr_get(const DrvLaunchAttrs *a, CUlaunchAttributeID id, CUlaunchAttributeValue *v)
{
    switch (id) {
    case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW: v->accessPolicyWindow = a->window; break;
    case CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY: v->syncPolicy = a->sync; break;
    case CU_LAUNCH_ATTRIBUTE_PRIORITY: v->priority = a->priority; break;
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP: v->memSyncDomainMap = a->domain_map; break;
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN: v->memSyncDomain = a->domain; break;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

/* A window the device could honour: at most its largest window, a hit ratio in [0, 1] (NaN
 * fails both tests), known properties, and misses that do not persist (cuda.h). */
static int window_ok(CUdevice dev, const CUaccessPolicyWindow *w)
{
    int max = 0;
    drv_device_attr(dev, CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE, &max);
    return w->num_bytes <= (size_t)max && w->hitRatio >= 0.0f && w->hitRatio <= 1.0f &&
           (unsigned)w->hitProp <= CU_ACCESS_PROPERTY_PERSISTING &&
           (unsigned)w->missProp <= CU_ACCESS_PROPERTY_STREAMING;
}

CUresult drv_attr_set(DrvLaunchAttrs *a, CUdevice dev, CUlaunchAttributeID id,
                      const CUlaunchAttributeValue *v)
{
    int domains = 0;
    drv_device_attr(dev, CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT, &domains);
    switch (id) {
    case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW:
        if (!window_ok(dev, &v->accessPolicyWindow)) return CUDA_ERROR_INVALID_VALUE;
        a->window = v->accessPolicyWindow;
        return CUDA_SUCCESS;
    case CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY:
        if (v->syncPolicy < CU_SYNC_POLICY_AUTO || v->syncPolicy > CU_SYNC_POLICY_BLOCKING_SYNC)
            return CUDA_ERROR_INVALID_VALUE;
        a->sync = v->syncPolicy;
        return CUDA_SUCCESS;
    case CU_LAUNCH_ATTRIBUTE_PRIORITY:
        a->priority = v->priority;
        return CUDA_SUCCESS;
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
        if (v->memSyncDomainMap.default_ >= domains || v->memSyncDomainMap.remote >= domains)
            return CUDA_ERROR_INVALID_VALUE;
        a->domain_map = v->memSyncDomainMap;
        return CUDA_SUCCESS;
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN:
        if ((unsigned)v->memSyncDomain > CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE) return CUDA_ERROR_INVALID_VALUE;
        a->domain = v->memSyncDomain;
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

/* ---- function attributes ---- */

/* The function behind a handle with its kernel info, under the lock (released on error). */
static CUresult func_info(const void *h, CUfunction *f, JitKernelInfo *info)
{
    if (!drv_is_initialized()) return CUDA_ERROR_NOT_INITIALIZED;
    drv_lock();
    EmuKernel *k;
    CUresult e = drv_handle_kind(h) == H_FUNC ? drv_func_kernel((CUfunction)h, &k, info)
                                              : CUDA_ERROR_INVALID_HANDLE;
    if (e != CUDA_SUCCESS) {
        drv_unlock();
        return e;
    }
    *f = (CUfunction)h;
    /* what ptxas allocates, where ptxas is installed: the PTX's declared count means nothing */
    if (!(*f)->regs) (*f)->regs = drv_func_ptxas_regs(*f);
    if ((*f)->regs > 0) info->num_regs = (uint32_t)(*f)->regs;
    return CUDA_SUCCESS;
}

/* The largest block the kernel can launch: its own limit, and what its registers allow. */
static int max_threads(CUfunction f, const JitKernelInfo *info)
{
    int n = (int)info->max_threads;
    if (f->regs > 0) {
        int w = 32;
        while (w > 0 && !regs_limit(f->regs, w)) w -= 4;   /* blocks are allocated 4 warps at a time */
        if (w * 32 < n) n = w * 32;
    }
    return n;
}

static CUresult get_attr(CUfunction f, const JitKernelInfo *info, CUfunction_attribute a, int *v)
{
    switch (a) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = max_threads(f, info); break;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *v = (int)info->shared_static; break;
    case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: *v = 0; break;   /* constants are module-scope */
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *v = (int)info->local_bytes; break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS: *v = (int)info->num_regs; break;
    /* compute_75 PTX reports 75; the code runs as sm_90 (binary version 90) */
    case CU_FUNC_ATTRIBUTE_PTX_VERSION: *v = info->ptx_arch; break;
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *v = 90; break;
    case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA: *v = 0; break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *v = (int)drv_func_max_dyn(f, info); break;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: *v = f->carveout; break;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET: *v = 0; break;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
        *v = f->cluster[0] ? f->cluster[0] : info->reqncta[0]; break;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
        *v = f->cluster[0] ? f->cluster[1] : info->reqncta[1]; break;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
        *v = f->cluster[0] ? f->cluster[2] : info->reqncta[2]; break;
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED: *v = f->nonportable; break;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE: *v = f->sched_policy; break;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

static CUresult set_attr(CUfunction f, const JitKernelInfo *info, CUfunction_attribute a, int v)
{
    switch (a) {
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
        if (v < 0 || (uint64_t)v + info->shared_static > DRV_SMEM_PER_BLOCK_OPTIN)
            return CUDA_ERROR_INVALID_VALUE;
        f->max_dyn = v;
        return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
        if (v < -1 || v > 100) return CUDA_ERROR_INVALID_VALUE;
        f->carveout = v;   /* a hint about the L1/shared split: no effect here */
        return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
        if (v != 0 && v != 1) return CUDA_ERROR_INVALID_VALUE;
        f->nonportable = v;
        return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH: case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH: {
        if (v < 1 || info->reqncta[0]) return CUDA_ERROR_INVALID_VALUE;
        if (!f->cluster[0]) f->cluster[0] = f->cluster[1] = f->cluster[2] = 1;
        f->cluster[a - CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH] = v;
        return CUDA_SUCCESS;
    }
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
        if (v < 0 || v > 2) return CUDA_ERROR_INVALID_VALUE;
        f->sched_policy = v;
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

CUresult CUDAAPI cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc)
{
    if (!pi) return CUDA_ERROR_INVALID_VALUE;
    CUfunction f;
    JitKernelInfo info;
    CUresult e = func_info(hfunc, &f, &info);
    if (e != CUDA_SUCCESS) return e;
    e = get_attr(f, &info, attrib, pi);
    drv_unlock();
    return e;
}

CUresult CUDAAPI cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value)
{
    CUfunction f;
    JitKernelInfo info;
    CUresult e = func_info(hfunc, &f, &info);
    if (e != CUDA_SUCCESS) return e;
    e = set_attr(f, &info, attrib, value);
    drv_unlock();
    return e;
}

CUresult CUDAAPI cuKernelGetAttribute(int *pi, CUfunction_attribute attrib, CUkernel kernel, CUdevice dev)
{
    CUresult e = drv_device_check(dev);
    return e != CUDA_SUCCESS ? e : cuFuncGetAttribute(pi, attrib, (CUfunction)(void *)kernel);
}

CUresult CUDAAPI cuKernelSetAttribute(CUfunction_attribute attrib, int val, CUkernel kernel, CUdevice dev)
{
    CUresult e = drv_device_check(dev);
    return e != CUDA_SUCCESS ? e : cuFuncSetAttribute((CUfunction)(void *)kernel, attrib, val);
}

/* Cache and bank configurations are performance preferences; they do not change results. */
CUresult CUDAAPI cuFuncSetCacheConfig(CUfunction hfunc, CUfunc_cache config)
{
    if ((unsigned)config > CU_FUNC_CACHE_PREFER_EQUAL) return CUDA_ERROR_INVALID_VALUE;
    CUfunction f;
    JitKernelInfo info;
    CUresult e = func_info(hfunc, &f, &info);
    if (e == CUDA_SUCCESS) drv_unlock();
    return e;
}

CUresult CUDAAPI cuKernelSetCacheConfig(CUkernel kernel, CUfunc_cache config, CUdevice dev)
{
    CUresult e = drv_device_check(dev);
    return e != CUDA_SUCCESS ? e : cuFuncSetCacheConfig((CUfunction)(void *)kernel, config);
}

CUresult CUDAAPI cuFuncSetSharedMemConfig(CUfunction hfunc, CUsharedconfig config)
{
    if ((unsigned)config > CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE) return CUDA_ERROR_INVALID_VALUE;
    CUfunction f;
    JitKernelInfo info;
    CUresult e = func_info(hfunc, &f, &info);
    if (e == CUDA_SUCCESS) drv_unlock();
    return e;
}

/* ---- occupancy ---- */

/* Blocks of `bs` threads that fit on one SM, from thread, block-slot, shared-memory and,
 * where ptxas told how many registers the kernel gets (f->regs), register limits. The PTX's
 * own count of virtual registers would give a meaningless bound. Registers go to warps in
 * units of 256, each of the 4 sub-partitions holds a quarter of the 64K, and a block's
 * allocation, its warps rounded up to a multiple of 4, must fit in 64K (the occupancy rules
 * of cuda_occupancy.h). */
static int regs_limit(int regs, int warps)
{
    int per_warp = (regs * 32 + 255) / 256 * 256;
    if (regs > 255 || per_warp * ((warps + 3) / 4 * 4) > DRV_REGS_PER_SM) return 0;
    return DRV_REGS_PER_SM / 4 / per_warp * 4 / warps;
}

int drv_occupancy(CUfunction f, const JitKernelInfo *info, int bs, size_t dyn)
{
    if (bs <= 0 || (unsigned)bs > info->max_threads || dyn > drv_func_max_dyn(f, info)) return 0;
    int warps = (bs + 31) / 32;
    int n = DRV_THREADS_PER_SM / 32 / warps;
    if (n > DRV_BLOCKS_PER_SM) n = DRV_BLOCKS_PER_SM;
    if (f->regs > 0) {
        int by_regs = regs_limit(f->regs, warps);
        if (by_regs < n) n = by_regs;
    }
    size_t smem = info->shared_static + dyn;
    if (smem) {
        size_t by_smem = DRV_SMEM_PER_SM / (smem + DRV_SMEM_RESERVED_PER_BLOCK);
        if (by_smem < (size_t)n) n = (int)by_smem;
    }
    return n;
}

CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, CUfunction func,
                                                                     int blockSize,
                                                                     size_t dynamicSMemSize,
                                                                     unsigned int flags)
{
    if (!numBlocks || blockSize <= 0 || (flags & ~(unsigned)CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE))
        return CUDA_ERROR_INVALID_VALUE;
    CUfunction f;
    JitKernelInfo info;
    CUresult e = func_info(func, &f, &info);
    if (e != CUDA_SUCCESS) return e;
    *numBlocks = drv_occupancy(f, &info, blockSize, dynamicSMemSize);
    drv_unlock();
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, CUfunction func,
                                                            int blockSize, size_t dynamicSMemSize)
{
    return cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize,
                                                                dynamicSMemSize, 0);
}

/* The largest block size (in warps, from the largest down) that keeps the most threads
 * resident, and the grid that fills the device with it. */
CUresult CUDAAPI cuOccupancyMaxPotentialBlockSizeWithFlags(int *minGridSize, int *blockSize,
                                                           CUfunction func,
                                                           CUoccupancyB2DSize blockSizeToDynamicSMemSize,
                                                           size_t dynamicSMemSize, int blockSizeLimit,
                                                           unsigned int flags)
{
    if (!minGridSize || !blockSize || blockSizeLimit < 0 ||
        (flags & ~(unsigned)CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE))
        return CUDA_ERROR_INVALID_VALUE;
    CUfunction f;
    JitKernelInfo info;
    CUresult e = func_info(func, &f, &info);
    if (e != CUDA_SUCCESS) return e;
    int limit = (int)info.max_threads;
    if (blockSizeLimit && blockSizeLimit < limit) limit = blockSizeLimit;
    int best_bs = 0, best_blocks = 0, best_threads = 0;
    for (int bs = (limit + 31) / 32 * 32; bs > 0; bs -= 32) {
        int b = bs > limit ? limit : bs;
        size_t dyn = blockSizeToDynamicSMemSize ? blockSizeToDynamicSMemSize(b) : dynamicSMemSize;
        int n = drv_occupancy(f, &info, b, dyn);
        if (n * b > best_threads) {
            best_threads = n * b;
            best_bs = b;
            best_blocks = n;
        }
        if (best_threads == DRV_THREADS_PER_SM) break;
    }
    *blockSize = best_bs;
    *minGridSize = best_blocks * DRV_NUM_SMS;
    drv_unlock();
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, CUfunction func,
                                                  CUoccupancyB2DSize blockSizeToDynamicSMemSize,
                                                  size_t dynamicSMemSize, int blockSizeLimit)
{
    return cuOccupancyMaxPotentialBlockSizeWithFlags(minGridSize, blockSize, func,
                                                     blockSizeToDynamicSMemSize, dynamicSMemSize,
                                                     blockSizeLimit, 0);
}

CUresult CUDAAPI cuOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, CUfunction func,
                                                         int numBlocks, int blockSize)
{
    if (!dynamicSmemSize || numBlocks <= 0 || blockSize <= 0) return CUDA_ERROR_INVALID_VALUE;
    CUfunction f;
    JitKernelInfo info;
    CUresult e = func_info(func, &f, &info);
    if (e != CUDA_SUCCESS) return e;
    size_t per = DRV_SMEM_PER_SM / (size_t)numBlocks;
    size_t used = info.shared_static + DRV_SMEM_RESERVED_PER_BLOCK;
    size_t avail = per > used ? per - used : 0;
    size_t cap = drv_func_max_dyn(f, &info);
    int fits = drv_occupancy(f, &info, blockSize, 0) >= numBlocks;
    *dynamicSmemSize = fits ? (avail < cap ? avail : cap) : 0;
    drv_unlock();
    return CUDA_SUCCESS;
}

/* What an H100 (132 SMs; NVIDIA H100 80GB HBM3, driver 580.159.04) answers for clusters of
 * 1..18 CTAs when each SM holds b = 1..8 of them (more count as 8): the SMs of a cluster must
 * share a GPC, whose sizes the driver does not expose, so the measured table is the fact
 * (tests/gpu/occupancy_probe.cu recorded it; tests/cuda/occupancy.cu checks it). Sizes of
 * 19 and more give 0 (measured for 19, 20, 24, 32, 33, 64 and 1024). */
static const uint16_t h100_clusters[8][18] = {
    { 132,  66,  39,  30,  22,  17,  15,  15,   9,   7,   7,   7,   7,   7,   7,   7,  2,  2 },
    { 264, 132,  79,  62,  47,  39,  32,  30,  23,  21,  16,  16,  14,  14,  14,  14,  4,  4 },
    { 396, 198, 124,  92,  69,  62,  47,  45,  37,  30,  28,  28,  23,  21,  21,  21,  6,  6 },
    { 528, 264, 163, 124,  94,  79,  69,  62,  51,  44,  37,  37,  30,  30,  28,  28,  8,  8 },
    { 660, 330, 203, 154, 124, 101,  84,  77,  60,  58,  51,  44,  42,  37,  37,  35, 10, 10 },
    { 792, 396, 248, 186, 146, 124, 101,  92,  74,  65,  58,  58,  51,  44,  44,  42, 12, 12 },
    { 924, 462, 287, 216, 171, 141, 124, 107,  88,  79,  72,  65,  58,  58,  51,  49, 14, 14 },
    {1056, 528, 327, 248, 193, 163, 139, 124, 102,  88,  81,  74,  67,  65,  58,  58, 16, 16 },
};

/* Clusters of the configuration's size (the launch attribute's, else the kernel's
 * __cluster_dims__; 0 without either) that can be resident at once. */
CUresult CUDAAPI cuOccupancyMaxActiveClusters(int *numClusters, CUfunction func,
                                              const CUlaunchConfig *config)
{
    if (!numClusters || !config || (config->numAttrs && !config->attrs)) return CUDA_ERROR_INVALID_VALUE;
    unsigned cluster[3] = { 1, 1, 1 };
    int has_cluster = 0, coop = 0;
    CUresult e = read_attrs(config, cluster, &has_cluster, &coop);
    if (e != CUDA_SUCCESS) return e;
    CUfunction f;
    JitKernelInfo info;
    e = func_info(func, &f, &info);
    if (e != CUDA_SUCCESS) return e;
    int declared = info.reqncta[0] || f->cluster[0];
    if (!has_cluster && declared)
        for (int i = 0; i < 3; i++) {
            int d = f->cluster[0] ? f->cluster[i] : info.reqncta[i];
            cluster[i] = d ? (unsigned)d : 1;
        }
    unsigned size = cluster[0] * cluster[1] * cluster[2];
    if (size > 8 && !f->nonportable) e = CUDA_ERROR_INVALID_CLUSTER_SIZE;
    int bs = (int)(config->blockDimX * config->blockDimY * config->blockDimZ);
    int per_sm = drv_occupancy(f, &info, bs, config->sharedMemBytes);
    if (per_sm > 8) per_sm = 8;
    if (e == CUDA_SUCCESS)
        *numClusters = (!has_cluster && !declared) || per_sm <= 0 || size > 18 ? 0
                       : h100_clusters[per_sm - 1][size - 1];
    drv_unlock();
    return e;
}

/* The portable cluster size, or 16 for a kernel that allows non-portable sizes, when one CTA
 * fits; 0 when none does. */
CUresult CUDAAPI cuOccupancyMaxPotentialClusterSize(int *clusterSize, CUfunction func,
                                                    const CUlaunchConfig *config)
{
    if (!clusterSize || !config) return CUDA_ERROR_INVALID_VALUE;
    CUfunction f;
    JitKernelInfo info;
    CUresult e = func_info(func, &f, &info);
    if (e != CUDA_SUCCESS) return e;
    int bs = (int)(config->blockDimX * config->blockDimY * config->blockDimZ);
    int per_sm = drv_occupancy(f, &info, bs, config->sharedMemBytes);
    *clusterSize = per_sm <= 0 ? 0 : f->nonportable ? 16 : 8;
    drv_unlock();
    return CUDA_SUCCESS;
}
