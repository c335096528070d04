/* launch.c - kernel launches (<<<>>>, cudaLaunchKernel), function attributes and occupancy.
 *
 * Launches run to completion inside emu_launch, holding the runtime lock, so work happens in
 * issue order. A fault during the run becomes the context's sticky error; like an
 * asynchronous launch on a GPU, the launch call itself still returns cudaSuccess and the
 * fault surfaces at the next call that uses the context.
 */
#include <string.h>
#include "runtime/cudart_internal.h"

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

/* Grid and block shape against the H100's limits. */
static cudaError_t rt_check_shape(dim3 g, dim3 b)
{
    if (!g.x || !g.y || !g.z || !b.x || !b.y || !b.z) return cudaErrorInvalidValue;
    if (b.x > RT_MAX_BLOCK_X || b.y > RT_MAX_BLOCK_Y || b.z > RT_MAX_BLOCK_Z)
        return cudaErrorInvalidValue;
    if ((uint64_t)b.x * b.y * b.z > RT_MAX_THREADS_PER_BLOCK) return cudaErrorInvalidValue;
    if (g.x > RT_MAX_GRID_X || g.y > RT_MAX_GRID_YZ || g.z > RT_MAX_GRID_YZ)
        return cudaErrorInvalidValue;
    return cudaSuccess;
}

/* The kernel's own limits: .maxntid/.reqntid and its dynamic shared memory allowance. */
static cudaError_t rt_check_kernel(RtFunc *f, const EmuKernelInfo *info, dim3 b, size_t smem)
{
    uint64_t threads = (uint64_t)b.x * b.y * b.z;
    if (threads > info->max_threads) return cudaErrorInvalidValue;
    if (info->reqntid[0] > 0 && ((int)b.x != info->reqntid[0] || (int)b.y != info->reqntid[1] ||
                                 (int)b.z != info->reqntid[2]))
        return cudaErrorInvalidValue;
    if (smem > rt_func_max_dyn_smem(f, info)) return cudaErrorInvalidValue;
    return cudaSuccess;
}

/* Run one launch; caller holds the lock. */
static cudaError_t rt_launch(RtFunc *f, dim3 g, dim3 b, void **args, size_t smem,
                             cudaStream_t stream, const unsigned *cluster)
{
    if (!rt_stream_valid(stream)) return cudaErrorInvalidResourceHandle;
    cudaError_t e = rt_check_shape(g, b);
    if (e != cudaSuccess) return e;
    EmuKernel *k;
    if ((e = rt_func_kernel(f, &k)) != cudaSuccess) return e;
    EmuKernelInfo info;
    if (emu_kernel_info(k, &info) != EMU_OK) {
        /* the kernel's PTX uses something ptxemu cannot translate: say what, once */
        if (rt_func_report_once(f))
            rt_diag("cannot translate kernel %s: %s", emu_kernel_name(k), emu_kernel_error(k));
        return cudaErrorInvalidPtx;
    }
    if ((e = rt_check_kernel(f, &info, b, smem)) != cudaSuccess) return e;
    if (info.nparams > 0 && !args) return cudaErrorInvalidValue;
    /* 8 CTAs is the portable cluster size; up to 16 once the kernel allows non-portable */
    if (cluster && (uint64_t)cluster[0] * cluster[1] * cluster[2] > (rt_func_nonportable(f) ? 16u : 8u))
        return cudaErrorInvalidClusterSize;
    unsigned grid[3] = { g.x, g.y, g.z }, block[3] = { b.x, b.y, b.z };
    char err[2048] = "";
    rt_order_launch(stream);
    int rc = emu_launch_ex(k, grid, block, cluster, smem, args, err, sizeof err);
    if (rc == EMU_OK) return cudaSuccess;
    if (rt_error_is_sticky(rc)) {
        rt_set_sticky((cudaError_t)rc, err[0] ? err : cudaGetErrorString((cudaError_t)rc));
        return cudaSuccess;
    }
    if (err[0] && rt_func_report_once(f)) rt_diag("%s", err);
    return (cudaError_t)rc;
}

static cudaError_t rt_launch_locked(RtFunc *f, const void *key, dim3 g, dim3 b, void **args,
                                    size_t smem, cudaStream_t stream, const unsigned *cluster)
{
    RT_STICKY_CHECK();
    cudaError_t e = rt_init();
    if (e != cudaSuccess) return rt_ret(e);
    rt_lock();
    if (!f) f = rt_func_by_stub(key);
    /* measured on an H100 with CUDA 13: a function that is not a kernel is an invalid
     * resource handle, and every bad launch shape is cudaErrorInvalidValue */
    e = f ? rt_launch(f, g, b, args, smem, stream, cluster) : cudaErrorInvalidResourceHandle;
    rt_unlock();
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
    RT_STICKY_CHECK();
    rt_lock();
    RtFunc *f = rt_func_by_handle((const void *)kernel);
    rt_unlock();
    if (!f) return rt_ret(cudaErrorInvalidDeviceFunction);
    return rt_launch_locked(f, NULL, gridDim, blockDim, args, sharedMem, stream, NULL);
}
RT_TWIN(cudaError_t, __cudaLaunchKernel_ptsz, __cudaLaunchKernel,
        (cudaKernel_t k, dim3 g, dim3 b, void **a, size_t s, cudaStream_t st),
        (k, g, b, a, s, st))

