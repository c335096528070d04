/* graph.c - CUDA graphs: creation, nodes and their parameters, edges, queries, clones, user
 * objects, conditional handles and the DOT dump (graph.h has the model; graph_exec.c runs
 * them).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/driver/graph.h"

/* Enter an entry point: initialised, a current context, the lock taken (not on error). */
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

int graph_live(CUgraph g)
{
    return drv_handle_kind(g) == H_GRAPH;
}

int node_live(CUgraphNode n)
{
    return drv_handle_kind(n) == H_GNODE;
}

/* ---- graphs ---- */

CUresult graph_new(CUcontext c, int exec_copy, CUgraph *out)
{
    CUgraph g = calloc(1, sizeof *g);
    if (!g) return CUDA_ERROR_OUT_OF_MEMORY;
    g->ctx = c;
    g->exec_copy = exec_copy;
    if (!exec_copy && drv_handle_add(g, H_GRAPH)) {
        free(g);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *out = g;
    return CUDA_SUCCESS;
}

static void params_release(CUgraphNode nd);

static void node_free(CUgraphNode nd)
{
    params_release(nd);
    free(nd->deps);
    free(nd->outs);
    if (!nd->g->exec_copy) drv_handle_del(nd);
    free(nd);
}

static void cond_forget(CUgraph g);

void graph_free(CUgraph g)
{
    cond_forget(g);
    for (size_t i = 0; i < g->n; i++) node_free(g->nodes[i]);
    user_refs_release_all(g);
    if (!g->exec_copy) drv_handle_del(g);
    free(g->nodes);
    free(g->topo);
    free(g);
}

/* ---- edges ---- */

static int push(CUgraphNode **arr, size_t *n, size_t *cap, CUgraphNode x)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 4;
        CUgraphNode *na = realloc(*arr, nc * sizeof *na);
        if (!na) return -1;
        *arr = na;
        *cap = nc;
    }
    (*arr)[(*n)++] = x;
    return 0;
}

static int remove_one(CUgraphNode *arr, size_t *n, CUgraphNode x)
{
    for (size_t i = 0; i < *n; i++)
        if (arr[i] == x) {
            memmove(&arr[i], &arr[i + 1], (*n - i - 1) * sizeof *arr);
            (*n)--;
            return 1;
        }
    return 0;
}

static int has_edge(CUgraphNode from, CUgraphNode to)
{
    for (size_t i = 0; i < to->ndeps; i++)
        if (to->deps[i] == from) return 1;
    return 0;
}

