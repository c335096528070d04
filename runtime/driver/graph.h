/* graph.h - CUDA graphs, stream capture and memory pools inside the driver (private header
 * of graph.c, graph_exec.c, capture.c and mempool.c, and of the hooks that launch.c,
 * memory.c, stream.c and context.c call).
 *
 * Contract: a graph is a list of nodes in creation order with edges both ways; every node
 * keeps its parameters in the generic CUgraphNodeParams form, pointing at copies the node
 * owns (kernel arguments are copied when the node is made, as the GPU driver does). An
 * executable graph is a private deep copy with each (sub)graph's nodes in dependency order;
 * launching it runs the nodes in that order, telling the race detector that nodes without a
 * path between them may overlap (each kernel node has an ordering lane of its own). Capture
 * turns work issued on a capturing stream into nodes instead of running it. All functions
 * here take the (recursive) driver lock themselves unless they say otherwise.
 */
#ifndef PTXEMU_GRAPH_H
#define PTXEMU_GRAPH_H

#include "runtime/driver/drv.h"

/* ---- graph.c: graphs and nodes ---- */
typedef struct UserRef { CUuserObject obj; unsigned count; } UserRef;

struct CUgraphNode_st {
    CUgraph g;
    CUgraphNodeParams p;           /* pointers in it point at the node's own copies          */
    unsigned char *argbuf;         /* kernel: the argument values, at the kernel's offsets   */
    void **argv;                   /*   and one pointer per argument into argbuf             */
    unsigned cluster[3];           /* kernel: launch attributes (cluster shape, 0: none)     */
    int cooperative;
    DrvLaunchAttrs attrs;          /* kernel: the other attributes (kept, no effect here)    */
    CUgraph *bodies;               /* conditional: the body graphs (p.conditional.phGraph_out) */
    CUgraphNode *deps, *outs;      /* edges in, edges out                                    */
    size_t ndeps, nouts, capdeps, capouts;
    CUgraphNode origin;            /* the node this one was copied from (clone, instantiate) */
    int enabled;                   /* in an executable graph                                 */
    uint32_t lane;                 /* in an executable graph: the kernel's ordering lane     */
    size_t mark;                   /* scratch for walks                                      */
    const CUgraphNode *adding;     /* while being added: its dependencies (nadding)          */
    size_t nadding;
    int va_taken;                  /* free node: a later allocation node took its address    */
};

struct CUgraph_st {
    CUcontext ctx;
    CUgraphNode *nodes;
    size_t n, cap;
    CUgraphNode owner;             /* a child graph's or conditional body's node             */
    int exec_copy;                 /* part of an executable graph: no handles                */
    CUgraphNode *topo;             /* exec copies: the nodes in dependency order             */
    UserRef *refs;
    size_t nrefs;
};

struct CUgraphExec_st {
    CUgraph g;                     /* the private copy that runs                             */
    CUcontext ctx;
    unsigned long long flags;
    CUgraphConditionalHandle *conds;   /* conditions reset to their default at each launch   */
    unsigned *cond_defaults;
    size_t nconds;
    CUstream stream;               /* the stream of the launch that runs                     */
};

/* Caller holds the lock for these. */
CUresult graph_new(CUcontext c, int exec_copy, CUgraph *out);
void graph_free(CUgraph g);
/* A node of p's kind after deps in g (parameters validated and copied; p's output fields,
 * the allocation's address and the conditional bodies, written back). */
CUresult graph_add(CUgraph g, const CUgraphNode *deps, size_t n, CUgraphNodeParams *p,
                   CUgraphNode *out);
/* A deep copy of src (nodes know their origin); exec copies get no handles. */
CUresult graph_clone(CUgraph src, int exec_copy, CUgraph *out);
/* Replace a node's parameters (same type) with copies of p's. */
CUresult node_set_params(CUgraphNode nd, CUgraphNodeParams *p);
/* Whether `from` reaches `to` along edges (or is it). */
int graph_reaches(CUgraphNode from, CUgraphNode to);
int graph_live(CUgraph g);                      /* a graph handle the program may use     */
int node_live(CUgraphNode n);
void user_refs_add(CUgraph g, CUuserObject o, unsigned count);
void user_refs_release_all(CUgraph g);
/* The conditions made for g that take their default at each launch (up to max). */
size_t graph_cond_defaults(CUgraph g, CUgraphConditionalHandle *h, unsigned *dflt, size_t max);

