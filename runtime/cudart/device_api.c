/* device_api.c - the device as the runtime shows it: cudaGetDeviceProperties and
 * cudaDeviceGetAttribute (built from the driver's cuDeviceGetAttribute, as NVIDIA's runtime
 * builds them; cudaDeviceAttr and CUdevice_attribute share their numbers), device-wide
 * settings, synchronisation and reset.
 */
#include <stdio.h>
#include <stddef.h>
#include <string.h>
#include "runtime/cudart/cudart_internal.h"

/* The shared-memory bank configuration calls are deprecated, but the runtime still has them. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/* Device-wide runtime settings that cudaDeviceReset restores, per device. */
static unsigned rt_dev_flags[RT_MAX_DEVICES];

void rt_device_reset(int device)
{
    rt_dev_flags[device] = 0;
}

static int attr(int device, CUdevice_attribute a)
{
    int v = 0;
    cuDeviceGetAttribute(&v, a, device);
    return v;
}

/* Fields of cudaDeviceProp that are one attribute each (int or size_t, said by `wide`). */
typedef struct PropAttr { size_t off; unsigned char wide; short attr; } PropAttr;
#define PI(field, a) { offsetof(struct cudaDeviceProp, field), 0, a }
#define PZ(field, a) { offsetof(struct cudaDeviceProp, field), 1, a }

static const PropAttr prop_attrs[] = {
    PZ(sharedMemPerBlock, 8), PI(regsPerBlock, 12), PI(warpSize, 10), PZ(memPitch, 11),
    PI(maxThreadsPerBlock, 1), PI(maxThreadsDim[0], 2), PI(maxThreadsDim[1], 3),
    PI(maxThreadsDim[2], 4), PI(maxGridSize[0], 5), PI(maxGridSize[1], 6), PI(maxGridSize[2], 7),
    PZ(totalConstMem, 9), PI(major, 75), PI(minor, 76), PZ(textureAlignment, 14),
    PZ(texturePitchAlignment, 51), PI(multiProcessorCount, 16), PI(integrated, 18),
    PI(canMapHostMemory, 19), PI(maxTexture1D, 21), PI(maxTexture1DMipmap, 77),
    PI(maxTexture2D[0], 22), PI(maxTexture2D[1], 23), PI(maxTexture2DMipmap[0], 73),
    PI(maxTexture2DMipmap[1], 74), PI(maxTexture2DLinear[0], 70), PI(maxTexture2DLinear[1], 71),
    PI(maxTexture2DLinear[2], 72), PI(maxTexture2DGather[0], 45), PI(maxTexture2DGather[1], 46),
    PI(maxTexture3D[0], 24), PI(maxTexture3D[1], 25), PI(maxTexture3D[2], 26),
    PI(maxTexture3DAlt[0], 47), PI(maxTexture3DAlt[1], 48), PI(maxTexture3DAlt[2], 49),
    PI(maxTextureCubemap, 52), PI(maxTexture1DLayered[0], 42), PI(maxTexture1DLayered[1], 43),
    PI(maxTexture2DLayered[0], 27), PI(maxTexture2DLayered[1], 28), PI(maxTexture2DLayered[2], 29),
    PI(maxTextureCubemapLayered[0], 53), PI(maxTextureCubemapLayered[1], 54),
    PI(maxSurface1D, 55), PI(maxSurface2D[0], 56), PI(maxSurface2D[1], 57),
    PI(maxSurface3D[0], 58), PI(maxSurface3D[1], 59), PI(maxSurface3D[2], 60),
    PI(maxSurface1DLayered[0], 61), PI(maxSurface1DLayered[1], 62),
    PI(maxSurface2DLayered[0], 63), PI(maxSurface2DLayered[1], 64), PI(maxSurface2DLayered[2], 65),
    PI(maxSurfaceCubemap, 66), PI(maxSurfaceCubemapLayered[0], 67),
    PI(maxSurfaceCubemapLayered[1], 68), PZ(surfaceAlignment, 30), PI(concurrentKernels, 31),
    PI(ECCEnabled, 32), PI(pciBusID, 33), PI(pciDeviceID, 34), PI(pciDomainID, 50),
    PI(tccDriver, 35), PI(asyncEngineCount, 40), PI(unifiedAddressing, 41),
    PI(memoryBusWidth, 37), PI(l2CacheSize, 38), PI(persistingL2CacheMaxSize, 108),
    PI(maxThreadsPerMultiProcessor, 39), PI(streamPrioritiesSupported, 78),
    PI(globalL1CacheSupported, 79), PI(localL1CacheSupported, 80),
    PZ(sharedMemPerMultiprocessor, 81), PI(regsPerMultiprocessor, 82), PI(managedMemory, 83),
    PI(isMultiGpuBoard, 84), PI(multiGpuBoardGroupID, 85), PI(hostNativeAtomicSupported, 86),
    PI(pageableMemoryAccess, 88), PI(concurrentManagedAccess, 89),
    PI(computePreemptionSupported, 90), PI(canUseHostPointerForRegisteredMem, 91),
    PI(cooperativeLaunch, 95), PZ(sharedMemPerBlockOptin, 97),
    PI(pageableMemoryAccessUsesHostPageTables, 100), PI(directManagedMemAccessFromHost, 101),
    PI(maxBlocksPerMultiProcessor, 106), PI(accessPolicyMaxWindowSize, 109),
    PZ(reservedSharedMemPerBlock, 111), PI(hostRegisterSupported, 99),
    PI(sparseCudaArraySupported, 112), PI(hostRegisterReadOnlySupported, 113),
    PI(timelineSemaphoreInteropSupported, 114), PI(memoryPoolsSupported, 115),
    PI(gpuDirectRDMASupported, 116), PI(gpuDirectRDMAFlushWritesOptions, 117),
    PI(gpuDirectRDMAWritesOrdering, 118), PI(memoryPoolSupportedHandleTypes, 119),
    PI(deferredMappingCudaArraySupported, 121), PI(ipcEventSupported, 125),
    PI(clusterLaunch, 120), PI(unifiedFunctionPointers, 129), PI(deviceNumaConfig, 130),
    PI(deviceNumaId, 131), PI(mpsEnabled, 133), PI(hostNumaId, 134),
    PI(gpuPciDeviceID, 139), PI(gpuPciSubsystemID, 140), PI(hostNumaMultinodeIpcSupported, 143),
};

