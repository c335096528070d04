/* stream.c - streams and events, and the stream order the race detector checks.
 *
 * All work runs synchronously in issue order, so a stream is a validated handle with its
 * flags and priority, and an event records the wall-clock time at which the work before it
 * had completed. Host functions in a stream run at once, everything before them being done.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "runtime/driver/drv.h"
#include "runtime/driver/graph.h"
#include "emu/model.h"

/* Stream priorities of the emulated device: 0 (least) down to -5 (greatest). */
#define PRIO_LEAST 0
#define PRIO_GREATEST (-5)

struct CUstream_st {
    CUcontext ctx;
    unsigned flags;
    int priority;
    unsigned long long id;
    uint32_t order;     /* index in the stream-order clocks below */
    DrvLaunchAttrs attrs;   /* cuStreamSetAttribute's values (not the priority) */
};

/* ---- stream order ----------------------------------------------------------------------
 * Work runs in issue order here, but on a GPU launches of different streams may overlap, and
 * the race detector must know which launches stream order, events and synchronisations put
 * one after another. Each stream keeps a vector clock: for each stream, how many of its
 * launches the stream's next work comes after (its own entry: its launches so far). Index 0
 * is the legacy default stream, 1 the per-thread one, then streams in creation order. A
 * launch on the legacy stream waits for all blocking streams, and their later work for it. */
typedef DrvOrder Order;
static Order *ords;
static unsigned char *ord_blocking;
static uint32_t nord = 2, ord_cap;
static Order host;            /* what the host has waited for */

static int ord_grow(Order *o, uint32_t n)
{
    if (n <= o->n) return 0;
    uint64_t *c = realloc(o->c, n * sizeof *c);
    if (!c) return -1;
    memset(c + o->n, 0, (n - o->n) * sizeof *c);
    o->c = c;
    o->n = n;
    return 0;
}

static void ord_join(Order *d, const Order *s)
{
    if (ord_grow(d, s->n)) return;
    for (uint32_t i = 0; i < s->n; i++) if (s->c[i] > d->c[i]) d->c[i] = s->c[i];
}

/* The clock of stream index i (created on first use). */
static Order *ord_of(uint32_t i)
{
    if (i >= ord_cap) {
        uint32_t nc = ord_cap ? ord_cap : 8;
        while (nc <= i) nc *= 2;
        Order *o = realloc(ords, nc * sizeof *o);
        if (!o) return NULL;
        ords = o;
        unsigned char *b = realloc(ord_blocking, nc);
        if (!b) return NULL;
        ord_blocking = b;
        memset(ords + ord_cap, 0, (nc - ord_cap) * sizeof *o);
        memset(ord_blocking + ord_cap, 1, nc - ord_cap);
        ord_cap = nc;
    }
    return &ords[i];
}

static int stream_builtin(CUstream s)
{
    return s == NULL || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD;
}

static uint32_t ord_index(CUstream s)
{
    if (s == CU_STREAM_PER_THREAD) return 1;
    return stream_builtin(s) || drv_handle_kind(s) != H_STREAM ? 0 : s->order;
}

/* Stream i's clock brought up to what its next work comes after: what the host waited for
 * and, for the legacy stream, the blocking streams' work. NULL when out of memory. */
static Order *ord_before_work(uint32_t i)
{
    Order *o = ord_of(i);
    if (!o || ord_grow(o, i + 1)) return NULL;
    ord_join(o, &host);
    if (i == 0)
        for (uint32_t j = 1; j < nord; j++)
            if (ord_blocking[j]) ord_join(&ords[0], &ords[j]);
    return &ords[i];
}

/* ---- the model's clock (--clock model, docs/profile.md) --------------------------------
 * Where an H100 would be. Work runs here in issue order, at once; the model places it on a
 * timeline as the GPU would run it: for each stream (by its order index) when the work
 * issued to it so far completes, for each engine (the SMs, one copy engine each way, device
 * copies) when it is free again, and how far the host has waited. A piece of work starts when
 * its stream's earlier work, its engine and the host that issued it are all ready; the legacy
 * stream also waits for the blocking streams, and their later work for it. So copies on one
 * stream overlap a kernel on another, kernels take the SMs one at a time, and a copy from
 * pageable memory, which the driver stages through a pinned buffer, holds the host until it
 * is done (no overlap: what the streams lessons show). CUDA events read these times. */
static double *mt;              /* by order index: when the stream's work ends (ns)     */
static uint32_t mt_cap;
static double mt_host;          /* what the host has waited for                          */
static double mt_engine[DRV_ENGINES];
static CUstream mt_stream;      /* copies and graph kernels: the stream they are on      */
static int mt_async;            /*   and whether the host goes on at once                */

