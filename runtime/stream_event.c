/* stream_event.c - streams and events. All work runs synchronously in issue order, so a
 * stream is only a validated handle with its flags and priority, and an event records the
 * wall-clock time at which the work before it had completed.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "runtime/cudart_internal.h"

/* Stream priorities of the emulated device: 0 (least) down to -5 (greatest). */
#define RT_PRIO_LEAST 0
#define RT_PRIO_GREATEST (-5)

typedef struct RtStream {
    struct RtStream *next;
    unsigned flags;
    int priority;
    unsigned long long id;
    uint32_t order;     /* index in the stream-order clocks below */
} RtStream;

/* ---- stream order ----------------------------------------------------------------------
 * Work runs in issue order here, but on a GPU launches of different streams may overlap, and
 * the race detector must know which launches stream order, events and synchronisations put
 * one after another. Each stream keeps a vector clock: for each stream, how many of its
 * launches the stream's next work comes after (its own entry: its launches so far). Index 0
 * is the legacy default stream, 1 the per-thread one, then streams in creation order. A
 * launch on the legacy stream waits for all blocking streams, and their later work for it. */
typedef struct RtOrder { uint64_t *c; uint32_t n; } RtOrder;
static RtOrder *rt_ord;
static unsigned char *rt_ord_blocking;
static uint32_t rt_nord = 2;
static RtOrder rt_host;         /* what the host has waited for */

static int ord_grow(RtOrder *o, uint32_t n)
{
    if (n <= o->n) return 0;
    uint64_t *c = realloc(o->c, n * sizeof *c);
    if (!c) return -1;
    memset(c + o->n, 0, (n - o->n) * sizeof *c);
    o->c = c; o->n = n;
    return 0;
}

static void ord_join(RtOrder *d, const RtOrder *s)
{
    if (ord_grow(d, s->n)) return;
    for (uint32_t i = 0; i < s->n; i++) if (s->c[i] > d->c[i]) d->c[i] = s->c[i];
}

/* The clock of stream index i (created on first use). */
static RtOrder *ord_of(uint32_t i)
{
    static uint32_t cap;
    if (i >= cap) {
        uint32_t nc = cap ? cap : 8;
        while (nc <= i) nc *= 2;
        RtOrder *o = realloc(rt_ord, nc * sizeof *o);
        if (!o) return NULL;
        rt_ord = o;
        unsigned char *b = realloc(rt_ord_blocking, nc);
        if (!b) return NULL;
        rt_ord_blocking = b;
        memset(rt_ord + cap, 0, (nc - cap) * sizeof *o);
        memset(rt_ord_blocking + cap, 1, nc - cap);
        cap = nc;
    }
    return &rt_ord[i];
}

typedef struct RtEvent {
    struct RtEvent *next;
    unsigned flags;
    int recorded;
    double ms;          /* CLOCK_MONOTONIC time of the last record, in milliseconds */
    RtOrder order;      /* the recording stream's clock at the record */
} RtEvent;

static RtStream *rt_streams;
static RtEvent *rt_events;
static unsigned long long rt_next_stream_id = 3;   /* 0..2: the null/legacy/per-thread ones */

/* Handles are looked up, never dereferenced blindly: a destroyed or garbage handle must give
 * cudaErrorInvalidResourceHandle, not a crash. Caller holds the lock. */
static RtStream *rt_stream_find(cudaStream_t s)
{
    for (RtStream *p = rt_streams; p; p = p->next)
        if ((cudaStream_t)(void *)p == s) return p;
    return NULL;
}

static int rt_stream_builtin(cudaStream_t s)
{
    return s == 0 || s == cudaStreamLegacy || s == cudaStreamPerThread;
}

int rt_stream_valid(cudaStream_t s)
{
    return rt_stream_builtin(s) || rt_stream_find(s) != NULL;
}

static uint32_t ord_index(cudaStream_t s)
{
    if (s == cudaStreamPerThread) return 1;
    RtStream *p = rt_stream_builtin(s) ? NULL : rt_stream_find(s);
    return p ? p->order : 0;
}

/* A launch is about to be issued on s (caller holds the lock): tell the emulator where it
 * stands in stream order. */
void rt_order_launch(cudaStream_t s)
{
    uint32_t i = ord_index(s);
    RtOrder *o = ord_of(i);
    if (!o || ord_grow(o, i + 1)) return;
    ord_join(o, &rt_host);
    if (i == 0)
        for (uint32_t j = 1; j < rt_nord; j++)
            if (rt_ord_blocking[j]) ord_join(&rt_ord[0], &rt_ord[j]);
    o = &rt_ord[i];
    uint64_t clock = ++o->c[i];
    o->c[i] = clock - 1;   /* what the launch comes after: the stream's earlier launches */
    emu_launch_order(i, clock, o->c, o->n);
    o->c[i] = clock;
    if (i == 0)
        for (uint32_t j = 1; j < rt_nord; j++)
            if (rt_ord_blocking[j] && !ord_grow(&rt_ord[j], 1) && rt_ord[j].c[0] < clock)
                rt_ord[j].c[0] = clock;
}