/* The device must be valid; the runtime's context is set up as by any call that needs it. */
static cudaError_t device_enter(int device)
{
    cudaError_t e = rt_check_device(device);
    return e == cudaSuccess ? rt_enter_any() : e;
}

/* Every field up to `reserved`, which NVIDIA's runtime leaves as it was (measured,
 * tests/cuda/device_props.cu). */
cudaError_t CUDARTAPI cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    if (!prop) return rt_ret(cudaErrorInvalidValue);
    cudaError_t e = device_enter(device);
    if (e != cudaSuccess) return rt_ret(e);
    memset(prop, 0, offsetof(struct cudaDeviceProp, reserved));
    cuDeviceGetName(prop->name, sizeof prop->name, device);
    cuDeviceGetUuid((CUuuid *)&prop->uuid, device);
    cuDeviceTotalMem(&prop->totalGlobalMem, device);
    for (size_t i = 0; i < sizeof prop_attrs / sizeof prop_attrs[0]; i++) {
        char *f = (char *)prop + prop_attrs[i].off;
        int v = attr(device, (CUdevice_attribute)prop_attrs[i].attr);
        if (prop_attrs[i].wide) *(size_t *)f = (size_t)(unsigned)v;
        else memcpy(f, &v, sizeof v);
    }
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    if (!value) return rt_ret(cudaErrorInvalidValue);
    cudaError_t e = device_enter(device);
    if (e != cudaSuccess) return rt_ret(e);
    return rt_ret(rt_err(cuDeviceGetAttribute(value, (CUdevice_attribute)attr, device)));
}

cudaError_t CUDARTAPI cudaGetDeviceCount(int *count)
{
    if (!count) return rt_ret(cudaErrorInvalidValue);
    cudaError_t e = rt_init();
    if (e != cudaSuccess) return rt_ret(e);
    return rt_ret(rt_err(cuDeviceGetCount(count)));
}

cudaError_t CUDARTAPI cudaGetDevice(int *device)
{
    if (!device) return rt_ret(cudaErrorInvalidValue);
    *device = rt_current_device();
    return cudaSuccess;
}

/* Per host thread: the device's primary context becomes current (succeeds after a kernel
 * fault too, H100). */
cudaError_t CUDARTAPI cudaSetDevice(int device)
{
    return rt_ret(rt_set_device(device));
}

cudaError_t CUDARTAPI cudaInitDevice(int device, unsigned int deviceFlags, unsigned int flags)
{
    cudaError_t e = rt_check_device(device);
    if (e != cudaSuccess) return rt_ret(e);
    if (flags != 0 || (deviceFlags & ~(unsigned)cudaDeviceMask)) return rt_ret(cudaErrorInvalidValue);
    CUcontext c;
    return rt_ret(rt_primary(device, &c));   /* initialised, not made current */
}

