/* device_api.c - the one emulated device: an H100 SXM (sm_90) as programs see it through
 * cudaGetDeviceProperties and cudaDeviceGetAttribute, plus device-wide settings and reset.
 *
 * Features the emulator does not provide are reported as absent (
 * hostRegisterSupported, pageable memory access), so programs that test for them take
 * their fallback path instead of failing later.
 */
#include <stdio.h>
#include <string.h>
#include "runtime/cudart_internal.h"
#include "emu/memory.h"

#define RT_CLOCK_KHZ 1980000          /* H100 SXM boost clock                          */
#define RT_MEM_CLOCK_KHZ 2619000      /* HBM3                                          */
#define RT_BUS_WIDTH 5120
#define RT_L2_BYTES (50 * 1024 * 1024)
#define RT_CONST_BYTES 65536
#define RT_PCI_DEVICE 0x2330          /* H100 SXM5 80GB                                */
#define RT_PCI_VENDOR 0x10de

/* Device-wide settings that cudaDeviceReset restores. */
static unsigned rt_dev_flags;
static enum cudaFuncCache rt_cache_config = cudaFuncCachePreferNone;
static size_t rt_printf_fifo = 1 << 20;
static size_t rt_pending_launches = 2048;
static size_t rt_l2_fetch = 64;

void rt_device_reset(void)
{
    rt_dev_flags = 0;
    rt_cache_config = cudaFuncCachePreferNone;
    rt_printf_fifo = 1 << 20;
    rt_pending_launches = 2048;
    rt_l2_fetch = 64;
}

static size_t rt_total_mem(void)
{
    size_t used = 0, total = 0;
    if (rt_init() == cudaSuccess) mem_usage(&used, &total);
    return total;
}

static void rt_fill_limits(struct cudaDeviceProp *p)
{
    p->sharedMemPerBlock = RT_SMEM_PER_BLOCK;
    p->regsPerBlock = 65536;
    p->warpSize = 32;
    p->memPitch = 2147483647;
    p->maxThreadsPerBlock = RT_MAX_THREADS_PER_BLOCK;
    p->maxThreadsDim[0] = RT_MAX_BLOCK_X;
    p->maxThreadsDim[1] = RT_MAX_BLOCK_Y;
    p->maxThreadsDim[2] = RT_MAX_BLOCK_Z;
    p->maxGridSize[0] = (int)RT_MAX_GRID_X;
    p->maxGridSize[1] = (int)RT_MAX_GRID_YZ;
    p->maxGridSize[2] = (int)RT_MAX_GRID_YZ;
    p->totalConstMem = RT_CONST_BYTES;
    p->major = 9;
    p->minor = 0;
    p->multiProcessorCount = RT_NUM_SMS;
    p->maxThreadsPerMultiProcessor = RT_THREADS_PER_SM;
    p->sharedMemPerMultiprocessor = RT_SMEM_PER_SM;
    p->regsPerMultiprocessor = RT_REGS_PER_SM;
    p->sharedMemPerBlockOptin = RT_SMEM_PER_BLOCK_OPTIN;
    p->maxBlocksPerMultiProcessor = RT_BLOCKS_PER_SM;
    p->reservedSharedMemPerBlock = RT_SMEM_RESERVED_PER_BLOCK;
    p->l2CacheSize = RT_L2_BYTES;
    p->persistingL2CacheMaxSize = 0;      /* L2 residency control is not emulated */
    p->accessPolicyMaxWindowSize = 0;
    p->memoryBusWidth = RT_BUS_WIDTH;
}

/* Texture and surface size limits of sm_90 (reported even though textures are not yet
 * emulated, since programs size their data by them). */