static CUresult edge_add(CUgraphNode from, CUgraphNode to)
{
    if (push(&to->deps, &to->ndeps, &to->capdeps, from)) return CUDA_ERROR_OUT_OF_MEMORY;
    if (push(&from->outs, &from->nouts, &from->capouts, to)) {
        to->ndeps--;
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    return CUDA_SUCCESS;
}

static int reaches(CUgraphNode from, CUgraphNode to, size_t stamp)
{
    if (from == to) return 1;
    if (from->mark == stamp) return 0;
    from->mark = stamp;
    for (size_t i = 0; i < from->nouts; i++)
        if (reaches(from->outs[i], to, stamp)) return 1;
    return 0;
}

int graph_reaches(CUgraphNode from, CUgraphNode to)
{
    static size_t stamp;
    return reaches(from, to, ++stamp);
}

/* Dependencies of a new node: live nodes of g, no repeats. */
static CUresult deps_check(CUgraph g, const CUgraphNode *deps, size_t n)
{
    if (n && !deps) return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < n; i++) {
        if (!node_live(deps[i]) || deps[i]->g != g) return CUDA_ERROR_INVALID_VALUE;
        for (size_t j = 0; j < i; j++)
            if (deps[j] == deps[i]) return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

/* ---- node parameters ---- */

/* Kernel arguments are copied now: the node keeps the values, not the program's pointers. */
static CUresult kernel_params(CUgraphNode nd, CUDA_KERNEL_NODE_PARAMS_v3 *k)
{
    CUfunction f = k->func ? k->func : (CUfunction)(void *)k->kern;
    if (drv_handle_kind(f) != H_FUNC) return CUDA_ERROR_INVALID_VALUE;
    EmuKernel *ek;
    JitKernelInfo info;
    CUresult e = drv_func_kernel(f, &ek, &info);
    if (e != CUDA_SUCCESS) return e;
    void **src = k->kernelParams, *unpacked[info.nparams + 1];
    if (src && k->extra) return CUDA_ERROR_INVALID_VALUE;
    if (k->extra && (e = drv_unpack_extra(k->extra, &info, unpacked)) != CUDA_SUCCESS) return e;
    if (k->extra) src = unpacked;
    if (info.nparams && !src) return CUDA_ERROR_INVALID_VALUE;
    nd->argbuf = calloc(1, info.param_bytes + 1);
    nd->argv = calloc((size_t)info.nparams + 1, sizeof *nd->argv);
    if (!nd->argbuf || !nd->argv) return CUDA_ERROR_OUT_OF_MEMORY;
    for (int i = 0; i < info.nparams; i++) {
        nd->argv[i] = nd->argbuf + info.param_offset[i];
        memcpy(nd->argv[i], src[i], info.param_size[i]);
    }
    k->func = f;
    k->kern = (CUkernel)(void *)f;   /* one object here; runtimes look for either */
    k->kernelParams = nd->argv;
    k->extra = NULL;
    k->ctx = nd->g->ctx;
    return CUDA_SUCCESS;
}

/* Whether a conditional handle may be used in g: made for g or a graph g is nested in. */
static int cond_handle_ok(CUgraph g, CUgraphConditionalHandle h);

static CUresult cond_params(CUgraphNode nd, CUDA_CONDITIONAL_NODE_PARAMS *c)
{
    unsigned sz = c->size;
    int ok = (c->type == CU_GRAPH_COND_TYPE_IF && (sz == 1 || sz == 2)) ||
             (c->type == CU_GRAPH_COND_TYPE_WHILE && sz == 1) ||
             (c->type == CU_GRAPH_COND_TYPE_SWITCH && sz >= 1);
    if (!ok || !cond_handle_ok(nd->g, c->handle)) return CUDA_ERROR_INVALID_VALUE;
    nd->bodies = calloc(sz, sizeof *nd->bodies);
    if (!nd->bodies) return CUDA_ERROR_OUT_OF_MEMORY;
    for (unsigned i = 0; i < sz; i++) {
        CUresult e = graph_new(nd->g->ctx, nd->g->exec_copy, &nd->bodies[i]);
        if (e != CUDA_SUCCESS) return e;
        nd->bodies[i]->owner = nd;
    }
    c->phGraph_out = nd->bodies;
    c->ctx = nd->g->ctx;
    return CUDA_SUCCESS;
}

static CUresult child_params(CUgraphNode nd, CUDA_CHILD_GRAPH_NODE_PARAMS *c)
{
    if (!graph_live(c->graph) || c->graph->owner) return CUDA_ERROR_INVALID_VALUE;
    CUgraph child = c->graph;
    if (c->ownership == CU_GRAPH_CHILD_GRAPH_OWNERSHIP_CLONE) {
        CUresult e = graph_clone(c->graph, nd->g->exec_copy, &child);
        if (e != CUDA_SUCCESS) return e;
    } else if (c->ownership != CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    child->owner = nd;
    c->graph = child;
    return CUDA_SUCCESS;
}

static CUresult memset_params(CUDA_MEMSET_NODE_PARAMS_v2 *m)
{
    CUDA_MEMSET_NODE_PARAMS v1 = { m->dst, m->pitch, m->value, m->elementSize, m->width, m->height };
    if (m->height <= 1) v1.pitch = m->width * m->elementSize;
    return drv_mem_fill(&v1, 1);
}

/* A free node among the ancestors of the node being added whose address an allocation of
 * `size` bytes may take: it frees a big enough allocation made by a node of the same graph,
 * and no other allocation node took it yet. The H100 gives such an allocation the freed one's
 * address (graphMemoryNodes checks it, captured and built by hand). */
static CUgraphNode reusable_free(CUgraphNode nd, const CUDA_MEM_ALLOC_NODE_PARAMS_v2 *want)
{
    CUgraph g = nd->g;
    CUgraphNode *stack = malloc((g->n + 1) * sizeof *stack), found = NULL;
    if (!stack) return NULL;
    size_t sp = 0;
    for (size_t i = 0; i < g->n; i++) g->nodes[i]->mark = 0;
    for (size_t i = 0; i < nd->nadding && sp < g->n; i++)
        if (!nd->adding[i]->mark) { nd->adding[i]->mark = 1; stack[sp++] = nd->adding[i]; }
    while (sp && !found) {
        CUgraphNode a = stack[--sp];
        if (a->p.type == CU_GRAPH_NODE_TYPE_MEM_FREE && !a->va_taken)
            for (size_t i = 0; i < g->n; i++) {
                CUgraphNode b = g->nodes[i];
                if (b->p.type == CU_GRAPH_NODE_TYPE_MEM_ALLOC && b->p.alloc.dptr == a->p.free.dptr &&
                    b->p.alloc.bytesize >= want->bytesize &&
                    b->p.alloc.poolProps.location.type == want->poolProps.location.type &&
                    b->p.alloc.poolProps.location.id == want->poolProps.location.id)
                    found = a;
            }
        for (size_t i = 0; i < a->ndeps; i++)
            if (!a->deps[i]->mark && sp < g->n) { a->deps[i]->mark = 1; stack[sp++] = a->deps[i]; }
    }
    free(stack);
    return found;
}

static CUresult alloc_params(CUgraphNode nd, CUDA_MEM_ALLOC_NODE_PARAMS_v2 *a)
{
    CUdeviceptr p;
    CUresult e = drv_graph_mem_reserve(nd->g->ctx, a, &p);   /* validates the parameters too */
    if (e != CUDA_SUCCESS) return e;
    CUgraphNode f = reusable_free(nd, a);
    if (f) {
        drv_graph_mem_release(p);
        f->va_taken = 1;
        p = f->p.free.dptr;
        drv_graph_mem_retain(p);
    }
    a->dptr = p;
    a->accessDescs = NULL;   /* the node does not keep the program's array */
    a->accessDescCount = 0;
    return CUDA_SUCCESS;
}

/* Validate p for nd's type and make nd's parameters a copy of it that nd owns. */
static CUresult params_take(CUgraphNode nd, CUgraphNodeParams *p)
{
    CUresult e = CUDA_SUCCESS;
    switch (p->type) {
    case CU_GRAPH_NODE_TYPE_KERNEL: e = kernel_params(nd, &p->kernel); break;
    case CU_GRAPH_NODE_TYPE_MEMCPY: e = drv_mem_copy3d(&p->memcpy.copyParams, 1); break;
    case CU_GRAPH_NODE_TYPE_MEMSET: e = memset_params(&p->memset); break;
    case CU_GRAPH_NODE_TYPE_HOST: if (!p->host.fn) e = CUDA_ERROR_INVALID_VALUE; break;
    case CU_GRAPH_NODE_TYPE_GRAPH: e = child_params(nd, &p->graph); break;
    case CU_GRAPH_NODE_TYPE_EMPTY: break;
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT: case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
        if (drv_handle_kind(p->eventWait.event) != H_EVENT) e = CUDA_ERROR_INVALID_VALUE;
        break;
    case CU_GRAPH_NODE_TYPE_MEM_ALLOC: e = alloc_params(nd, &p->alloc); break;
    case CU_GRAPH_NODE_TYPE_MEM_FREE:
        if (!drv_graph_mem_known(p->free.dptr) && !drv_mem_ok(p->free.dptr, 1))
            e = CUDA_ERROR_INVALID_VALUE;
        else if (drv_graph_mem_known(p->free.dptr)) drv_graph_mem_retain(p->free.dptr);
        break;
    case CU_GRAPH_NODE_TYPE_CONDITIONAL: e = cond_params(nd, &p->conditional); break;
    default: {
        static int told;
        if (!told++) drv_diag("graph nodes of type %d (external semaphores, batched memory "
                              "operations) are not implemented", (int)p->type);
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    }
    nd->p = *p;
    return e;
}

/* What a node owns through its parameters. */
static void params_release(CUgraphNode nd)
{
    free(nd->argbuf);
    free(nd->argv);
    nd->argbuf = NULL;
    nd->argv = NULL;
    if (nd->p.type == CU_GRAPH_NODE_TYPE_GRAPH && nd->p.graph.graph) graph_free(nd->p.graph.graph);
    if (nd->p.type == CU_GRAPH_NODE_TYPE_CONDITIONAL && nd->bodies)
        for (unsigned i = 0; i < nd->p.conditional.size; i++)
            if (nd->bodies[i]) graph_free(nd->bodies[i]);
    free(nd->bodies);
    nd->bodies = NULL;
    if (nd->p.type == CU_GRAPH_NODE_TYPE_MEM_ALLOC) drv_graph_mem_release(nd->p.alloc.dptr);
    if (nd->p.type == CU_GRAPH_NODE_TYPE_MEM_FREE && drv_graph_mem_known(nd->p.free.dptr))
        drv_graph_mem_release(nd->p.free.dptr);
    nd->p.type = CU_GRAPH_NODE_TYPE_EMPTY;
}

CUresult node_set_params(CUgraphNode nd, CUgraphNodeParams *p)
{
    if (!p || p->type != nd->p.type) return CUDA_ERROR_INVALID_VALUE;
    /* a child graph's topology is fixed: its nodes take the new graph's parameters */
    if (p->type == CU_GRAPH_NODE_TYPE_GRAPH || p->type == CU_GRAPH_NODE_TYPE_CONDITIONAL ||
        p->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC || p->type == CU_GRAPH_NODE_TYPE_MEM_FREE)
        return CUDA_ERROR_INVALID_VALUE;
    CUgraphNode tmp = calloc(1, sizeof *tmp);
    if (!tmp) return CUDA_ERROR_OUT_OF_MEMORY;
    tmp->g = nd->g;
    CUgraphNodeParams q = *p;
    CUresult e = params_take(tmp, &q);
    if (e == CUDA_SUCCESS) {
        params_release(nd);
        nd->p = tmp->p;
        nd->argbuf = tmp->argbuf;
        nd->argv = tmp->argv;
    } else {
        params_release(tmp);
    }
    free(tmp);
    return e;
}

CUresult graph_add(CUgraph g, const CUgraphNode *deps, size_t n, CUgraphNodeParams *p,
                   CUgraphNode *out)
{
    CUresult e = deps_check(g, deps, n);
    if (e != CUDA_SUCCESS) return e;
    CUgraphNode nd = calloc(1, sizeof *nd);
    if (!nd) return CUDA_ERROR_OUT_OF_MEMORY;
    nd->g = g;
    nd->enabled = 1;
    drv_attrs_init(&nd->attrs);
    nd->adding = deps;
    nd->nadding = n;
    e = params_take(nd, p);
    nd->adding = NULL;
    nd->nadding = 0;
    if (e != CUDA_SUCCESS ||
        push(&g->nodes, &g->n, &g->cap, nd) ||
        (!g->exec_copy && drv_handle_add(nd, H_GNODE))) {
        if (g->n && g->nodes[g->n - 1] == nd) g->n--;
        params_release(nd);
        free(nd);
        return e != CUDA_SUCCESS ? e : CUDA_ERROR_OUT_OF_MEMORY;
    }
    for (size_t i = 0; i < n && e == CUDA_SUCCESS; i++) e = edge_add(deps[i], nd);
    *out = nd;
    return e;
}

/* ---- clones ---- */

static CUgraphNodeParams typed(CUgraphNodeType t)
{
    CUgraphNodeParams p;
    memset(&p, 0, sizeof p);
    p.type = t;
    return p;
}

/* A copy of src in dst. Parameters that own graphs (child graphs, conditional bodies) get
 * copies of those; an allocation node's copy allocates at the same address (graph.h). */
static CUresult clone_node(CUgraph dst, CUgraphNode src, CUgraphNode *out)
{
    CUgraphNodeType t = src->p.type;
    int deep = t == CU_GRAPH_NODE_TYPE_GRAPH || t == CU_GRAPH_NODE_TYPE_CONDITIONAL ||
               t == CU_GRAPH_NODE_TYPE_MEM_ALLOC;
    CUgraphNodeParams p = deep ? typed(CU_GRAPH_NODE_TYPE_EMPTY) : src->p;
    CUresult e = graph_add(dst, NULL, 0, &p, out);
    if (e != CUDA_SUCCESS) return e;
    CUgraphNode nd = *out;
    nd->origin = src;
    nd->enabled = src->enabled;
    memcpy(nd->cluster, src->cluster, sizeof nd->cluster);
    nd->cooperative = src->cooperative;
    nd->attrs = src->attrs;
    if (!deep) return CUDA_SUCCESS;
    nd->p = src->p;
    if (t == CU_GRAPH_NODE_TYPE_MEM_ALLOC) {
        drv_graph_mem_retain(src->p.alloc.dptr);
    } else if (t == CU_GRAPH_NODE_TYPE_GRAPH) {
        nd->p.graph.graph = NULL;
        e = graph_clone(src->p.graph.graph, dst->exec_copy, &nd->p.graph.graph);
        if (e == CUDA_SUCCESS) nd->p.graph.graph->owner = nd;
    } else {
        unsigned sz = src->p.conditional.size;
        nd->bodies = calloc(sz, sizeof *nd->bodies);
        nd->p.conditional.phGraph_out = nd->bodies;
        if (!nd->bodies) return CUDA_ERROR_OUT_OF_MEMORY;
        for (unsigned i = 0; i < sz && e == CUDA_SUCCESS; i++) {
            e = graph_clone(src->bodies[i], dst->exec_copy, &nd->bodies[i]);
            if (e == CUDA_SUCCESS) nd->bodies[i]->owner = nd;
        }
    }
    return e;
}

CUresult graph_clone(CUgraph src, int exec_copy, CUgraph *out)
{
    CUgraph g;
    CUresult e = graph_new(src->ctx, exec_copy, &g);
    if (e != CUDA_SUCCESS) return e;
    for (size_t i = 0; i < src->n && e == CUDA_SUCCESS; i++) {
        CUgraphNode nd;
        src->nodes[i]->mark = i;   /* its index, to find the copy of each dependency */
        e = clone_node(g, src->nodes[i], &nd);
    }
    for (size_t i = 0; i < src->n && e == CUDA_SUCCESS; i++)
        for (size_t j = 0; j < src->nodes[i]->ndeps && e == CUDA_SUCCESS; j++)
            e = edge_add(g->nodes[src->nodes[i]->deps[j]->mark], g->nodes[i]);
    for (size_t i = 0; i < src->nrefs; i++) user_refs_add(g, src->refs[i].obj, src->refs[i].count);
    if (e != CUDA_SUCCESS) {
        graph_free(g);
        return e;
    }
    *out = g;
    return CUDA_SUCCESS;
}

/* ---- entry points: graphs ---- */

CUresult CUDAAPI cuGraphCreate(CUgraph *phGraph, unsigned int flags)
{
    CUcontext c;
    CUresult e = enter(&c);
    if (e != CUDA_SUCCESS) return e;
    if (!phGraph || flags) return leave(CUDA_ERROR_INVALID_VALUE);
    return leave(graph_new(c, 0, phGraph));
}

/* Graphs nested in a node belong to the node and are destroyed with it. */
CUresult CUDAAPI cuGraphDestroy(CUgraph hGraph)
{
    CUcontext c;
    CUresult e = enter(&c);
    if (e != CUDA_SUCCESS) return e;
    if (!graph_live(hGraph) || hGraph->owner) return leave(CUDA_ERROR_INVALID_VALUE);
    graph_free(hGraph);
    return leave(CUDA_SUCCESS);
}

CUresult CUDAAPI cuGraphClone(CUgraph *phGraphClone, CUgraph originalGraph)
{
    CUcontext c;
    CUresult e = enter(&c);
    if (e != CUDA_SUCCESS) return e;
    if (!phGraphClone || !graph_live(originalGraph)) return leave(CUDA_ERROR_INVALID_VALUE);
    return leave(graph_clone(originalGraph, 0, phGraphClone));
}

CUresult CUDAAPI cuGraphNodeFindInClone(CUgraphNode *phNode, CUgraphNode hOriginalNode,
                                        CUgraph hClonedGraph)
{
    CUcontext c;
    CUresult e = enter(&c);
    if (e != CUDA_SUCCESS) return e;
    if (!phNode || !graph_live(hClonedGraph)) return leave(CUDA_ERROR_INVALID_VALUE);
    for (size_t i = 0; i < hClonedGraph->n; i++)
        if (hClonedGraph->nodes[i]->origin == hOriginalNode) {
            *phNode = hClonedGraph->nodes[i];
            return leave(CUDA_SUCCESS);
        }
    return leave(CUDA_ERROR_INVALID_VALUE);
}

/* ---- entry points: adding nodes ---- */

static CUresult add_node(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t n,
                         const CUgraphEdgeData *edges, CUgraphNodeParams *p)
{
    CUcontext c;
    CUresult e = enter(&c);
    if (e != CUDA_SUCCESS) return e;
    if (!out || !graph_live(g)) return leave(CUDA_ERROR_INVALID_VALUE);
    for (size_t i = 0; edges && i < n; i++)
        if (edges[i].type != CU_GRAPH_DEPENDENCY_TYPE_DEFAULT || edges[i].from_port || edges[i].to_port) {
            drv_diag("graph edges other than full dependencies (programmatic ports) are not implemented");
            return leave(CUDA_ERROR_NOT_SUPPORTED);
        }
    return leave(graph_add(g, deps, n, p, out));
}

CUresult CUDAAPI cuGraphAddNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph,
                                   const CUgraphNode *dependencies, const CUgraphEdgeData *dependencyData,
                                   size_t numDependencies, CUgraphNodeParams *nodeParams)
{
    if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
    return add_node(phGraphNode, hGraph, dependencies, numDependencies, dependencyData, nodeParams);
}

/* the CUDA 12 form, without edge data */
#undef cuGraphAddNode
CUresult CUDAAPI cuGraphAddNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                const CUgraphNode *dependencies, size_t numDependencies,
                                CUgraphNodeParams *nodeParams);
CUresult CUDAAPI cuGraphAddNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                const CUgraphNode *dependencies, size_t numDependencies,
                                CUgraphNodeParams *nodeParams)
{
    return cuGraphAddNode_v2(phGraphNode, hGraph, dependencies, NULL, numDependencies, nodeParams);
}

CUresult CUDAAPI cuGraphAddKernelNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph,
                                         const CUgraphNode *dependencies, size_t numDependencies,
                                         const CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
    if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
    CUgraphNodeParams p = typed(CU_GRAPH_NODE_TYPE_KERNEL);
    memcpy(&p.kernel, nodeParams, sizeof *nodeParams);
    return add_node(phGraphNode, hGraph, dependencies, numDependencies, NULL, &p);
}