static double *mt_at(uint32_t i)
{
    static double none;
    if (i >= mt_cap) {
        uint32_t nc = mt_cap ? mt_cap : 8;
        while (nc <= i) nc *= 2;
        double *n = realloc(mt, nc * sizeof *n);
        if (!n) return &none;
        memset(n + mt_cap, 0, (nc - mt_cap) * sizeof *n);
        mt = n;
        mt_cap = nc;
    }
    return &mt[i];
}

static double dmax(double a, double b) { return a > b ? a : b; }

/* When work issued now to stream index i could start, engines aside. */
static double mt_ready(uint32_t i)
{
    double t = dmax(*mt_at(i), mt_host);
    if (i == 0)
        for (uint32_t j = 1; j < nord; j++)
            if (ord_of(j) && ord_blocking[j]) t = dmax(t, *mt_at(j));
    return t;
}

/* Stream index i's work so far ends at `end`. */
static void mt_stream_ends(uint32_t i, double end)
{
    *mt_at(i) = end;
    if (i == 0)   /* the blocking streams' later work comes after the legacy stream's */
        for (uint32_t j = 1; j < nord; j++)
            if (ord_of(j) && ord_blocking[j]) *mt_at(j) = dmax(*mt_at(j), end);
}

void drv_model_work(CUstream s, int engine, double latency, double ns, int host_waits)
{
    uint32_t i = ord_index(s);
    double start = dmax(mt_ready(i) + latency, mt_engine[engine]), end = start + ns;
    mt_stream_ends(i, end);
    mt_engine[engine] = end;
    if (host_waits) mt_host = dmax(mt_host, end);
}

void drv_model_copy_stream(CUstream s, int async)
{
    mt_stream = s;
    mt_async = async;
}

/* Measured on an H100 80GB HBM3 (cudaMemcpy of 256 KiB to 16 MiB, cudaEvent timing): about
 * 8 us to start a copy, then 55 GB/s from or to pinned memory and 13.7 GB/s from or to
 * pageable memory; a device copy reads and writes DRAM. The start is latency: copies on
 * other streams may use the engine meanwhile. */
void drv_model_copy(int to_device, int from_device, int pinned, size_t bytes)
{
    int eng = to_device && from_device ? DRV_ENGINE_D2D : to_device ? DRV_ENGINE_H2D
            : from_device ? DRV_ENGINE_D2H : DRV_ENGINE_D2D;
    double bps = to_device && from_device ? DRV_MODEL_D2D_BPS : pinned ? DRV_MODEL_PINNED_BPS
               : DRV_MODEL_PAGEABLE_BPS;
    if (!to_device && !from_device) bps = DRV_MODEL_PAGEABLE_BPS;   /* host to host */
    drv_model_work(mt_stream, eng, DRV_MODEL_COPY_NS, (double)bytes / bps * 1e9,
                   !mt_async || !pinned || (!to_device && !from_device));
}

/* The SMs, each free from a time on: a kernel takes as many as it has blocks (all of them
 * from a grid of 132 blocks on), from when that many are free, so small kernels of different
 * streams run side by side and a kernel that fills the GPU runs alone. */
#define MODEL_SMS 132
static double mt_sm[MODEL_SMS];

static unsigned model_sms(uint64_t blocks)
{
    return blocks >= MODEL_SMS ? MODEL_SMS : blocks ? (unsigned)blocks : 1;
}

/* The SMs by the time they are free, earliest first. */
static void sms_by_free(unsigned order[MODEL_SMS])
{
    for (unsigned j = 0; j < MODEL_SMS; j++) {
        unsigned n = j;
        for (; n > 0 && mt_sm[order[n - 1]] > mt_sm[j]; n--) order[n] = order[n - 1];
        order[n] = j;
    }
}

double drv_model_kernel_start(CUstream s, int graph, uint64_t blocks)
{
    unsigned order[MODEL_SMS];
    sms_by_free(order);
    return dmax(mt_ready(ord_index(graph ? mt_stream : s)), mt_sm[order[model_sms(blocks) - 1]]);
}

void drv_model_kernel(CUstream s, int graph, uint64_t blocks)
{
    unsigned order[MODEL_SMS], k = model_sms(blocks);
    sms_by_free(order);
    uint32_t i = ord_index(graph ? mt_stream : s);
    double start = dmax(mt_ready(i), mt_sm[order[k - 1]]), end = start + model_last_launch_ns();
    for (unsigned n = 0; n < k; n++) mt_sm[order[n]] = end;
    mt_stream_ends(i, end);
}

/* A copy or fill is about to run on the stream drv_model_copy_stream named (none: the legacy
 * stream): launches it follows that wait for the host end first. */
void drv_run_held_for_copy(void) { drv_run_held_for(ord_index(mt_stream)); }