static void rt_fill_textures(struct cudaDeviceProp *p)
{
    p->textureAlignment = 512;
    p->texturePitchAlignment = 32;
    p->surfaceAlignment = 512;
    p->maxTexture1D = 131072;
    p->maxTexture1DMipmap = 32768;
    p->maxTexture2D[0] = 131072; p->maxTexture2D[1] = 65536;
    p->maxTexture2DMipmap[0] = 32768; p->maxTexture2DMipmap[1] = 32768;
    p->maxTexture2DLinear[0] = 131072; p->maxTexture2DLinear[1] = 65000;
    p->maxTexture2DLinear[2] = 2097120;
    p->maxTexture2DGather[0] = 32768; p->maxTexture2DGather[1] = 32768;
    p->maxTexture3D[0] = p->maxTexture3D[1] = p->maxTexture3D[2] = 16384;
    p->maxTexture3DAlt[0] = p->maxTexture3DAlt[1] = 8192; p->maxTexture3DAlt[2] = 32768;
    p->maxTextureCubemap = 32768;
    p->maxTexture1DLayered[0] = 32768; p->maxTexture1DLayered[1] = 2048;
    p->maxTexture2DLayered[0] = p->maxTexture2DLayered[1] = 32768;
    p->maxTexture2DLayered[2] = 2048;
    p->maxTextureCubemapLayered[0] = 32768; p->maxTextureCubemapLayered[1] = 2046;
    p->maxSurface1D = 32768;
    p->maxSurface2D[0] = 131072; p->maxSurface2D[1] = 65536;
    p->maxSurface3D[0] = p->maxSurface3D[1] = p->maxSurface3D[2] = 16384;
    p->maxSurface1DLayered[0] = 32768; p->maxSurface1DLayered[1] = 2048;
    p->maxSurface2DLayered[0] = p->maxSurface2DLayered[1] = 32768;
    p->maxSurface2DLayered[2] = 2048;
    p->maxSurfaceCubemap = 32768;
    p->maxSurfaceCubemapLayered[0] = 32768; p->maxSurfaceCubemapLayered[1] = 2046;
}

static void rt_fill_features(struct cudaDeviceProp *p)
{
    p->canMapHostMemory = 1;
    p->concurrentKernels = 1;
    p->asyncEngineCount = 3;                 /* as an H100 SXM reports */
    p->ECCEnabled = 1;
    p->unifiedFunctionPointers = 1;
    p->unifiedAddressing = 1;
    p->streamPrioritiesSupported = 1;
    p->globalL1CacheSupported = 1;
    p->localL1CacheSupported = 1;
    p->managedMemory = 1;
    p->concurrentManagedAccess = 1;
    p->computePreemptionSupported = 1;
    p->cooperativeLaunch = 1;
    p->directManagedMemAccessFromHost = 1;   /* managed memory is host memory here */
    p->memoryPoolsSupported = 1;
    p->clusterLaunch = 1;                    /* thread-block clusters (up to 16 CTAs) */
    p->deviceNumaId = -1;
    p->hostNumaId = -1;
    p->gpuPciDeviceID = (RT_PCI_DEVICE << 16) | RT_PCI_VENDOR;
}

static void rt_fill_props(struct cudaDeviceProp *p)
{
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "ptxemu (emulated sm_90)");
    memcpy(p->uuid.bytes, "ptxemu-sm90-dev0", sizeof p->uuid.bytes);
    p->totalGlobalMem = rt_total_mem();
    rt_fill_limits(p);
    rt_fill_textures(p);
    rt_fill_features(p);
}

cudaError_t CUDARTAPI cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    if (!prop) return rt_ret(cudaErrorInvalidValue);
    if (device != 0) return rt_ret(cudaErrorInvalidDevice);
    rt_fill_props(prop);
    return cudaSuccess;
}

