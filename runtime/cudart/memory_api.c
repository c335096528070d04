/* memory_api.c - cudaMalloc/cudaFree/cudaMemcpy/cudaMemset families, symbols, pointer queries,
 * over the driver's cuMem* calls.
 *
 * What the runtime adds to the driver: empty allocations are null pointers, freeing null is
 * fine, copy kinds and pitches are checked (cudaErrorInvalidMemcpyDirection,
 * cudaErrorInvalidPitchValue), and variables are named by their host shadows.
 */
#include <stdlib.h>
#include <string.h>
#include "runtime/cudart/cudart_internal.h"

#define D(p) ((CUdeviceptr)(uintptr_t)(p))

/* Run `expr` (a CUresult) in the runtime's context and return it as the runtime's error. */
#define RT_DRIVER(expr)                                                   \
    do {                                                                  \
        RT_ENTER();                                                       \
        return rt_ret(rt_err(expr));                                      \
    } while (0)

/* ---- allocation ---- */

cudaError_t CUDARTAPI cudaMalloc(void **devPtr, size_t size)
{
    RT_ENTER();
    if (!devPtr) return rt_ret(cudaErrorInvalidValue);
    if (size == 0) {   /* CUDA gives a null pointer for an empty allocation */
        *devPtr = NULL;
        return cudaSuccess;
    }
    CUdeviceptr d;
    CUresult e = cuMemAlloc(&d, size);
    if (e == CUDA_SUCCESS) *devPtr = (void *)(uintptr_t)d;
    return rt_ret(rt_err(e));
}

cudaError_t CUDARTAPI cudaFree(void *devPtr)
{
    RT_ENTER();
    if (!devPtr) return cudaSuccess;
    return rt_ret(rt_err(cuMemFree(D(devPtr))));
}

cudaError_t CUDARTAPI cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream)
{
    RT_ENTER();
    if (!devPtr) return rt_ret(cudaErrorInvalidValue);
    CUdeviceptr d = 0;
    CUresult e = size ? cuMemAllocAsync(&d, size, hStream) : cuStreamQuery(hStream);
    if (e == CUDA_SUCCESS) *devPtr = (void *)(uintptr_t)d;
    return rt_ret(rt_err(e));
}
RT_TWIN(cudaError_t, cudaMallocAsync_ptsz, cudaMallocAsync,
        (void **p, size_t n, cudaStream_t s), (p, n, s))

cudaError_t CUDARTAPI cudaFreeAsync(void *devPtr, cudaStream_t hStream)
{
    RT_DRIVER(devPtr ? cuMemFreeAsync(D(devPtr), hStream) : cuStreamQuery(hStream));
}
RT_TWIN(cudaError_t, cudaFreeAsync_ptsz, cudaFreeAsync, (void *p, cudaStream_t s), (p, s))

cudaError_t CUDARTAPI cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
    RT_ENTER();
    if (!devPtr || size == 0 || (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost))
        return rt_ret(cudaErrorInvalidValue);
    CUdeviceptr d;
    CUresult e = cuMemAllocManaged(&d, size, flags);
    if (e == CUDA_SUCCESS) *devPtr = (void *)(uintptr_t)d;
    return rt_ret(rt_err(e));
}

/* Rows of cudaMallocPitch are padded to this many bytes. */
#define RT_PITCH_ALIGN 512u

cudaError_t CUDARTAPI cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height)
{
    RT_ENTER();
    if (!devPtr || !pitch) return rt_ret(cudaErrorInvalidValue);
    size_t p = (width + RT_PITCH_ALIGN - 1) / RT_PITCH_ALIGN * RT_PITCH_ALIGN;
    if (height && p > SIZE_MAX / height) return rt_ret(cudaErrorMemoryAllocation);
    *pitch = p;
    return cudaMalloc(devPtr, p * height);
}

cudaError_t CUDARTAPI cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
    RT_ENTER();
    if (!pHost || (flags & ~(unsigned)(cudaHostAllocPortable | cudaHostAllocMapped |
                                       cudaHostAllocWriteCombined)))
        return rt_ret(cudaErrorInvalidValue);
    if (size == 0) {
        *pHost = NULL;
        return cudaSuccess;
    }
    return rt_ret(rt_err(cuMemHostAlloc(pHost, size, flags)));   /* same flag bits */
}

