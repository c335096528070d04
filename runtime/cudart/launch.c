/* launch.c - kernel launches (<<<>>>, cudaLaunchKernel*), function attributes and occupancy,
 * over the driver's cuLaunchKernel and cuFunc* / cuOccupancy* calls.
 *
 * A launch runs to completion in the driver; a fault becomes the context's sticky error and,
 * like an asynchronous launch on a GPU, the launch call itself still returns cudaSuccess.
 */
#include <string.h>
#include "runtime/cudart/cudart_internal.h"

/* cuFuncSetSharedMemConfig is deprecated, but cudaFuncSetSharedMemConfig still exists. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

unsigned CUDARTAPI __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                               struct CUstream_st *stream);
cudaError_t CUDARTAPI __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim,
                                                 size_t *sharedMem, void *stream);
cudaError_t CUDARTAPI __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun);
cudaError_t CUDARTAPI __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                         void **args, size_t sharedMem, cudaStream_t stream);

/* <<<>>> pushes its configuration, then the stub pops it; launches nested in argument
 * expressions push more than one, hence a small per-thread stack. */
typedef struct RtConfig { dim3 grid, block; size_t smem; cudaStream_t stream; } RtConfig;
#define RT_CONFIG_DEPTH 16
static _Thread_local RtConfig rt_configs[RT_CONFIG_DEPTH];
static _Thread_local int rt_nconfigs;

unsigned CUDARTAPI __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                               struct CUstream_st *stream)
{
    if (rt_nconfigs == RT_CONFIG_DEPTH) {
        rt_diag("kernel launches nested more than %d deep in one expression", RT_CONFIG_DEPTH);
        rt_ret(cudaErrorInvalidConfiguration);
        return 1;   /* nonzero: the generated code skips the launch */
    }
    RtConfig *c = &rt_configs[rt_nconfigs++];
    c->grid = gridDim;
    c->block = blockDim;
    c->smem = sharedMem;
    c->stream = stream;
    return 0;
}

cudaError_t CUDARTAPI __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim,
                                                 size_t *sharedMem, void *stream)
{
    if (rt_nconfigs == 0) return rt_ret(cudaErrorMissingConfiguration);
    const RtConfig *c = &rt_configs[--rt_nconfigs];
    *gridDim = c->grid;
    *blockDim = c->block;
    *sharedMem = c->smem;
    *(cudaStream_t *)stream = c->stream;
    return cudaSuccess;
}

/* One launch of a driver function, with launch attributes (cudaLaunchAttribute and
 * CUlaunchAttribute are the same layout and numbers). */
static cudaError_t rt_launch(CUfunction fn, dim3 g, dim3 b, void **args, size_t smem,
                             cudaStream_t stream, const cudaLaunchAttribute *attrs, unsigned n)
{
    if (smem > 0xffffffffu) return cudaErrorInvalidValue;
    CUlaunchConfig c;
    memset(&c, 0, sizeof c);
    c.gridDimX = g.x; c.gridDimY = g.y; c.gridDimZ = g.z;
    c.blockDimX = b.x; c.blockDimY = b.y; c.blockDimZ = b.z;
    c.sharedMemBytes = (unsigned)smem;
    c.hStream = stream;
    c.attrs = (CUlaunchAttribute *)(void *)attrs;
    c.numAttrs = n;
    return rt_err(cuLaunchKernelEx(&c, fn, args, NULL));
}

/* A launch by host stub: measured on an H100 with CUDA 13, a function that is not a kernel
 * is an invalid resource handle, and every bad launch shape is cudaErrorInvalidValue. */
static cudaError_t rt_launch_stub(const void *func, dim3 g, dim3 b, void **args, size_t smem,
                                  cudaStream_t stream, const cudaLaunchAttribute *attrs,
                                  unsigned n)
{
    RT_ENTER();
    cudaError_t e;
    CUfunction fn;
    rt_lock();
    e = rt_func_named(func, &fn, cudaErrorInvalidResourceHandle);
    rt_unlock();
    if (e == cudaSuccess) e = rt_launch(fn, g, b, args, smem, stream, attrs, n);
    return rt_ret(e);
}