/* Attributes that are not fields of cudaDeviceProp; -1 when attr is not one of them. */
static int rt_extra_attr(enum cudaDeviceAttr attr, int *v)
{
    switch (attr) {
    case cudaDevAttrClockRate: *v = RT_CLOCK_KHZ; return 0;
    case cudaDevAttrMemoryClockRate: *v = RT_MEM_CLOCK_KHZ; return 0;
    case cudaDevAttrGpuOverlap: *v = 1; return 0;
    case cudaDevAttrKernelExecTimeout: *v = 0; return 0;
    case cudaDevAttrComputeMode: *v = cudaComputeModeDefault; return 0;
    case cudaDevAttrSingleToDoublePrecisionPerfRatio: *v = 2; return 0;
    case cudaDevAttrMaxTexture1DLinearWidth: *v = 268435456; return 0;
    case cudaDevAttrCanFlushRemoteWrites: *v = 0; return 0;
    case cudaDevAttrMemSyncDomainCount: *v = 4; return 0;
    case cudaDevAttrD3D12CigSupported: case cudaDevAttrVulkanCigSupported: *v = 0; return 0;
    case cudaDevAttrGpuPciSubsystemId: *v = 0; return 0;
    case cudaDevAttrHostNumaMemoryPoolsSupported: case cudaDevAttrHostMemoryPoolsSupported:
    case cudaDevAttrOnlyPartialHostNativeAtomicSupported: *v = 0; return 0;
    default: return -1;
    }
}