cudaError_t CUDARTAPI cudaMallocHost(void **ptr, size_t size)
{
    return cudaHostAlloc(ptr, size, cudaHostAllocDefault);
}

cudaError_t CUDARTAPI cudaFreeHost(void *ptr)
{
    RT_ENTER();
    if (!ptr) return cudaSuccess;
    return rt_ret(rt_err(cuMemFreeHost(ptr)));
}

cudaError_t CUDARTAPI cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags)
{
    RT_ENTER();
    if (!pDevice) return rt_ret(cudaErrorInvalidValue);
    CUdeviceptr d;
    CUresult e = cuMemHostGetDevicePointer(&d, pHost, flags);
    if (e == CUDA_SUCCESS) *pDevice = (void *)(uintptr_t)d;
    return rt_ret(rt_err(e));
}

cudaError_t CUDARTAPI cudaHostGetFlags(unsigned int *pFlags, void *pHost)
{
    RT_DRIVER(cuMemHostGetFlags(pFlags, pHost));
}

cudaError_t CUDARTAPI cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
    RT_DRIVER(cuMemHostRegister(ptr, size, flags));
}

cudaError_t CUDARTAPI cudaHostUnregister(void *ptr)
{
    RT_DRIVER(cuMemHostUnregister(ptr));
}

cudaError_t CUDARTAPI cudaMemGetInfo(size_t *free_bytes, size_t *total)
{
    RT_DRIVER(cuMemGetInfo(free_bytes, total));
}

/* ---- copies and fills ---- */

/* The copy of one kind: the driver checks that device sides lie in allocations. */
static CUresult rt_copy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind,
                        cudaStream_t s, int async)
{
    if (!async) {
        switch (kind) {
        case cudaMemcpyHostToDevice: return cuMemcpyHtoD(D(dst), src, n);
        case cudaMemcpyDeviceToHost: return cuMemcpyDtoH(dst, D(src), n);
        case cudaMemcpyDeviceToDevice: return cuMemcpyDtoD(D(dst), D(src), n);
        default: return cuMemcpy(D(dst), D(src), n);
        }
    }
    switch (kind) {
    case cudaMemcpyHostToDevice: return cuMemcpyHtoDAsync(D(dst), src, n, s);
    case cudaMemcpyDeviceToHost: return cuMemcpyDtoHAsync(dst, D(src), n, s);
    case cudaMemcpyDeviceToDevice: return cuMemcpyDtoDAsync(D(dst), D(src), n, s);
    default: return cuMemcpyAsync(D(dst), D(src), n, s);
    }
}

static cudaError_t rt_memcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind,
                             cudaStream_t s, int async)
{
    RT_ENTER();
    if ((unsigned)kind > cudaMemcpyDefault) return rt_ret(cudaErrorInvalidMemcpyDirection);
    if (n && (!dst || !src)) return rt_ret(cudaErrorInvalidValue);
    return rt_ret(rt_err(rt_copy(dst, src, n, kind, s, async)));
}

cudaError_t CUDARTAPI cudaMemcpy(void *dst, const void *src, size_t count,
                                 enum cudaMemcpyKind kind)
{
    return RT_VIA(rt_memcpy(dst, src, count, kind, NULL, 0));
}
RT_TWIN(cudaError_t, cudaMemcpy_ptds, cudaMemcpy,
        (void *d, const void *s, size_t n, enum cudaMemcpyKind k), (d, s, n, k))

cudaError_t CUDARTAPI cudaMemcpyAsync(void *dst, const void *src, size_t count,
                                      enum cudaMemcpyKind kind, cudaStream_t stream)
{
    return RT_VIA(rt_memcpy(dst, src, count, kind, stream, 1));
}
RT_TWIN(cudaError_t, cudaMemcpyAsync_ptsz, cudaMemcpyAsync,
        (void *d, const void *s, size_t n, enum cudaMemcpyKind k, cudaStream_t st),
        (d, s, n, k, st))

