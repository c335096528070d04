/* peer_api.c - several devices as the runtime shows them: PCI bus ids, peer access between the
 * current device and another, peer copies and the links' attributes, over the driver's
 * cuDevice*, cuCtx*PeerAccess and cuMemcpy*Peer calls.
 *
 * What the runtime adds: a device stands for its primary context (retained at first use, as
 * cudaSetDevice does), peer access is enabled from the calling thread's current context, and
 * ordinals are checked first (cudaErrorInvalidDevice). Errors as recorded on an H100 with one
 * device (tests/cuda/device_props.cu); the CUresult numbers of the peer errors are the
 * cudaError_t ones.
 */
#include <string.h>
#include "runtime/cudart/cudart_internal.h"

#define D(p) ((CUdeviceptr)(uintptr_t)(p))

cudaError_t CUDARTAPI cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice)
{
    if (!canAccessPeer) return rt_ret(cudaErrorInvalidValue);
    cudaError_t e = rt_check_device(device);
    if (e == cudaSuccess) e = rt_check_device(peerDevice);
    if (e != cudaSuccess) return rt_ret(e);
    return rt_ret(rt_err(cuDeviceCanAccessPeer(canAccessPeer, device, peerDevice)));
}

/* The H100 writes what fits of a too-short buffer and answers cudaErrorInvalidValue. */
cudaError_t CUDARTAPI cudaDeviceGetPCIBusId(char *pciBusId, int len, int device)
{
    if (!pciBusId || len <= 0) return rt_ret(cudaErrorInvalidValue);
    cudaError_t e = rt_check_device(device);
    if (e != cudaSuccess) return rt_ret(e);
    return rt_ret(rt_err(cuDeviceGetPCIBusId(pciBusId, len, device)));
}

cudaError_t CUDARTAPI cudaDeviceGetByPCIBusId(int *device, const char *pciBusId)
{
    if (!device || !pciBusId) return rt_ret(cudaErrorInvalidValue);
    cudaError_t e = rt_init();
    if (e != cudaSuccess) return rt_ret(e);
    CUdevice d;
    CUresult r = cuDeviceGetByPCIBusId(&d, pciBusId);
    if (r == CUDA_SUCCESS) *device = d;
    return rt_ret(rt_err(r));
}

/* cudaDeviceP2PAttr and CUdevice_P2PAttribute share their numbers. */
cudaError_t CUDARTAPI cudaDeviceGetP2PAttribute(int *value, enum cudaDeviceP2PAttr attr,
                                                int srcDevice, int dstDevice)
{
    cudaError_t e = rt_init();
    if (e != cudaSuccess) return rt_ret(e);
    return rt_ret(rt_err(cuDeviceGetP2PAttribute(value, (CUdevice_P2PAttribute)attr, srcDevice,
                                                 dstDevice)));
}

/* The peer device's primary context, after the current context is set up. */
static cudaError_t peer_ctx(int peerDevice, CUcontext *out)
{
    cudaError_t e = rt_check_device(peerDevice);
    if (e == cudaSuccess) e = rt_enter();
    if (e == cudaSuccess) e = rt_primary(peerDevice, out);
    return e;
}

/* From the current context to the peer device's primary context: a kernel of the current
 * device may then touch the peer's memory. */
cudaError_t CUDARTAPI cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags)
{
    CUcontext peer;
    cudaError_t e = peer_ctx(peerDevice, &peer);
    if (e != cudaSuccess) return rt_ret(e);
    return rt_ret(rt_err(cuCtxEnablePeerAccess(peer, flags)));
}

cudaError_t CUDARTAPI cudaDeviceDisablePeerAccess(int peerDevice)
{
    CUcontext peer;
    cudaError_t e = peer_ctx(peerDevice, &peer);
    if (e != cudaSuccess) return rt_ret(e);
    return rt_ret(rt_err(cuCtxDisablePeerAccess(peer)));
}

/* The primary contexts of both devices of a copy. */
static cudaError_t copy_ctxs(int dstDevice, CUcontext *dc, int srcDevice, CUcontext *sc)
{
    cudaError_t e = rt_enter();
    if (e == cudaSuccess) e = rt_check_device(dstDevice);
    if (e == cudaSuccess) e = rt_check_device(srcDevice);
    if (e == cudaSuccess) e = rt_primary(dstDevice, dc);
    if (e == cudaSuccess) e = rt_primary(srcDevice, sc);
    return e;
}