CUresult CUDAAPI cuGraphAddMemcpyNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                      const CUgraphNode *dependencies, size_t numDependencies,
                                      const CUDA_MEMCPY3D *copyParams, CUcontext ctx)
{
    if (!copyParams) return CUDA_ERROR_INVALID_VALUE;
    CUgraphNodeParams p = typed(CU_GRAPH_NODE_TYPE_MEMCPY);
    p.memcpy.copyParams = *copyParams;
    p.memcpy.copyCtx = ctx;
    return add_node(phGraphNode, hGraph, dependencies, numDependencies, NULL, &p);
}

CUresult CUDAAPI cuGraphAddMemsetNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                      const CUgraphNode *dependencies, size_t numDependencies,
                                      const CUDA_MEMSET_NODE_PARAMS *memsetParams, CUcontext ctx)
{
    if (!memsetParams) return CUDA_ERROR_INVALID_VALUE;
    CUgraphNodeParams p = typed(CU_GRAPH_NODE_TYPE_MEMSET);
    memcpy(&p.memset, memsetParams, sizeof *memsetParams);
    p.memset.ctx = ctx;
    return add_node(phGraphNode, hGraph, dependencies, numDependencies, NULL, &p);
}

CUresult CUDAAPI cuGraphAddHostNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                    const CUgraphNode *dependencies, size_t numDependencies,
                                    const CUDA_HOST_NODE_PARAMS *nodeParams)
{
    if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
    CUgraphNodeParams p = typed(CU_GRAPH_NODE_TYPE_HOST);
    p.host.fn = nodeParams->fn;
    p.host.userData = nodeParams->userData;
    return add_node(phGraphNode, hGraph, dependencies, numDependencies, NULL, &p);
}