cudaError_t CUDARTAPI cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim,
                                       void **args, size_t sharedMem, cudaStream_t stream)
{
    return rt_launch_locked(NULL, func, gridDim, blockDim, args, sharedMem, stream, NULL);
}
RT_TWIN(cudaError_t, cudaLaunchKernel_ptsz, cudaLaunchKernel,
        (const void *f, dim3 g, dim3 b, void **a, size_t s, cudaStream_t st),
        (f, g, b, a, s, st))

/* Find the kernel behind a host stub with its info; caller holds the lock. */
static cudaError_t rt_func_info(const void *func, RtFunc **fp, EmuKernelInfo *info)
{
    cudaError_t e = rt_init();
    if (e != cudaSuccess) return e;
    RtFunc *f = func ? rt_func_by_stub(func) : NULL;
    if (!f) return cudaErrorInvalidResourceHandle;
    EmuKernel *k;
    if ((e = rt_func_kernel(f, &k)) != cudaSuccess) return e;
    if (emu_kernel_info(k, info) != EMU_OK) return cudaErrorInvalidDeviceFunction;
    *fp = f;
    return cudaSuccess;
}

static void rt_fill_func_attrs(struct cudaFuncAttributes *a, RtFunc *f,
                               const EmuKernelInfo *info)
{
    memset(a, 0, sizeof *a);
    a->sharedSizeBytes = info->shared_static;
    a->constSizeBytes = 0;          /* constant data is module-scope, not per kernel */
    a->localSizeBytes = info->local_bytes;
    a->maxThreadsPerBlock = (int)info->max_threads;
    a->numRegs = (int)info->num_regs;
    a->ptxVersion = 90;
    a->binaryVersion = 90;
    a->maxDynamicSharedSizeBytes = (int)rt_func_max_dyn_smem(f, info);
    a->preferredShmemCarveout = rt_func_carveout(f);
}

cudaError_t CUDARTAPI cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func)
{
    RT_STICKY_CHECK();
    if (!attr) return rt_ret(cudaErrorInvalidValue);
    rt_lock();
    RtFunc *f;
    EmuKernelInfo info;
    cudaError_t e = rt_func_info(func, &f, &info);
    if (e == cudaSuccess) rt_fill_func_attrs(attr, f, &info);
    rt_unlock();
    return rt_ret(e);
}

static cudaError_t rt_set_attr(RtFunc *f, const EmuKernelInfo *info, enum cudaFuncAttribute attr,
                               int value)
{
    switch (attr) {
    case cudaFuncAttributeMaxDynamicSharedMemorySize:
        if (value < 0 || (uint64_t)value + info->shared_static > RT_SMEM_PER_BLOCK_OPTIN)
            return cudaErrorInvalidValue;
        rt_func_set_max_dyn_smem(f, (size_t)value);
        return cudaSuccess;
    case cudaFuncAttributeNonPortableClusterSizeAllowed:
        if (value != 0 && value != 1) return cudaErrorInvalidValue;
        rt_func_set_nonportable(f, value);
        return cudaSuccess;
    case cudaFuncAttributePreferredSharedMemoryCarveout:
        if (value < -1 || value > 100) return cudaErrorInvalidValue;
        rt_func_set_carveout(f, value);   /* a hint about the L1/shared split: no effect here */
        return cudaSuccess;
    default:
        return cudaErrorInvalidValue;
    }
}

cudaError_t CUDARTAPI cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr,
                                           int value)
{
    RT_STICKY_CHECK();
    rt_lock();
    RtFunc *f;
    EmuKernelInfo info;
    cudaError_t e = rt_func_info(func, &f, &info);
    if (e == cudaSuccess) e = rt_set_attr(f, &info, attr, value);
    rt_unlock();
    return rt_ret(e);
}

/* Cache and bank configurations are performance preferences; they do not change results. */
cudaError_t CUDARTAPI cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache cacheConfig)
{
    RT_STICKY_CHECK();
    if ((unsigned)cacheConfig > cudaFuncCachePreferEqual) return rt_ret(cudaErrorInvalidValue);
    rt_lock();
    RtFunc *f;
    EmuKernelInfo info;
    cudaError_t e = rt_func_info(func, &f, &info);
    rt_unlock();
    return rt_ret(e);
}