/* The handle <<<>>> caches is our RtFunc itself. */
cudaError_t CUDARTAPI __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun)
{
    if (!kernel) return rt_ret(cudaErrorInvalidValue);
    rt_lock();
    RtFunc *f = rt_func_by_stub(hostFun);
    rt_unlock();
    if (!f) return rt_ret(cudaErrorInvalidDeviceFunction);
    *kernel = (cudaKernel_t)(void *)f;
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaGetKernel(cudaKernel_t *kernelPtr, const void *entryFuncAddr)
{
    return __cudaGetKernel(kernelPtr, entryFuncAddr);
}

cudaError_t CUDARTAPI __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                         void **args, size_t sharedMem, cudaStream_t stream)
{
    RT_ENTER();
    cudaError_t e;
    CUfunction fn;
    rt_lock();
    RtFunc *f = rt_func_by_handle((const void *)kernel);
    e = f ? rt_func_driver(f, &fn) : cudaErrorInvalidDeviceFunction;
    rt_unlock();
    if (e == cudaSuccess) e = rt_launch(fn, gridDim, blockDim, args, sharedMem, stream, NULL, 0);
    return rt_ret(e);
}
RT_TWIN(cudaError_t, __cudaLaunchKernel_ptsz, __cudaLaunchKernel,
        (cudaKernel_t k, dim3 g, dim3 b, void **a, size_t s, cudaStream_t st),
        (k, g, b, a, s, st))

cudaError_t CUDARTAPI cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim,
                                       void **args, size_t sharedMem, cudaStream_t stream)
{
    return RT_VIA(rt_launch_stub(func, gridDim, blockDim, args, sharedMem, stream, NULL, 0));
}
RT_TWIN(cudaError_t, cudaLaunchKernel_ptsz, cudaLaunchKernel,
        (const void *f, dim3 g, dim3 b, void **a, size_t s, cudaStream_t st),
        (f, g, b, a, s, st))

cudaError_t CUDARTAPI cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func,
                                          void **args)
{
    if (!config || (config->numAttrs && !config->attrs)) return rt_ret(cudaErrorInvalidValue);
    return RT_VIA(rt_launch_stub(func, config->gridDim, config->blockDim, args, config->dynamicSmemBytes,
                          config->stream, config->attrs, config->numAttrs));
}
RT_TWIN(cudaError_t, cudaLaunchKernelExC_ptsz, cudaLaunchKernelExC,
        (const cudaLaunchConfig_t *c, const void *f, void **a), (c, f, a))

cudaError_t CUDARTAPI cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim,
                                                  void **args, size_t sharedMem,
                                                  cudaStream_t stream)
{
    cudaLaunchAttribute a;
    memset(&a, 0, sizeof a);
    a.id = cudaLaunchAttributeCooperative;
    a.val.cooperative = 1;
    return RT_VIA(rt_launch_stub(func, gridDim, blockDim, args, sharedMem, stream, &a, 1));
}
RT_TWIN(cudaError_t, cudaLaunchCooperativeKernel_ptsz, cudaLaunchCooperativeKernel,
        (const void *f, dim3 g, dim3 b, void **a, size_t s, cudaStream_t st),
        (f, g, b, a, s, st))

/* ---- function attributes ---- */

/* The driver function of a host stub, for attribute calls: not a kernel is an invalid
 * resource handle there (measured). */
static cudaError_t rt_func(const void *func, CUfunction *fn)
{
    cudaError_t e = rt_enter();
    if (e != cudaSuccess) return e;
    rt_lock();
    e = rt_func_named(func, fn, cudaErrorInvalidResourceHandle);
    rt_unlock();
    return e;
}