/* A 2D copy as the driver's, memory types from the kind. */
static cudaError_t rt_copy2d(void *dst, size_t dpitch, const void *src, size_t spitch,
                             size_t width, size_t height, enum cudaMemcpyKind kind,
                             cudaStream_t s, int async)
{
    RT_ENTER();
    if ((unsigned)kind > cudaMemcpyDefault) return rt_ret(cudaErrorInvalidMemcpyDirection);
    if (width == 0 || height == 0) return cudaSuccess;
    if (dpitch < width || spitch < width) return rt_ret(cudaErrorInvalidPitchValue);
    if (!dst || !src) return rt_ret(cudaErrorInvalidValue);
    int dd = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
    int sd = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
    int unified = kind == cudaMemcpyDefault;
    CUDA_MEMCPY2D p;
    memset(&p, 0, sizeof p);
    p.dstMemoryType = unified ? CU_MEMORYTYPE_UNIFIED : dd ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
    p.srcMemoryType = unified ? CU_MEMORYTYPE_UNIFIED : sd ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
    p.dstDevice = D(dst);
    p.dstHost = dst;
    p.dstPitch = dpitch;
    p.srcDevice = D(src);
    p.srcHost = src;
    p.srcPitch = spitch;
    p.WidthInBytes = width;
    p.Height = height;
    return rt_ret(rt_err(async ? cuMemcpy2DAsync(&p, s) : cuMemcpy2D(&p)));
}

cudaError_t CUDARTAPI cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch,
                                   size_t width, size_t height, enum cudaMemcpyKind kind)
{
    return rt_copy2d(dst, dpitch, src, spitch, width, height, kind, NULL, 0);
}
RT_TWIN(cudaError_t, cudaMemcpy2D_ptds, cudaMemcpy2D,
        (void *d, size_t dp, const void *s, size_t sp, size_t w, size_t h,
         enum cudaMemcpyKind k), (d, dp, s, sp, w, h, k))

cudaError_t CUDARTAPI cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src,
                                        size_t spitch, size_t width, size_t height,
                                        enum cudaMemcpyKind kind, cudaStream_t stream)
{
    return rt_copy2d(dst, dpitch, src, spitch, width, height, kind, stream, 1);
}
RT_TWIN(cudaError_t, cudaMemcpy2DAsync_ptsz, cudaMemcpy2DAsync,
        (void *d, size_t dp, const void *s, size_t sp, size_t w, size_t h,
         enum cudaMemcpyKind k, cudaStream_t st), (d, dp, s, sp, w, h, k, st))

cudaError_t CUDARTAPI cudaMemset(void *devPtr, int value, size_t count)
{
    RT_DRIVER(count ? cuMemsetD8(D(devPtr), (unsigned char)value, count) : CUDA_SUCCESS);
}
RT_TWIN(cudaError_t, cudaMemset_ptds, cudaMemset, (void *p, int v, size_t n), (p, v, n))

cudaError_t CUDARTAPI cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream)
{
    RT_DRIVER(count ? cuMemsetD8Async(D(devPtr), (unsigned char)value, count, stream)
                    : cuStreamQuery(stream));
}
RT_TWIN(cudaError_t, cudaMemsetAsync_ptsz, cudaMemsetAsync,
        (void *p, int v, size_t n, cudaStream_t s), (p, v, n, s))

cudaError_t CUDARTAPI cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width,
                                   size_t height)
{
    RT_ENTER();
    if (width && height && pitch < width) return rt_ret(cudaErrorInvalidValue);
    return rt_ret(rt_err(cuMemsetD2D8(D(devPtr), pitch, (unsigned char)value, width, height)));
}
RT_TWIN(cudaError_t, cudaMemset2D_ptds, cudaMemset2D,
        (void *p, size_t pi, int v, size_t w, size_t h), (p, pi, v, w, h))

