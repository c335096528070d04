/* graph_api.c - CUDA graphs and stream capture, over the driver's cuGraph* and cuStream*
 * capture calls (cudaGraph_t is CUgraph, cudaGraphNode_t CUgraphNode, cudaGraphExec_t
 * CUgraphExec, cudaUserObject_t CUuserObject).
 *
 * What the runtime adds: kernel nodes name kernels by host stub (func), 3D copies are
 * described by cudaMemcpy3DParms with a copy kind, and the runtime's argument checks
 * (recorded on an H100: a null kernel is cudaErrorInvalidDeviceFunction, a host function
 * that is no kernel cudaErrorInvalidResourceHandle).
 */
#include <string.h>
#include "runtime/cudart/cudart_internal.h"

#define RT_DRIVER(expr)                                                   \
    do {                                                                  \
        RT_ENTER();                                                       \
        return rt_ret(rt_err(expr));                                      \
    } while (0)

/* ---- parameter translation ---- */

static cudaError_t kernel_in(const void *func, dim3 g, dim3 b, unsigned smem, void **params,
                             void **extra, CUDA_KERNEL_NODE_PARAMS *k)
{
    if (!func) return cudaErrorInvalidDeviceFunction;
    CUfunction fn;
    rt_lock();
    RtFunc *f = rt_func_by_stub(func);
    cudaError_t e = f ? rt_func_driver(f, &fn) : cudaErrorInvalidResourceHandle;
    rt_unlock();
    if (e != cudaSuccess) return e;
    memset(k, 0, sizeof *k);
    k->func = fn;
    k->gridDimX = g.x; k->gridDimY = g.y; k->gridDimZ = g.z;
    k->blockDimX = b.x; k->blockDimY = b.y; k->blockDimZ = b.z;
    k->sharedMemBytes = smem;
    k->kernelParams = params;
    k->extra = extra;
    return cudaSuccess;
}

static cudaError_t kernel_params_in(const struct cudaKernelNodeParams *p, CUDA_KERNEL_NODE_PARAMS *k)
{
    if (!p) return cudaErrorInvalidValue;
    return kernel_in(p->func, p->gridDim, p->blockDim, p->sharedMemBytes, p->kernelParams,
                     p->extra, k);
}

static void kernel_params_out(const CUDA_KERNEL_NODE_PARAMS *k, struct cudaKernelNodeParams *p)
{
    p->func = (void *)rt_stub_of(k->func);
    p->gridDim = (dim3){ k->gridDimX, k->gridDimY, k->gridDimZ };
    p->blockDim = (dim3){ k->blockDimX, k->blockDimY, k->blockDimZ };
    p->sharedMemBytes = k->sharedMemBytes;
    p->kernelParams = k->kernelParams;
    p->extra = k->extra;
}

/* Which memory a side of a copy of this kind is: device, host, or whatever it is. */
static CUmemorytype side_type(enum cudaMemcpyKind kind, int dst)
{
    switch (kind) {
    case cudaMemcpyHostToHost: return CU_MEMORYTYPE_HOST;
    case cudaMemcpyHostToDevice: return dst ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
    case cudaMemcpyDeviceToHost: return dst ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
    case cudaMemcpyDeviceToDevice: return CU_MEMORYTYPE_DEVICE;
    default: return CU_MEMORYTYPE_UNIFIED;
    }
}

static cudaError_t copy_in(const struct cudaMemcpy3DParms *p, CUDA_MEMCPY3D *c)
{
    if (!p || (unsigned)p->kind > cudaMemcpyDefault) return cudaErrorInvalidValue;
    if (p->srcArray || p->dstArray) {
        rt_diag("copies between CUDA arrays in graphs are not implemented");
        return cudaErrorNotSupported;
    }
    memset(c, 0, sizeof *c);
    c->srcMemoryType = side_type(p->kind, 0);
    c->dstMemoryType = side_type(p->kind, 1);
    c->srcHost = p->srcPtr.ptr;
    c->srcDevice = (CUdeviceptr)(uintptr_t)p->srcPtr.ptr;
    c->dstHost = p->dstPtr.ptr;
    c->dstDevice = (CUdeviceptr)(uintptr_t)p->dstPtr.ptr;
    c->srcXInBytes = p->srcPos.x; c->srcY = p->srcPos.y; c->srcZ = p->srcPos.z;
    c->dstXInBytes = p->dstPos.x; c->dstY = p->dstPos.y; c->dstZ = p->dstPos.z;
    c->srcPitch = p->srcPtr.pitch; c->srcHeight = p->srcPtr.ysize;
    c->dstPitch = p->dstPtr.pitch; c->dstHeight = p->dstPtr.ysize;
    c->WidthInBytes = p->extent.width; c->Height = p->extent.height; c->Depth = p->extent.depth;
    return cudaSuccess;
}