/* The host waited for stream s's work (s = 0, the legacy stream: also the blocking ones). */
static void ord_host_waits(cudaStream_t s)
{
    uint32_t i = ord_index(s);
    if (!ord_of(i)) return;
    ord_join(&rt_host, &rt_ord[i]);
    if (i == 0)
        for (uint32_t j = 1; j < rt_nord; j++)
            if (rt_ord_blocking[j]) ord_join(&rt_host, &rt_ord[j]);
}

/* A synchronous copy or fill waits for the legacy stream (and so the blocking streams). */
void rt_order_host_waits_legacy(void)
{
    ord_host_waits(0);
}

/* The host waited for all work (cudaDeviceSynchronize, cudaFree). */
void rt_order_host_waits_all(void)
{
    for (uint32_t j = 0; j < rt_nord && ord_of(j); j++) ord_join(&rt_host, &rt_ord[j]);
}

static RtEvent *rt_event_find(cudaEvent_t e)
{
    for (RtEvent *p = rt_events; p; p = p->next)
        if ((cudaEvent_t)(void *)p == e) return p;
    return NULL;
}

void rt_stream_event_reset(void)
{
    while (rt_streams) {
        RtStream *n = rt_streams->next;
        free(rt_streams);
        rt_streams = n;
    }
    while (rt_events) {
        RtEvent *n = rt_events->next;
        free(rt_events);
        rt_events = n;
    }
}

static double rt_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---- streams ---- */

cudaError_t CUDARTAPI cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags,
                                                   int priority)
{
    RT_STICKY_CHECK();
    if (!pStream || (flags & ~(unsigned)cudaStreamNonBlocking)) return rt_ret(cudaErrorInvalidValue);
    RtStream *s = calloc(1, sizeof *s);
    if (!s) return rt_ret(cudaErrorMemoryAllocation);
    /* out-of-range priorities are clamped, as CUDA documents */
    if (priority > RT_PRIO_LEAST) priority = RT_PRIO_LEAST;
    if (priority < RT_PRIO_GREATEST) priority = RT_PRIO_GREATEST;
    s->flags = flags;
    s->priority = priority;
    rt_lock();
    s->id = rt_next_stream_id++;
    s->order = rt_nord++;
    if (ord_of(s->order)) rt_ord_blocking[s->order] = !(flags & cudaStreamNonBlocking);
    s->next = rt_streams;
    rt_streams = s;
    rt_unlock();
    *pStream = (cudaStream_t)(void *)s;
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags)
{
    return cudaStreamCreateWithPriority(pStream, flags, RT_PRIO_LEAST);
}

cudaError_t CUDARTAPI cudaStreamCreate(cudaStream_t *pStream)
{
    return cudaStreamCreateWithPriority(pStream, cudaStreamDefault, RT_PRIO_LEAST);
}

cudaError_t CUDARTAPI cudaStreamDestroy(cudaStream_t stream)
{
    RT_STICKY_CHECK();
    rt_lock();
    RtStream **pp = &rt_streams;
    while (*pp && (cudaStream_t)(void *)*pp != stream) pp = &(*pp)->next;
    RtStream *s = *pp;
    if (s) *pp = s->next;
    rt_unlock();
    if (!s) return rt_ret(cudaErrorInvalidResourceHandle);
    free(s);
    return cudaSuccess;
}

/* Validate a stream handle under the lock. */
static cudaError_t rt_stream_check(cudaStream_t s)
{
    rt_lock();
    int ok = rt_stream_valid(s);
    rt_unlock();
    return ok ? cudaSuccess : cudaErrorInvalidResourceHandle;
}

cudaError_t CUDARTAPI cudaStreamSynchronize(cudaStream_t stream)
{
    RT_STICKY_CHECK();
    cudaError_t e = rt_stream_check(stream);
    if (e == cudaSuccess) { rt_lock(); ord_host_waits(stream); rt_unlock(); }
    return rt_ret(e);
}
RT_TWIN(cudaError_t, cudaStreamSynchronize_ptsz, cudaStreamSynchronize, (cudaStream_t s), (s))

/* Work is complete when the call that issued it returns, so a valid stream is always idle. */
cudaError_t CUDARTAPI cudaStreamQuery(cudaStream_t stream)
{
    RT_STICKY_CHECK();
    return rt_ret(rt_stream_check(stream));
}
RT_TWIN(cudaError_t, cudaStreamQuery_ptsz, cudaStreamQuery, (cudaStream_t s), (s))