CUresult CUDAAPI cuGraphAddChildGraphNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                          const CUgraphNode *dependencies, size_t numDependencies,
                                          CUgraph childGraph)
{
    CUgraphNodeParams p = typed(CU_GRAPH_NODE_TYPE_GRAPH);
    p.graph.graph = childGraph;
    return add_node(phGraphNode, hGraph, dependencies, numDependencies, NULL, &p);
}

CUresult CUDAAPI cuGraphAddEmptyNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                     const CUgraphNode *dependencies, size_t numDependencies)
{
    CUgraphNodeParams p = typed(CU_GRAPH_NODE_TYPE_EMPTY);
    return add_node(phGraphNode, hGraph, dependencies, numDependencies, NULL, &p);
}

CUresult CUDAAPI cuGraphAddEventRecordNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                           const CUgraphNode *dependencies, size_t numDependencies,
                                           CUevent event)
{
    CUgraphNodeParams p = typed(CU_GRAPH_NODE_TYPE_EVENT_RECORD);
    p.eventRecord.event = event;
    return add_node(phGraphNode, hGraph, dependencies, numDependencies, NULL, &p);
}

CUresult CUDAAPI cuGraphAddEventWaitNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                         const CUgraphNode *dependencies, size_t numDependencies,
                                         CUevent event)
{
    CUgraphNodeParams p = typed(CU_GRAPH_NODE_TYPE_WAIT_EVENT);
    p.eventWait.event = event;
    return add_node(phGraphNode, hGraph, dependencies, numDependencies, NULL, &p);
}

CUresult CUDAAPI cuGraphAddMemAllocNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                        const CUgraphNode *dependencies, size_t numDependencies,
                                        CUDA_MEM_ALLOC_NODE_PARAMS *nodeParams)
{
    if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
    CUgraphNodeParams p = typed(CU_GRAPH_NODE_TYPE_MEM_ALLOC);
    memcpy(&p.alloc, nodeParams, sizeof *nodeParams);
    CUresult e = add_node(phGraphNode, hGraph, dependencies, numDependencies, NULL, &p);
    if (e == CUDA_SUCCESS) nodeParams->dptr = p.alloc.dptr;
    return e;
}

CUresult CUDAAPI cuGraphAddMemFreeNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                       const CUgraphNode *dependencies, size_t numDependencies,
                                       CUdeviceptr dptr)
{
    CUgraphNodeParams p = typed(CU_GRAPH_NODE_TYPE_MEM_FREE);
    p.free.dptr = dptr;
    return add_node(phGraphNode, hGraph, dependencies, numDependencies, NULL, &p);
}

/* ---- entry points: node parameters ---- */

/* The node of type t behind a handle, under the lock (released on error). */
static CUresult node_enter(CUgraphNode n, int t, CUgraphNode *out)
{
    CUcontext c;
    CUresult e = enter(&c);
    if (e != CUDA_SUCCESS) return e;
    if (!node_live(n) || (t >= 0 && n->p.type != (CUgraphNodeType)t)) return leave(CUDA_ERROR_INVALID_VALUE);
    *out = n;
    return CUDA_SUCCESS;
}

