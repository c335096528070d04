/* capture.c - stream capture: work issued on a capturing stream becomes graph nodes.
 *
 * A capture sequence owns a graph; each stream taking part has the set of nodes its next
 * work depends on. A stream joins a capture by waiting for an event recorded in it, and
 * every such stream must be joined back into the origin stream before the capture ends.
 * Which calls a capture forbids follows cuThreadExchangeStreamCaptureMode's rules; a
 * forbidden call fails with CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED and invalidates the
 * captures that forbid it, as recorded on an H100 (tests/cuda/graphs).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/driver/graph.h"

typedef struct Capture {
    CUgraph g;
    CUstreamCaptureMode mode;
    pthread_t thread;           /* the thread that began it */
    CUstream origin;
    unsigned long long id;
    int invalid;
    int own_graph;              /* made by the capture (not cuStreamBeginCaptureToGraph) */
} Capture;

/* A stream or an event that is part of a capture, with the nodes later work depends on. */
typedef struct Member {
    const void *h;
    Capture *cap;
    CUgraphNode *deps;
    size_t n, capn;
    int blocking;               /* streams: work on the legacy stream waits for it */
} Member;

static Member *members;
static size_t nmembers, capmembers;
static unsigned long long next_id = 1;
static _Thread_local CUstreamCaptureMode thread_mode = CU_STREAM_CAPTURE_MODE_GLOBAL;

static Member *member(const void *h)
{
    for (size_t i = 0; h && i < nmembers; i++)
        if (members[i].h == h) return &members[i];
    return NULL;
}

static void member_drop(Member *m)
{
    free(m->deps);
    *m = members[--nmembers];
}

static int deps_set(Member *m, const CUgraphNode *deps, size_t n)
{
    if (n > m->capn) {
        CUgraphNode *d = realloc(m->deps, n * sizeof *d);
        if (!d) return -1;
        m->deps = d;
        m->capn = n;
    }
    if (n) memmove(m->deps, deps, n * sizeof *deps);
    m->n = n;
    return 0;
}

static int deps_add(Member *m, const CUgraphNode *deps, size_t n)
{
    CUgraphNode all[m->n + n + 1];
    size_t k = m->n;
    memcpy(all, m->deps, m->n * sizeof *all);
    for (size_t i = 0; i < n; i++) {
        int dup = 0;
        for (size_t j = 0; j < k; j++) dup |= all[j] == deps[i];
        if (!dup) all[k++] = deps[i];
    }
    return deps_set(m, all, k);
}

static Member *member_new(const void *h, Capture *cap)
{
    if (nmembers == capmembers) {
        size_t nc = capmembers ? capmembers * 2 : 16;
        Member *m = realloc(members, nc * sizeof *m);
        if (!m) return NULL;
        members = m;
        capmembers = nc;
    }
    Member *m = &members[nmembers++];
    memset(m, 0, sizeof *m);
    m->h = h;
    m->cap = cap;
    return m;
}

static int is_legacy(CUstream s)
{
    return s == NULL || s == CU_STREAM_LEGACY;
}

static int blocking(CUstream s)
{
    unsigned flags = CU_STREAM_NON_BLOCKING;
    return s != CU_STREAM_PER_THREAD && cuStreamGetFlags(s, &flags) == CUDA_SUCCESS &&
           !(flags & CU_STREAM_NON_BLOCKING);
}

static int is_stream(const void *h)
{
    return h == CU_STREAM_PER_THREAD || drv_handle_kind(h) == H_STREAM;
}

/* End a capture: its streams leave it; its events stay marked as recorded in a capture that
 * is over (cap NULL) until recorded again; the graph goes unless returned. */
static void capture_end(Capture *c, int keep_graph)
{
    for (size_t i = 0; i < nmembers; i++)
        if (members[i].cap == c && !is_stream(members[i].h)) members[i].cap = NULL;
    for (size_t i = 0; i < nmembers;)
        if (members[i].cap == c) member_drop(&members[i]);
        else i++;
    if (!keep_graph && c->own_graph) graph_free(c->g);
    free(c);
}

/* ---- hooks ---- */

/* Legacy-stream work waits for blocking streams, which cannot be waited for while they
 * capture: their captures become invalid. */
static CUresult legacy_check(void)
{
    int hit = 0;
    for (size_t i = 0; i < nmembers; i++)
        if (members[i].blocking && !members[i].cap->invalid) {
            members[i].cap->invalid = 1;
            hit = 1;
        }
    return hit ? CUDA_ERROR_STREAM_CAPTURE_IMPLICIT : CUDA_SUCCESS;
}

