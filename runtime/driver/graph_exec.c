/* graph_exec.c - executable graphs: instantiation, launch, whole-graph updates and the
 * per-node changes an executable graph allows (graph.h has the model).
 *
 * A launch runs the nodes to completion in a dependency order before cuGraphLaunch returns,
 * as all work here runs in issue order. What it tells the race detector is the graph's own
 * order: each node comes after the work its stream had before the launch and after its
 * dependencies, nothing else, so kernel nodes without a path between them may overlap.
 */
#include <stdlib.h>
#include <string.h>
#include "runtime/driver/graph.h"

static CUresult enter(CUcontext *c)
{
    CUresult e = drv_ctx_enter(c);
    if (e == CUDA_SUCCESS) drv_lock();
    return e;
}

static CUresult leave(CUresult e)
{
    drv_unlock();
    return e;
}

static int exec_live(CUgraphExec x)
{
    return drv_handle_kind(x) == H_GEXEC;
}

/* ---- instantiation ---- */

static CUgraph child_of(CUgraphNode nd)
{
    return nd->p.type == CU_GRAPH_NODE_TYPE_GRAPH ? nd->p.graph.graph : NULL;
}

/* Order g's nodes (and those of every graph nested in it) so that each comes after its
 * dependencies (Kahn's algorithm); give each kernel node an ordering lane. A cycle is
 * INVALID_VALUE. */
static CUresult sort_graph(CUgraph g)
{
    g->topo = malloc((g->n + 1) * sizeof *g->topo);
    if (!g->topo) return CUDA_ERROR_OUT_OF_MEMORY;
    size_t head = 0, tail = 0;
    for (size_t i = 0; i < g->n; i++) {
        g->nodes[i]->mark = g->nodes[i]->ndeps;
        if (!g->nodes[i]->ndeps) g->topo[tail++] = g->nodes[i];
    }
    while (head < tail) {
        CUgraphNode nd = g->topo[head++];
        for (size_t j = 0; j < nd->nouts; j++)
            if (--nd->outs[j]->mark == 0) g->topo[tail++] = nd->outs[j];
    }
    if (tail != g->n) return CUDA_ERROR_INVALID_VALUE;
    CUresult e = CUDA_SUCCESS;
    for (size_t i = 0; i < g->n && e == CUDA_SUCCESS; i++) {
        CUgraphNode nd = g->nodes[i];
        if (nd->p.type == CU_GRAPH_NODE_TYPE_KERNEL) nd->lane = drv_order_new_lane();
        if (child_of(nd)) e = sort_graph(child_of(nd));
        if (nd->p.type == CU_GRAPH_NODE_TYPE_CONDITIONAL)
            for (unsigned b = 0; b < nd->p.conditional.size && e == CUDA_SUCCESS; b++)
                e = sort_graph(nd->bodies[b]);
    }
    return e;
}

/* The conditions of g and of the graphs nested in it that take a default at each launch. */
static void collect_conds(CUgraphExec x, CUgraph g)
{
    CUgraphConditionalHandle h[64];
    unsigned d[64];
    size_t k = graph_cond_defaults(g, h, d, 64);
    CUgraphConditionalHandle *nh = realloc(x->conds, (x->nconds + k + 1) * sizeof *nh);
    unsigned *nd = realloc(x->cond_defaults, (x->nconds + k + 1) * sizeof *nd);
    if (nh) x->conds = nh;
    if (nd) x->cond_defaults = nd;
    if (!nh || !nd) return;
    memcpy(x->conds + x->nconds, h, k * sizeof *h);
    memcpy(x->cond_defaults + x->nconds, d, k * sizeof *d);
    x->nconds += k;
    for (size_t i = 0; i < g->n; i++) {
        CUgraphNode n = g->nodes[i];
        if (child_of(n)) collect_conds(x, child_of(n));
        if (n->p.type == CU_GRAPH_NODE_TYPE_CONDITIONAL)
            for (unsigned b = 0; b < n->p.conditional.size; b++) collect_conds(x, n->bodies[b]);
    }
}