static struct cudaPitchedPtr pitched(void *p, size_t pitch, size_t xsize, size_t ysize)
{
    struct cudaPitchedPtr r = { p, pitch, xsize, ysize };
    return r;
}

static void copy_out(const CUDA_MEMCPY3D *c, struct cudaMemcpy3DParms *p)
{
    memset(p, 0, sizeof *p);
    int sd = c->srcMemoryType == CU_MEMORYTYPE_DEVICE, dd = c->dstMemoryType == CU_MEMORYTYPE_DEVICE;
    int sh = c->srcMemoryType == CU_MEMORYTYPE_HOST, dh = c->dstMemoryType == CU_MEMORYTYPE_HOST;
    p->kind = sh && dh ? cudaMemcpyHostToHost : sh && dd ? cudaMemcpyHostToDevice
            : sd && dh ? cudaMemcpyDeviceToHost : sd && dd ? cudaMemcpyDeviceToDevice : cudaMemcpyDefault;
    p->srcPtr = pitched(sh ? (void *)c->srcHost : (void *)(uintptr_t)c->srcDevice, c->srcPitch,
                        c->WidthInBytes, c->srcHeight);
    p->dstPtr = pitched(dh ? c->dstHost : (void *)(uintptr_t)c->dstDevice, c->dstPitch,
                        c->WidthInBytes, c->dstHeight);
    p->srcPos = (struct cudaPos){ c->srcXInBytes, c->srcY, c->srcZ };
    p->dstPos = (struct cudaPos){ c->dstXInBytes, c->dstY, c->dstZ };
    p->extent = (struct cudaExtent){ c->WidthInBytes, c->Height, c->Depth };
}

static cudaError_t copy1d_in(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind,
                             CUDA_MEMCPY3D *c)
{
    struct cudaMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcPtr = pitched((void *)src, n, n, 1);
    p.dstPtr = pitched(dst, n, n, 1);
    p.extent = (struct cudaExtent){ n, 1, 1 };
    p.kind = kind;
    return copy_in(&p, c);
}

static void memset_in(const struct cudaMemsetParams *p, CUDA_MEMSET_NODE_PARAMS *m)
{
    m->dst = (CUdeviceptr)(uintptr_t)p->dst;
    m->pitch = p->pitch;
    m->value = p->value;
    m->elementSize = p->elementSize;
    m->width = p->width;
    m->height = p->height;
}

/* ---- graphs ---- */

cudaError_t CUDARTAPI cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags)
{
    RT_DRIVER(cuGraphCreate(pGraph, flags));
}

cudaError_t CUDARTAPI cudaGraphDestroy(cudaGraph_t graph) { RT_DRIVER(cuGraphDestroy(graph)); }

cudaError_t CUDARTAPI cudaGraphClone(cudaGraph_t *pGraphClone, cudaGraph_t originalGraph)
{
    RT_DRIVER(cuGraphClone(pGraphClone, originalGraph));
}

cudaError_t CUDARTAPI cudaGraphNodeFindInClone(cudaGraphNode_t *pNode, cudaGraphNode_t originalNode,
                                               cudaGraph_t clonedGraph)
{
    RT_DRIVER(cuGraphNodeFindInClone(pNode, originalNode, clonedGraph));
}

cudaError_t CUDARTAPI cudaGraphDebugDotPrint(cudaGraph_t graph, const char *path, unsigned int flags)
{
    RT_DRIVER(cuGraphDebugDotPrint(graph, path, flags));
}

cudaError_t CUDARTAPI cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                             const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                             const struct cudaKernelNodeParams *pNodeParams)
{
    RT_ENTER();
    CUDA_KERNEL_NODE_PARAMS k;
    cudaError_t e = kernel_params_in(pNodeParams, &k);
    if (e != cudaSuccess) return rt_ret(e);
    return rt_ret(rt_err(cuGraphAddKernelNode(pGraphNode, graph, pDependencies, numDependencies, &k)));
}

cudaError_t CUDARTAPI cudaGraphKernelNodeGetParams(cudaGraphNode_t node, struct cudaKernelNodeParams *pNodeParams)
{
    RT_ENTER();
    if (!pNodeParams) return rt_ret(cudaErrorInvalidValue);
    CUDA_KERNEL_NODE_PARAMS k;
    CUresult r = cuGraphKernelNodeGetParams(node, &k);
    if (r == CUDA_SUCCESS) kernel_params_out(&k, pNodeParams);
    return rt_ret(rt_err(r));
}