CUresult drv_capture_work(CUstream s, int *cap)
{
    if (cap) *cap = 0;
    drv_lock();
    CUresult e = CUDA_SUCCESS;
    Member *m = member(s);
    if (is_legacy(s)) e = legacy_check();
    else if (m && m->cap->invalid) e = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    else if (m && cap) *cap = 1;
    drv_unlock();
    return e;
}

/* Add a node after the stream's dependencies; it becomes the stream's one dependency. */
static CUresult add(CUstream s, CUgraphNodeParams *p, CUgraphNode *out)
{
    drv_lock();
    Member *m = member(s);
    CUgraphNode nd = NULL;
    CUresult e = m ? graph_add(m->cap->g, m->deps, m->n, p, &nd) : CUDA_ERROR_ILLEGAL_STATE;
    if (e == CUDA_SUCCESS && deps_set(m, &nd, 1)) e = CUDA_ERROR_OUT_OF_MEMORY;
    if (out) *out = nd;
    drv_unlock();
    return e;
}

static CUgraphNodeParams typed(CUgraphNodeType t)
{
    CUgraphNodeParams p;
    memset(&p, 0, sizeof p);
    p.type = t;
    return p;
}

CUresult drv_capture_kernel(CUstream s, CUfunction f, const unsigned grid[3],
                            const unsigned block[3], unsigned smem, void **params,
                            const unsigned *cluster, int cooperative)
{
    CUgraphNodeParams p = typed(CU_GRAPH_NODE_TYPE_KERNEL);
    p.kernel.func = f;
    p.kernel.gridDimX = grid[0]; p.kernel.gridDimY = grid[1]; p.kernel.gridDimZ = grid[2];
    p.kernel.blockDimX = block[0]; p.kernel.blockDimY = block[1]; p.kernel.blockDimZ = block[2];
    p.kernel.sharedMemBytes = smem;
    p.kernel.kernelParams = params;
    CUgraphNode nd;
    drv_lock();
    CUresult e = add(s, &p, &nd);
    if (e == CUDA_SUCCESS && cluster) memcpy(nd->cluster, cluster, sizeof nd->cluster);
    if (e == CUDA_SUCCESS) nd->cooperative = cooperative;
    if (e == CUDA_SUCCESS) drv_stream_attrs(s, &nd->attrs);   /* as the GPU: the stream's */
    drv_unlock();
    return e;
}

CUresult drv_capture_memcpy(CUstream s, const CUDA_MEMCPY3D *c)
{
    CUgraphNodeParams p = typed(CU_GRAPH_NODE_TYPE_MEMCPY);
    p.memcpy.copyParams = *c;
    return add(s, &p, NULL);
}

CUresult drv_capture_memcpy2d(CUstream s, const CUDA_MEMCPY2D *c)
{
    if (!c) return CUDA_ERROR_INVALID_VALUE;
    CUDA_MEMCPY3D p = {
        .srcXInBytes = c->srcXInBytes, .srcY = c->srcY, .srcMemoryType = c->srcMemoryType,
        .srcHost = c->srcHost, .srcDevice = c->srcDevice, .srcArray = c->srcArray,
        .srcPitch = c->srcPitch, .srcHeight = c->Height,
        .dstXInBytes = c->dstXInBytes, .dstY = c->dstY, .dstMemoryType = c->dstMemoryType,
        .dstHost = c->dstHost, .dstDevice = c->dstDevice, .dstArray = c->dstArray,
        .dstPitch = c->dstPitch, .dstHeight = c->Height,
        .WidthInBytes = c->WidthInBytes, .Height = c->Height, .Depth = 1,
    };
    return drv_capture_memcpy(s, &p);
}

CUresult drv_capture_memset(CUstream s, const CUDA_MEMSET_NODE_PARAMS *m)
{
    CUgraphNodeParams p = typed(CU_GRAPH_NODE_TYPE_MEMSET);
    memcpy(&p.memset, m, sizeof *m);
    return add(s, &p, NULL);
}

CUresult drv_capture_host(CUstream s, CUhostFn fn, void *data)
{
    CUgraphNodeParams p = typed(CU_GRAPH_NODE_TYPE_HOST);
    p.host.fn = fn;
    p.host.userData = data;
    return add(s, &p, NULL);
}