/* Where the model has the end of the work issued to s so far (NULL: the legacy stream's,
 * which also waits for the blocking streams), and the host. */
double drv_model_stream_end(CUstream s) { return mt_ready(ord_index(s)); }
double drv_model_host(void) { return mt_host; }

/* The host spends ns in a call (mapping memory, launching a graph): later work it issues
 * starts no earlier. */
void drv_model_host_spends(double ns) { mt_host += ns; }

static void model_host_waits(CUstream s)
{
    mt_host = dmax(mt_host, mt_ready(ord_index(s)));
}

void drv_order_launch(CUstream s)
{
    uint32_t i = ord_index(s);
    Order *o = ord_before_work(i);
    if (!o) return;
    uint64_t clock = ++o->c[i];
    o->c[i] = clock - 1;   /* what the launch comes after: the stream's earlier launches */
    emu_launch_order(i, clock, o->c, o->n);
    o->c[i] = clock;
    if (i == 0)
        for (uint32_t j = 1; j < nord; j++)
            if (ord_blocking[j] && !ord_grow(&ords[j], 1) && ords[j].c[0] < clock)
                ords[j].c[0] = clock;
}

uint32_t drv_order_new_lane(void)
{
    uint32_t lane = nord++;
    if (ord_of(lane)) ord_blocking[lane] = 0;   /* a lane is no stream the legacy one waits for */
    return lane;
}

void drv_order_join(DrvOrder *d, const DrvOrder *s)
{
    ord_join(d, s);
}

void drv_order_stream_get(CUstream s, DrvOrder *out)
{
    Order *o = ord_before_work(ord_index(s));
    out->n = 0;
    if (o) ord_join(out, o);
}

/* The legacy stream's later work is also what blocking streams wait for. */
void drv_order_stream_after(CUstream s, const DrvOrder *v)
{
    uint32_t i = ord_index(s);
    Order *o = ord_of(i);
    if (!o) return;
    ord_join(o, v);
    if (i == 0)
        for (uint32_t j = 1; j < nord; j++)
            if (ord_blocking[j]) ord_join(&ords[j], v);
}

void drv_order_lane_launch(uint32_t lane, DrvOrder *v)
{
    Order *o = ord_of(lane);
    if (!o || ord_grow(o, lane + 1) || ord_grow(v, lane + 1)) return;
    uint64_t clock = o->c[lane] + 1;
    v->c[lane] = clock - 1;   /* the lane's own earlier launches (earlier graph launches) */
    emu_launch_order(lane, clock, v->c, v->n);
    v->c[lane] = clock;
    o->c[lane] = clock;
}

uint32_t drv_order_stream_index(CUstream s)
{
    return ord_index(s);
}

/* Work issued to stream index a comes after work issued before to stream index b: the same
 * stream, or the legacy stream and a blocking one. */
int drv_order_follows(uint32_t a, uint32_t b)
{
    return a == b || (a == 0 && b < nord && ord_blocking[b]) || (b == 0 && a < nord && ord_blocking[a]);
}

int drv_order_host_waited(const DrvOrder *v)
{
    for (uint32_t i = 0; i < v->n; i++)
        if (v->c[i] > (i < host.n ? host.c[i] : 0)) return 0;
    return 1;
}

const DrvOrder *drv_order_host(void) { return &host; }

/* The host waited for stream s's work (NULL, the legacy stream: also the blocking ones). */
void drv_order_host_waits(CUstream s)
{
    drv_run_held_for(ord_index(s));
    model_host_waits(s);
    uint32_t i = ord_index(s);
    if (!ord_of(i)) return;
    ord_join(&host, &ords[i]);
    if (i == 0)
        for (uint32_t j = 1; j < nord; j++)
            if (ord_blocking[j]) ord_join(&host, &ords[j]);
    drv_defer_settle_host();
}

void drv_order_host_waits_all(void)
{
    drv_run_held();
    drv_defer_settle_all();
    for (uint32_t j = 0; j < nord; j++) mt_host = dmax(mt_host, *mt_at(j));
    for (uint32_t j = 0; j < nord && ord_of(j); j++) ord_join(&host, &ords[j]);
}

/* ---- streams ---- */

static unsigned long long next_stream_id = 3;   /* 0..2: the null/legacy/per-thread ones */

CUstream drv_ptsz(CUstream s)
{
    return s ? s : CU_STREAM_PER_THREAD;
}

/* Caller holds the lock. A created stream must belong to the current context; with none
 * current the call runs in the stream's own (drv_ctx_enter_owner). */