cudaError_t CUDARTAPI cudaFuncSetSharedMemConfig(const void *func, enum cudaSharedMemConfig config)
{
    RT_STICKY_CHECK();
    if ((unsigned)config > cudaSharedMemBankSizeEightByte) return rt_ret(cudaErrorInvalidValue);
    rt_lock();
    RtFunc *f;
    EmuKernelInfo info;
    cudaError_t e = rt_func_info(func, &f, &info);
    rt_unlock();
    return rt_ret(e);
}

/* Blocks of `bs` threads that fit on one SM, from thread, block-slot and shared-memory
 * limits. Registers are not counted: PTX declares virtual registers, not what ptxas would
 * allocate, so they would give a meaningless bound. */
static int rt_occupancy(RtFunc *f, const EmuKernelInfo *info, int bs, size_t dyn)
{
    if ((unsigned)bs > info->max_threads || dyn > rt_func_max_dyn_smem(f, info)) return 0;
    int warps = (bs + 31) / 32;
    int n = RT_THREADS_PER_SM / 32 / warps;
    if (n > RT_BLOCKS_PER_SM) n = RT_BLOCKS_PER_SM;
    size_t smem = info->shared_static + dyn;
    if (smem) {
        size_t by_smem = RT_SMEM_PER_SM / (smem + RT_SMEM_RESERVED_PER_BLOCK);
        if (by_smem < (size_t)n) n = (int)by_smem;
    }
    return n;
}

cudaError_t CUDARTAPI cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize, unsigned int flags)
{
    RT_STICKY_CHECK();
    if (!numBlocks || blockSize <= 0 || (flags & ~(unsigned)cudaOccupancyDisableCachingOverride))
        return rt_ret(cudaErrorInvalidValue);
    rt_lock();
    RtFunc *f;
    EmuKernelInfo info;
    cudaError_t e = rt_func_info(func, &f, &info);
    if (e == cudaSuccess) *numBlocks = rt_occupancy(f, &info, blockSize, dynamicSMemSize);
    rt_unlock();
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
    RT_STICKY_CHECK();
    if (!dynamicSmemSize || numBlocks <= 0 || blockSize <= 0) return rt_ret(cudaErrorInvalidValue);
    rt_lock();
    RtFunc *f;
    EmuKernelInfo info;
    cudaError_t e = rt_func_info(func, &f, &info);
    if (e == cudaSuccess) {
        size_t per = RT_SMEM_PER_SM / (size_t)numBlocks;
        size_t used = info.shared_static + RT_SMEM_RESERVED_PER_BLOCK;
        size_t avail = per > used ? per - used : 0;
        size_t cap = rt_func_max_dyn_smem(f, &info);
        int fits = rt_occupancy(f, &info, blockSize, 0) >= numBlocks;
        *dynamicSmemSize = fits ? (avail < cap ? avail : cap) : 0;
    }
    rt_unlock();
    return rt_ret(e);
}

/* Launch attributes that only tune performance and so cannot change results here. */
static int rt_attr_is_hint(cudaLaunchAttributeID id)
{
    switch (id) {
    case cudaLaunchAttributeIgnore: case cudaLaunchAttributeAccessPolicyWindow:
    case cudaLaunchAttributePriority: case cudaLaunchAttributeMemSyncDomainMap:
    case cudaLaunchAttributeMemSyncDomain: case cudaLaunchAttributePreferredSharedMemoryCarveout:
    case cudaLaunchAttributeClusterSchedulingPolicyPreference:
    case cudaLaunchAttributeNvlinkUtilCentricScheduling:
    /* it allows the next kernel to overlap this one; running them in order is allowed */
    case cudaLaunchAttributeProgrammaticStreamSerialization:
        return 1;
    default:
        return 0;
    }
}

/* Attributes that change what runs (cooperative grids, clusters, events) are refused by
 * name until the emulator supports them; a cooperative value of 0 asks for nothing. */