cudaError_t CUDARTAPI cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width,
                                        size_t height, cudaStream_t stream)
{
    RT_ENTER();
    if (width && height && pitch < width) return rt_ret(cudaErrorInvalidValue);
    return rt_ret(rt_err(cuMemsetD2D8Async(D(devPtr), pitch, (unsigned char)value, width, height,
                                           stream)));
}
RT_TWIN(cudaError_t, cudaMemset2DAsync_ptsz, cudaMemset2DAsync,
        (void *p, size_t pi, int v, size_t w, size_t h, cudaStream_t s), (p, pi, v, w, h, s))

/* ---- pitched 3D memory: slices of extent.height rows, rows padded as cudaMallocPitch's ---- */

cudaError_t CUDARTAPI cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr, struct cudaExtent extent)
{
    RT_ENTER();
    if (!pitchedDevPtr) return rt_ret(cudaErrorInvalidValue);
    size_t pitch = 0, rows = extent.height * extent.depth;
    if (extent.depth && rows / extent.depth != extent.height) return rt_ret(cudaErrorMemoryAllocation);
    void *p = NULL;
    cudaError_t e = cudaMallocPitch(&p, &pitch, extent.width, rows);
    if (e == cudaSuccess) {
        pitchedDevPtr->ptr = p;
        pitchedDevPtr->pitch = pitch;
        pitchedDevPtr->xsize = extent.width;
        pitchedDevPtr->ysize = extent.height;
    }
    return e;
}

/* Each slice is a 2D fill; slices lie pitch * ysize bytes apart. */
static cudaError_t memset3d(struct cudaPitchedPtr p, int value, struct cudaExtent e,
                            cudaStream_t s, int async)
{
    if (!e.width || !e.height || !e.depth) return cudaSuccess;
    if (p.pitch < e.width || (e.depth > 1 && p.ysize < e.height)) return cudaErrorInvalidValue;
    for (size_t z = 0; z < e.depth; z++) {
        CUdeviceptr slice = D(p.ptr) + z * p.pitch * p.ysize;
        CUresult r = async ? cuMemsetD2D8Async(slice, p.pitch, (unsigned char)value, e.width, e.height, s)
                           : cuMemsetD2D8(slice, p.pitch, (unsigned char)value, e.width, e.height);
        if (r != CUDA_SUCCESS) return rt_err(r);
    }
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaMemset3D(struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent)
{
    RT_ENTER();
    return rt_ret(memset3d(pitchedDevPtr, value, extent, NULL, 0));
}
RT_TWIN(cudaError_t, cudaMemset3D_ptds, cudaMemset3D,
        (struct cudaPitchedPtr p, int v, struct cudaExtent e), (p, v, e))

cudaError_t CUDARTAPI cudaMemset3DAsync(struct cudaPitchedPtr pitchedDevPtr, int value,
                                        struct cudaExtent extent, cudaStream_t stream)
{
    RT_ENTER();
    return rt_ret(memset3d(pitchedDevPtr, value, extent, stream, 1));
}
RT_TWIN(cudaError_t, cudaMemset3DAsync_ptsz, cudaMemset3DAsync,
        (struct cudaPitchedPtr p, int v, struct cudaExtent e, cudaStream_t s), (p, v, e, s))

/* ---- module variables ---- */

/* Resolve symbol+offset for count bytes. */
static cudaError_t rt_symbol_range(const void *symbol, size_t count, size_t offset, char **out)
{
    uint64_t addr;
    size_t size;
    rt_lock();
    cudaError_t e = rt_symbol(symbol, &addr, &size);
    rt_unlock();
    if (e != cudaSuccess) return e;
    if (offset > size || count > size - offset) return cudaErrorInvalidValue;
    *out = (char *)(uintptr_t)addr + offset;
    return cudaSuccess;
}

static cudaError_t rt_symbol_copy(const void *symbol, void *other, size_t count, size_t offset,
                                  enum cudaMemcpyKind kind, cudaStream_t stream, int async, int to)
{
    RT_ENTER();
    if (async) {
        CUresult s = cuStreamQuery(stream);
        if (s != CUDA_SUCCESS) return rt_ret(rt_err(s));
    }
    enum cudaMemcpyKind far = to ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
    if (kind != far && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
        return rt_ret(cudaErrorInvalidMemcpyDirection);
    char *var;
    cudaError_t e = rt_symbol_range(symbol, count, offset, &var);
    if (e != cudaSuccess || count == 0) return rt_ret(e);
    if (!other) return rt_ret(cudaErrorInvalidValue);
    CUresult r = to ? rt_copy(var, other, count, kind, stream, async)
                    : rt_copy(other, var, count, kind, stream, async);
    return rt_ret(rt_err(r));
}

cudaError_t CUDARTAPI cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count,
                                         size_t offset, enum cudaMemcpyKind kind)
{
    return RT_VIA(rt_symbol_copy(symbol, (void *)src, count, offset, kind, NULL, 0, 1));
}
RT_TWIN(cudaError_t, cudaMemcpyToSymbol_ptds, cudaMemcpyToSymbol,
        (const void *y, const void *s, size_t n, size_t o, enum cudaMemcpyKind k),
        (y, s, n, o, k))

cudaError_t CUDARTAPI cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count,
                                           size_t offset, enum cudaMemcpyKind kind)
{
    return RT_VIA(rt_symbol_copy(symbol, dst, count, offset, kind, NULL, 0, 0));
}
RT_TWIN(cudaError_t, cudaMemcpyFromSymbol_ptds, cudaMemcpyFromSymbol,
        (void *d, const void *y, size_t n, size_t o, enum cudaMemcpyKind k), (d, y, n, o, k))