/* The driver function of a host stub (cudaFunction_t is CUfunction). A null functionPtr is
 * success, nothing written, as in NVIDIA's runtime (measured: its static runtime over ptxemu). */
cudaError_t CUDARTAPI cudaGetFuncBySymbol(cudaFunction_t *functionPtr, const void *symbolPtr)
{
    RT_ENTER();
    CUfunction fn;
    rt_lock();
    cudaError_t e = rt_func_named(symbolPtr, &fn, cudaErrorInvalidDeviceFunction);
    rt_unlock();
    if (e == cudaSuccess && functionPtr) *functionPtr = (cudaFunction_t)fn;
    return rt_ret(e);
}

cudaError_t CUDARTAPI cudaFuncGetParamInfo(const void *func, size_t paramIndex, size_t *paramOffset,
                                           size_t *paramSize)
{
    CUfunction fn;
    cudaError_t e = rt_func(func, &fn);
    return rt_ret(e == cudaSuccess ? rt_err(cuFuncGetParamInfo(fn, paramIndex, paramOffset, paramSize)) : e);
}

static int fattr(CUfunction fn, CUfunction_attribute a)
{
    int v = 0;
    cuFuncGetAttribute(&v, a, fn);
    return v;
}

cudaError_t CUDARTAPI cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func)
{
    if (!attr) return rt_ret(cudaErrorInvalidValue);
    CUfunction fn;
    cudaError_t e = rt_func(func, &fn);
    if (e == cudaSuccess) {
        int regs;
        e = rt_err(cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, fn));
        if (e == cudaErrorInvalidPtx) e = cudaErrorInvalidDeviceFunction;
    }
    if (e != cudaSuccess) return rt_ret(e);
    memset(attr, 0, sizeof *attr);
    attr->sharedSizeBytes = (size_t)fattr(fn, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
    attr->constSizeBytes = (size_t)fattr(fn, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES);
    attr->localSizeBytes = (size_t)fattr(fn, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
    attr->maxThreadsPerBlock = fattr(fn, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    attr->numRegs = fattr(fn, CU_FUNC_ATTRIBUTE_NUM_REGS);
    attr->ptxVersion = fattr(fn, CU_FUNC_ATTRIBUTE_PTX_VERSION);
    attr->binaryVersion = fattr(fn, CU_FUNC_ATTRIBUTE_BINARY_VERSION);
    attr->cacheModeCA = fattr(fn, CU_FUNC_ATTRIBUTE_CACHE_MODE_CA);
    attr->maxDynamicSharedSizeBytes = fattr(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
    attr->preferredShmemCarveout = fattr(fn, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT);
    attr->clusterDimMustBeSet = fattr(fn, CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET);
    attr->requiredClusterWidth = fattr(fn, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH);
    attr->requiredClusterHeight = fattr(fn, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT);
    attr->requiredClusterDepth = fattr(fn, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH);
    attr->clusterSchedulingPolicyPreference = fattr(fn, CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE);
    attr->nonPortableClusterSizeAllowed = fattr(fn, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED);
    return cudaSuccess;
}

/* cudaFuncAttribute and CUfunction_attribute share their numbers. */
cudaError_t CUDARTAPI cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value)
{
    CUfunction fn;
    cudaError_t e = rt_func(func, &fn);
    if (e == cudaSuccess) e = rt_err(cuFuncSetAttribute(fn, (CUfunction_attribute)attr, value));
    return rt_ret(e);
}

/* Cache and bank configurations are performance preferences; they do not change results. */
cudaError_t CUDARTAPI cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache cacheConfig)
{
    if ((unsigned)cacheConfig > cudaFuncCachePreferEqual) return rt_ret(cudaErrorInvalidValue);
    CUfunction fn;
    cudaError_t e = rt_func(func, &fn);
    if (e == cudaSuccess) e = rt_err(cuFuncSetCacheConfig(fn, (CUfunc_cache)cacheConfig));
    return rt_ret(e);
}

cudaError_t CUDARTAPI cudaFuncSetSharedMemConfig(const void *func, enum cudaSharedMemConfig config)
{
    if ((unsigned)config > cudaSharedMemBankSizeEightByte) return rt_ret(cudaErrorInvalidValue);
    CUfunction fn;
    cudaError_t e = rt_func(func, &fn);
    if (e == cudaSuccess) e = rt_err(cuFuncSetSharedMemConfig(fn, (CUsharedconfig)config));
    return rt_ret(e);
}

/* ---- occupancy ---- */

cudaError_t CUDARTAPI cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize, unsigned int flags)
{
    if (!numBlocks || blockSize <= 0 || (flags & ~(unsigned)cudaOccupancyDisableCachingOverride))
        return rt_ret(cudaErrorInvalidValue);
    CUfunction fn;
    cudaError_t e = rt_func(func, &fn);
    if (e == cudaSuccess)
        e = rt_err(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, fn, blockSize,
                                                                       dynamicSMemSize, flags));
    return rt_ret(e);
}