/* ---- graph_exec.c: instantiate and launch ---- */
/* Run an executable graph's copy (lock not held). */
CUresult exec_run(CUgraphExec x, CUstream s);

/* ---- capture.c: hooks for work issued on streams (lock taken inside) ---- */
/* Work about to be issued on s: CUDA_SUCCESS with *cap set when s captures (the caller adds
 * a node with one of the drv_capture_* below), clear when the work runs now; or the error:
 * an invalidated capture, or legacy-stream work that would wait for a capturing blocking
 * stream (CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, which invalidates that capture). cap may be
 * NULL for synchronous work on the legacy stream. */
CUresult drv_capture_work(CUstream s, int *cap);
CUresult drv_capture_kernel(CUstream s, CUfunction f, const unsigned grid[3],
                            const unsigned block[3], unsigned smem, void **params,
                            const unsigned *cluster, int cooperative);
CUresult drv_capture_memcpy(CUstream s, const CUDA_MEMCPY3D *p);
CUresult drv_capture_memcpy2d(CUstream s, const CUDA_MEMCPY2D *p);
CUresult drv_capture_memset(CUstream s, const CUDA_MEMSET_NODE_PARAMS *p);
CUresult drv_capture_host(CUstream s, CUhostFn fn, void *data);
CUresult drv_capture_graph(CUstream s, CUgraph g);
CUresult drv_capture_alloc(CUstream s, size_t size, CUdeviceptr *out);
CUresult drv_capture_free(CUstream s, CUdeviceptr p);
/* Calls a capture may forbid (allocations, synchronisations): CUDA_SUCCESS when allowed,
 * else CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, after invalidating the captures that forbid
 * it (the rules of cuThreadExchangeStreamCaptureMode). */
CUresult drv_capture_unsafe_call(void);
CUresult drv_capture_sync_stream(CUstream s);   /* cuStreamSynchronize, cuStreamQuery      */
CUresult drv_capture_sync_ctx(void);            /* cuCtxSynchronize                       */
/* Event record and wait on a capturing stream (or with a captured event): 1 when handled
 * here, with the result in *e; 0 when the stream code goes on as usual. */
int drv_capture_event_record(CUstream s, CUevent ev, unsigned flags, CUresult *e);
int drv_capture_event_wait(CUstream s, CUevent ev, CUresult *e);
/* Host waits for an event last recorded in a capture: the error, or CUDA_SUCCESS. */
CUresult drv_capture_event_host(CUevent ev, int sync);
void drv_capture_forget(const void *stream_or_event);

/* ---- stream.c: events in graphs ---- */
void drv_event_graph_record(CUevent ev, const DrvOrder *v);
void drv_event_graph_wait(CUevent ev, DrvOrder *v);

/* ---- mempool.c: pools, and the memory of graph allocation nodes ---- */
/* The pool a pointer's allocation came from (NULL: none); lock held. */
CUmemoryPool drv_pool_of(uint64_t start);
/* cuMemFree and cuMemFreeAsync: pool, graph and plain device allocations; lock held. */
CUresult drv_pool_free(CUdeviceptr p);
/* Graph allocations have their address from node creation on: reserved there, counted as
 * allocated while a launch has allocated them and nothing freed them. Lock held. */
CUresult drv_graph_mem_reserve(CUcontext c, const CUDA_MEM_ALLOC_NODE_PARAMS_v2 *p,
                               CUdeviceptr *out);
void drv_graph_mem_retain(CUdeviceptr p);
void drv_graph_mem_release(CUdeviceptr p);
int drv_graph_mem_known(CUdeviceptr p);        /* 0 no, 1 yes, 2 yes and allocated now */
/* Graph memory taken and given back by work on stream s after *at (NULL: the host waited
 * for it, as cuMemFree does). */
CUresult drv_graph_mem_alloc(CUdeviceptr p, int auto_free, CUstream s, const DrvOrder *at);
CUresult drv_graph_mem_free(CUdeviceptr p, CUstream s, const DrvOrder *at);

#endif