/* Device-launchable graphs hold only work a kernel could start. */
static CUgraphNode not_device_launchable(CUgraph g)
{
    for (size_t i = 0; i < g->n; i++)
        switch (g->nodes[i]->p.type) {
        case CU_GRAPH_NODE_TYPE_KERNEL: case CU_GRAPH_NODE_TYPE_MEMCPY:
        case CU_GRAPH_NODE_TYPE_MEMSET: case CU_GRAPH_NODE_TYPE_EMPTY: break;
        default: return g->nodes[i];
        }
    return NULL;
}

static void exec_free(CUgraphExec x)
{
    drv_handle_del(x);
    graph_free(x->g);
    free(x->conds);
    free(x->cond_defaults);
    free(x);
}

#define KNOWN_FLAGS (CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH | CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD | \
                     CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH | CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY)

/* Upload and node priorities change only when work starts on a GPU: accepted, no effect. */
static CUresult instantiate(CUgraphExec *out, CUgraph g, unsigned long long flags,
                            CUgraphNode *err_node, CUgraphInstantiateResult *result)
{
    CUcontext c;
    CUresult e = enter(&c);
    if (e != CUDA_SUCCESS) return e;
    *result = CUDA_GRAPH_INSTANTIATE_ERROR;
    if (!out || !graph_live(g) || (flags & ~(unsigned long long)KNOWN_FLAGS)) return leave(CUDA_ERROR_INVALID_VALUE);
    if ((flags & CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH) && (*err_node = not_device_launchable(g))) {
        *result = CUDA_GRAPH_INSTANTIATE_NODE_OPERATION_NOT_SUPPORTED;
        return leave(CUDA_ERROR_INVALID_VALUE);
    }
    CUgraphExec x = calloc(1, sizeof *x);
    if (!x) return leave(CUDA_ERROR_OUT_OF_MEMORY);
    x->ctx = g->ctx;
    x->flags = flags;
    e = graph_clone(g, 1, &x->g);
    if (e == CUDA_SUCCESS && (e = sort_graph(x->g)) == CUDA_ERROR_INVALID_VALUE)
        *result = CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE;
    if (e == CUDA_SUCCESS && drv_handle_add(x, H_GEXEC)) e = CUDA_ERROR_OUT_OF_MEMORY;
    if (e != CUDA_SUCCESS) {
        if (x->g) graph_free(x->g);
        free(x);
        return leave(e);
    }
    collect_conds(x, g);
    *result = CUDA_GRAPH_INSTANTIATE_SUCCESS;
    *out = x;
    return leave(CUDA_SUCCESS);
}

CUresult CUDAAPI cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec, CUgraph hGraph,
                                             unsigned long long flags)
{
    CUgraphNode err = NULL;
    CUgraphInstantiateResult r;
    return instantiate(phGraphExec, hGraph, flags, &err, &r);
}

CUresult CUDAAPI cuGraphInstantiateWithParams(CUgraphExec *phGraphExec, CUgraph hGraph,
                                              CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams)
{
    if (!instantiateParams) return CUDA_ERROR_INVALID_VALUE;
    instantiateParams->hErrNode_out = NULL;
    return instantiate(phGraphExec, hGraph, instantiateParams->flags,
                       &instantiateParams->hErrNode_out, &instantiateParams->result_out);
}

/* CUDA 10's form, with an error node and a log (left empty: errors are codes here). */
#undef cuGraphInstantiate
CUresult CUDAAPI cuGraphInstantiate(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode,
                                    char *logBuffer, size_t bufferSize);
CUresult CUDAAPI cuGraphInstantiate(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode,
                                    char *logBuffer, size_t bufferSize)
{
    CUgraphNode err = NULL;
    CUgraphInstantiateResult r;
    if (logBuffer && bufferSize) logBuffer[0] = 0;
    CUresult e = instantiate(phGraphExec, hGraph, 0, &err, &r);
    if (phErrorNode) *phErrorNode = err;
    return e;
}

CUresult CUDAAPI cuGraphInstantiate_v2(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode,
                                       char *logBuffer, size_t bufferSize);
CUresult CUDAAPI cuGraphInstantiate_v2(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode,
                                       char *logBuffer, size_t bufferSize)
{
    return cuGraphInstantiate(phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize);
}

CUresult CUDAAPI cuGraphExecDestroy(CUgraphExec hGraphExec)
{
    CUcontext c;
    CUresult e = enter(&c);
    if (e != CUDA_SUCCESS) return e;
    if (!exec_live(hGraphExec)) return leave(CUDA_ERROR_INVALID_VALUE);
    exec_free(hGraphExec);
    return leave(CUDA_SUCCESS);
}