#define NODE_GET(h, t, out, expr)                                         \
    do {                                                                  \
        CUgraphNode n_;                                                   \
        if (!(out)) return CUDA_ERROR_INVALID_VALUE;                      \
        CUresult e_ = node_enter(h, t, &n_);                              \
        if (e_ != CUDA_SUCCESS) return e_;                                \
        expr;                                                             \
        return leave(CUDA_SUCCESS);                                       \
    } while (0)

#define NODE_SET(h, t, fill)                                              \
    do {                                                                  \
        CUgraphNode n_;                                                   \
        CUresult e_ = node_enter(h, t, &n_);                              \
        if (e_ != CUDA_SUCCESS) return e_;                                \
        CUgraphNodeParams p_ = typed(t);                                  \
        fill;                                                             \
        return leave(node_set_params(n_, &p_));                           \
    } while (0)

CUresult CUDAAPI cuGraphNodeGetType(CUgraphNode hNode, CUgraphNodeType *type)
{
    NODE_GET(hNode, -1, type, *type = n_->p.type);
}

CUresult CUDAAPI cuGraphKernelNodeGetParams_v2(CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
    NODE_GET(hNode, CU_GRAPH_NODE_TYPE_KERNEL, nodeParams,
             memcpy(nodeParams, &n_->p.kernel, sizeof *nodeParams));
}

CUresult CUDAAPI cuGraphKernelNodeSetParams_v2(CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
    if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
    NODE_SET(hNode, CU_GRAPH_NODE_TYPE_KERNEL, memcpy(&p_.kernel, nodeParams, sizeof *nodeParams));
}

/* ---- kernel node attributes: cluster shape and cooperation change the launch; the rest
 * are kept ---- */

/* All three dimensions, or none (0, 0, 0: no cluster). */
static CUresult cluster_attr(CUgraphNode nd, CUlaunchAttributeValue *v, int set)
{
    unsigned *c = nd->cluster;
    if (!set) {
        v->clusterDim.x = c[0];
        v->clusterDim.y = c[1];
        v->clusterDim.z = c[2];
        return CUDA_SUCCESS;
    }
    unsigned x = v->clusterDim.x, y = v->clusterDim.y, z = v->clusterDim.z;
    if ((!x || !y || !z) && (x || y || z)) return CUDA_ERROR_INVALID_VALUE;
    c[0] = x;
    c[1] = y;
    c[2] = z;
    return CUDA_SUCCESS;
}

static CUresult kernel_attr(CUgraphNode h, CUkernelNodeAttrID id, CUkernelNodeAttrValue *v, int set)
{
    if (!v) return CUDA_ERROR_INVALID_VALUE;
    CUgraphNode nd;
    CUresult e = node_enter(h, CU_GRAPH_NODE_TYPE_KERNEL, &nd);
    if (e != CUDA_SUCCESS) return e;
    CUdevice dev = nd->g->ctx ? nd->g->ctx->device : 0;
    if (id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) e = cluster_attr(nd, v, set);
    else if (id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE && set) nd->cooperative = v->cooperative != 0;
    else if (id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE) v->cooperative = nd->cooperative;
    else if (set) e = drv_attr_set(&nd->attrs, dev, id, v);
    else e = drv_attr_get(&nd->attrs, id, v);
    return leave(e);
}

CUresult CUDAAPI cuGraphKernelNodeGetAttribute(CUgraphNode hNode, CUkernelNodeAttrID attr,
                                               CUkernelNodeAttrValue *value_out)
{
    return kernel_attr(hNode, attr, value_out, 0);
}

CUresult CUDAAPI cuGraphKernelNodeSetAttribute(CUgraphNode hNode, CUkernelNodeAttrID attr,
                                               const CUkernelNodeAttrValue *value)
{
    return kernel_attr(hNode, attr, (CUkernelNodeAttrValue *)value, 1);
}

CUresult CUDAAPI cuGraphKernelNodeCopyAttributes(CUgraphNode dst, CUgraphNode src)
{
    CUgraphNode d, s;
    CUresult e = node_enter(src, CU_GRAPH_NODE_TYPE_KERNEL, &s);
    if (e != CUDA_SUCCESS) return e;
    if (!node_live(dst) || dst->p.type != CU_GRAPH_NODE_TYPE_KERNEL) return leave(CUDA_ERROR_INVALID_VALUE);
    d = dst;
    memcpy(d->cluster, s->cluster, sizeof d->cluster);
    d->cooperative = s->cooperative;
    d->attrs = s->attrs;
    return leave(CUDA_SUCCESS);
}

/* The first kernel node parameters (CUDA 10) lack the kernel handle and context. */
#undef cuGraphAddKernelNode
#undef cuGraphKernelNodeGetParams
#undef cuGraphKernelNodeSetParams
CUresult CUDAAPI cuGraphAddKernelNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                      const CUgraphNode *dependencies, size_t numDependencies,
                                      const CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams);
CUresult CUDAAPI cuGraphKernelNodeGetParams(CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams);
CUresult CUDAAPI cuGraphKernelNodeSetParams(CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams);

CUresult CUDAAPI cuGraphAddKernelNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                      const CUgraphNode *dependencies, size_t numDependencies,
                                      const CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams)
{
    CUDA_KERNEL_NODE_PARAMS p = { 0 };
    if (nodeParams) memcpy(&p, nodeParams, sizeof *nodeParams);
    return cuGraphAddKernelNode_v2(phGraphNode, hGraph, dependencies, numDependencies,
                                   nodeParams ? &p : NULL);
}

CUresult CUDAAPI cuGraphKernelNodeGetParams(CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams)
{
    NODE_GET(hNode, CU_GRAPH_NODE_TYPE_KERNEL, nodeParams,
             memcpy(nodeParams, &n_->p.kernel, sizeof *nodeParams));
}

CUresult CUDAAPI cuGraphKernelNodeSetParams(CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams)
{
    if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
    NODE_SET(hNode, CU_GRAPH_NODE_TYPE_KERNEL, memcpy(&p_.kernel, nodeParams, sizeof *nodeParams));
}

CUresult CUDAAPI cuGraphMemcpyNodeGetParams(CUgraphNode hNode, CUDA_MEMCPY3D *nodeParams)
{
    NODE_GET(hNode, CU_GRAPH_NODE_TYPE_MEMCPY, nodeParams, *nodeParams = n_->p.memcpy.copyParams);
}

CUresult CUDAAPI cuGraphMemcpyNodeSetParams(CUgraphNode hNode, const CUDA_MEMCPY3D *nodeParams)
{
    if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
    NODE_SET(hNode, CU_GRAPH_NODE_TYPE_MEMCPY, p_.memcpy.copyParams = *nodeParams);
}

CUresult CUDAAPI cuGraphMemsetNodeGetParams(CUgraphNode hNode, CUDA_MEMSET_NODE_PARAMS *nodeParams)
{
    NODE_GET(hNode, CU_GRAPH_NODE_TYPE_MEMSET, nodeParams,
             memcpy(nodeParams, &n_->p.memset, sizeof *nodeParams));
}