static cudaError_t rt_check_attrs(const cudaLaunchConfig_t *config, unsigned *cluster,
                                  int *has_cluster)
{
    static int told;
    for (unsigned i = 0; i < config->numAttrs; i++) {
        const cudaLaunchAttribute *a = &config->attrs[i];
        if (rt_attr_is_hint(a->id)) continue;
        if (a->id == cudaLaunchAttributeClusterDimension) {
            cluster[0] = a->val.clusterDim.x;
            cluster[1] = a->val.clusterDim.y;
            cluster[2] = a->val.clusterDim.z;
            if (!cluster[0] || !cluster[1] || !cluster[2]) return cudaErrorInvalidValue;
            *has_cluster = 1;
            continue;
        }
        if (a->id == cudaLaunchAttributeCooperative && a->val.cooperative == 0) continue;
        if (!__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED))
            rt_diag("cudaLaunchKernelExC: launch attribute %d (%s) is not implemented yet",
                    (int)a->id, a->id == cudaLaunchAttributeCooperative ? "cooperative"
                                : a->id == cudaLaunchAttributeClusterDimension ? "cluster dimension"
                                : "see cudaLaunchAttributeID");
        return cudaErrorNotSupported;
    }
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func,
                                          void **args)
{
    if (!config || (config->numAttrs && !config->attrs)) return rt_ret(cudaErrorInvalidValue);
    unsigned cluster[3] = { 1, 1, 1 };
    int has_cluster = 0;
    cudaError_t e = rt_check_attrs(config, cluster, &has_cluster);
    if (e != cudaSuccess) return rt_ret(e);
    return rt_launch_locked(NULL, func, config->gridDim, config->blockDim, args,
                            config->dynamicSmemBytes, config->stream,
                            has_cluster ? cluster : NULL);
}
RT_TWIN(cudaError_t, cudaLaunchKernelExC_ptsz, cudaLaunchKernelExC,
        (const cudaLaunchConfig_t *c, const void *f, void **a), (c, f, a))

/* What an H100 (132 SMs; NVIDIA H100 80GB HBM3, driver 580.159.04) answers for clusters of
 * 1..18 CTAs when each SM holds b = 1..8 of them (more count as 8): the SMs of a cluster must
 * share a GPC, whose sizes the driver does not expose, so the measured table is the fact
 * (tests/gpu/occupancy_probe.cu recorded it; tests/cuda/occupancy.cu checks it). Sizes of
 * 19 and more give 0 (measured for 19, 20, 24, 32, 33, 64 and 1024). */
static const uint16_t h100_clusters[8][18] = {
    { 132,  66,  39,  30,  22,  17,  15,  15,   9,   7,   7,   7,   7,   7,   7,   7,  2,  2 },
    { 264, 132,  79,  62,  47,  39,  32,  30,  23,  21,  16,  16,  14,  14,  14,  14,  4,  4 },
    { 396, 198, 124,  92,  69,  62,  47,  45,  37,  30,  28,  28,  23,  21,  21,  21,  6,  6 },
    { 528, 264, 163, 124,  94,  79,  69,  62,  51,  44,  37,  37,  30,  30,  28,  28,  8,  8 },
    { 660, 330, 203, 154, 124, 101,  84,  77,  60,  58,  51,  44,  42,  37,  37,  35, 10, 10 },
    { 792, 396, 248, 186, 146, 124, 101,  92,  74,  65,  58,  58,  51,  44,  44,  42, 12, 12 },
    { 924, 462, 287, 216, 171, 141, 124, 107,  88,  79,  72,  65,  58,  58,  51,  49, 14, 14 },
    {1056, 528, 327, 248, 193, 163, 139, 124, 102,  88,  81,  74,  67,  65,  58,  58, 16, 16 },
};

/* Clusters of the configuration's size (the launch attribute's, else the kernel's
 * __cluster_dims__; 0 without either) that can be resident at once. */
cudaError_t CUDARTAPI cudaOccupancyMaxActiveClusters(int *numClusters, const void *func,
                                                     const cudaLaunchConfig_t *config)
{
    RT_STICKY_CHECK();
    if (!numClusters || !config) return rt_ret(cudaErrorInvalidValue);
    unsigned cluster[3] = { 1, 1, 1 };
    int has_cluster = 0;
    cudaError_t e = rt_check_attrs(config, cluster, &has_cluster);
    if (e != cudaSuccess) return rt_ret(e);
    rt_lock();
    RtFunc *f;
    EmuKernelInfo info;
    e = rt_func_info(func, &f, &info);
    if (e == cudaSuccess) {
        if (!has_cluster && info.reqncta[0])
            for (int i = 0; i < 3; i++) cluster[i] = info.reqncta[i] ? (unsigned)info.reqncta[i] : 1;
        unsigned size = cluster[0] * cluster[1] * cluster[2];
        if (size > 8 && !rt_func_nonportable(f)) e = cudaErrorInvalidClusterSize;
        int bs = (int)(config->blockDim.x * config->blockDim.y * config->blockDim.z);
        int per_sm = rt_occupancy(f, &info, bs, config->dynamicSmemBytes);
        if (per_sm > 8) per_sm = 8;
        if (e == cudaSuccess)
            *numClusters = (!has_cluster && !info.reqncta[0]) || per_sm <= 0 || size > 18 ? 0
                           : h100_clusters[per_sm - 1][size - 1];
    }
    rt_unlock();
    return rt_ret(e);
}
