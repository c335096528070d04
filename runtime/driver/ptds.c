/* ptds.c - the per-thread default stream twins of the driver's entry points (_ptds, _ptsz).
 *
 * Programs built with --default-stream per-thread (or asking cuGetProcAddress with
 * CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) call these. In a _ptsz function the null
 * stream means the calling thread's default stream, CU_STREAM_PER_THREAD; a _ptds function
 * (a synchronous copy or fill) is its plain twin, since all work already runs in issue order.
 */
#include "runtime/driver/drv.h"

#define S(s) drv_ptsz(s)

/* A synchronous twin: same arguments, same work. */
#define PTDS(name, params, args) \
    CUresult CUDAAPI name##_ptds params; \
    CUresult CUDAAPI name##_ptds params { return name args; }

/* A stream twin: the last argument is the stream. */
#define PTSZ(name, params, args) \
    CUresult CUDAAPI name##_ptsz params; \
    CUresult CUDAAPI name##_ptsz params { return name args; }

PTDS(cuMemcpy, (CUdeviceptr d, CUdeviceptr s, size_t n), (d, s, n))
PTDS(cuMemcpyHtoD_v2, (CUdeviceptr d, const void *s, size_t n), (d, s, n))
PTDS(cuMemcpyDtoH_v2, (void *d, CUdeviceptr s, size_t n), (d, s, n))
PTDS(cuMemcpyDtoD_v2, (CUdeviceptr d, CUdeviceptr s, size_t n), (d, s, n))
PTDS(cuMemcpyPeer, (CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n),
     (d, dc, s, sc, n))
PTDS(cuMemcpy2D_v2, (const CUDA_MEMCPY2D *p), (p))
PTDS(cuMemcpy2DUnaligned_v2, (const CUDA_MEMCPY2D *p), (p))
PTDS(cuMemcpy3D_v2, (const CUDA_MEMCPY3D *p), (p))
PTDS(cuMemcpy3DPeer, (const CUDA_MEMCPY3D_PEER *p), (p))
PTDS(cuMemsetD8_v2, (CUdeviceptr d, unsigned char v, size_t n), (d, v, n))
PTDS(cuMemsetD16_v2, (CUdeviceptr d, unsigned short v, size_t n), (d, v, n))
PTDS(cuMemsetD32_v2, (CUdeviceptr d, unsigned int v, size_t n), (d, v, n))
PTDS(cuMemsetD2D8_v2, (CUdeviceptr d, size_t p, unsigned char v, size_t w, size_t h), (d, p, v, w, h))
PTDS(cuMemsetD2D16_v2, (CUdeviceptr d, size_t p, unsigned short v, size_t w, size_t h), (d, p, v, w, h))
PTDS(cuMemsetD2D32_v2, (CUdeviceptr d, size_t p, unsigned int v, size_t w, size_t h), (d, p, v, w, h))

PTSZ(cuMemcpyAsync, (CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st), (d, s, n, S(st)))
PTSZ(cuMemcpyHtoDAsync_v2, (CUdeviceptr d, const void *s, size_t n, CUstream st), (d, s, n, S(st)))
PTSZ(cuMemcpyDtoHAsync_v2, (void *d, CUdeviceptr s, size_t n, CUstream st), (d, s, n, S(st)))
PTSZ(cuMemcpyDtoDAsync_v2, (CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st), (d, s, n, S(st)))
PTSZ(cuMemcpyPeerAsync, (CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n,
                         CUstream st), (d, dc, s, sc, n, S(st)))