/* A graph launched into a capture: a child graph node holding a copy of it. */
CUresult drv_capture_graph(CUstream s, CUgraph g)
{
    CUgraphNodeParams p = typed(CU_GRAPH_NODE_TYPE_GRAPH);
    drv_lock();
    CUresult e = graph_clone(g, 0, &p.graph.graph);
    if (e == CUDA_SUCCESS) {
        p.graph.ownership = CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE;
        CUgraph copy = p.graph.graph;
        if ((e = add(s, &p, NULL)) != CUDA_SUCCESS) graph_free(copy);
    }
    drv_unlock();
    return e;
}

CUresult drv_capture_alloc(CUstream s, size_t size, CUdeviceptr *out)
{
    CUgraphNodeParams p = typed(CU_GRAPH_NODE_TYPE_MEM_ALLOC);
    p.alloc.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    p.alloc.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    p.alloc.bytesize = size;
    CUresult e = add(s, &p, NULL);
    if (e == CUDA_SUCCESS) *out = p.alloc.dptr;
    return e;
}

CUresult drv_capture_free(CUstream s, CUdeviceptr ptr)
{
    CUgraphNodeParams p = typed(CU_GRAPH_NODE_TYPE_MEM_FREE);
    p.free.dptr = ptr;
    return add(s, &p, NULL);
}

/* Whether a capture forbids this thread's unsafe calls: its own captures unless relaxed,
 * and in global mode other threads' global captures; a relaxed thread is never stopped. */
static int forbids(const Capture *c)
{
    if (thread_mode == CU_STREAM_CAPTURE_MODE_RELAXED || c->mode == CU_STREAM_CAPTURE_MODE_RELAXED)
        return 0;
    if (pthread_equal(c->thread, pthread_self())) return 1;
    return thread_mode == CU_STREAM_CAPTURE_MODE_GLOBAL && c->mode == CU_STREAM_CAPTURE_MODE_GLOBAL;
}

/* Invalidate the captures `pick` selects; whether there was one. */
static int invalidate(int (*pick)(const Capture *))
{
    int hit = 0;
    for (size_t i = 0; i < nmembers; i++)
        if (members[i].cap && members[i].cap->origin == members[i].h && pick(members[i].cap)) {
            members[i].cap->invalid = 1;
            hit = 1;
        }
    return hit;
}

CUresult drv_capture_unsafe_call(void)
{
    if (!nmembers) return CUDA_SUCCESS;
    drv_lock();
    int hit = invalidate(forbids);
    drv_unlock();
    return hit ? CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED : CUDA_SUCCESS;
}

/* A capturing stream cannot be waited for, whatever the mode. */
CUresult drv_capture_sync_stream(CUstream s)
{
    if (!nmembers) return CUDA_SUCCESS;
    if (is_legacy(s)) return drv_capture_work(s, NULL);
    drv_lock();
    Member *m = member(s);
    if (m) m->cap->invalid = 1;
    drv_unlock();
    return m ? CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED : CUDA_SUCCESS;
}

static int any(const Capture *c)
{
    (void)c;
    return 1;
}

/* Synchronising the context waits for every stream, capturing ones included. */
CUresult drv_capture_sync_ctx(void)
{
    if (!nmembers) return CUDA_SUCCESS;
    drv_lock();
    int hit = invalidate(any);
    drv_unlock();
    return hit ? CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED : CUDA_SUCCESS;
}

/* Recording in a capture makes no node: the event stands for the stream's dependencies
 * there (an external record, CU_EVENT_RECORD_EXTERNAL, is a node). Recording elsewhere
 * takes the event out of any capture. */
int drv_capture_event_record(CUstream s, CUevent ev, unsigned flags, CUresult *e)
{
    drv_lock();
    Member *sm = member(s), *em = member(ev);
    if (!sm) {
        if (em) member_drop(em);
        drv_unlock();
        return 0;
    }
    *e = sm->cap->invalid ? CUDA_ERROR_STREAM_CAPTURE_INVALIDATED : CUDA_SUCCESS;
    if (*e == CUDA_SUCCESS && (flags & CU_EVENT_RECORD_EXTERNAL)) {
        CUgraphNodeParams p = typed(CU_GRAPH_NODE_TYPE_EVENT_RECORD);
        p.eventRecord.event = ev;
        *e = add(s, &p, NULL);
    } else if (*e == CUDA_SUCCESS) {
        if (!em && !(em = member_new(ev, sm->cap))) *e = CUDA_ERROR_OUT_OF_MEMORY;
        sm = member(s);   /* member_new may have moved the table */
        if (em) {
            em->cap = sm->cap;
            if (deps_set(em, sm->deps, sm->n)) *e = CUDA_ERROR_OUT_OF_MEMORY;
        }
    }
    drv_unlock();
    return 1;
}