cudaError_t CUDARTAPI cudaGraphKernelNodeSetParams(cudaGraphNode_t node, const struct cudaKernelNodeParams *pNodeParams)
{
    RT_ENTER();
    CUDA_KERNEL_NODE_PARAMS k;
    cudaError_t e = kernel_params_in(pNodeParams, &k);
    return rt_ret(e != cudaSuccess ? e : rt_err(cuGraphKernelNodeSetParams(node, &k)));
}

cudaError_t CUDARTAPI cudaGraphAddMemcpyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                             const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                             const struct cudaMemcpy3DParms *pCopyParams)
{
    RT_ENTER();
    CUDA_MEMCPY3D c;
    cudaError_t e = copy_in(pCopyParams, &c);
    return rt_ret(e != cudaSuccess ? e
                  : rt_err(cuGraphAddMemcpyNode(pGraphNode, graph, pDependencies, numDependencies, &c, NULL)));
}

cudaError_t CUDARTAPI cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                               const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                               void *dst, const void *src, size_t count,
                                               enum cudaMemcpyKind kind)
{
    RT_ENTER();
    CUDA_MEMCPY3D c;
    cudaError_t e = copy1d_in(dst, src, count, kind, &c);
    return rt_ret(e != cudaSuccess ? e
                  : rt_err(cuGraphAddMemcpyNode(pGraphNode, graph, pDependencies, numDependencies, &c, NULL)));
}

cudaError_t CUDARTAPI cudaGraphMemcpyNodeGetParams(cudaGraphNode_t node, struct cudaMemcpy3DParms *pNodeParams)
{
    RT_ENTER();
    if (!pNodeParams) return rt_ret(cudaErrorInvalidValue);
    CUDA_MEMCPY3D c;
    CUresult r = cuGraphMemcpyNodeGetParams(node, &c);
    if (r == CUDA_SUCCESS) copy_out(&c, pNodeParams);
    return rt_ret(rt_err(r));
}

cudaError_t CUDARTAPI cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node, const struct cudaMemcpy3DParms *pNodeParams)
{
    RT_ENTER();
    CUDA_MEMCPY3D c;
    cudaError_t e = copy_in(pNodeParams, &c);
    return rt_ret(e != cudaSuccess ? e : rt_err(cuGraphMemcpyNodeSetParams(node, &c)));
}

cudaError_t CUDARTAPI cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t node, void *dst, const void *src,
                                                     size_t count, enum cudaMemcpyKind kind)
{
    RT_ENTER();
    CUDA_MEMCPY3D c;
    cudaError_t e = copy1d_in(dst, src, count, kind, &c);
    return rt_ret(e != cudaSuccess ? e : rt_err(cuGraphMemcpyNodeSetParams(node, &c)));
}

cudaError_t CUDARTAPI cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                             const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                             const struct cudaMemsetParams *pMemsetParams)
{
    RT_ENTER();
    if (!pMemsetParams) return rt_ret(cudaErrorInvalidValue);
    CUDA_MEMSET_NODE_PARAMS m;
    memset_in(pMemsetParams, &m);
    return rt_ret(rt_err(cuGraphAddMemsetNode(pGraphNode, graph, pDependencies, numDependencies, &m, NULL)));
}

cudaError_t CUDARTAPI cudaGraphMemsetNodeGetParams(cudaGraphNode_t node, struct cudaMemsetParams *pNodeParams)
{
    RT_ENTER();
    if (!pNodeParams) return rt_ret(cudaErrorInvalidValue);
    CUDA_MEMSET_NODE_PARAMS m;
    CUresult r = cuGraphMemsetNodeGetParams(node, &m);
    if (r == CUDA_SUCCESS) {
        pNodeParams->dst = (void *)(uintptr_t)m.dst;
        pNodeParams->pitch = m.pitch;
        pNodeParams->value = m.value;
        pNodeParams->elementSize = m.elementSize;
        pNodeParams->width = m.width;
        pNodeParams->height = m.height;
    }
    return rt_ret(rt_err(r));
}

cudaError_t CUDARTAPI cudaGraphMemsetNodeSetParams(cudaGraphNode_t node, const struct cudaMemsetParams *pNodeParams)
{
    RT_ENTER();
    if (!pNodeParams) return rt_ret(cudaErrorInvalidValue);
    CUDA_MEMSET_NODE_PARAMS m;
    memset_in(pNodeParams, &m);
    return rt_ret(rt_err(cuGraphMemsetNodeSetParams(node, &m)));
}