PTSZ(cuMemcpy2DAsync_v2, (const CUDA_MEMCPY2D *p, CUstream st), (p, S(st)))
PTSZ(cuMemcpy3DAsync_v2, (const CUDA_MEMCPY3D *p, CUstream st), (p, S(st)))
PTSZ(cuMemcpy3DPeerAsync, (const CUDA_MEMCPY3D_PEER *p, CUstream st), (p, S(st)))
PTSZ(cuMemsetD8Async, (CUdeviceptr d, unsigned char v, size_t n, CUstream st), (d, v, n, S(st)))
PTSZ(cuMemsetD16Async, (CUdeviceptr d, unsigned short v, size_t n, CUstream st), (d, v, n, S(st)))
PTSZ(cuMemsetD32Async, (CUdeviceptr d, unsigned int v, size_t n, CUstream st), (d, v, n, S(st)))
PTSZ(cuMemsetD2D8Async, (CUdeviceptr d, size_t p, unsigned char v, size_t w, size_t h, CUstream st),
     (d, p, v, w, h, S(st)))
PTSZ(cuMemsetD2D16Async, (CUdeviceptr d, size_t p, unsigned short v, size_t w, size_t h, CUstream st),
     (d, p, v, w, h, S(st)))
PTSZ(cuMemsetD2D32Async, (CUdeviceptr d, size_t p, unsigned int v, size_t w, size_t h, CUstream st),
     (d, p, v, w, h, S(st)))
PTSZ(cuMemAllocAsync, (CUdeviceptr *p, size_t n, CUstream st), (p, n, S(st)))
PTSZ(cuMemFreeAsync, (CUdeviceptr p, CUstream st), (p, S(st)))
PTSZ(cuMemPrefetchAsync_v2, (CUdeviceptr p, size_t n, CUmemLocation l, unsigned f, CUstream st),
     (p, n, l, f, S(st)))
PTSZ(cuStreamQuery, (CUstream st), (S(st)))
PTSZ(cuStreamSynchronize, (CUstream st), (S(st)))
PTSZ(cuStreamGetFlags, (CUstream st, unsigned *f), (S(st), f))
PTSZ(cuStreamGetPriority, (CUstream st, int *p), (S(st), p))
PTSZ(cuStreamGetId, (CUstream st, unsigned long long *i), (S(st), i))
PTSZ(cuStreamGetCtx, (CUstream st, CUcontext *c), (S(st), c))
PTSZ(cuStreamGetCtx_v2, (CUstream st, CUcontext *c, CUgreenCtx *g), (S(st), c, g))
PTSZ(cuStreamGetAttribute, (CUstream st, CUstreamAttrID a, CUstreamAttrValue *v), (S(st), a, v))
PTSZ(cuStreamSetAttribute, (CUstream st, CUstreamAttrID a, const CUstreamAttrValue *v), (S(st), a, v))
PTSZ(cuStreamCopyAttributes, (CUstream d, CUstream st), (S(d), S(st)))
PTSZ(cuStreamAttachMemAsync, (CUstream st, CUdeviceptr p, size_t n, unsigned f), (S(st), p, n, f))
PTSZ(cuStreamGetDevice, (CUstream st, CUdevice *d), (S(st), d))
PTSZ(cuStreamWaitEvent, (CUstream st, CUevent e, unsigned f), (S(st), e, f))
PTSZ(cuStreamAddCallback, (CUstream st, CUstreamCallback cb, void *u, unsigned f), (S(st), cb, u, f))
PTSZ(cuLaunchHostFunc, (CUstream st, CUhostFn fn, void *u), (S(st), fn, u))
PTSZ(cuEventRecord, (CUevent e, CUstream st), (e, S(st)))
PTSZ(cuEventRecordWithFlags, (CUevent e, CUstream st, unsigned f), (e, S(st), f))
PTSZ(cuMemAllocFromPoolAsync, (CUdeviceptr *p, size_t n, CUmemoryPool pool, CUstream st),
     (p, n, pool, S(st)))
PTSZ(cuGraphLaunch, (CUgraphExec x, CUstream st), (x, S(st)))
PTSZ(cuGraphUpload, (CUgraphExec x, CUstream st), (x, S(st)))
PTSZ(cuStreamBeginCapture_v2, (CUstream st, CUstreamCaptureMode m), (S(st), m))
PTSZ(cuStreamEndCapture, (CUstream st, CUgraph *g), (S(st), g))
PTSZ(cuStreamIsCapturing, (CUstream st, CUstreamCaptureStatus *c), (S(st), c))
CUresult CUDAAPI cuStreamGetCaptureInfo_v2(CUstream st, CUstreamCaptureStatus *c, cuuint64_t *id,
                                           CUgraph *g, const CUgraphNode **d, size_t *n);