CUresult CUDAAPI cuGraphExecGetFlags(CUgraphExec hGraphExec, cuuint64_t *flags)
{
    CUcontext c;
    CUresult e = enter(&c);
    if (e != CUDA_SUCCESS) return e;
    if (!exec_live(hGraphExec) || !flags) return leave(CUDA_ERROR_INVALID_VALUE);
    *flags = hGraphExec->flags;
    return leave(CUDA_SUCCESS);
}

/* ---- launch ---- */

static CUresult run_graph(CUgraphExec x, CUgraph g, const DrvOrder *start, DrvOrder *end);

static void locked(void (*fn)(CUevent, const DrvOrder *), CUevent ev, DrvOrder *v)
{
    drv_lock();
    fn(ev, v);
    drv_unlock();
}

static void event_wait(CUevent ev, const DrvOrder *v)
{
    drv_event_graph_wait(ev, (DrvOrder *)v);
}

static CUresult run_conditional(CUgraphExec x, CUgraphNode nd, DrvOrder *v)
{
    const CUDA_CONDITIONAL_NODE_PARAMS *c = &nd->p.conditional;
    volatile unsigned *val = (volatile unsigned *)(uintptr_t)c->handle;
    CUresult e = CUDA_SUCCESS;
    switch (c->type) {
    case CU_GRAPH_COND_TYPE_IF:
        if (*val) e = run_graph(x, nd->bodies[0], v, v);
        else if (c->size == 2) e = run_graph(x, nd->bodies[1], v, v);
        return e;
    case CU_GRAPH_COND_TYPE_WHILE:
        while (e == CUDA_SUCCESS && *val) e = run_graph(x, nd->bodies[0], v, v);
        return e;
    default:
        if (*val < c->size) e = run_graph(x, nd->bodies[*val], v, v);
        return e;
    }
}

/* Copies and fills run under the lock, as their stream forms do. */
static CUresult run_memory(CUgraphExec x, CUgraphNode nd, int auto_free, const DrvOrder *v)
{
    CUDA_MEMSET_NODE_PARAMS m;
    CUresult e;
    drv_lock();
    switch (nd->p.type) {
    case CU_GRAPH_NODE_TYPE_MEMCPY: e = drv_mem_copy3d(&nd->p.memcpy.copyParams, 0); break;
    case CU_GRAPH_NODE_TYPE_MEMSET:
        memcpy(&m, &nd->p.memset, sizeof m);
        if (m.height <= 1) m.pitch = m.width * m.elementSize;
        e = drv_mem_fill(&m, 0);
        break;
    case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
        e = drv_graph_mem_alloc(nd->p.alloc.dptr, auto_free, x->stream, v);
        break;
    default:
        e = drv_graph_mem_known(nd->p.free.dptr) ? drv_graph_mem_free(nd->p.free.dptr, x->stream, v)
                                                  : drv_pool_free(nd->p.free.dptr);
        break;
    }
    drv_unlock();
    return e;
}

static CUresult run_node(CUgraphExec x, CUgraphNode nd, DrvOrder *v)
{
    const CUDA_KERNEL_NODE_PARAMS_v3 *k = &nd->p.kernel;
    switch (nd->p.type) {
    case CU_GRAPH_NODE_TYPE_KERNEL: {
        if (!nd->enabled) return CUDA_SUCCESS;
        unsigned g[3] = { k->gridDimX, k->gridDimY, k->gridDimZ };
        unsigned b[3] = { k->blockDimX, k->blockDimY, k->blockDimZ };
        return drv_launch_node(k->func, g, b, k->sharedMemBytes, nd->argv,
                               nd->cluster[0] ? nd->cluster : NULL, nd->cooperative, nd->lane, v);
    }
    case CU_GRAPH_NODE_TYPE_MEMCPY: case CU_GRAPH_NODE_TYPE_MEMSET:
        return nd->enabled ? run_memory(x, nd, 0, v) : CUDA_SUCCESS;
    case CU_GRAPH_NODE_TYPE_MEM_ALLOC: case CU_GRAPH_NODE_TYPE_MEM_FREE:
        return run_memory(x, nd, (x->flags & CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH) != 0, v);
    case CU_GRAPH_NODE_TYPE_HOST:
        nd->p.host.fn(nd->p.host.userData);   /* without the lock: it may call the driver */
        return CUDA_SUCCESS;
    case CU_GRAPH_NODE_TYPE_GRAPH: return run_graph(x, nd->p.graph.graph, v, v);
    case CU_GRAPH_NODE_TYPE_CONDITIONAL: return run_conditional(x, nd, v);
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD: locked(drv_event_graph_record, nd->p.eventRecord.event, v); return CUDA_SUCCESS;
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT: locked(event_wait, nd->p.eventWait.event, v); return CUDA_SUCCESS;
    default: return CUDA_SUCCESS;
    }
}