cudaError_t CUDARTAPI cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count,
                                              size_t offset, enum cudaMemcpyKind kind,
                                              cudaStream_t stream)
{
    return RT_VIA(rt_symbol_copy(symbol, (void *)src, count, offset, kind, stream, 1, 1));
}
RT_TWIN(cudaError_t, cudaMemcpyToSymbolAsync_ptsz, cudaMemcpyToSymbolAsync,
        (const void *y, const void *s, size_t n, size_t o, enum cudaMemcpyKind k,
         cudaStream_t st), (y, s, n, o, k, st))

cudaError_t CUDARTAPI cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count,
                                                size_t offset, enum cudaMemcpyKind kind,
                                                cudaStream_t stream)
{
    return RT_VIA(rt_symbol_copy(symbol, dst, count, offset, kind, stream, 1, 0));
}
RT_TWIN(cudaError_t, cudaMemcpyFromSymbolAsync_ptsz, cudaMemcpyFromSymbolAsync,
        (void *d, const void *y, size_t n, size_t o, enum cudaMemcpyKind k, cudaStream_t st),
        (d, y, n, o, k, st))

cudaError_t CUDARTAPI cudaGetSymbolAddress(void **devPtr, const void *symbol)
{
    RT_ENTER();
    if (!devPtr) return rt_ret(cudaErrorInvalidValue);
    uint64_t addr;
    size_t size;
    rt_lock();
    cudaError_t e = rt_symbol(symbol, &addr, &size);
    rt_unlock();
    if (e == cudaSuccess) *devPtr = (void *)(uintptr_t)addr;
    return rt_ret(e);
}

cudaError_t CUDARTAPI cudaGetSymbolSize(size_t *size, const void *symbol)
{
    RT_ENTER();
    if (!size) return rt_ret(cudaErrorInvalidValue);
    uint64_t addr;
    size_t sz;
    rt_lock();
    cudaError_t e = rt_symbol(symbol, &addr, &sz);
    rt_unlock();
    if (e == cudaSuccess) *size = sz;
    return rt_ret(e);
}

/* ---- managed-memory hints (cudaMemLocation is CUmemLocation; advice numbers agree) ---- */

cudaError_t CUDARTAPI cudaMemPrefetchAsync(const void *devPtr, size_t count,
                                           struct cudaMemLocation location, unsigned int flags,
                                           cudaStream_t stream)
{
    CUmemLocation l = { (CUmemLocationType)location.type, location.id };
    RT_DRIVER(cuMemPrefetchAsync(D(devPtr), count, l, flags, stream));
}
RT_TWIN(cudaError_t, cudaMemPrefetchAsync_ptsz, cudaMemPrefetchAsync,
        (const void *p, size_t n, struct cudaMemLocation l, unsigned f, cudaStream_t s),
        (p, n, l, f, s))