/* cudaHostNodeParams and CUDA_HOST_NODE_PARAMS are the same two pointers. */
cudaError_t CUDARTAPI cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                           const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                           const struct cudaHostNodeParams *pNodeParams)
{
    RT_DRIVER(cuGraphAddHostNode(pGraphNode, graph, pDependencies, numDependencies,
                                 (const CUDA_HOST_NODE_PARAMS *)pNodeParams));
}

cudaError_t CUDARTAPI cudaGraphHostNodeGetParams(cudaGraphNode_t node, struct cudaHostNodeParams *pNodeParams)
{
    RT_DRIVER(cuGraphHostNodeGetParams(node, (CUDA_HOST_NODE_PARAMS *)pNodeParams));
}

cudaError_t CUDARTAPI cudaGraphHostNodeSetParams(cudaGraphNode_t node, const struct cudaHostNodeParams *pNodeParams)
{
    RT_DRIVER(cuGraphHostNodeSetParams(node, (const CUDA_HOST_NODE_PARAMS *)pNodeParams));
}

cudaError_t CUDARTAPI cudaGraphAddChildGraphNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                 const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                                 cudaGraph_t childGraph)
{
    RT_DRIVER(cuGraphAddChildGraphNode(pGraphNode, graph, pDependencies, numDependencies, childGraph));
}

cudaError_t CUDARTAPI cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node, cudaGraph_t *pGraph)
{
    RT_DRIVER(cuGraphChildGraphNodeGetGraph(node, pGraph));
}

cudaError_t CUDARTAPI cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                            const cudaGraphNode_t *pDependencies, size_t numDependencies)
{
    RT_DRIVER(cuGraphAddEmptyNode(pGraphNode, graph, pDependencies, numDependencies));
}

cudaError_t CUDARTAPI cudaGraphAddEventRecordNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                  const cudaGraphNode_t *pDependencies,
                                                  size_t numDependencies, cudaEvent_t event)
{
    RT_DRIVER(cuGraphAddEventRecordNode(pGraphNode, graph, pDependencies, numDependencies, event));
}

cudaError_t CUDARTAPI cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t node, cudaEvent_t *event_out)
{
    RT_DRIVER(cuGraphEventRecordNodeGetEvent(node, event_out));
}

cudaError_t CUDARTAPI cudaGraphEventRecordNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event)
{
    RT_DRIVER(cuGraphEventRecordNodeSetEvent(node, event));
}

cudaError_t CUDARTAPI cudaGraphAddEventWaitNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                const cudaGraphNode_t *pDependencies,
                                                size_t numDependencies, cudaEvent_t event)
{
    RT_DRIVER(cuGraphAddEventWaitNode(pGraphNode, graph, pDependencies, numDependencies, event));
}

cudaError_t CUDARTAPI cudaGraphEventWaitNodeGetEvent(cudaGraphNode_t node, cudaEvent_t *event_out)
{
    RT_DRIVER(cuGraphEventWaitNodeGetEvent(node, event_out));
}

cudaError_t CUDARTAPI cudaGraphEventWaitNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event)
{
    RT_DRIVER(cuGraphEventWaitNodeSetEvent(node, event));
}

/* cudaMemAllocNodeParams and CUDA_MEM_ALLOC_NODE_PARAMS have the same layout. */
cudaError_t CUDARTAPI cudaGraphAddMemAllocNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                               const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                               struct cudaMemAllocNodeParams *nodeParams)
{
    RT_DRIVER(cuGraphAddMemAllocNode(pGraphNode, graph, pDependencies, numDependencies,
                                     (CUDA_MEM_ALLOC_NODE_PARAMS *)nodeParams));
}

cudaError_t CUDARTAPI cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node, struct cudaMemAllocNodeParams *params_out)
{
    RT_DRIVER(cuGraphMemAllocNodeGetParams(node, (CUDA_MEM_ALLOC_NODE_PARAMS *)params_out));
}

cudaError_t CUDARTAPI cudaGraphAddMemFreeNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                              const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                              void *dptr)
{
    RT_DRIVER(cuGraphAddMemFreeNode(pGraphNode, graph, pDependencies, numDependencies,
                                    (CUdeviceptr)(uintptr_t)dptr));
}

cudaError_t CUDARTAPI cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void *dptr_out)
{
    RT_DRIVER(cuGraphMemFreeNodeGetParams(node, (CUdeviceptr *)dptr_out));
}

/* The generic form: kernels by stub and copies by cudaMemcpy3DParms are translated; the
 * other kinds have the driver's layout. */