/* Run g's nodes in order; each starts from `start` joined with its dependencies' clocks, and
 * `end` becomes the join of them all. A kernel fault stops the launch quietly: the context's
 * sticky error reports it, as a fault in a launched graph does on a GPU. */
static CUresult run_graph(CUgraphExec x, CUgraph g, const DrvOrder *start, DrvOrder *end)
{
    DrvOrder *v = calloc(g->n + 1, sizeof *v);
    if (!v) return CUDA_ERROR_OUT_OF_MEMORY;
    CUresult e = CUDA_SUCCESS;
    for (size_t i = 0; i < g->n; i++) g->topo[i]->mark = i;
    for (size_t i = 0; i < g->n && e == CUDA_SUCCESS; i++) {
        CUgraphNode nd = g->topo[i];
        CUcontext c;
        if (drv_ctx_enter(&c) != CUDA_SUCCESS) break;
        drv_order_join(&v[i], start);
        for (size_t j = 0; j < nd->ndeps; j++) drv_order_join(&v[i], &v[nd->deps[j]->mark]);
        e = run_node(x, nd, &v[i]);
    }
    for (size_t i = 0; i < g->n; i++) {
        drv_order_join(end, &v[i]);
        free(v[i].c);
    }
    free(v);
    return e;
}

/* Memory a graph allocates must have been freed since its last launch (unless the graph was
 * instantiated to free it itself). */
static CUresult allocs_free(CUgraph g, int auto_free)
{
    CUresult e = CUDA_SUCCESS;
    for (size_t i = 0; i < g->n && e == CUDA_SUCCESS; i++) {
        CUgraphNode nd = g->nodes[i];
        if (nd->p.type == CU_GRAPH_NODE_TYPE_MEM_ALLOC && !auto_free &&
            drv_graph_mem_known(nd->p.alloc.dptr) == 2)
            e = CUDA_ERROR_INVALID_VALUE;
        if (child_of(nd)) e = allocs_free(child_of(nd), auto_free);
    }
    return e;
}

CUresult exec_run(CUgraphExec x, CUstream s)
{
    DrvOrder start = { 0 }, end = { 0 };
    drv_lock();
    for (size_t i = 0; i < x->nconds; i++)
        *(unsigned *)(uintptr_t)x->conds[i] = x->cond_defaults[i];
    drv_order_stream_get(s, &start);
    drv_defer_settle_stream(s);    /* work deterministic mode kept that the graph follows */
    x->stream = s;                 /* graph memory: the stream its frees are ordered on */
    drv_model_copy_stream(s, 1);   /* the timeline model: the graph's work goes on s */
    drv_model_host_spends(DRV_MODEL_GRAPH_LAUNCH_NS);
    drv_unlock();
    CUresult e = run_graph(x, x->g, &start, &end);
    drv_lock();
    drv_model_copy_stream(NULL, 0);
    drv_order_stream_after(s, &end);
    drv_unlock();
    free(start.c);
    free(end.c);
    return e;
}

/* A launch on a capturing stream becomes a child graph node of the capture. */
CUresult CUDAAPI cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream)
{
    CUcontext c;
    CUresult e = enter(&c);
    if (e != CUDA_SUCCESS) return e;
    if (!exec_live(hGraphExec)) return leave(CUDA_ERROR_INVALID_VALUE);
    int cap = 0;
    if ((e = drv_stream_check(hStream)) == CUDA_SUCCESS) e = drv_capture_work(hStream, &cap);
    if (e == CUDA_SUCCESS && cap) return leave(drv_capture_graph(hStream, hGraphExec->g));
    if (e == CUDA_SUCCESS)
        e = allocs_free(hGraphExec->g, (hGraphExec->flags & CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH) != 0);
    drv_unlock();
    return e == CUDA_SUCCESS ? exec_run(hGraphExec, hStream) : e;
}