/* Waiting for an event of a capture: a stream outside it joins it (a fork), a stream in it
 * depends on the event's nodes too (a join). Measured: a capturing stream waiting for an
 * event recorded outside any capture is CUDA_ERROR_STREAM_CAPTURE_ISOLATION, and the capture
 * is invalidated. */
int drv_capture_event_wait(CUstream s, CUevent ev, CUresult *e)
{
    drv_lock();
    Member *sm = member(s), *em = member(ev);
    if (em && !em->cap) em = NULL;   /* its capture is over */
    int handled = sm || em;
    *e = CUDA_SUCCESS;
    if (em && sm && sm->cap != em->cap) {
        *e = CUDA_ERROR_STREAM_CAPTURE_MERGE;
    } else if (em && !sm) {
        if (is_legacy(s)) {
            *e = CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
        } else if ((sm = member_new(s, NULL)) != NULL) {
            em = member(ev);
            sm->cap = em->cap;
            sm->blocking = blocking(s);
            if (deps_set(sm, em->deps, em->n)) *e = CUDA_ERROR_OUT_OF_MEMORY;
        } else {
            *e = CUDA_ERROR_OUT_OF_MEMORY;
        }
    } else if (em) {
        *e = sm->cap->invalid ? CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
             : deps_add(sm, em->deps, em->n) ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_SUCCESS;
    } else if (sm) {
        *e = sm->cap->invalid ? CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
                              : CUDA_ERROR_STREAM_CAPTURE_ISOLATION;
        sm->cap->invalid = 1;
    }
    drv_unlock();
    return handled;
}

/* Measured: querying an event recorded in a capture is CUDA_ERROR_CAPTURED_EVENT;
 * synchronising with one is INVALID_VALUE and invalidates the capture; once the capture is
 * over, both are INVALID_VALUE until the event is recorded outside a capture. */
CUresult drv_capture_event_host(CUevent ev, int sync)
{
    if (!nmembers) return CUDA_SUCCESS;
    drv_lock();
    Member *m = member(ev);
    CUresult e = !m ? CUDA_SUCCESS : sync || !m->cap ? CUDA_ERROR_INVALID_VALUE
                                                    : CUDA_ERROR_CAPTURED_EVENT;
    if (m && m->cap && sync) m->cap->invalid = 1;
    drv_unlock();
    return e;
}

void drv_capture_forget(const void *h)
{
    if (!nmembers) return;
    drv_lock();
    Member *m = member(h);
    if (m && (!m->cap || m->cap->origin != h)) member_drop(m);
    drv_unlock();
}

/* ---- entry points ---- */

static CUresult stream_enter(CUstream s)
{
    CUcontext c;
    CUresult e = drv_ctx_enter(&c);
    if (e != CUDA_SUCCESS) return e;
    drv_lock();
    e = drv_stream_check(s);
    if (e != CUDA_SUCCESS) drv_unlock();
    return e;
}

static CUresult leave(CUresult e)
{
    drv_unlock();
    return e;
}