CUresult drv_stream_check(CUstream s)
{
    if (stream_builtin(s)) return CUDA_SUCCESS;
    if (drv_handle_kind(s) != H_STREAM) return CUDA_ERROR_INVALID_HANDLE;
    CUcontext cur = drv_ctx_current();
    return !cur || s->ctx == cur ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUcontext drv_stream_owner(CUstream s)
{
    if (stream_builtin(s)) return NULL;
    drv_lock();
    CUcontext c = drv_handle_kind(s) == H_STREAM ? s->ctx : NULL;
    drv_unlock();
    return c;
}

/* Copies may go into a stream of another device's context (CUDA Programming Guide, "Stream
 * and Event Behavior": a memory copy succeeds in a stream not of the current device, a kernel
 * launch fails). */
CUresult drv_stream_check_copy(CUstream s)
{
    if (!stream_builtin(s) && drv_handle_kind(s) == H_STREAM && drv_handle_kind(s->ctx) == H_CTX)
        return CUDA_SUCCESS;
    return drv_stream_check(s);
}

void drv_streams_release_ctx(CUcontext c);

CUresult CUDAAPI cuStreamCreateWithPriority(CUstream *phStream, unsigned int flags, int priority)
{
    CUcontext c;
    CUresult e = drv_ctx_enter(&c);
    if (e != CUDA_SUCCESS) return e;
    if (!phStream || (flags & ~(unsigned)CU_STREAM_NON_BLOCKING)) return CUDA_ERROR_INVALID_VALUE;
    CUstream s = calloc(1, sizeof *s);
    if (!s) return CUDA_ERROR_OUT_OF_MEMORY;
    /* out-of-range priorities are clamped, as CUDA documents */
    if (priority > PRIO_LEAST) priority = PRIO_LEAST;
    if (priority < PRIO_GREATEST) priority = PRIO_GREATEST;
    s->ctx = c;
    s->flags = flags;
    s->priority = priority;
    drv_attrs_init(&s->attrs);
    drv_lock();
    s->id = next_stream_id++;
    s->order = nord++;
    if (ord_of(s->order)) ord_blocking[s->order] = !(flags & CU_STREAM_NON_BLOCKING);
    int bad = drv_handle_add(s, H_STREAM);
    drv_unlock();
    if (bad) { free(s); return CUDA_ERROR_OUT_OF_MEMORY; }
    *phStream = s;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamCreate(CUstream *phStream, unsigned int Flags)
{
    return cuStreamCreateWithPriority(phStream, Flags, PRIO_LEAST);
}

CUresult CUDAAPI cuStreamDestroy_v2(CUstream hStream)
{
    CUcontext c;
    CUresult e = drv_ctx_enter_owner(drv_stream_owner(hStream), 1, &c);
    if (e != CUDA_SUCCESS) return e;
    drv_lock();
    int ok = !stream_builtin(hStream) && drv_handle_kind(hStream) == H_STREAM;
    if (ok) drv_capture_forget(hStream);
    if (ok) drv_handle_del(hStream);
    drv_unlock();
    if (!ok) return CUDA_ERROR_INVALID_HANDLE;
    free(hStream);
    return CUDA_SUCCESS;
}

/* Streams die with their context; the handle table is the list of them. Events too. */
typedef struct Owned { void **p; size_t n, cap; } Owned;
static Owned streams_made, events_made;

static void owned_add(Owned *o, void *p)
{
    if (o->n == o->cap) {
        size_t nc = o->cap ? o->cap * 2 : 64;
        void **np = realloc(o->p, nc * sizeof *np);
        if (!np) return;
        o->p = np;
        o->cap = nc;
    }
    o->p[o->n++] = p;
}

/* Validated stream call: current context, lock, handle. Returns with the lock held on
 * success. */
static CUresult stream_enter(CUstream s, int sticky)
{
    CUcontext c;
    CUresult e = sticky ? drv_ctx_enter(&c) : drv_ctx_enter_any(&c);
    if (e != CUDA_SUCCESS) return e;
    drv_lock();
    e = drv_stream_check(s);
    if (e != CUDA_SUCCESS) drv_unlock();
    return e;
}

/* Calls that only ask about a stream or wait for it take a stream of any live context, as
 * CUDA's do (a program synchronizes another device's stream without switching to it:
 * p2pBandwidthLatencyTest); work is only enqueued into streams of the current context. */
static CUresult stream_enter_ctx_of(CUstream s, int sticky, CUcontext *c)
{
    CUresult e = drv_ctx_enter_owner(drv_stream_owner(s), sticky, c);
    if (e != CUDA_SUCCESS) return e;
    drv_lock();
    e = drv_stream_check_copy(s);   /* the same rule as for copies */
    if (e != CUDA_SUCCESS) drv_unlock();
    return e;
}

static CUresult stream_enter_any_ctx(CUstream s, int sticky)
{
    CUcontext c;
    return stream_enter_ctx_of(s, sticky, &c);
}

CUresult CUDAAPI cuStreamSynchronize(CUstream hStream)
{
    CUcontext c;
    CUresult e = stream_enter_ctx_of(hStream, 1, &c);
    if (e != CUDA_SUCCESS) return e;
    if ((e = drv_capture_sync_stream(hStream)) == CUDA_SUCCESS) drv_order_host_waits(hStream);
    drv_unlock();
    return drv_after_wait(c, e);   /* a kept launch that just ran may have failed: sticky */
}

/* Work is complete when the call that issued it returns, so a valid stream is idle, unless
 * it has launches queued behind one that waits for the host (launch.c): those get a turn,
 * and the stream is not ready while they are there. */
CUresult CUDAAPI cuStreamQuery(CUstream hStream)
{
    CUresult e = stream_enter_any_ctx(hStream, 1);
    if (e != CUDA_SUCCESS) return e;
    drv_run_queue(DRV_QUEUE_TURN, 0);
    drv_run_held_coop();
    drv_defer_turn();
    e = drv_capture_sync_stream(hStream);
    if (e == CUDA_SUCCESS && (drv_queue_holds(hStream) || drv_defer_holds(hStream))) e = CUDA_ERROR_NOT_READY;
    drv_unlock();
    return e;
}

struct CUevent_st {
    CUcontext ctx;
    unsigned flags;
    int recorded;
    double ms;          /* CLOCK_MONOTONIC time of the last record, in milliseconds */
    double model_ns;    /* where the model's timeline had the recording stream then     */
    Order order;        /* the recording stream's clock at the record */
};

static int event_live(CUevent e)
{
    return e && drv_handle_kind(e) == H_EVENT;
}

/* The context of a live event, else NULL (for drv_ctx_enter_owner). */
static CUcontext event_owner(CUevent ev)
{
    drv_lock();
    CUcontext c = event_live(ev) ? ev->ctx : NULL;
    drv_unlock();
    return c;
}

CUresult CUDAAPI cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags)
{
    if (Flags & ~(unsigned)CU_EVENT_WAIT_EXTERNAL) return CUDA_ERROR_INVALID_VALUE;
    CUresult e = stream_enter_any_ctx(hStream, 1);
    if (e != CUDA_SUCCESS) return e;
    if (!event_live(hEvent)) e = CUDA_ERROR_INVALID_HANDLE;
    if (e == CUDA_SUCCESS && drv_capture_event_wait(hStream, hEvent, &e)) {
        drv_unlock();
        return e;
    }
    Order *o = e == CUDA_SUCCESS ? ord_of(ord_index(hStream)) : NULL;
    if (o) ord_join(o, &hEvent->order);   /* the stream's later work comes after the event */
    if (hEvent->recorded)
        *mt_at(ord_index(hStream)) = dmax(*mt_at(ord_index(hStream)), hEvent->model_ns);
    drv_unlock();
    return e;
}

/* Flags, priority and id; the built-in streams have flags 0, priority 0. */
static CUresult stream_props(CUstream s, unsigned *flags, int *prio, unsigned long long *id)
{
    CUresult e = stream_enter(s, 1);
    if (e != CUDA_SUCCESS) return e;
    if (stream_builtin(s)) {
        *flags = 0;
        *prio = PRIO_LEAST;
        *id = s == NULL ? (unsigned long long)(uintptr_t)CU_STREAM_LEGACY : (unsigned long long)(uintptr_t)s;
    } else {
        *flags = s->flags;
        *prio = s->priority;
        *id = s->id;
    }
    drv_unlock();
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamGetFlags(CUstream hStream, unsigned int *flags)
{
    if (!flags) return CUDA_ERROR_INVALID_VALUE;
    int prio;
    unsigned long long id;
    return stream_props(hStream, flags, &prio, &id);
}

CUresult CUDAAPI cuStreamGetPriority(CUstream hStream, int *priority)
{
    if (!priority) return CUDA_ERROR_INVALID_VALUE;
    unsigned flags;
    unsigned long long id;
    return stream_props(hStream, &flags, priority, &id);
}

CUresult CUDAAPI cuStreamGetId(CUstream hStream, unsigned long long *streamId)
{
    if (!streamId) return CUDA_ERROR_INVALID_VALUE;
    unsigned flags;
    int prio;
    return stream_props(hStream, &flags, &prio, streamId);
}

CUresult CUDAAPI cuStreamGetCtx(CUstream hStream, CUcontext *pctx)
{
    if (!pctx) return CUDA_ERROR_INVALID_VALUE;
    CUresult e = stream_enter_any_ctx(hStream, 0);
    if (e != CUDA_SUCCESS) return e;
    *pctx = stream_builtin(hStream) ? drv_ctx_current() : hStream->ctx;
    drv_unlock();
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamGetCtx_v2(CUstream hStream, CUcontext *pCtx, CUgreenCtx *pGreenCtx)
{
    if (pGreenCtx) *pGreenCtx = NULL;
    return cuStreamGetCtx(hStream, pCtx);
}

CUresult CUDAAPI cuStreamGetDevice(CUstream hStream, CUdevice *device)
{
    if (!device) return CUDA_ERROR_INVALID_VALUE;
    CUresult e = stream_enter_any_ctx(hStream, 0);
    if (e != CUDA_SUCCESS) return e;
    *device = 0;
    drv_unlock();
    return CUDA_SUCCESS;
}

/* ---- stream attributes ---- */

/* The legacy stream's attributes, per device (a context the program made shares its
 * device's), and the per-thread stream's, per thread and device; made on first use. */
static DrvLaunchAttrs legacy_attrs[DRV_MAX_DEVICES];
static unsigned char legacy_made[DRV_MAX_DEVICES];
static _Thread_local DrvLaunchAttrs ptsz_attrs[DRV_MAX_DEVICES];
static _Thread_local unsigned char ptsz_made[DRV_MAX_DEVICES];

/* The attributes of a checked stream and its device; lock held. */
static DrvLaunchAttrs *stream_attrs(CUstream s, CUdevice *dev)
{
    if (!stream_builtin(s)) {
        *dev = s->ctx->device;
        return &s->attrs;
    }
    CUcontext c = drv_ctx_current();
    *dev = c ? c->device : 0;
    int pt = s == CU_STREAM_PER_THREAD;
    DrvLaunchAttrs *a = pt ? &ptsz_attrs[*dev] : &legacy_attrs[*dev];
    unsigned char *made = pt ? &ptsz_made[*dev] : &legacy_made[*dev];
    if (!*made) drv_attrs_init(a);
    *made = 1;
    return a;
}

void drv_stream_attrs(CUstream s, DrvLaunchAttrs *out)
{
    drv_lock();
    CUdevice dev;
    if (drv_stream_check(s) == CUDA_SUCCESS) *out = *stream_attrs(s, &dev);
    else drv_attrs_init(out);
    out->priority = stream_builtin(s) || drv_handle_kind(s) != H_STREAM ? PRIO_LEAST : s->priority;
    drv_unlock();
}

/* The priority is the stream's own, as cuStreamGetPriority reports it; setting it clamps as
 * creation does, and the built-in streams keep priority 0. */
static CUresult stream_priority(CUstream s, CUstreamAttrValue *v, int set)
{
    if (!set) {
        v->priority = stream_builtin(s) ? PRIO_LEAST : s->priority;
        return CUDA_SUCCESS;
    }
    if (stream_builtin(s)) return CUDA_SUCCESS;
    int p = v->priority;
    s->priority = p > PRIO_LEAST ? PRIO_LEAST : p < PRIO_GREATEST ? PRIO_GREATEST : p;
    return CUDA_SUCCESS;
}

static CUresult stream_attr(CUstream s, CUstreamAttrID id, CUstreamAttrValue *v, int set)
{
    if (!v) return CUDA_ERROR_INVALID_VALUE;
    CUresult e = stream_enter(s, 1);
    if (e != CUDA_SUCCESS) return e;
    CUdevice dev;
    DrvLaunchAttrs *a = stream_attrs(s, &dev);
    if (id == CU_LAUNCH_ATTRIBUTE_PRIORITY) e = stream_priority(s, v, set);
    else if (set) e = drv_attr_set(a, dev, id, v);
    else e = drv_attr_get(a, id, v);
    drv_unlock();
    return e;
}

CUresult CUDAAPI cuStreamGetAttribute(CUstream hStream, CUstreamAttrID attr, CUstreamAttrValue *value_out)
{
    return stream_attr(hStream, attr, value_out, 0);
}

CUresult CUDAAPI cuStreamSetAttribute(CUstream hStream, CUstreamAttrID attr,
                                      const CUstreamAttrValue *value)
{
    return stream_attr(hStream, attr, (CUstreamAttrValue *)value, 1);
}

/* Everything cuStreamSetAttribute sets, the priority too (measured on the H100). */
CUresult CUDAAPI cuStreamCopyAttributes(CUstream dst, CUstream src)
{
    CUresult e = stream_enter(src, 1);
    if (e != CUDA_SUCCESS) return e;
    e = drv_stream_check(dst);
    if (e == CUDA_SUCCESS) {
        CUdevice dd, sd;
        DrvLaunchAttrs *to = stream_attrs(dst, &dd), *from = stream_attrs(src, &sd);
        int prio = to->priority;
        *to = *from;
        to->priority = prio;
        if (!stream_builtin(dst)) dst->priority = stream_builtin(src) ? PRIO_LEAST : src->priority;
    }
    drv_unlock();
    return e;
}

/* Host work in a stream runs at once: everything issued before it has completed. The lock is
 * not held while it runs, so it may call the driver. */
CUresult CUDAAPI cuStreamAddCallback(CUstream hStream, CUstreamCallback callback, void *userData,
                                     unsigned int flags)
{
    if (!callback || flags != 0) return CUDA_ERROR_INVALID_VALUE;
    CUresult e = stream_enter(hStream, 1);
    if (e != CUDA_SUCCESS) return e;
    if ((e = drv_capture_sync_stream(hStream)) != CUDA_SUCCESS) {   /* not capturable */
        drv_unlock();
        return e;
    }
    drv_order_host_waits(hStream);
    drv_unlock();
    callback(hStream, CUDA_SUCCESS, userData);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void *userData)
{
    if (!fn) return CUDA_ERROR_INVALID_VALUE;
    CUresult e = stream_enter(hStream, 1);
    if (e != CUDA_SUCCESS) return e;
    int cap = 0;
    if ((e = drv_capture_work(hStream, &cap)) != CUDA_SUCCESS || cap) {
        if (cap) e = drv_capture_host(hStream, fn, userData);
        drv_unlock();
        return e;
    }
    drv_order_host_waits(hStream);
    drv_unlock();
    fn(userData);
    return CUDA_SUCCESS;
}

/* ---- events ---- */

static double now_ms(void)
{
    if (model_clock_on()) return mt_host / 1e6;   /* --clock model: where the model's host is */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

CUresult CUDAAPI cuEventCreate(CUevent *phEvent, unsigned int Flags)
{
    CUcontext c;
    CUresult e = drv_ctx_enter(&c);
    if (e != CUDA_SUCCESS) return e;
    unsigned known = CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS;
    if (!phEvent || (Flags & ~known)) return CUDA_ERROR_INVALID_VALUE;
    if ((Flags & CU_EVENT_INTERPROCESS) && !(Flags & CU_EVENT_DISABLE_TIMING))
        return CUDA_ERROR_INVALID_VALUE;
    CUevent ev = calloc(1, sizeof *ev);
    if (!ev) return CUDA_ERROR_OUT_OF_MEMORY;
    ev->ctx = c;
    ev->flags = Flags;
    drv_lock();
    int bad = drv_handle_add(ev, H_EVENT);
    if (!bad) owned_add(&events_made, ev);
    drv_unlock();
    if (bad) { free(ev); return CUDA_ERROR_OUT_OF_MEMORY; }
    *phEvent = ev;
    return CUDA_SUCCESS;
}

static void event_free(CUevent ev)
{
    drv_handle_del(ev);
    free(ev->order.c);
    free(ev);
}

CUresult CUDAAPI cuEventDestroy_v2(CUevent hEvent)
{
    CUcontext c;
    CUresult e = drv_ctx_enter_owner(event_owner(hEvent), 1, &c);
    if (e != CUDA_SUCCESS) return e;
    drv_lock();
    int ok = event_live(hEvent);
    if (ok) drv_capture_forget(hEvent);
    if (ok) event_free(hEvent);
    drv_unlock();
    return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult CUDAAPI cuEventRecordWithFlags(CUevent hEvent, CUstream hStream, unsigned int flags)
{
    if (flags & ~(unsigned)CU_EVENT_RECORD_EXTERNAL) return CUDA_ERROR_INVALID_VALUE;
    CUresult e = stream_enter_any_ctx(hStream, 1);
    if (e != CUDA_SUCCESS) return e;
    /* the event and the stream must belong to one context (the current one's for the
     * built-in streams) */
    CUcontext sc = stream_builtin(hStream) ? drv_ctx_current() : hStream->ctx;
    if (!event_live(hEvent) || hEvent->ctx != sc) {
        drv_unlock();
        return CUDA_ERROR_INVALID_HANDLE;
    }
    if (drv_capture_event_record(hStream, hEvent, flags, &e)) {
        drv_unlock();
        return e;
    }
    hEvent->model_ns = drv_model_stream_end(hStream);
    hEvent->ms = model_clock_on() ? hEvent->model_ns / 1e6 : now_ms();
    hEvent->recorded = 1;
    if (hEvent->flags & CU_EVENT_INTERPROCESS) {
        /* another process may wait for it (ipc.c), and sees only finished work: the work
         * issued before it, kept or deferred, is done now */
        drv_run_held();
        drv_defer_settle_all();
    }
    Order *o = ord_of(ord_index(hStream));
    if (o) {
        hEvent->order.n = 0;
        ord_join(&hEvent->order, o);
        if (ord_index(hStream) == 0)   /* the legacy stream's work waits for blocking streams */
            for (uint32_t j = 1; j < nord; j++)
                if (ord_blocking[j]) ord_join(&hEvent->order, &ords[j]);
    }
    drv_unlock();
    return CUDA_SUCCESS;
}

int drv_event_flags(CUevent e)
{
    return event_live(e) ? (int)e->flags : -1;
}

CUresult CUDAAPI cuEventRecord(CUevent hEvent, CUstream hStream)
{
    return cuEventRecordWithFlags(hEvent, hStream, 0);
}

CUresult CUDAAPI cuEventQuery(CUevent hEvent)
{
    CUcontext c;
    CUresult e = drv_ctx_enter_owner(event_owner(hEvent), 1, &c);
    if (e != CUDA_SUCCESS) return e;
    drv_lock();
    drv_run_held();
    drv_defer_turn();
    int ok = event_live(hEvent);
    e = ok ? drv_capture_event_host(hEvent, 0) : CUDA_ERROR_INVALID_HANDLE;
    if (e == CUDA_SUCCESS && drv_defer_follows(&hEvent->order)) e = CUDA_ERROR_NOT_READY;
    drv_unlock();
    return drv_after_wait(c, e);
}

CUresult CUDAAPI cuEventSynchronize(CUevent hEvent)
{
    CUcontext c;
    CUresult e = drv_ctx_enter_owner(event_owner(hEvent), 1, &c);
    if (e != CUDA_SUCCESS) return e;
    drv_lock();
    drv_run_held();
    int ok = event_live(hEvent);
    e = ok ? drv_capture_event_host(hEvent, 1) : CUDA_ERROR_INVALID_HANDLE;
    if (e == CUDA_SUCCESS) ord_join(&host, &hEvent->order);
    if (e == CUDA_SUCCESS) drv_defer_settle_host();
    if (e == CUDA_SUCCESS) e = drv_after_wait(c, e);
    if (e == CUDA_SUCCESS) mt_host = dmax(mt_host, hEvent->model_ns);
    drv_unlock();
    return drv_after_wait(c, e);
}

/* An event record node: the event stands for the graph's work up to it. */
void drv_event_graph_record(CUevent ev, const DrvOrder *v)
{
    if (!event_live(ev)) return;
    ev->ms = now_ms();
    ev->model_ns = drv_model_stream_end(mt_stream);
    ev->recorded = 1;
    ev->order.n = 0;
    ord_join(&ev->order, v);
}

/* An event wait node: the graph's later work comes after the event's. */
void drv_event_graph_wait(CUevent ev, DrvOrder *v)
{
    if (event_live(ev)) ord_join(v, &ev->order);
}

/* Both events must exist and keep timing (CUDA_ERROR_INVALID_HANDLE otherwise) and have been
 * recorded (CUDA_ERROR_INVALID_HANDLE too, as the runtime reports it). */
CUresult CUDAAPI cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
    CUcontext c;
    CUresult e = drv_ctx_enter_owner(event_owner(hStart), 1, &c);
    if (e != CUDA_SUCCESS) return e;
    if (!pMilliseconds) return CUDA_ERROR_INVALID_VALUE;
    drv_lock();
    /* events of two devices cannot be compared (CUDA Programming Guide) */
    if (!event_live(hStart) || !event_live(hEnd) || hStart->ctx->device != hEnd->ctx->device ||
        ((hStart->flags | hEnd->flags) & CU_EVENT_DISABLE_TIMING) || !hStart->recorded ||
        !hEnd->recorded)
        e = CUDA_ERROR_INVALID_HANDLE;
    else
        *pMilliseconds = (float)(hEnd->ms - hStart->ms);
    drv_unlock();
    return e;
}

#undef cuEventElapsedTime
CUresult CUDAAPI cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd);
CUresult CUDAAPI cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
    return cuEventElapsedTime_v2(pMilliseconds, hStart, hEnd);
}

/* ---- the context goes: its streams and events with it ---- */

void drv_streams_release_ctx(CUcontext c)
{
    /* streams were registered only in the handle table; walk what was made */
    for (size_t i = 0; i < streams_made.n;) {
        CUstream s = streams_made.p[i];
        if (drv_handle_kind(s) == H_STREAM && s->ctx == c) {
            drv_handle_del(s);
            free(s);
        } else if (drv_handle_kind(s) == H_STREAM) {
            i++;
            continue;
        }
        streams_made.p[i] = streams_made.p[--streams_made.n];
    }
    for (size_t i = 0; i < events_made.n;) {
        CUevent ev = events_made.p[i];
        if (event_live(ev) && ev->ctx == c) {
            event_free(ev);
        } else if (event_live(ev)) {
            i++;
            continue;
        }
        events_made.p[i] = events_made.p[--events_made.n];
    }
}