static cudaError_t rt_memcpy_peer(void *dst, int dstDevice, const void *src, int srcDevice,
                                  size_t count, cudaStream_t stream, int async)
{
    CUcontext dc, sc;
    cudaError_t e = copy_ctxs(dstDevice, &dc, srcDevice, &sc);
    if (e != cudaSuccess) return rt_ret(e);
    if (count && (!dst || !src)) return rt_ret(cudaErrorInvalidValue);
    CUresult r = async ? cuMemcpyPeerAsync(D(dst), dc, D(src), sc, count, (CUstream)stream)
                       : cuMemcpyPeer(D(dst), dc, D(src), sc, count);
    return rt_ret(rt_err(r));
}

cudaError_t CUDARTAPI cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice,
                                     size_t count)
{
    return RT_VIA(rt_memcpy_peer(dst, dstDevice, src, srcDevice, count, NULL, 0));
}

cudaError_t CUDARTAPI cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src,
                                          int srcDevice, size_t count, cudaStream_t stream)
{
    return RT_VIA(rt_memcpy_peer(dst, dstDevice, src, srcDevice, count, stream, 1));
}

/* One side of a 3D copy: a CUDA array, or pitched device memory (x in bytes). */
static void side3d(struct cudaArray *array, struct cudaPitchedPtr ptr, struct cudaPos pos,
                   CUmemorytype *type, CUdeviceptr *dev, CUarray *arr, size_t *pitch,
                   size_t *height, size_t *x, size_t *y, size_t *z)
{
    *type = array ? CU_MEMORYTYPE_ARRAY : CU_MEMORYTYPE_DEVICE;
    *arr = (CUarray)array;
    *dev = D(ptr.ptr);
    *pitch = ptr.pitch;
    *height = ptr.ysize;
    *x = pos.x;
    *y = pos.y;
    *z = pos.z;
}

static cudaError_t rt_memcpy3d_peer(const struct cudaMemcpy3DPeerParms *p, cudaStream_t stream,
                                    int async)
{
    if (!p) return rt_ret(cudaErrorInvalidValue);
    CUDA_MEMCPY3D_PEER q;
    memset(&q, 0, sizeof q);
    cudaError_t e = copy_ctxs(p->dstDevice, &q.dstContext, p->srcDevice, &q.srcContext);
    if (e != cudaSuccess) return rt_ret(e);
    side3d(p->srcArray, p->srcPtr, p->srcPos, &q.srcMemoryType, &q.srcDevice, &q.srcArray,
           &q.srcPitch, &q.srcHeight, &q.srcXInBytes, &q.srcY, &q.srcZ);
    side3d(p->dstArray, p->dstPtr, p->dstPos, &q.dstMemoryType, &q.dstDevice, &q.dstArray,
           &q.dstPitch, &q.dstHeight, &q.dstXInBytes, &q.dstY, &q.dstZ);
    q.WidthInBytes = p->extent.width;
    q.Height = p->extent.height;
    q.Depth = p->extent.depth;
    CUresult r = async ? cuMemcpy3DPeerAsync(&q, (CUstream)stream) : cuMemcpy3DPeer(&q);
    return rt_ret(rt_err(r));
}

cudaError_t CUDARTAPI cudaMemcpy3DPeer(const struct cudaMemcpy3DPeerParms *p)
{
    return rt_memcpy3d_peer(p, NULL, 0);
}
RT_TWIN(cudaError_t, cudaMemcpy3DPeer_ptds, cudaMemcpy3DPeer,
        (const struct cudaMemcpy3DPeerParms *p), (p))

cudaError_t CUDARTAPI cudaMemcpy3DPeerAsync(const struct cudaMemcpy3DPeerParms *p,
                                            cudaStream_t stream)
{
    return rt_memcpy3d_peer(p, stream, 1);
}
RT_TWIN(cudaError_t, cudaMemcpy3DPeerAsync_ptsz, cudaMemcpy3DPeerAsync,
        (const struct cudaMemcpy3DPeerParms *p, cudaStream_t st), (p, st))