static cudaError_t node_params_in(struct cudaGraphNodeParams *p, CUgraphNodeParams *q)
{
    if (!p) return cudaErrorInvalidValue;
    memcpy(q, p, sizeof *q);
    cudaError_t e = cudaSuccess;
    CUDA_KERNEL_NODE_PARAMS k;
    if (p->type == cudaGraphNodeTypeKernel) {
        e = kernel_in(p->kernel.func, p->kernel.gridDim, p->kernel.blockDim, p->kernel.sharedMemBytes,
                      p->kernel.kernelParams, p->kernel.extra, &k);
        memset(&q->kernel, 0, sizeof q->kernel);
        memcpy(&q->kernel, &k, sizeof k);
    } else if (p->type == cudaGraphNodeTypeMemcpy) {
        memset(&q->memcpy, 0, sizeof q->memcpy);
        e = copy_in(&p->memcpy.copyParams, &q->memcpy.copyParams);
    }
    return e;
}

cudaError_t CUDARTAPI cudaGraphAddNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                       const cudaGraphNode_t *pDependencies,
                                       const cudaGraphEdgeData *dependencyData,
                                       size_t numDependencies, struct cudaGraphNodeParams *nodeParams)
{
    RT_ENTER();
    CUgraphNodeParams q;
    cudaError_t e = node_params_in(nodeParams, &q);
    if (e != cudaSuccess) return rt_ret(e);
    CUresult r = cuGraphAddNode(pGraphNode, graph, pDependencies,
                                (const CUgraphEdgeData *)dependencyData, numDependencies, &q);
    if (r == CUDA_SUCCESS && q.type == CU_GRAPH_NODE_TYPE_CONDITIONAL)
        nodeParams->conditional.phGraph_out = q.conditional.phGraph_out;
    if (r == CUDA_SUCCESS && q.type == CU_GRAPH_NODE_TYPE_MEM_ALLOC)
        nodeParams->alloc.dptr = (void *)(uintptr_t)q.alloc.dptr;
    return rt_ret(rt_err(r));
}

cudaError_t CUDARTAPI cudaGraphNodeSetParams(cudaGraphNode_t node, struct cudaGraphNodeParams *nodeParams)
{
    RT_ENTER();
    CUgraphNodeParams q;
    cudaError_t e = node_params_in(nodeParams, &q);
    return rt_ret(e != cudaSuccess ? e : rt_err(cuGraphNodeSetParams(node, &q)));
}

cudaError_t CUDARTAPI cudaGraphExecNodeSetParams(cudaGraphExec_t graphExec, cudaGraphNode_t node,
                                                 struct cudaGraphNodeParams *nodeParams)
{
    RT_ENTER();
    CUgraphNodeParams q;
    cudaError_t e = node_params_in(nodeParams, &q);
    return rt_ret(e != cudaSuccess ? e : rt_err(cuGraphExecNodeSetParams(graphExec, node, &q)));
}

cudaError_t CUDARTAPI cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle *pHandle_out,
                                                       cudaGraph_t graph, unsigned int defaultLaunchValue,
                                                       unsigned int flags)
{
    RT_DRIVER(cuGraphConditionalHandleCreate((CUgraphConditionalHandle *)pHandle_out, graph, NULL,
                                             defaultLaunchValue, flags));
}

/* ---- structure ---- */

cudaError_t CUDARTAPI cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType *pType)
{
    RT_DRIVER(cuGraphNodeGetType(node, (CUgraphNodeType *)pType));
}

cudaError_t CUDARTAPI cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *numNodes)
{
    RT_DRIVER(cuGraphGetNodes(graph, nodes, numNodes));
}

cudaError_t CUDARTAPI cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *pRootNodes, size_t *pNumRootNodes)
{
    RT_DRIVER(cuGraphGetRootNodes(graph, pRootNodes, pNumRootNodes));
}

cudaError_t CUDARTAPI cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t *from, cudaGraphNode_t *to,
                                        cudaGraphEdgeData *edgeData, size_t *numEdges)
{
    RT_DRIVER(cuGraphGetEdges(graph, from, to, (CUgraphEdgeData *)edgeData, numEdges));
}

cudaError_t CUDARTAPI cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t *pDependencies,
                                                   cudaGraphEdgeData *edgeData, size_t *pNumDependencies)
{
    RT_DRIVER(cuGraphNodeGetDependencies(node, pDependencies, (CUgraphEdgeData *)edgeData, pNumDependencies));
}

cudaError_t CUDARTAPI cudaGraphNodeGetDependentNodes(cudaGraphNode_t node, cudaGraphNode_t *pDependentNodes,
                                                     cudaGraphEdgeData *edgeData, size_t *pNumDependentNodes)
{
    RT_DRIVER(cuGraphNodeGetDependentNodes(node, pDependentNodes, (CUgraphEdgeData *)edgeData,
                                           pNumDependentNodes));
}

