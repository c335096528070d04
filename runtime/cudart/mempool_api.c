/* mempool_api.c - memory pools and allocations from them, over the driver's cuMemPool* and
 * cuDevice*MemPool calls (cudaMemPool_t is CUmemoryPool; cudaMemPoolProps, cudaMemAccessDesc
 * and cudaMemLocation have the driver's layouts and numbers). cudaMallocAsync and
 * cudaFreeAsync are in memory_api.c.
 */
#include "runtime/cudart/cudart_internal.h"

#define RT_DRIVER(expr)                                                   \
    do {                                                                  \
        RT_ENTER();                                                       \
        return rt_ret(rt_err(expr));                                      \
    } while (0)

cudaError_t CUDARTAPI cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t memPool,
                                              cudaStream_t stream)
{
    RT_ENTER();
    if (!ptr) return rt_ret(cudaErrorInvalidValue);
    CUdeviceptr d = 0;
    CUresult e = cuMemAllocFromPoolAsync(&d, size, memPool, stream);
    if (e == CUDA_SUCCESS) *ptr = (void *)(uintptr_t)d;
    return rt_ret(rt_err(e));
}
RT_TWIN(cudaError_t, cudaMallocFromPoolAsync_ptsz, cudaMallocFromPoolAsync,
        (void **p, size_t n, cudaMemPool_t pool, cudaStream_t s), (p, n, pool, s))

cudaError_t CUDARTAPI cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device)
{
    RT_DRIVER(cuDeviceGetDefaultMemPool(memPool, device));
}

cudaError_t CUDARTAPI cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device)
{
    RT_DRIVER(cuDeviceGetMemPool(memPool, device));
}

cudaError_t CUDARTAPI cudaDeviceSetMemPool(int device, cudaMemPool_t memPool)
{
    RT_DRIVER(cuDeviceSetMemPool(device, memPool));
}

/* The location-based forms (cudaMemLocation is CUmemLocation, allocation types agree). */
cudaError_t CUDARTAPI cudaMemGetDefaultMemPool(cudaMemPool_t *memPool, struct cudaMemLocation *location,
                                               enum cudaMemAllocationType type)
{
    RT_DRIVER(cuMemGetDefaultMemPool(memPool, (CUmemLocation *)location, (CUmemAllocationType)type));
}

cudaError_t CUDARTAPI cudaMemGetMemPool(cudaMemPool_t *memPool, struct cudaMemLocation *location,
                                        enum cudaMemAllocationType type)
{
    RT_DRIVER(cuMemGetMemPool(memPool, (CUmemLocation *)location, (CUmemAllocationType)type));
}

cudaError_t CUDARTAPI cudaMemSetMemPool(struct cudaMemLocation *location, enum cudaMemAllocationType type,
                                        cudaMemPool_t memPool)
{
    RT_DRIVER(cuMemSetMemPool((CUmemLocation *)location, (CUmemAllocationType)type, memPool));
}

cudaError_t CUDARTAPI cudaMemPoolCreate(cudaMemPool_t *memPool, const struct cudaMemPoolProps *poolProps)
{
    RT_DRIVER(cuMemPoolCreate(memPool, (const CUmemPoolProps *)poolProps));
}

cudaError_t CUDARTAPI cudaMemPoolDestroy(cudaMemPool_t memPool) { RT_DRIVER(cuMemPoolDestroy(memPool)); }

cudaError_t CUDARTAPI cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep)
{
    RT_DRIVER(cuMemPoolTrimTo(memPool, minBytesToKeep));
}

cudaError_t CUDARTAPI cudaMemPoolSetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value)
{
    RT_DRIVER(cuMemPoolSetAttribute(memPool, (CUmemPool_attribute)attr, value));
}

cudaError_t CUDARTAPI cudaMemPoolGetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value)
{
    RT_DRIVER(cuMemPoolGetAttribute(memPool, (CUmemPool_attribute)attr, value));
}

cudaError_t CUDARTAPI cudaMemPoolSetAccess(cudaMemPool_t memPool, const struct cudaMemAccessDesc *descList,
                                           size_t count)
{
    RT_DRIVER(cuMemPoolSetAccess(memPool, (const CUmemAccessDesc *)descList, count));
}

cudaError_t CUDARTAPI cudaMemPoolGetAccess(enum cudaMemAccessFlags *flags, cudaMemPool_t memPool,
                                           struct cudaMemLocation *location)
{
    RT_DRIVER(cuMemPoolGetAccess((CUmemAccess_flags *)flags, memPool, (CUmemLocation *)location));
}