cudaError_t CUDARTAPI cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
                                          unsigned int flags)
{
    RT_STICKY_CHECK();
    if (flags & ~(unsigned)cudaEventWaitExternal) return rt_ret(cudaErrorInvalidValue);
    rt_lock();
    RtEvent *ev = rt_event_find(event);
    cudaError_t e = rt_stream_valid(stream) && ev ? cudaSuccess : cudaErrorInvalidResourceHandle;
    RtOrder *o = e == cudaSuccess ? ord_of(ord_index(stream)) : NULL;
    if (o) ord_join(o, &ev->order);   /* the stream's later work comes after the event */
    rt_unlock();
    return rt_ret(e);
}
RT_TWIN(cudaError_t, cudaStreamWaitEvent_ptsz, cudaStreamWaitEvent,
        (cudaStream_t s, cudaEvent_t e, unsigned f), (s, e, f))

/* Flags, priority and id of a stream; the built-in streams have flags 0, priority 0. */
static cudaError_t rt_stream_props(cudaStream_t stream, unsigned *flags, int *prio,
                                   unsigned long long *id)
{
    cudaError_t e = cudaSuccess;
    rt_lock();
    RtStream *s = rt_stream_find(stream);
    if (s) {
        *flags = s->flags;
        *prio = s->priority;
        *id = s->id;
    } else if (rt_stream_builtin(stream)) {
        *flags = 0;
        *prio = RT_PRIO_LEAST;
        *id = (unsigned long long)(uintptr_t)stream;
    } else {
        e = cudaErrorInvalidResourceHandle;
    }
    rt_unlock();
    return e;
}

cudaError_t CUDARTAPI cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags)
{
    RT_STICKY_CHECK();
    if (!flags) return rt_ret(cudaErrorInvalidValue);
    int prio;
    unsigned long long id;
    return rt_ret(rt_stream_props(hStream, flags, &prio, &id));
}
RT_TWIN(cudaError_t, cudaStreamGetFlags_ptsz, cudaStreamGetFlags,
        (cudaStream_t s, unsigned *f), (s, f))

cudaError_t CUDARTAPI cudaStreamGetPriority(cudaStream_t hStream, int *priority)
{
    RT_STICKY_CHECK();
    if (!priority) return rt_ret(cudaErrorInvalidValue);
    unsigned flags;
    unsigned long long id;
    return rt_ret(rt_stream_props(hStream, &flags, priority, &id));
}
RT_TWIN(cudaError_t, cudaStreamGetPriority_ptsz, cudaStreamGetPriority,
        (cudaStream_t s, int *p), (s, p))

cudaError_t CUDARTAPI cudaStreamGetId(cudaStream_t hStream, unsigned long long *streamId)
{
    RT_STICKY_CHECK();
    if (!streamId) return rt_ret(cudaErrorInvalidValue);
    unsigned flags;
    int prio;
    return rt_ret(rt_stream_props(hStream, &flags, &prio, streamId));
}
RT_TWIN(cudaError_t, cudaStreamGetId_ptsz, cudaStreamGetId,
        (cudaStream_t s, unsigned long long *i), (s, i))

cudaError_t CUDARTAPI cudaStreamGetDevice(cudaStream_t hStream, int *device)
{
    RT_STICKY_CHECK();
    if (!device) return rt_ret(cudaErrorInvalidValue);
    cudaError_t e = rt_stream_check(hStream);
    if (e == cudaSuccess) *device = 0;
    return rt_ret(e);
}
RT_TWIN(cudaError_t, cudaStreamGetDevice_ptsz, cudaStreamGetDevice,
        (cudaStream_t s, int *d), (s, d))

/* Host work in a stream runs at once: everything issued before it has completed. */
cudaError_t CUDARTAPI cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                            void *userData, unsigned int flags)
{
    RT_STICKY_CHECK();
    if (!callback || flags != 0) return rt_ret(cudaErrorInvalidValue);
    cudaError_t e = rt_stream_check(stream);
    if (e != cudaSuccess) return rt_ret(e);
    callback(stream, cudaSuccess, userData);
    return cudaSuccess;
}
RT_TWIN(cudaError_t, cudaStreamAddCallback_ptsz, cudaStreamAddCallback,
        (cudaStream_t s, cudaStreamCallback_t c, void *u, unsigned f), (s, c, u, f))

cudaError_t CUDARTAPI cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData)
{
    RT_STICKY_CHECK();
    if (!fn) return rt_ret(cudaErrorInvalidValue);
    cudaError_t e = rt_stream_check(stream);
    if (e != cudaSuccess) return rt_ret(e);
    fn(userData);
    return cudaSuccess;
}
RT_TWIN(cudaError_t, cudaLaunchHostFunc_ptsz, cudaLaunchHostFunc,
        (cudaStream_t s, cudaHostFn_t f, void *u), (s, f, u))