cudaError_t CUDARTAPI cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                               const cudaGraphNode_t *to, const cudaGraphEdgeData *edgeData,
                                               size_t numDependencies)
{
    RT_DRIVER(cuGraphAddDependencies(graph, from, to, (const CUgraphEdgeData *)edgeData, numDependencies));
}

cudaError_t CUDARTAPI cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                                  const cudaGraphNode_t *to, const cudaGraphEdgeData *edgeData,
                                                  size_t numDependencies)
{
    RT_DRIVER(cuGraphRemoveDependencies(graph, from, to, (const CUgraphEdgeData *)edgeData, numDependencies));
}

cudaError_t CUDARTAPI cudaGraphDestroyNode(cudaGraphNode_t node) { RT_DRIVER(cuGraphDestroyNode(node)); }

/* ---- executable graphs ---- */

cudaError_t CUDARTAPI cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                           unsigned long long flags)
{
    RT_DRIVER(cuGraphInstantiateWithFlags(pGraphExec, graph, flags));
}

cudaError_t CUDARTAPI cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                                    unsigned long long flags)
{
    RT_DRIVER(cuGraphInstantiateWithFlags(pGraphExec, graph, flags));
}

/* cudaGraphInstantiateParams and CUDA_GRAPH_INSTANTIATE_PARAMS have the same layout. */
cudaError_t CUDARTAPI cudaGraphInstantiateWithParams(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                                     cudaGraphInstantiateParams *instantiateParams)
{
    RT_DRIVER(cuGraphInstantiateWithParams(pGraphExec, graph, (CUDA_GRAPH_INSTANTIATE_PARAMS *)instantiateParams));
}
RT_TWIN(cudaError_t, cudaGraphInstantiateWithParams_ptsz, cudaGraphInstantiateWithParams,
        (cudaGraphExec_t *x, cudaGraph_t g, cudaGraphInstantiateParams *p), (x, g, p))

cudaError_t CUDARTAPI cudaGraphExecGetFlags(cudaGraphExec_t graphExec, unsigned long long *flags)
{
    RT_DRIVER(cuGraphExecGetFlags(graphExec, (cuuint64_t *)flags));
}

cudaError_t CUDARTAPI cudaGraphExecDestroy(cudaGraphExec_t graphExec) { RT_DRIVER(cuGraphExecDestroy(graphExec)); }

cudaError_t CUDARTAPI cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    RT_DRIVER(cuGraphLaunch(graphExec, stream));
}
RT_TWIN(cudaError_t, cudaGraphLaunch_ptsz, cudaGraphLaunch, (cudaGraphExec_t x, cudaStream_t s), (x, s))

cudaError_t CUDARTAPI cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    RT_DRIVER(cuGraphUpload(graphExec, stream));
}
RT_TWIN(cudaError_t, cudaGraphUpload_ptsz, cudaGraphUpload, (cudaGraphExec_t x, cudaStream_t s), (x, s))

/* cudaGraphExecUpdateResultInfo and CUgraphExecUpdateResultInfo have the same layout. */
cudaError_t CUDARTAPI cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                                          cudaGraphExecUpdateResultInfo *resultInfo)
{
    RT_DRIVER(cuGraphExecUpdate(hGraphExec, hGraph, (CUgraphExecUpdateResultInfo *)resultInfo));
}

/* Kernel node attributes: the runtime's ids and values are the driver's. */
cudaError_t CUDARTAPI cudaGraphKernelNodeGetAttribute(cudaGraphNode_t hNode, cudaKernelNodeAttrID attr,
                                                      cudaKernelNodeAttrValue *value_out)
{
    RT_ENTER();
    return rt_ret(rt_err(cuGraphKernelNodeGetAttribute(hNode, (CUkernelNodeAttrID)attr,
                                                       (CUkernelNodeAttrValue *)value_out)));
}

cudaError_t CUDARTAPI cudaGraphKernelNodeSetAttribute(cudaGraphNode_t hNode, cudaKernelNodeAttrID attr,
                                                      const cudaKernelNodeAttrValue *value)
{
    RT_ENTER();
    return rt_ret(rt_err(cuGraphKernelNodeSetAttribute(hNode, (CUkernelNodeAttrID)attr,
                                                       (const CUkernelNodeAttrValue *)value)));
}