CUresult CUDAAPI cuGraphMemsetNodeSetParams(CUgraphNode hNode, const CUDA_MEMSET_NODE_PARAMS *nodeParams)
{
    if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
    NODE_SET(hNode, CU_GRAPH_NODE_TYPE_MEMSET, memcpy(&p_.memset, nodeParams, sizeof *nodeParams));
}

CUresult CUDAAPI cuGraphHostNodeGetParams(CUgraphNode hNode, CUDA_HOST_NODE_PARAMS *nodeParams)
{
    NODE_GET(hNode, CU_GRAPH_NODE_TYPE_HOST, nodeParams,
             (nodeParams->fn = n_->p.host.fn, nodeParams->userData = n_->p.host.userData));
}

CUresult CUDAAPI cuGraphHostNodeSetParams(CUgraphNode hNode, const CUDA_HOST_NODE_PARAMS *nodeParams)
{
    if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
    NODE_SET(hNode, CU_GRAPH_NODE_TYPE_HOST,
             (p_.host.fn = nodeParams->fn, p_.host.userData = nodeParams->userData));
}

CUresult CUDAAPI cuGraphChildGraphNodeGetGraph(CUgraphNode hNode, CUgraph *phGraph)
{
    NODE_GET(hNode, CU_GRAPH_NODE_TYPE_GRAPH, phGraph, *phGraph = n_->p.graph.graph);
}

CUresult CUDAAPI cuGraphEventRecordNodeGetEvent(CUgraphNode hNode, CUevent *event_out)
{
    NODE_GET(hNode, CU_GRAPH_NODE_TYPE_EVENT_RECORD, event_out, *event_out = n_->p.eventRecord.event);
}

CUresult CUDAAPI cuGraphEventRecordNodeSetEvent(CUgraphNode hNode, CUevent event)
{
    NODE_SET(hNode, CU_GRAPH_NODE_TYPE_EVENT_RECORD, p_.eventRecord.event = event);
}

CUresult CUDAAPI cuGraphEventWaitNodeGetEvent(CUgraphNode hNode, CUevent *event_out)
{
    NODE_GET(hNode, CU_GRAPH_NODE_TYPE_WAIT_EVENT, event_out, *event_out = n_->p.eventWait.event);
}

CUresult CUDAAPI cuGraphEventWaitNodeSetEvent(CUgraphNode hNode, CUevent event)
{
    NODE_SET(hNode, CU_GRAPH_NODE_TYPE_WAIT_EVENT, p_.eventWait.event = event);
}

CUresult CUDAAPI cuGraphMemAllocNodeGetParams(CUgraphNode hNode, CUDA_MEM_ALLOC_NODE_PARAMS *params_out)
{
    NODE_GET(hNode, CU_GRAPH_NODE_TYPE_MEM_ALLOC, params_out,
             memcpy(params_out, &n_->p.alloc, sizeof *params_out));
}

CUresult CUDAAPI cuGraphMemFreeNodeGetParams(CUgraphNode hNode, CUdeviceptr *dptr_out)
{
    NODE_GET(hNode, CU_GRAPH_NODE_TYPE_MEM_FREE, dptr_out, *dptr_out = n_->p.free.dptr);
}

CUresult CUDAAPI cuGraphNodeSetParams(CUgraphNode hNode, CUgraphNodeParams *nodeParams)
{
    CUgraphNode n;
    if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
    CUresult e = node_enter(hNode, -1, &n);
    return e != CUDA_SUCCESS ? e : leave(node_set_params(n, nodeParams));
}

/* ---- entry points: structure ---- */

/* Copy up to *n of k nodes (and zeroed edge data) out; *n becomes k when arr is NULL. */
static void list_out(CUgraphNode *arr, CUgraphEdgeData *ed, size_t *n, CUgraphNode const *src,
                     size_t k)
{
    if (!arr) { *n = k; return; }
    size_t m = k < *n ? k : *n;
    for (size_t i = 0; i < m; i++) arr[i] = src[i];
    if (ed) memset(ed, 0, m * sizeof *ed);
    for (size_t i = m; i < *n; i++) arr[i] = NULL;
    *n = m;
}

CUresult CUDAAPI cuGraphGetNodes(CUgraph hGraph, CUgraphNode *nodes, size_t *numNodes)
{
    CUcontext c;
    CUresult e = enter(&c);
    if (e != CUDA_SUCCESS) return e;
    if (!graph_live(hGraph) || !numNodes) return leave(CUDA_ERROR_INVALID_VALUE);
    list_out(nodes, NULL, numNodes, hGraph->nodes, hGraph->n);
    return leave(CUDA_SUCCESS);
}

CUresult CUDAAPI cuGraphGetRootNodes(CUgraph hGraph, CUgraphNode *rootNodes, size_t *numRootNodes)
{
    CUcontext c;
    CUresult e = enter(&c);
    if (e != CUDA_SUCCESS) return e;
    if (!graph_live(hGraph) || !numRootNodes) return leave(CUDA_ERROR_INVALID_VALUE);
    CUgraphNode roots[hGraph->n + 1];
    size_t k = 0;
    for (size_t i = 0; i < hGraph->n; i++)
        if (!hGraph->nodes[i]->ndeps) roots[k++] = hGraph->nodes[i];
    list_out(rootNodes, NULL, numRootNodes, roots, k);
    return leave(CUDA_SUCCESS);
}

CUresult CUDAAPI cuGraphGetEdges_v2(CUgraph hGraph, CUgraphNode *from, CUgraphNode *to,
                                    CUgraphEdgeData *edgeData, size_t *numEdges)
{
    CUcontext c;
    CUresult e = enter(&c);
    if (e != CUDA_SUCCESS) return e;
    if (!graph_live(hGraph) || !numEdges || (!from) != (!to)) return leave(CUDA_ERROR_INVALID_VALUE);
    size_t k = 0;
    for (size_t i = 0; i < hGraph->n; i++) {
        CUgraphNode nd = hGraph->nodes[i];
        for (size_t j = 0; j < nd->ndeps; j++, k++)
            if (from && k < *numEdges) {
                from[k] = nd->deps[j];
                to[k] = nd;
                if (edgeData) memset(&edgeData[k], 0, sizeof *edgeData);
            }
    }
    for (size_t i = k; from && i < *numEdges; i++) from[i] = to[i] = NULL;
    if (!from || k < *numEdges) *numEdges = k;
    return leave(CUDA_SUCCESS);
}

/* the CUDA 12 form, without edge data */
#undef cuGraphGetEdges
CUresult CUDAAPI cuGraphGetEdges(CUgraph hGraph, CUgraphNode *from, CUgraphNode *to, size_t *numEdges);
CUresult CUDAAPI cuGraphGetEdges(CUgraph hGraph, CUgraphNode *from, CUgraphNode *to, size_t *numEdges)
{
    return cuGraphGetEdges_v2(hGraph, from, to, NULL, numEdges);
}

CUresult CUDAAPI cuGraphNodeGetDependencies_v2(CUgraphNode hNode, CUgraphNode *dependencies,
                                               CUgraphEdgeData *edgeData, size_t *numDependencies)
{
    NODE_GET(hNode, -1, numDependencies,
             list_out(dependencies, edgeData, numDependencies, n_->deps, n_->ndeps));
}