static CUresult begin(CUstream s, CUgraph g, const CUgraphNode *deps, size_t n,
                      CUstreamCaptureMode mode)
{
    CUresult e = stream_enter(s);
    if (e != CUDA_SUCCESS) return e;
    if ((unsigned)mode > CU_STREAM_CAPTURE_MODE_RELAXED) return leave(CUDA_ERROR_INVALID_VALUE);
    if (is_legacy(s)) return leave(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    if (member(s)) return leave(CUDA_ERROR_ILLEGAL_STATE);
    Capture *c = calloc(1, sizeof *c);
    if (!c) return leave(CUDA_ERROR_OUT_OF_MEMORY);
    *c = (Capture){ g, mode, pthread_self(), s, next_id++, 0, g == NULL };
    if (!g && (e = graph_new(drv_ctx_current(), 0, &c->g)) != CUDA_SUCCESS) {
        free(c);
        return leave(e);
    }
    Member *m = member_new(s, c);
    if (!m || deps_set(m, deps, n)) {
        if (m) member_drop(m);
        capture_end(c, 0);
        return leave(CUDA_ERROR_OUT_OF_MEMORY);
    }
    m->blocking = blocking(s);
    return leave(CUDA_SUCCESS);
}

CUresult CUDAAPI cuStreamBeginCapture_v2(CUstream hStream, CUstreamCaptureMode mode)
{
    return begin(hStream, NULL, NULL, 0, mode);
}

/* CUDA 10.0's form, before capture modes: a global capture. */
#undef cuStreamBeginCapture
CUresult CUDAAPI cuStreamBeginCapture(CUstream hStream);
CUresult CUDAAPI cuStreamBeginCapture(CUstream hStream)
{
    return begin(hStream, NULL, NULL, 0, CU_STREAM_CAPTURE_MODE_GLOBAL);
}

CUresult CUDAAPI cuStreamBeginCaptureToGraph(CUstream hStream, CUgraph hGraph,
                                             const CUgraphNode *dependencies,
                                             const CUgraphEdgeData *dependencyData,
                                             size_t numDependencies, CUstreamCaptureMode mode)
{
    (void)dependencyData;
    drv_lock();
    int ok = graph_live(hGraph) && (!numDependencies || dependencies);
    for (size_t i = 0; ok && i < numDependencies; i++)
        ok = node_live(dependencies[i]) && dependencies[i]->g == hGraph;
    drv_unlock();
    return ok ? begin(hStream, hGraph, dependencies, numDependencies, mode) : CUDA_ERROR_INVALID_VALUE;
}

/* Every other stream of the capture must have been joined back: its dependencies must lie
 * behind the origin's. */
static int joined(const Capture *c, const Member *origin)
{
    for (size_t i = 0; i < nmembers; i++) {
        const Member *m = &members[i];
        if (m->cap != c || m == origin || !is_stream(m->h)) continue;
        for (size_t j = 0; j < m->n; j++) {
            int behind = 0;
            for (size_t k = 0; k < origin->n && !behind; k++)
                behind = graph_reaches(m->deps[j], origin->deps[k]);
            if (!behind) return 0;
        }
    }
    return 1;
}

/* A capture into the program's own graph (cuStreamBeginCaptureToGraph) needs no phGraph. */
CUresult CUDAAPI cuStreamEndCapture(CUstream hStream, CUgraph *phGraph)
{
    CUresult e = stream_enter(hStream);
    if (e != CUDA_SUCCESS) return e;
    Member *m = member(hStream);
    if (!m) return leave(phGraph ? CUDA_ERROR_ILLEGAL_STATE : CUDA_ERROR_INVALID_VALUE);
    Capture *c = m->cap;
    CUgraph ignored;
    if (!phGraph && c->own_graph) return leave(CUDA_ERROR_INVALID_VALUE);
    if (!phGraph) phGraph = &ignored;
    if (c->origin != hStream) {
        c->invalid = 1;
        return leave(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED);
    }
    if (c->mode != CU_STREAM_CAPTURE_MODE_RELAXED && !pthread_equal(c->thread, pthread_self()))
        return leave(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD);
    e = c->invalid ? CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
        : !joined(c, m) ? CUDA_ERROR_STREAM_CAPTURE_UNJOINED : CUDA_SUCCESS;
    *phGraph = e == CUDA_SUCCESS ? c->g : NULL;
    capture_end(c, e == CUDA_SUCCESS);
    return leave(e);
}

static CUstreamCaptureStatus status_of(CUstream s)
{
    Member *m = member(s);
    return !m ? CU_STREAM_CAPTURE_STATUS_NONE
           : m->cap->invalid ? CU_STREAM_CAPTURE_STATUS_INVALIDATED : CU_STREAM_CAPTURE_STATUS_ACTIVE;
}

/* The legacy stream is never captured, but asking about it while a blocking stream captures
 * would make it wait for that stream. */
CUresult CUDAAPI cuStreamIsCapturing(CUstream hStream, CUstreamCaptureStatus *captureStatus)
{
    if (!captureStatus) return CUDA_ERROR_INVALID_VALUE;
    CUresult e = stream_enter(hStream);
    if (e != CUDA_SUCCESS) return e;
    if (is_legacy(hStream) && (e = legacy_check()) != CUDA_SUCCESS) return leave(e);
    *captureStatus = status_of(hStream);
    return leave(CUDA_SUCCESS);
}

CUresult CUDAAPI cuStreamGetCaptureInfo_v3(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                           cuuint64_t *id_out, CUgraph *graph_out,
                                           const CUgraphNode **dependencies_out,
                                           const CUgraphEdgeData **edgeData_out,
                                           size_t *numDependencies_out)
{
    static const CUgraphEdgeData zero_edges[64];
    if (!captureStatus_out) return CUDA_ERROR_INVALID_VALUE;
    CUresult e = stream_enter(hStream);
    if (e != CUDA_SUCCESS) return e;
    if (is_legacy(hStream) && (e = legacy_check()) != CUDA_SUCCESS) return leave(e);
    Member *m = member(hStream);
    *captureStatus_out = status_of(hStream);
    int active = *captureStatus_out == CU_STREAM_CAPTURE_STATUS_ACTIVE;
    if (id_out && m) *id_out = m->cap->id;
    if (graph_out) *graph_out = active ? m->cap->g : NULL;
    if (dependencies_out) *dependencies_out = active ? m->deps : NULL;
    if (numDependencies_out) *numDependencies_out = active ? m->n : 0;
    if (edgeData_out) {
        if (active && m->n > 64) return leave(CUDA_ERROR_NOT_SUPPORTED);
        *edgeData_out = active && m->n ? zero_edges : NULL;
    }
    return leave(CUDA_SUCCESS);
}

/* CUDA 11.3's form, without edge data (no longer in the headers). */
CUresult CUDAAPI cuStreamGetCaptureInfo_v2(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                           cuuint64_t *id_out, CUgraph *graph_out,
                                           const CUgraphNode **dependencies_out,
                                           size_t *numDependencies_out);
CUresult CUDAAPI cuStreamGetCaptureInfo_v2(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                           cuuint64_t *id_out, CUgraph *graph_out,
                                           const CUgraphNode **dependencies_out,
                                           size_t *numDependencies_out)
{
    return cuStreamGetCaptureInfo_v3(hStream, captureStatus_out, id_out, graph_out,
                                     dependencies_out, NULL, numDependencies_out);
}

#undef cuStreamGetCaptureInfo
CUresult CUDAAPI cuStreamGetCaptureInfo(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                        cuuint64_t *id_out);
CUresult CUDAAPI cuStreamGetCaptureInfo(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                        cuuint64_t *id_out)
{
    return cuStreamGetCaptureInfo_v3(hStream, captureStatus_out, id_out, NULL, NULL, NULL, NULL);
}

CUresult CUDAAPI cuStreamUpdateCaptureDependencies_v2(CUstream hStream, CUgraphNode *dependencies,
                                                      const CUgraphEdgeData *dependencyData,
                                                      size_t numDependencies, unsigned int flags)
{
    (void)dependencyData;
    CUresult e = stream_enter(hStream);
    if (e != CUDA_SUCCESS) return e;
    Member *m = member(hStream);
    if (flags > CU_STREAM_SET_CAPTURE_DEPENDENCIES || (numDependencies && !dependencies))
        return leave(CUDA_ERROR_INVALID_VALUE);
    if (!m || m->cap->invalid) return leave(CUDA_ERROR_ILLEGAL_STATE);
    for (size_t i = 0; i < numDependencies; i++)
        if (!node_live(dependencies[i]) || dependencies[i]->g != m->cap->g)
            return leave(CUDA_ERROR_INVALID_VALUE);
    int bad = flags == CU_STREAM_SET_CAPTURE_DEPENDENCIES ? deps_set(m, dependencies, numDependencies)
                                                          : deps_add(m, dependencies, numDependencies);
    return leave(bad ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_SUCCESS);
}

#undef cuStreamUpdateCaptureDependencies
CUresult CUDAAPI cuStreamUpdateCaptureDependencies(CUstream hStream, CUgraphNode *dependencies,
                                                   size_t numDependencies, unsigned int flags);
CUresult CUDAAPI cuStreamUpdateCaptureDependencies(CUstream hStream, CUgraphNode *dependencies,
                                                   size_t numDependencies, unsigned int flags)
{
    return cuStreamUpdateCaptureDependencies_v2(hStream, dependencies, NULL, numDependencies, flags);
}

/* Measured: an unknown mode is accepted (and swapped in). */
CUresult CUDAAPI cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode)
{
    if (!mode) return CUDA_ERROR_INVALID_VALUE;
    CUstreamCaptureMode old = thread_mode;
    thread_mode = *mode;
    *mode = old;
    return CUDA_SUCCESS;
}
