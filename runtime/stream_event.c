/* stream_event.c - streams and events. All work runs synchronously in issue order, so a
 * stream is only a validated handle with its flags and priority, and an event records the
 * wall-clock time at which the work before it had completed.
 */
#include <stdlib.h>
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
} RtStream;

typedef struct RtEvent {
    struct RtEvent *next;
    unsigned flags;
    int recorded;
    double ms;          /* CLOCK_MONOTONIC time of the last record, in milliseconds */
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
    return rt_ret(rt_stream_check(stream));
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
    cudaError_t e = rt_stream_valid(stream) && rt_event_find(event)
                        ? cudaSuccess : cudaErrorInvalidResourceHandle;
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
    return rt_ret(rt_event_check(event));
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