/* Nothing to move to a device: the copy that runs is ready at instantiation. */
CUresult CUDAAPI cuGraphUpload(CUgraphExec hGraphExec, CUstream hStream)
{
    CUcontext c;
    CUresult e = enter(&c);
    if (e != CUDA_SUCCESS) return e;
    if (!exec_live(hGraphExec)) return leave(CUDA_ERROR_INVALID_VALUE);
    return leave(drv_stream_check(hStream));
}

/* ---- whole-graph update: same nodes (paired in creation order) and edges, new parameters ---- */

static CUresult update_check(CUgraph dst, CUgraph src, CUgraphExecUpdateResultInfo *info);

static CUresult update_fail(CUgraphExecUpdateResultInfo *info, CUgraphExecUpdateResult r, CUgraphNode n)
{
    info->result = r;
    info->errorNode = n;
    info->errorFromNode = NULL;
    return CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
}

static CUresult update_check_node(CUgraphNode a, CUgraphNode b, CUgraphExecUpdateResultInfo *info)
{
    if (a->p.type != b->p.type) return update_fail(info, CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED, b);
    if (a->ndeps != b->ndeps) return update_fail(info, CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED, b);
    for (size_t j = 0; j < a->ndeps; j++)
        if (a->deps[j]->mark != b->deps[j]->mark)
            return update_fail(info, CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED, b);
    switch (a->p.type) {
    case CU_GRAPH_NODE_TYPE_GRAPH: return update_check(a->p.graph.graph, b->p.graph.graph, info);
    case CU_GRAPH_NODE_TYPE_MEM_ALLOC: case CU_GRAPH_NODE_TYPE_MEM_FREE:
        if (memcmp(&a->p, &b->p, sizeof a->p))
            return update_fail(info, CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED, b);
        return CUDA_SUCCESS;
    case CU_GRAPH_NODE_TYPE_CONDITIONAL:
        if (a->p.conditional.type != b->p.conditional.type || a->p.conditional.size != b->p.conditional.size)
            return update_fail(info, CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED, b);
        for (unsigned i = 0; i < a->p.conditional.size; i++) {
            CUresult e = update_check(a->bodies[i], b->bodies[i], info);
            if (e != CUDA_SUCCESS) return e;
        }
        return CUDA_SUCCESS;
    default: return CUDA_SUCCESS;
    }
}

static CUresult update_check(CUgraph dst, CUgraph src, CUgraphExecUpdateResultInfo *info)
{
    if (dst->n != src->n) return update_fail(info, CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED, NULL);
    for (size_t i = 0; i < dst->n; i++) {
        dst->nodes[i]->mark = i;
        src->nodes[i]->mark = i;
    }
    for (size_t i = 0; i < dst->n; i++) {
        CUresult e = update_check_node(dst->nodes[i], src->nodes[i], info);
        if (e != CUDA_SUCCESS) return e;
    }
    return CUDA_SUCCESS;
}

static void update_apply(CUgraph dst, CUgraph src)
{
    for (size_t i = 0; i < dst->n; i++) {
        CUgraphNode a = dst->nodes[i], b = src->nodes[i];
        CUgraphNodeParams p = b->p;
        switch (a->p.type) {
        case CU_GRAPH_NODE_TYPE_GRAPH: update_apply(a->p.graph.graph, b->p.graph.graph); break;
        case CU_GRAPH_NODE_TYPE_CONDITIONAL:
            for (unsigned k = 0; k < a->p.conditional.size; k++) update_apply(a->bodies[k], b->bodies[k]);
            break;
        case CU_GRAPH_NODE_TYPE_MEM_ALLOC: case CU_GRAPH_NODE_TYPE_MEM_FREE: break;
        default:
            node_set_params(a, &p);
            memcpy(a->cluster, b->cluster, sizeof a->cluster);
            a->cooperative = b->cooperative;
            a->attrs = b->attrs;
            break;
        }
    }
}