/* Attributes that mirror a cudaDeviceProp field; -1 when attr is not one of them. */
static int rt_prop_attr(const struct cudaDeviceProp *p, enum cudaDeviceAttr attr, int *v)
{
    switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: *v = p->maxThreadsPerBlock; return 0;
    case cudaDevAttrMaxBlockDimX: *v = p->maxThreadsDim[0]; return 0;
    case cudaDevAttrMaxBlockDimY: *v = p->maxThreadsDim[1]; return 0;
    case cudaDevAttrMaxBlockDimZ: *v = p->maxThreadsDim[2]; return 0;
    case cudaDevAttrMaxGridDimX: *v = p->maxGridSize[0]; return 0;
    case cudaDevAttrMaxGridDimY: *v = p->maxGridSize[1]; return 0;
    case cudaDevAttrMaxGridDimZ: *v = p->maxGridSize[2]; return 0;
    case cudaDevAttrMaxSharedMemoryPerBlock: *v = (int)p->sharedMemPerBlock; return 0;
    case cudaDevAttrTotalConstantMemory: *v = (int)p->totalConstMem; return 0;
    case cudaDevAttrWarpSize: *v = p->warpSize; return 0;
    case cudaDevAttrMaxPitch: *v = (int)p->memPitch; return 0;
    case cudaDevAttrMaxRegistersPerBlock: *v = p->regsPerBlock; return 0;
    case cudaDevAttrTextureAlignment: *v = (int)p->textureAlignment; return 0;
    case cudaDevAttrMultiProcessorCount: *v = p->multiProcessorCount; return 0;
    case cudaDevAttrIntegrated: *v = p->integrated; return 0;
    case cudaDevAttrCanMapHostMemory: *v = p->canMapHostMemory; return 0;
    case cudaDevAttrMaxTexture1DWidth: *v = p->maxTexture1D; return 0;
    case cudaDevAttrMaxTexture2DWidth: *v = p->maxTexture2D[0]; return 0;
    case cudaDevAttrMaxTexture2DHeight: *v = p->maxTexture2D[1]; return 0;
    case cudaDevAttrMaxTexture3DWidth: *v = p->maxTexture3D[0]; return 0;
    case cudaDevAttrMaxTexture3DHeight: *v = p->maxTexture3D[1]; return 0;
    case cudaDevAttrMaxTexture3DDepth: *v = p->maxTexture3D[2]; return 0;
    case cudaDevAttrMaxTexture2DLayeredWidth: *v = p->maxTexture2DLayered[0]; return 0;
    case cudaDevAttrMaxTexture2DLayeredHeight: *v = p->maxTexture2DLayered[1]; return 0;
    case cudaDevAttrMaxTexture2DLayeredLayers: *v = p->maxTexture2DLayered[2]; return 0;
    case cudaDevAttrSurfaceAlignment: *v = (int)p->surfaceAlignment; return 0;
    case cudaDevAttrConcurrentKernels: *v = p->concurrentKernels; return 0;
    case cudaDevAttrEccEnabled: *v = p->ECCEnabled; return 0;
    case cudaDevAttrPciBusId: *v = p->pciBusID; return 0;
    case cudaDevAttrPciDeviceId: *v = p->pciDeviceID; return 0;
    case cudaDevAttrTccDriver: *v = p->tccDriver; return 0;
    case cudaDevAttrGlobalMemoryBusWidth: *v = p->memoryBusWidth; return 0;
    case cudaDevAttrL2CacheSize: *v = p->l2CacheSize; return 0;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *v = p->maxThreadsPerMultiProcessor; return 0;
    case cudaDevAttrAsyncEngineCount: *v = p->asyncEngineCount; return 0;
    case cudaDevAttrUnifiedAddressing: *v = p->unifiedAddressing; return 0;
    case cudaDevAttrMaxTexture1DLayeredWidth: *v = p->maxTexture1DLayered[0]; return 0;
    case cudaDevAttrMaxTexture1DLayeredLayers: *v = p->maxTexture1DLayered[1]; return 0;
    case cudaDevAttrMaxTexture2DGatherWidth: *v = p->maxTexture2DGather[0]; return 0;
    case cudaDevAttrMaxTexture2DGatherHeight: *v = p->maxTexture2DGather[1]; return 0;
    case cudaDevAttrMaxTexture3DWidthAlt: *v = p->maxTexture3DAlt[0]; return 0;
    case cudaDevAttrMaxTexture3DHeightAlt: *v = p->maxTexture3DAlt[1]; return 0;
    case cudaDevAttrMaxTexture3DDepthAlt: *v = p->maxTexture3DAlt[2]; return 0;
    case cudaDevAttrPciDomainId: *v = p->pciDomainID; return 0;
    case cudaDevAttrTexturePitchAlignment: *v = (int)p->texturePitchAlignment; return 0;
    case cudaDevAttrMaxTextureCubemapWidth: *v = p->maxTextureCubemap; return 0;
    case cudaDevAttrMaxTextureCubemapLayeredWidth: *v = p->maxTextureCubemapLayered[0]; return 0;
    case cudaDevAttrMaxTextureCubemapLayeredLayers: *v = p->maxTextureCubemapLayered[1]; return 0;
    case cudaDevAttrMaxSurface1DWidth: *v = p->maxSurface1D; return 0;
    case cudaDevAttrMaxSurface2DWidth: *v = p->maxSurface2D[0]; return 0;
    case cudaDevAttrMaxSurface2DHeight: *v = p->maxSurface2D[1]; return 0;
    case cudaDevAttrMaxSurface3DWidth: *v = p->maxSurface3D[0]; return 0;
    case cudaDevAttrMaxSurface3DHeight: *v = p->maxSurface3D[1]; return 0;
    case cudaDevAttrMaxSurface3DDepth: *v = p->maxSurface3D[2]; return 0;
    case cudaDevAttrMaxSurface1DLayeredWidth: *v = p->maxSurface1DLayered[0]; return 0;
    case cudaDevAttrMaxSurface1DLayeredLayers: *v = p->maxSurface1DLayered[1]; return 0;
    case cudaDevAttrMaxSurface2DLayeredWidth: *v = p->maxSurface2DLayered[0]; return 0;
    case cudaDevAttrMaxSurface2DLayeredHeight: *v = p->maxSurface2DLayered[1]; return 0;
    case cudaDevAttrMaxSurface2DLayeredLayers: *v = p->maxSurface2DLayered[2]; return 0;
    case cudaDevAttrMaxSurfaceCubemapWidth: *v = p->maxSurfaceCubemap; return 0;
    case cudaDevAttrMaxSurfaceCubemapLayeredWidth: *v = p->maxSurfaceCubemapLayered[0]; return 0;
    case cudaDevAttrMaxSurfaceCubemapLayeredLayers: *v = p->maxSurfaceCubemapLayered[1]; return 0;
    case cudaDevAttrMaxTexture2DLinearWidth: *v = p->maxTexture2DLinear[0]; return 0;
    case cudaDevAttrMaxTexture2DLinearHeight: *v = p->maxTexture2DLinear[1]; return 0;
    case cudaDevAttrMaxTexture2DLinearPitch: *v = p->maxTexture2DLinear[2]; return 0;
    case cudaDevAttrMaxTexture2DMipmappedWidth: *v = p->maxTexture2DMipmap[0]; return 0;
    case cudaDevAttrMaxTexture2DMipmappedHeight: *v = p->maxTexture2DMipmap[1]; return 0;
    case cudaDevAttrComputeCapabilityMajor: *v = p->major; return 0;
    case cudaDevAttrComputeCapabilityMinor: *v = p->minor; return 0;
    case cudaDevAttrMaxTexture1DMipmappedWidth: *v = p->maxTexture1DMipmap; return 0;
    case cudaDevAttrStreamPrioritiesSupported: *v = p->streamPrioritiesSupported; return 0;
    case cudaDevAttrGlobalL1CacheSupported: *v = p->globalL1CacheSupported; return 0;
    case cudaDevAttrLocalL1CacheSupported: *v = p->localL1CacheSupported; return 0;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *v = (int)p->sharedMemPerMultiprocessor; return 0;
    case cudaDevAttrMaxRegistersPerMultiprocessor: *v = p->regsPerMultiprocessor; return 0;
    case cudaDevAttrManagedMemory: *v = p->managedMemory; return 0;
    case cudaDevAttrIsMultiGpuBoard: *v = p->isMultiGpuBoard; return 0;
    case cudaDevAttrMultiGpuBoardGroupID: *v = p->multiGpuBoardGroupID; return 0;
    case cudaDevAttrHostNativeAtomicSupported: *v = p->hostNativeAtomicSupported; return 0;
    case cudaDevAttrPageableMemoryAccess: *v = p->pageableMemoryAccess; return 0;
    case cudaDevAttrConcurrentManagedAccess: *v = p->concurrentManagedAccess; return 0;
    case cudaDevAttrComputePreemptionSupported: *v = p->computePreemptionSupported; return 0;
    case cudaDevAttrCanUseHostPointerForRegisteredMem: *v = p->canUseHostPointerForRegisteredMem; return 0;
    case cudaDevAttrCooperativeLaunch: *v = p->cooperativeLaunch; return 0;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *v = (int)p->sharedMemPerBlockOptin; return 0;
    case cudaDevAttrHostRegisterSupported: *v = p->hostRegisterSupported; return 0;
    case cudaDevAttrPageableMemoryAccessUsesHostPageTables: *v = p->pageableMemoryAccessUsesHostPageTables; return 0;
    case cudaDevAttrDirectManagedMemAccessFromHost: *v = p->directManagedMemAccessFromHost; return 0;
    case cudaDevAttrMaxBlocksPerMultiprocessor: *v = p->maxBlocksPerMultiProcessor; return 0;
    case cudaDevAttrMaxPersistingL2CacheSize: *v = p->persistingL2CacheMaxSize; return 0;
    case cudaDevAttrMaxAccessPolicyWindowSize: *v = p->accessPolicyMaxWindowSize; return 0;
    case cudaDevAttrReservedSharedMemoryPerBlock: *v = (int)p->reservedSharedMemPerBlock; return 0;
    case cudaDevAttrSparseCudaArraySupported: *v = p->sparseCudaArraySupported; return 0;
    case cudaDevAttrHostRegisterReadOnlySupported: *v = p->hostRegisterReadOnlySupported; return 0;
    case cudaDevAttrTimelineSemaphoreInteropSupported: *v = p->timelineSemaphoreInteropSupported; return 0;
    case cudaDevAttrMemoryPoolsSupported: *v = p->memoryPoolsSupported; return 0;
    case cudaDevAttrGPUDirectRDMASupported: *v = p->gpuDirectRDMASupported; return 0;
    case cudaDevAttrGPUDirectRDMAFlushWritesOptions: *v = (int)p->gpuDirectRDMAFlushWritesOptions; return 0;
    case cudaDevAttrGPUDirectRDMAWritesOrdering: *v = p->gpuDirectRDMAWritesOrdering; return 0;
    case cudaDevAttrMemoryPoolSupportedHandleTypes: *v = (int)p->memoryPoolSupportedHandleTypes; return 0;
    case cudaDevAttrClusterLaunch: *v = p->clusterLaunch; return 0;
    case cudaDevAttrDeferredMappingCudaArraySupported: *v = p->deferredMappingCudaArraySupported; return 0;
    case cudaDevAttrIpcEventSupport: *v = p->ipcEventSupported; return 0;
    case cudaDevAttrNumaConfig: *v = p->deviceNumaConfig; return 0;
    case cudaDevAttrNumaId: *v = p->deviceNumaId; return 0;
    case cudaDevAttrMpsEnabled: *v = p->mpsEnabled; return 0;
    case cudaDevAttrHostNumaId: *v = p->hostNumaId; return 0;
    case cudaDevAttrGpuPciDeviceId: *v = (int)p->gpuPciDeviceID; return 0;
    case cudaDevAttrHostNumaMultinodeIpcSupported: *v = p->hostNumaMultinodeIpcSupported; return 0;
    default: return -1;
    }
}