cudaError_t CUDARTAPI cudaGraphKernelNodeCopyAttributes(cudaGraphNode_t hDst, cudaGraphNode_t hSrc)
{
    RT_ENTER();
    return rt_ret(rt_err(cuGraphKernelNodeCopyAttributes(hDst, hSrc)));
}

cudaError_t CUDARTAPI cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                       const struct cudaKernelNodeParams *pNodeParams)
{
    RT_ENTER();
    CUDA_KERNEL_NODE_PARAMS k;
    cudaError_t e = kernel_params_in(pNodeParams, &k);
    return rt_ret(e != cudaSuccess ? e : rt_err(cuGraphExecKernelNodeSetParams(hGraphExec, node, &k)));
}

cudaError_t CUDARTAPI cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                       const struct cudaMemcpy3DParms *pNodeParams)
{
    RT_ENTER();
    CUDA_MEMCPY3D c;
    cudaError_t e = copy_in(pNodeParams, &c);
    return rt_ret(e != cudaSuccess ? e : rt_err(cuGraphExecMemcpyNodeSetParams(hGraphExec, node, &c, NULL)));
}

cudaError_t CUDARTAPI cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                         void *dst, const void *src, size_t count,
                                                         enum cudaMemcpyKind kind)
{
    RT_ENTER();
    CUDA_MEMCPY3D c;
    cudaError_t e = copy1d_in(dst, src, count, kind, &c);
    return rt_ret(e != cudaSuccess ? e : rt_err(cuGraphExecMemcpyNodeSetParams(hGraphExec, node, &c, NULL)));
}

cudaError_t CUDARTAPI cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                       const struct cudaMemsetParams *pNodeParams)
{
    RT_ENTER();
    if (!pNodeParams) return rt_ret(cudaErrorInvalidValue);
    CUDA_MEMSET_NODE_PARAMS m;
    memset_in(pNodeParams, &m);
    return rt_ret(rt_err(cuGraphExecMemsetNodeSetParams(hGraphExec, node, &m, NULL)));
}

cudaError_t CUDARTAPI cudaGraphExecHostNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                     const struct cudaHostNodeParams *pNodeParams)
{
    RT_DRIVER(cuGraphExecHostNodeSetParams(hGraphExec, node, (const CUDA_HOST_NODE_PARAMS *)pNodeParams));
}

cudaError_t CUDARTAPI cudaGraphExecChildGraphNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                           cudaGraph_t childGraph)
{
    RT_DRIVER(cuGraphExecChildGraphNodeSetParams(hGraphExec, node, childGraph));
}

cudaError_t CUDARTAPI cudaGraphExecEventRecordNodeSetEvent(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
                                                           cudaEvent_t event)
{
    RT_DRIVER(cuGraphExecEventRecordNodeSetEvent(hGraphExec, hNode, event));
}

cudaError_t CUDARTAPI cudaGraphExecEventWaitNodeSetEvent(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
                                                         cudaEvent_t event)
{
    RT_DRIVER(cuGraphExecEventWaitNodeSetEvent(hGraphExec, hNode, event));
}

cudaError_t CUDARTAPI cudaGraphNodeSetEnabled(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
                                              unsigned int isEnabled)
{
    RT_DRIVER(cuGraphNodeSetEnabled(hGraphExec, hNode, isEnabled));
}

cudaError_t CUDARTAPI cudaGraphNodeGetEnabled(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
                                              unsigned int *isEnabled)
{
    RT_DRIVER(cuGraphNodeGetEnabled(hGraphExec, hNode, isEnabled));
}

/* ---- graph memory, user objects ---- */

cudaError_t CUDARTAPI cudaDeviceGetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr, void *value)
{
    RT_DRIVER(cuDeviceGetGraphMemAttribute(device, (CUgraphMem_attribute)attr, value));
}

cudaError_t CUDARTAPI cudaDeviceSetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr, void *value)
{
    RT_DRIVER(cuDeviceSetGraphMemAttribute(device, (CUgraphMem_attribute)attr, value));
}

cudaError_t CUDARTAPI cudaDeviceGraphMemTrim(int device) { RT_DRIVER(cuDeviceGraphMemTrim(device)); }

cudaError_t CUDARTAPI cudaUserObjectCreate(cudaUserObject_t *object_out, void *ptr, cudaHostFn_t destroy,
                                           unsigned int initialRefcount, unsigned int flags)
{
    RT_DRIVER(cuUserObjectCreate(object_out, ptr, destroy, initialRefcount, flags));
}

cudaError_t CUDARTAPI cudaUserObjectRetain(cudaUserObject_t object, unsigned int count)
{
    RT_DRIVER(cuUserObjectRetain(object, count));
}