cudaError_t CUDARTAPI cudaMemAdvise(const void *devPtr, size_t count,
                                    enum cudaMemoryAdvise advice,
                                    struct cudaMemLocation location)
{
    CUmemLocation l = { (CUmemLocationType)location.type, location.id };
    RT_DRIVER(cuMemAdvise(D(devPtr), count, (CUmem_advise)advice, l));
}

cudaError_t CUDARTAPI cudaMemRangeGetAttribute(void *data, size_t dataSize,
                                               enum cudaMemRangeAttribute attribute,
                                               const void *devPtr, size_t count)
{
    RT_DRIVER(cuMemRangeGetAttribute(data, dataSize, (CUmem_range_attribute)attribute, D(devPtr), count));
}

cudaError_t CUDARTAPI cudaMemRangeGetAttributes(void **data, size_t *dataSizes,
                                                enum cudaMemRangeAttribute *attributes,
                                                size_t numAttributes, const void *devPtr, size_t count)
{
    RT_DRIVER(cuMemRangeGetAttributes(data, dataSizes, (CUmem_range_attribute *)attributes,
                                      numAttributes, D(devPtr), count));
}

/* ---- pointer attributes ---- */

cudaError_t CUDARTAPI cudaPointerGetAttributes(struct cudaPointerAttributes *attributes,
                                               const void *ptr)
{
    RT_ENTER();
    if (!attributes) return rt_ret(cudaErrorInvalidValue);
    memset(attributes, 0, sizeof *attributes);
    CUdeviceptr base;
    size_t size;
    void *p = (void *)ptr;
    if (!ptr || cuMemGetAddressRange(&base, &size, D(ptr)) != CUDA_SUCCESS) {
        attributes->type = cudaMemoryTypeUnregistered;
        attributes->device = -2;
        return cudaSuccess;
    }
    unsigned type = 0, managed = 0;
    cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, D(ptr));
    cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, D(ptr));
    int device = 0;
    cuPointerGetAttribute(&device, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, D(ptr));
    attributes->device = device;
    attributes->devicePointer = p;
    if (managed) {
        attributes->type = cudaMemoryTypeManaged;
        attributes->hostPointer = p;
    } else if (type == CU_MEMORYTYPE_HOST) {
        attributes->type = cudaMemoryTypeHost;
        attributes->hostPointer = p;
    } else {
        attributes->type = cudaMemoryTypeDevice;
    }
    return cudaSuccess;
}

/* ---- interprocess memory (the driver's ipc.c): cudaIpcMemHandle_t and CUipcMemHandle are
 * the same 64 bytes, cudaIpcMemLazyEnablePeerAccess is CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS,
 * and the errors share their numbers (a handle of this process: cudaErrorDeviceUninitialized,
 * the driver's CUDA_ERROR_INVALID_CONTEXT). ---- */

cudaError_t CUDARTAPI cudaIpcGetMemHandle(cudaIpcMemHandle_t *handle, void *devPtr)
{
    RT_ENTER();
    if (!handle) return rt_ret(cudaErrorInvalidValue);
    return rt_ret(rt_err(cuIpcGetMemHandle((CUipcMemHandle *)handle, D(devPtr))));
}

cudaError_t CUDARTAPI cudaIpcOpenMemHandle(void **devPtr, cudaIpcMemHandle_t handle, unsigned int flags)
{
    RT_ENTER();
    if (!devPtr) return rt_ret(cudaErrorInvalidValue);
    CUipcMemHandle h;
    memcpy(&h, &handle, sizeof h);
    CUdeviceptr d;
    CUresult e = cuIpcOpenMemHandle_v2(&d, h, flags);
    if (e == CUDA_SUCCESS) *devPtr = (void *)(uintptr_t)d;
    return rt_ret(rt_err(e));
}

cudaError_t CUDARTAPI cudaIpcCloseMemHandle(void *devPtr)
{
    RT_DRIVER(cuIpcCloseMemHandle(D(devPtr)));
}