PTSZ(cuStreamGetCaptureInfo_v2, (CUstream st, CUstreamCaptureStatus *c, cuuint64_t *id, CUgraph *g,
                                 const CUgraphNode **d, size_t *n), (S(st), c, id, g, d, n))
PTSZ(cuStreamGetCaptureInfo_v3, (CUstream st, CUstreamCaptureStatus *c, cuuint64_t *id, CUgraph *g,
                                 const CUgraphNode **d, const CUgraphEdgeData **ed, size_t *n),
     (S(st), c, id, g, d, ed, n))
PTSZ(cuStreamUpdateCaptureDependencies_v2, (CUstream st, CUgraphNode *d, const CUgraphEdgeData *ed,
                                            size_t n, unsigned f), (S(st), d, ed, n, f))
PTSZ(cuStreamBeginCaptureToGraph, (CUstream st, CUgraph g, const CUgraphNode *d,
                                   const CUgraphEdgeData *ed, size_t n, CUstreamCaptureMode m),
     (S(st), g, d, ed, n, m))

/* The first forms (CUDA 10), named without their version by the headers. */
#undef cuStreamBeginCapture
#undef cuStreamGetCaptureInfo
#undef cuStreamUpdateCaptureDependencies
CUresult CUDAAPI cuStreamBeginCapture(CUstream hStream);
CUresult CUDAAPI cuStreamGetCaptureInfo(CUstream hStream, CUstreamCaptureStatus *s, cuuint64_t *id);
CUresult CUDAAPI cuStreamUpdateCaptureDependencies(CUstream hStream, CUgraphNode *d, size_t n,
                                                   unsigned int flags);
PTSZ(cuStreamBeginCapture, (CUstream st), (S(st)))
PTSZ(cuStreamGetCaptureInfo, (CUstream st, CUstreamCaptureStatus *c, cuuint64_t *id), (S(st), c, id))
PTSZ(cuStreamUpdateCaptureDependencies, (CUstream st, CUgraphNode *d, size_t n, unsigned f),
     (S(st), d, n, f))

CUresult CUDAAPI cuGraphInstantiateWithParams_ptsz(CUgraphExec *x, CUgraph g,
                                                   CUDA_GRAPH_INSTANTIATE_PARAMS *p);
CUresult CUDAAPI cuGraphInstantiateWithParams_ptsz(CUgraphExec *x, CUgraph g,
                                                   CUDA_GRAPH_INSTANTIATE_PARAMS *p)
{
    if (p && !p->hUploadStream) p->hUploadStream = CU_STREAM_PER_THREAD;
    return cuGraphInstantiateWithParams(x, g, p);
}

PTSZ(cuLaunchKernel, (CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                      unsigned bz, unsigned smem, CUstream st, void **params, void **extra),
     (f, gx, gy, gz, bx, by, bz, smem, S(st), params, extra))
PTSZ(cuLaunchCooperativeKernel, (CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                 unsigned by, unsigned bz, unsigned smem, CUstream st, void **params),
     (f, gx, gy, gz, bx, by, bz, smem, S(st), params))

CUresult CUDAAPI cuLaunchKernelEx_ptsz(const CUlaunchConfig *config, CUfunction f, void **params,
                                       void **extra);
CUresult CUDAAPI cuLaunchKernelEx_ptsz(const CUlaunchConfig *config, CUfunction f, void **params,
                                       void **extra)
{
    if (!config) return CUDA_ERROR_INVALID_VALUE;
    CUlaunchConfig c = *config;
    c.hStream = S(c.hStream);
    return cuLaunchKernelEx(&c, f, params, extra);
}