cudaError_t CUDARTAPI cudaUserObjectRelease(cudaUserObject_t object, unsigned int count)
{
    RT_DRIVER(cuUserObjectRelease(object, count));
}

cudaError_t CUDARTAPI cudaGraphRetainUserObject(cudaGraph_t graph, cudaUserObject_t object,
                                                unsigned int count, unsigned int flags)
{
    RT_DRIVER(cuGraphRetainUserObject(graph, object, count, flags));
}

cudaError_t CUDARTAPI cudaGraphReleaseUserObject(cudaGraph_t graph, cudaUserObject_t object, unsigned int count)
{
    RT_DRIVER(cuGraphReleaseUserObject(graph, object, count));
}

/* ---- stream capture ---- */

cudaError_t CUDARTAPI cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode)
{
    RT_DRIVER(cuStreamBeginCapture(stream, (CUstreamCaptureMode)mode));
}
RT_TWIN(cudaError_t, cudaStreamBeginCapture_ptsz, cudaStreamBeginCapture,
        (cudaStream_t s, enum cudaStreamCaptureMode m), (s, m))

cudaError_t CUDARTAPI cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph,
                                                    const cudaGraphNode_t *dependencies,
                                                    const cudaGraphEdgeData *dependencyData,
                                                    size_t numDependencies, enum cudaStreamCaptureMode mode)
{
    RT_DRIVER(cuStreamBeginCaptureToGraph(stream, graph, dependencies, (const CUgraphEdgeData *)dependencyData,
                                          numDependencies, (CUstreamCaptureMode)mode));
}
RT_TWIN(cudaError_t, cudaStreamBeginCaptureToGraph_ptsz, cudaStreamBeginCaptureToGraph,
        (cudaStream_t s, cudaGraph_t g, const cudaGraphNode_t *d, const cudaGraphEdgeData *ed, size_t n,
         enum cudaStreamCaptureMode m), (s, g, d, ed, n, m))

cudaError_t CUDARTAPI cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph)
{
    RT_DRIVER(cuStreamEndCapture(stream, pGraph));
}
RT_TWIN(cudaError_t, cudaStreamEndCapture_ptsz, cudaStreamEndCapture, (cudaStream_t s, cudaGraph_t *g), (s, g))

cudaError_t CUDARTAPI cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus *pCaptureStatus)
{
    RT_DRIVER(cuStreamIsCapturing(stream, (CUstreamCaptureStatus *)pCaptureStatus));
}
RT_TWIN(cudaError_t, cudaStreamIsCapturing_ptsz, cudaStreamIsCapturing,
        (cudaStream_t s, enum cudaStreamCaptureStatus *st), (s, st))

cudaError_t CUDARTAPI cudaStreamGetCaptureInfo(cudaStream_t stream, enum cudaStreamCaptureStatus *captureStatus_out,
                                               unsigned long long *id_out, cudaGraph_t *graph_out,
                                               const cudaGraphNode_t **dependencies_out,
                                               const cudaGraphEdgeData **edgeData_out,
                                               size_t *numDependencies_out)
{
    RT_DRIVER(cuStreamGetCaptureInfo(stream, (CUstreamCaptureStatus *)captureStatus_out, (cuuint64_t *)id_out,
                                     graph_out, dependencies_out, (const CUgraphEdgeData **)edgeData_out,
                                     numDependencies_out));
}
RT_TWIN(cudaError_t, cudaStreamGetCaptureInfo_ptsz, cudaStreamGetCaptureInfo,
        (cudaStream_t s, enum cudaStreamCaptureStatus *st, unsigned long long *id, cudaGraph_t *g,
         const cudaGraphNode_t **d, const cudaGraphEdgeData **ed, size_t *n), (s, st, id, g, d, ed, n))

cudaError_t CUDARTAPI cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t *dependencies,
                                                          const cudaGraphEdgeData *dependencyData,
                                                          size_t numDependencies, unsigned int flags)
{
    RT_DRIVER(cuStreamUpdateCaptureDependencies(stream, dependencies, (const CUgraphEdgeData *)dependencyData,
                                                numDependencies, flags));
}
RT_TWIN(cudaError_t, cudaStreamUpdateCaptureDependencies_ptsz, cudaStreamUpdateCaptureDependencies,
        (cudaStream_t s, cudaGraphNode_t *d, const cudaGraphEdgeData *ed, size_t n, unsigned f),
        (s, d, ed, n, f))

/* No context needed: the mode is the calling thread's. */
cudaError_t CUDARTAPI cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode)
{
    return rt_ret(rt_err(cuThreadExchangeStreamCaptureMode((CUstreamCaptureMode *)mode)));
}