CUresult CUDAAPI cuGraphExecUpdate_v2(CUgraphExec hGraphExec, CUgraph hGraph,
                                      CUgraphExecUpdateResultInfo *resultInfo)
{
    CUcontext c;
    CUresult e = enter(&c);
    if (e != CUDA_SUCCESS) return e;
    CUgraphExecUpdateResultInfo dummy;
    if (!resultInfo) resultInfo = &dummy;
    memset(resultInfo, 0, sizeof *resultInfo);
    if (!exec_live(hGraphExec) || !graph_live(hGraph)) {
        resultInfo->result = CU_GRAPH_EXEC_UPDATE_ERROR;
        return leave(CUDA_ERROR_INVALID_VALUE);
    }
    e = update_check(hGraphExec->g, hGraph, resultInfo);
    if (e == CUDA_SUCCESS) update_apply(hGraphExec->g, hGraph);
    return leave(e);
}

#undef cuGraphExecUpdate
CUresult CUDAAPI cuGraphExecUpdate(CUgraphExec hGraphExec, CUgraph hGraph, CUgraphNode *hErrorNode_out,
                                   CUgraphExecUpdateResult *updateResult_out);
CUresult CUDAAPI cuGraphExecUpdate(CUgraphExec hGraphExec, CUgraph hGraph, CUgraphNode *hErrorNode_out,
                                   CUgraphExecUpdateResult *updateResult_out)
{
    CUgraphExecUpdateResultInfo info;
    CUresult e = cuGraphExecUpdate_v2(hGraphExec, hGraph, &info);
    if (hErrorNode_out) *hErrorNode_out = info.errorNode;
    if (updateResult_out) *updateResult_out = info.result;
    return e;
}

/* ---- per-node changes ---- */

/* The executable copy of a graph node of type t (-1: any), under the lock (released on
 * error). */
static CUresult exec_node(CUgraphExec x, CUgraphNode n, int t, CUgraphNode *out)
{
    CUcontext c;
    CUresult e = enter(&c);
    if (e != CUDA_SUCCESS) return e;
    if (!exec_live(x) || !node_live(n) || (t >= 0 && n->p.type != (CUgraphNodeType)t))
        return leave(CUDA_ERROR_INVALID_VALUE);
    for (size_t i = 0; i < x->g->n; i++)
        if (x->g->nodes[i]->origin == n) {
            *out = x->g->nodes[i];
            return CUDA_SUCCESS;
        }
    return leave(CUDA_ERROR_INVALID_VALUE);
}

static CUresult exec_set(CUgraphExec x, CUgraphNode n, CUgraphNodeParams *p)
{
    CUgraphNode nd;
    CUresult e = exec_node(x, n, (int)p->type, &nd);
    if (e != CUDA_SUCCESS) return e;
    if (p->type != CU_GRAPH_NODE_TYPE_GRAPH) return leave(node_set_params(nd, p));
    CUgraphExecUpdateResultInfo info;
    if (!graph_live(p->graph.graph)) return leave(CUDA_ERROR_INVALID_VALUE);
    e = update_check(nd->p.graph.graph, p->graph.graph, &info);
    if (e == CUDA_SUCCESS) update_apply(nd->p.graph.graph, p->graph.graph);
    return leave(e == CUDA_SUCCESS ? e : CUDA_ERROR_INVALID_VALUE);
}

static CUgraphNodeParams typed(CUgraphNodeType t)
{
    CUgraphNodeParams p;
    memset(&p, 0, sizeof p);
    p.type = t;
    return p;
}

CUresult CUDAAPI cuGraphExecNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                          CUgraphNodeParams *nodeParams)
{
    return nodeParams ? exec_set(hGraphExec, hNode, nodeParams) : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuGraphExecKernelNodeSetParams_v2(CUgraphExec hGraphExec, CUgraphNode hNode,
                                                   const CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
    if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
    CUgraphNodeParams p = typed(CU_GRAPH_NODE_TYPE_KERNEL);
    memcpy(&p.kernel, nodeParams, sizeof *nodeParams);
    return exec_set(hGraphExec, hNode, &p);
}

#undef cuGraphExecKernelNodeSetParams
CUresult CUDAAPI cuGraphExecKernelNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                                const CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams);
CUresult CUDAAPI cuGraphExecKernelNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                                const CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams)
{
    if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
    CUgraphNodeParams p = typed(CU_GRAPH_NODE_TYPE_KERNEL);
    memcpy(&p.kernel, nodeParams, sizeof *nodeParams);
    return exec_set(hGraphExec, hNode, &p);
}