/* the CUDA 12 form, without edge data */
#undef cuGraphNodeGetDependencies
CUresult CUDAAPI cuGraphNodeGetDependencies(CUgraphNode hNode, CUgraphNode *dependencies,
                                            size_t *numDependencies);
CUresult CUDAAPI cuGraphNodeGetDependencies(CUgraphNode hNode, CUgraphNode *dependencies,
                                            size_t *numDependencies)
{
    return cuGraphNodeGetDependencies_v2(hNode, dependencies, NULL, numDependencies);
}

CUresult CUDAAPI cuGraphNodeGetDependentNodes_v2(CUgraphNode hNode, CUgraphNode *dependentNodes,
                                                 CUgraphEdgeData *edgeData, size_t *numDependentNodes)
{
    NODE_GET(hNode, -1, numDependentNodes,
             list_out(dependentNodes, edgeData, numDependentNodes, n_->outs, n_->nouts));
}

/* the CUDA 12 form, without edge data */
#undef cuGraphNodeGetDependentNodes
CUresult CUDAAPI cuGraphNodeGetDependentNodes(CUgraphNode hNode, CUgraphNode *dependentNodes,
                                              size_t *numDependentNodes);
CUresult CUDAAPI cuGraphNodeGetDependentNodes(CUgraphNode hNode, CUgraphNode *dependentNodes,
                                              size_t *numDependentNodes)
{
    return cuGraphNodeGetDependentNodes_v2(hNode, dependentNodes, NULL, numDependentNodes);
}

/* Each pair must be two nodes of the graph; adding an existing edge, or one from a node to
 * itself, is INVALID_VALUE, and so is removing one that is not there. */
static CUresult edges_change(CUgraph g, const CUgraphNode *from, const CUgraphNode *to,
                             size_t n, int add)
{
    CUcontext c;
    CUresult e = enter(&c);
    if (e != CUDA_SUCCESS) return e;
    if (!graph_live(g) || (n && (!from || !to))) return leave(CUDA_ERROR_INVALID_VALUE);
    for (size_t i = 0; i < n; i++) {
        if (!node_live(from[i]) || !node_live(to[i]) || from[i]->g != g || to[i]->g != g ||
            from[i] == to[i] || has_edge(from[i], to[i]) == add)
            return leave(CUDA_ERROR_INVALID_VALUE);
    }
    for (size_t i = 0; i < n && e == CUDA_SUCCESS; i++) {
        if (add) {
            e = edge_add(from[i], to[i]);
        } else {
            remove_one(to[i]->deps, &to[i]->ndeps, from[i]);
            remove_one(from[i]->outs, &from[i]->nouts, to[i]);
        }
    }
    return leave(e);
}

CUresult CUDAAPI cuGraphAddDependencies_v2(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
                                           const CUgraphEdgeData *edgeData, size_t numDependencies)
{
    (void)edgeData;
    return edges_change(hGraph, from, to, numDependencies, 1);
}

/* the CUDA 12 form, without edge data */
#undef cuGraphAddDependencies
CUresult CUDAAPI cuGraphAddDependencies(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
                                        size_t numDependencies);
CUresult CUDAAPI cuGraphAddDependencies(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
                                        size_t numDependencies)
{
    return edges_change(hGraph, from, to, numDependencies, 1);
}

CUresult CUDAAPI cuGraphRemoveDependencies_v2(CUgraph hGraph, const CUgraphNode *from,
                                              const CUgraphNode *to, const CUgraphEdgeData *edgeData,
                                              size_t numDependencies)
{
    (void)edgeData;
    return edges_change(hGraph, from, to, numDependencies, 0);
}

/* the CUDA 12 form, without edge data */
#undef cuGraphRemoveDependencies
CUresult CUDAAPI cuGraphRemoveDependencies(CUgraph hGraph, const CUgraphNode *from,
                                           const CUgraphNode *to, size_t numDependencies);
CUresult CUDAAPI cuGraphRemoveDependencies(CUgraph hGraph, const CUgraphNode *from,
                                           const CUgraphNode *to, size_t numDependencies)
{
    return edges_change(hGraph, from, to, numDependencies, 0);
}

CUresult CUDAAPI cuGraphDestroyNode(CUgraphNode hNode)
{
    CUgraphNode nd;
    CUresult e = node_enter(hNode, -1, &nd);
    if (e != CUDA_SUCCESS) return e;
    for (size_t i = 0; i < nd->ndeps; i++) remove_one(nd->deps[i]->outs, &nd->deps[i]->nouts, nd);
    for (size_t i = 0; i < nd->nouts; i++) remove_one(nd->outs[i]->deps, &nd->outs[i]->ndeps, nd);
    remove_one(nd->g->nodes, &nd->g->n, nd);
    node_free(nd);
    return leave(CUDA_SUCCESS);
}

/* ---- conditional handles ----
 * A handle is the device address of the condition's 32-bit value, which the kernel-side
 * cudaGraphSetConditional (emu/exec_call.c) writes and a conditional node reads. The values
 * live as long as the context: executable graphs keep using them after their graph goes. */

typedef struct Cond { CUgraphConditionalHandle h; CUgraph g; unsigned dflt, flags; } Cond;
static Cond *conds;
static size_t nconds, capconds;

static Cond *cond_find(CUgraphConditionalHandle h)
{
    for (size_t i = 0; i < nconds; i++)
        if (conds[i].h == h) return &conds[i];
    return NULL;
}

static void cond_forget(CUgraph g)
{
    for (size_t i = 0; i < nconds; i++)
        if (conds[i].g == g) conds[i].g = NULL;
}

static int cond_handle_ok(CUgraph g, CUgraphConditionalHandle h)
{
    Cond *c = cond_find(h);
    for (; c && g; g = g->owner ? g->owner->g : NULL)
        if (c->g == g) return 1;
    return 0;
}

/* The handles made for g, with their default; exec copies find theirs by the original. */
size_t graph_cond_defaults(CUgraph g, CUgraphConditionalHandle *h, unsigned *dflt, size_t max)
{
    size_t k = 0;
    for (size_t i = 0; i < nconds && k < max; i++)
        if (conds[i].g == g && (conds[i].flags & CU_GRAPH_COND_ASSIGN_DEFAULT)) {
            h[k] = conds[i].h;
            dflt[k++] = conds[i].dflt;
        }
    return k;
}