cudaError_t CUDARTAPI cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
    if (leastPriority) *leastPriority = RT_PRIO_LEAST;
    if (greatestPriority) *greatestPriority = RT_PRIO_GREATEST;
    return cudaSuccess;
}

/* ---- events ---- */

cudaError_t CUDARTAPI cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    RT_STICKY_CHECK();
    unsigned known = cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
    if (!event || (flags & ~known)) return rt_ret(cudaErrorInvalidValue);
    if ((flags & cudaEventInterprocess) && !(flags & cudaEventDisableTiming))
        return rt_ret(cudaErrorInvalidValue);
    RtEvent *ev = calloc(1, sizeof *ev);
    if (!ev) return rt_ret(cudaErrorMemoryAllocation);
    ev->flags = flags;
    rt_lock();
    ev->next = rt_events;
    rt_events = ev;
    rt_unlock();
    *event = (cudaEvent_t)(void *)ev;
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaEventCreate(cudaEvent_t *event)
{
    return cudaEventCreateWithFlags(event, cudaEventDefault);
}

cudaError_t CUDARTAPI cudaEventDestroy(cudaEvent_t event)
{
    RT_STICKY_CHECK();
    rt_lock();
    RtEvent **pp = &rt_events;
    while (*pp && (cudaEvent_t)(void *)*pp != event) pp = &(*pp)->next;
    RtEvent *ev = *pp;
    if (ev) *pp = ev->next;
    rt_unlock();
    if (!ev) return rt_ret(cudaErrorInvalidResourceHandle);
    free(ev->order.c);
    free(ev);
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream,
                                               unsigned int flags)
{
    RT_STICKY_CHECK();
    if (flags & ~(unsigned)cudaEventRecordExternal) return rt_ret(cudaErrorInvalidValue);
    rt_lock();
    RtEvent *ev = rt_event_find(event);
    cudaError_t e = ev && rt_stream_valid(stream) ? cudaSuccess : cudaErrorInvalidResourceHandle;
    if (e == cudaSuccess) {
        ev->ms = rt_now_ms();
        ev->recorded = 1;
        RtOrder *o = ord_of(ord_index(stream));
        if (o) {
            ev->order.n = 0;
            ord_join(&ev->order, o);
            if (ord_index(stream) == 0)   /* the legacy stream's work waits for blocking streams */
                for (uint32_t j = 1; j < rt_nord; j++)
                    if (rt_ord_blocking[j]) ord_join(&ev->order, &rt_ord[j]);
        }
    }
    rt_unlock();
    return rt_ret(e);
}
RT_TWIN(cudaError_t, cudaEventRecordWithFlags_ptsz, cudaEventRecordWithFlags,
        (cudaEvent_t e, cudaStream_t s, unsigned f), (e, s, f))

cudaError_t CUDARTAPI cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    return cudaEventRecordWithFlags(event, stream, cudaEventRecordDefault);
}
RT_TWIN(cudaError_t, cudaEventRecord_ptsz, cudaEventRecord, (cudaEvent_t e, cudaStream_t s), (e, s))

static cudaError_t rt_event_check(cudaEvent_t event)
{
    rt_lock();
    int ok = rt_event_find(event) != NULL;
    rt_unlock();
    return ok ? cudaSuccess : cudaErrorInvalidResourceHandle;
}

cudaError_t CUDARTAPI cudaEventQuery(cudaEvent_t event)
{
    RT_STICKY_CHECK();
    return rt_ret(rt_event_check(event));
}

cudaError_t CUDARTAPI cudaEventSynchronize(cudaEvent_t event)
{
    RT_STICKY_CHECK();
    rt_lock();
    RtEvent *ev = rt_event_find(event);
    if (ev) ord_join(&rt_host, &ev->order);
    rt_unlock();
    return rt_ret(ev ? cudaSuccess : cudaErrorInvalidResourceHandle);
}

/* Both events must exist, keep timing and have been recorded (cudaErrorInvalidResourceHandle
 * otherwise, as documented). */
cudaError_t CUDARTAPI cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    RT_STICKY_CHECK();
    if (!ms) return rt_ret(cudaErrorInvalidValue);
    rt_lock();
    RtEvent *a = rt_event_find(start), *b = rt_event_find(end);
    cudaError_t e = cudaSuccess;
    if (!a || !b || ((a->flags | b->flags) & cudaEventDisableTiming) || !a->recorded ||
        !b->recorded)
        e = cudaErrorInvalidResourceHandle;
    else
        *ms = (float)(b->ms - a->ms);
    rt_unlock();
    return rt_ret(e);
}