cudaError_t CUDARTAPI cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks,
                                                                   const void *func,
                                                                   int blockSize,
                                                                   size_t dynamicSMemSize)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize,
                                                                  dynamicSMemSize, 0);
}

cudaError_t CUDARTAPI cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize,
                                                               const void *func, int numBlocks,
                                                               int blockSize)
{
    if (!dynamicSmemSize || numBlocks <= 0 || blockSize <= 0) return rt_ret(cudaErrorInvalidValue);
    CUfunction fn;
    cudaError_t e = rt_func(func, &fn);
    if (e == cudaSuccess)
        e = rt_err(cuOccupancyAvailableDynamicSMemPerBlock(dynamicSmemSize, fn, numBlocks, blockSize));
    return rt_ret(e);
}

/* The runtime's launch configuration as the driver's. */
static void rt_driver_config(const cudaLaunchConfig_t *config, CUlaunchConfig *c)
{
    memset(c, 0, sizeof *c);
    c->gridDimX = config->gridDim.x; c->gridDimY = config->gridDim.y; c->gridDimZ = config->gridDim.z;
    c->blockDimX = config->blockDim.x; c->blockDimY = config->blockDim.y; c->blockDimZ = config->blockDim.z;
    c->sharedMemBytes = (unsigned)config->dynamicSmemBytes;
    c->hStream = config->stream;
    c->attrs = (CUlaunchAttribute *)(void *)config->attrs;
    c->numAttrs = config->numAttrs;
}

/* Clusters of the configuration's size (the launch attribute's, else the kernel's
 * __cluster_dims__; 0 without either) that can be resident at once. */
cudaError_t CUDARTAPI cudaOccupancyMaxActiveClusters(int *numClusters, const void *func,
                                                     const cudaLaunchConfig_t *config)
{
    if (!numClusters || !config) return rt_ret(cudaErrorInvalidValue);
    CUfunction fn;
    cudaError_t e = rt_func(func, &fn);
    if (e == cudaSuccess) {
        CUlaunchConfig c;
        rt_driver_config(config, &c);
        e = rt_err(cuOccupancyMaxActiveClusters(numClusters, fn, &c));
    }
    return rt_ret(e);
}

cudaError_t CUDARTAPI cudaOccupancyMaxPotentialClusterSize(int *clusterSize, const void *func,
                                                           const cudaLaunchConfig_t *config)
{
    if (!clusterSize || !config) return rt_ret(cudaErrorInvalidValue);
    CUfunction fn;
    cudaError_t e = rt_func(func, &fn);
    if (e == cudaSuccess) {
        CUlaunchConfig c;
        rt_driver_config(config, &c);
        e = rt_err(cuOccupancyMaxPotentialClusterSize(clusterSize, fn, &c));
    }
    return rt_ret(e);
}