cudaError_t CUDARTAPI cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    if (!value) return rt_ret(cudaErrorInvalidValue);
    if (device != 0) return rt_ret(cudaErrorInvalidDevice);
    struct cudaDeviceProp p;
    rt_fill_props(&p);
    if (rt_prop_attr(&p, attr, value) == 0 || rt_extra_attr(attr, value) == 0) return cudaSuccess;
    return rt_ret(cudaErrorInvalidValue);
}

cudaError_t CUDARTAPI cudaGetDeviceCount(int *count)
{
    if (!count) return rt_ret(cudaErrorInvalidValue);
    *count = 1;
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaGetDevice(int *device)
{
    if (!device) return rt_ret(cudaErrorInvalidValue);
    *device = 0;
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaSetDevice(int device)
{
    if (device != 0) return rt_ret(cudaErrorInvalidDevice);
    return rt_ret(rt_init());   /* succeeds after a kernel fault too (H100) */
}

cudaError_t CUDARTAPI cudaInitDevice(int device, unsigned int deviceFlags, unsigned int flags)
{
    if (device != 0) return rt_ret(cudaErrorInvalidDevice);
    if (flags != 0 || (deviceFlags & ~(unsigned)cudaDeviceMask)) return rt_ret(cudaErrorInvalidValue);
    RT_STICKY_CHECK();
    return rt_ret(rt_init());
}

cudaError_t CUDARTAPI cudaChooseDevice(int *device, const struct cudaDeviceProp *prop)
{
    if (!device || !prop) return rt_ret(cudaErrorInvalidValue);
    *device = 0;
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
    rt_dev_flags = flags;   /* scheduling hints: the host thread always waits by running */
    rt_unlock();
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaGetDeviceFlags(unsigned int *flags)
{
    if (!flags) return rt_ret(cudaErrorInvalidValue);
    *flags = rt_dev_flags;
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice)
{
    if (!canAccessPeer) return rt_ret(cudaErrorInvalidValue);
    if (device != 0 || peerDevice != 0) return rt_ret(cudaErrorInvalidDevice);
    *canAccessPeer = 0;
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaDeviceGetPCIBusId(char *pciBusId, int len, int device)
{
    if (!pciBusId || len <= 0) return rt_ret(cudaErrorInvalidValue);
    if (device != 0) return rt_ret(cudaErrorInvalidDevice);
    snprintf(pciBusId, (size_t)len, "00000000:00:00.0");
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaDriverGetVersion(int *driverVersion)
{
    if (!driverVersion) return rt_ret(cudaErrorInvalidValue);
    *driverVersion = CUDART_VERSION;
    return cudaSuccess;
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
    RT_STICKY_CHECK();
    rt_lock();
    rt_order_host_waits_all();
    rt_unlock();
    return cudaSuccess;
}

/* Destroys the context: allocations, streams, events, loaded modules, settings, and the
 * sticky error. Kernels are not running (launches hold the lock), so this is safe. */
cudaError_t CUDARTAPI cudaDeviceReset(void)
{
    if (rt_init() != cudaSuccess) return cudaSuccess;
    rt_lock();
    rt_stream_event_reset();
    rt_memory_reset();
    rt_clear_sticky();
    rt_registry_reset();
    rt_device_reset();
    emu_set_heap_size(rt_default_heap);
    emu_set_stack_size(rt_default_stack);
    rt_unlock();
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaDeviceSetLimit(enum cudaLimit limit, size_t value)
{
    RT_STICKY_CHECK();
    cudaError_t e = rt_init();
    if (e != cudaSuccess) return rt_ret(e);
    rt_lock();
    switch (limit) {
    case cudaLimitStackSize: emu_set_stack_size(value); break;
    case cudaLimitMallocHeapSize: emu_set_heap_size(value); break;
    case cudaLimitPrintfFifoSize: rt_printf_fifo = value; break;   /* printf goes straight out */
    case cudaLimitDevRuntimePendingLaunchCount: rt_pending_launches = value; break;
    case cudaLimitMaxL2FetchGranularity: rt_l2_fetch = value > 128 ? 128 : value; break;
    case cudaLimitPersistingL2CacheSize: break;   /* clamped to the maximum, 0 */
    default: e = cudaErrorUnsupportedLimit; break; /* incl. DevRuntimeSyncDepth on sm_90 */
    }
    rt_unlock();
    return rt_ret(e);
}

cudaError_t CUDARTAPI cudaDeviceGetLimit(size_t *pValue, enum cudaLimit limit)
{
    RT_STICKY_CHECK();
    if (!pValue) return rt_ret(cudaErrorInvalidValue);
    cudaError_t e = rt_init();
    if (e != cudaSuccess) return rt_ret(e);
    switch (limit) {
    case cudaLimitStackSize: *pValue = emu_stack_size(); break;
    case cudaLimitMallocHeapSize: *pValue = emu_heap_size(); break;
    case cudaLimitPrintfFifoSize: *pValue = rt_printf_fifo; break;
    case cudaLimitDevRuntimePendingLaunchCount: *pValue = rt_pending_launches; break;
    case cudaLimitMaxL2FetchGranularity: *pValue = rt_l2_fetch; break;
    case cudaLimitPersistingL2CacheSize: *pValue = 0; break;
    default: return rt_ret(cudaErrorUnsupportedLimit);
    }
    return cudaSuccess;
}

/* Cache and bank preferences do not change results; they are kept to be read back. */
cudaError_t CUDARTAPI cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig)
{
    if ((unsigned)cacheConfig > cudaFuncCachePreferEqual) return rt_ret(cudaErrorInvalidValue);
    RT_STICKY_CHECK();
    rt_cache_config = cacheConfig;
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaDeviceGetCacheConfig(enum cudaFuncCache *pCacheConfig)
{
    if (!pCacheConfig) return rt_ret(cudaErrorInvalidValue);
    RT_STICKY_CHECK();
    *pCacheConfig = rt_cache_config;
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config)
{
    if ((unsigned)config > cudaSharedMemBankSizeEightByte) return rt_ret(cudaErrorInvalidValue);
    RT_STICKY_CHECK();
    return cudaSuccess;   /* sm_90 banks are 4 bytes wide whatever is asked */
}

cudaError_t CUDARTAPI cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig *pConfig)
{
    if (!pConfig) return rt_ret(cudaErrorInvalidValue);
    RT_STICKY_CHECK();
    *pConfig = cudaSharedMemBankSizeFourByte;
    return cudaSuccess;
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