CUresult CUDAAPI cuGraphExecMemcpyNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                                const CUDA_MEMCPY3D *copyParams, CUcontext ctx)
{
    if (!copyParams) return CUDA_ERROR_INVALID_VALUE;
    CUgraphNodeParams p = typed(CU_GRAPH_NODE_TYPE_MEMCPY);
    p.memcpy.copyParams = *copyParams;
    p.memcpy.copyCtx = ctx;
    return exec_set(hGraphExec, hNode, &p);
}

CUresult CUDAAPI cuGraphExecMemsetNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                                const CUDA_MEMSET_NODE_PARAMS *memsetParams, CUcontext ctx)
{
    if (!memsetParams) return CUDA_ERROR_INVALID_VALUE;
    CUgraphNodeParams p = typed(CU_GRAPH_NODE_TYPE_MEMSET);
    memcpy(&p.memset, memsetParams, sizeof *memsetParams);
    p.memset.ctx = ctx;
    return exec_set(hGraphExec, hNode, &p);
}

CUresult CUDAAPI cuGraphExecHostNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                              const CUDA_HOST_NODE_PARAMS *nodeParams)
{
    if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
    CUgraphNodeParams p = typed(CU_GRAPH_NODE_TYPE_HOST);
    p.host.fn = nodeParams->fn;
    p.host.userData = nodeParams->userData;
    return exec_set(hGraphExec, hNode, &p);
}

CUresult CUDAAPI cuGraphExecChildGraphNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                                    CUgraph childGraph)
{
    CUgraphNodeParams p = typed(CU_GRAPH_NODE_TYPE_GRAPH);
    p.graph.graph = childGraph;
    return exec_set(hGraphExec, hNode, &p);
}

CUresult CUDAAPI cuGraphExecEventRecordNodeSetEvent(CUgraphExec hGraphExec, CUgraphNode hNode,
                                                    CUevent event)
{
    CUgraphNodeParams p = typed(CU_GRAPH_NODE_TYPE_EVENT_RECORD);
    p.eventRecord.event = event;
    return exec_set(hGraphExec, hNode, &p);
}

CUresult CUDAAPI cuGraphExecEventWaitNodeSetEvent(CUgraphExec hGraphExec, CUgraphNode hNode,
                                                  CUevent event)
{
    CUgraphNodeParams p = typed(CU_GRAPH_NODE_TYPE_WAIT_EVENT);
    p.eventWait.event = event;
    return exec_set(hGraphExec, hNode, &p);
}

/* Only kernel, copy and fill nodes can be switched off. */
static int can_disable(CUgraphNode nd)
{
    return nd->p.type == CU_GRAPH_NODE_TYPE_KERNEL || nd->p.type == CU_GRAPH_NODE_TYPE_MEMCPY ||
           nd->p.type == CU_GRAPH_NODE_TYPE_MEMSET;
}

CUresult CUDAAPI cuGraphNodeSetEnabled(CUgraphExec hGraphExec, CUgraphNode hNode, unsigned int isEnabled)
{
    CUgraphNode nd;
    CUresult e = exec_node(hGraphExec, hNode, -1, &nd);
    if (e != CUDA_SUCCESS) return e;
    if (!can_disable(nd)) return leave(CUDA_ERROR_INVALID_VALUE);
    nd->enabled = isEnabled != 0;
    return leave(CUDA_SUCCESS);
}

CUresult CUDAAPI cuGraphNodeGetEnabled(CUgraphExec hGraphExec, CUgraphNode hNode, unsigned int *isEnabled)
{
    if (!isEnabled) return CUDA_ERROR_INVALID_VALUE;
    CUgraphNode nd;
    CUresult e = exec_node(hGraphExec, hNode, -1, &nd);
    if (e != CUDA_SUCCESS) return e;
    if (!can_disable(nd)) return leave(CUDA_ERROR_INVALID_VALUE);
    *isEnabled = (unsigned)nd->enabled;
    return leave(CUDA_SUCCESS);
}