cudaError_t CUDARTAPI cudaChooseDevice(int *device, const struct cudaDeviceProp *prop)
{
    if (!device || !prop) return rt_ret(cudaErrorInvalidValue);
    *device = 0;   /* the devices are identical: the first matches best */
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaSetDeviceFlags(unsigned int flags)
{
    unsigned sched = flags & cudaDeviceScheduleMask;
    if ((flags & ~(unsigned)cudaDeviceMask) || (sched != cudaDeviceScheduleAuto &&
        sched != cudaDeviceScheduleSpin && sched != cudaDeviceScheduleYield &&
        sched != cudaDeviceScheduleBlockingSync))
        return rt_ret(cudaErrorInvalidValue);
    rt_lock();
    rt_dev_flags[rt_current_device()] = flags;   /* scheduling hints: the host thread always waits by running */
    rt_unlock();
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaGetDeviceFlags(unsigned int *flags)
{
    if (!flags) return rt_ret(cudaErrorInvalidValue);
    *flags = rt_dev_flags[rt_current_device()];
    return cudaSuccess;
}


cudaError_t CUDARTAPI cudaDriverGetVersion(int *driverVersion)
{
    if (!driverVersion) return rt_ret(cudaErrorInvalidValue);
    return rt_ret(rt_err(cuDriverGetVersion(driverVersion)));
}

cudaError_t CUDARTAPI cudaRuntimeGetVersion(int *runtimeVersion)
{
    if (!runtimeVersion) return rt_ret(cudaErrorInvalidValue);
    *runtimeVersion = CUDART_VERSION;
    return cudaSuccess;
}

/* Work is finished when the call that issued it returns; what is left is a pending fault. */
cudaError_t CUDARTAPI cudaDeviceSynchronize(void)
{
    RT_ENTER();
    return rt_ret(rt_err(cuCtxSynchronize()));
}

/* Destroys what the primary context holds (allocations, streams, events, modules' state and
 * the sticky error); the registered kernels load again on demand. */
cudaError_t CUDARTAPI cudaDeviceReset(void)
{
    if (rt_enter_any() != cudaSuccess) return cudaSuccess;
    int device = rt_current_device();
    rt_lock();
    cuDevicePrimaryCtxReset(device);
    rt_forget_primary(device);
    rt_registry_reset();
    rt_device_reset(device);
    rt_unlock();
    rt_clear_last_error();
    return cudaSuccess;
}

/* cudaLimit and CUlimit share their numbers. */
cudaError_t CUDARTAPI cudaDeviceSetLimit(enum cudaLimit limit, size_t value)
{
    RT_ENTER();
    return rt_ret(rt_err(cuCtxSetLimit((CUlimit)limit, value)));
}

cudaError_t CUDARTAPI cudaDeviceGetLimit(size_t *pValue, enum cudaLimit limit)
{
    RT_ENTER();
    return rt_ret(rt_err(cuCtxGetLimit(pValue, (CUlimit)limit)));
}

cudaError_t CUDARTAPI cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig)
{
    if ((unsigned)cacheConfig > cudaFuncCachePreferEqual) return rt_ret(cudaErrorInvalidValue);
    RT_ENTER();
    return rt_ret(rt_err(cuCtxSetCacheConfig((CUfunc_cache)cacheConfig)));
}

cudaError_t CUDARTAPI cudaDeviceGetCacheConfig(enum cudaFuncCache *pCacheConfig)
{
    if (!pCacheConfig) return rt_ret(cudaErrorInvalidValue);
    RT_ENTER();
    return rt_ret(rt_err(cuCtxGetCacheConfig((CUfunc_cache *)pCacheConfig)));
}

cudaError_t CUDARTAPI cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config)
{
    if ((unsigned)config > cudaSharedMemBankSizeEightByte) return rt_ret(cudaErrorInvalidValue);
    RT_ENTER();
    return rt_ret(rt_err(cuCtxSetSharedMemConfig((CUsharedconfig)config)));
}

cudaError_t CUDARTAPI cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig *pConfig)
{
    if (!pConfig) return rt_ret(cudaErrorInvalidValue);
    RT_ENTER();
    return rt_ret(rt_err(cuCtxGetSharedMemConfig((CUsharedconfig *)pConfig)));
}

/* No profiler is attached: starting and stopping collection has nothing to do. */
cudaError_t CUDARTAPI cudaProfilerStart(void);
cudaError_t CUDARTAPI cudaProfilerStop(void);
cudaError_t CUDARTAPI cudaProfilerStart(void) { return cudaSuccess; }
cudaError_t CUDARTAPI cudaProfilerStop(void) { return cudaSuccess; }

/* A value-returning helper of the texture API (returned by value: it cannot be a stub). */
struct cudaChannelFormatDesc CUDARTAPI cudaCreateChannelDesc(int x, int y, int z, int w,
                                                             enum cudaChannelFormatKind f)
{
    struct cudaChannelFormatDesc d = { x, y, z, w, f };
    return d;
}