CUresult CUDAAPI cuGraphConditionalHandleCreate(CUgraphConditionalHandle *pHandle_out, CUgraph hGraph,
                                                CUcontext ctx, unsigned int defaultLaunchValue,
                                                unsigned int flags)
{
    CUcontext c;
    CUresult e = enter(&c);
    if (e != CUDA_SUCCESS) return e;
    if (!pHandle_out || !graph_live(hGraph) || (flags & ~(unsigned)CU_GRAPH_COND_ASSIGN_DEFAULT) ||
        (ctx && ctx != hGraph->ctx))
        return leave(CUDA_ERROR_INVALID_VALUE);
    if (nconds == capconds) {
        size_t nc = capconds ? capconds * 2 : 16;
        Cond *n = realloc(conds, nc * sizeof *n);
        if (!n) return leave(CUDA_ERROR_OUT_OF_MEMORY);
        conds = n;
        capconds = nc;
    }
    uint64_t addr;
    if ((e = drv_mem_alloc_device(hGraph->ctx, &addr, sizeof(unsigned))) != CUDA_SUCCESS)
        return leave(e);
    *(unsigned *)(uintptr_t)addr = defaultLaunchValue;
    conds[nconds++] = (Cond){ addr, hGraph, defaultLaunchValue, flags };
    *pHandle_out = addr;
    return leave(CUDA_SUCCESS);
}

/* ---- user objects ---- */

struct CUuserObject_st { void *ptr; CUhostFn destroy; unsigned refs; };

static CUresult user_release(CUuserObject o, unsigned count)
{
    if (drv_handle_kind(o) != H_USEROBJ || count == 0 || count > o->refs) return CUDA_ERROR_INVALID_VALUE;
    o->refs -= count;
    if (o->refs) return CUDA_SUCCESS;
    drv_handle_del(o);
    /* the GPU driver calls it later from a thread of its own; it may not call CUDA either */
    o->destroy(o->ptr);
    free(o);
    return CUDA_SUCCESS;
}

void user_refs_add(CUgraph g, CUuserObject o, unsigned count)
{
    o->refs += count;
    for (size_t i = 0; i < g->nrefs; i++)
        if (g->refs[i].obj == o) { g->refs[i].count += count; return; }
    UserRef *r = realloc(g->refs, (g->nrefs + 1) * sizeof *r);
    if (!r) return;
    g->refs = r;
    g->refs[g->nrefs++] = (UserRef){ o, count };
}

void user_refs_release_all(CUgraph g)
{
    for (size_t i = 0; i < g->nrefs; i++) user_release(g->refs[i].obj, g->refs[i].count);
    free(g->refs);
    g->refs = NULL;
    g->nrefs = 0;
}

CUresult CUDAAPI cuUserObjectCreate(CUuserObject *object_out, void *ptr, CUhostFn destroy,
                                    unsigned int initialRefcount, unsigned int flags)
{
    CUcontext c;
    CUresult e = enter(&c);
    if (e != CUDA_SUCCESS) return e;
    if (!object_out || !destroy || !initialRefcount || flags != CU_USER_OBJECT_NO_DESTRUCTOR_SYNC)
        return leave(CUDA_ERROR_INVALID_VALUE);
    CUuserObject o = calloc(1, sizeof *o);
    if (!o || drv_handle_add(o, H_USEROBJ)) {
        free(o);
        return leave(CUDA_ERROR_OUT_OF_MEMORY);
    }
    *o = (struct CUuserObject_st){ ptr, destroy, initialRefcount };
    *object_out = o;
    return leave(CUDA_SUCCESS);
}

CUresult CUDAAPI cuUserObjectRetain(CUuserObject object, unsigned int count)
{
    CUcontext c;
    CUresult e = enter(&c);
    if (e != CUDA_SUCCESS) return e;
    if (drv_handle_kind(object) != H_USEROBJ || !count) return leave(CUDA_ERROR_INVALID_VALUE);
    object->refs += count;
    return leave(CUDA_SUCCESS);
}

CUresult CUDAAPI cuUserObjectRelease(CUuserObject object, unsigned int count)
{
    CUcontext c;
    CUresult e = enter(&c);
    if (e != CUDA_SUCCESS) return e;
    return leave(user_release(object, count));
}

/* CU_GRAPH_USER_OBJECT_MOVE hands over references the caller holds instead of adding. */
CUresult CUDAAPI cuGraphRetainUserObject(CUgraph graph, CUuserObject object, unsigned int count,
                                         unsigned int flags)
{
    CUcontext c;
    CUresult e = enter(&c);
    if (e != CUDA_SUCCESS) return e;
    if (!graph_live(graph) || drv_handle_kind(object) != H_USEROBJ || !count ||
        (flags & ~(unsigned)CU_GRAPH_USER_OBJECT_MOVE) ||
        ((flags & CU_GRAPH_USER_OBJECT_MOVE) && count > object->refs))
        return leave(CUDA_ERROR_INVALID_VALUE);
    user_refs_add(graph, object, count);
    if (flags & CU_GRAPH_USER_OBJECT_MOVE) object->refs -= count;
    return leave(CUDA_SUCCESS);
}

CUresult CUDAAPI cuGraphReleaseUserObject(CUgraph graph, CUuserObject object, unsigned int count)
{
    CUcontext c;
    CUresult e = enter(&c);
    if (e != CUDA_SUCCESS) return e;
    if (!graph_live(graph) || !count) return leave(CUDA_ERROR_INVALID_VALUE);
    for (size_t i = 0; i < graph->nrefs; i++)
        if (graph->refs[i].obj == object && graph->refs[i].count >= count) {
            graph->refs[i].count -= count;
            return leave(user_release(object, count));
        }
    return leave(CUDA_ERROR_INVALID_VALUE);
}

/* ---- DOT ---- */

static const char *type_name(CUgraphNodeType t)
{
    static const char *const names[] = { "KERNEL", "MEMCPY", "MEMSET", "HOST", "GRAPH", "EMPTY",
                                         "WAIT_EVENT", "EVENT_RECORD", "EXT_SEMAS_SIGNAL",
                                         "EXT_SEMAS_WAIT", "MEM_ALLOC", "MEM_FREE", "BATCH_MEM_OP",
                                         "CONDITIONAL" };
    return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "UNKNOWN";
}

static void dot_graph(FILE *f, CUgraph g, const char *prefix)
{
    for (size_t i = 0; i < g->n; i++) {
        CUgraphNode nd = g->nodes[i];
        nd->mark = i;
        fprintf(f, "  \"%s%zu\" [label=\"%s %zu\"];\n", prefix, i, type_name(nd->p.type), i);
    }
    for (size_t i = 0; i < g->n; i++)
        for (size_t j = 0; j < g->nodes[i]->ndeps; j++)
            fprintf(f, "  \"%s%zu\" -> \"%s%zu\";\n", prefix, g->nodes[i]->deps[j]->mark, prefix, i);
}

CUresult CUDAAPI cuGraphDebugDotPrint(CUgraph hGraph, const char *path, unsigned int flags)
{
    (void)flags;   /* every node is shown with its type; parameters are not */
    CUcontext c;
    CUresult e = enter(&c);
    if (e != CUDA_SUCCESS) return e;
    if (!graph_live(hGraph) || !path) return leave(CUDA_ERROR_INVALID_VALUE);
    FILE *f = fopen(path, "w");
    if (!f) return leave(CUDA_ERROR_OPERATING_SYSTEM);
    fprintf(f, "digraph dot {\n");
    dot_graph(f, hGraph, "n");
    fprintf(f, "}\n");
    return leave(fclose(f) ? CUDA_ERROR_OPERATING_SYSTEM : CUDA_SUCCESS);
}
