/* ptxrun_cuda.c - the ptxrun test driver on a real GPU, through the CUDA driver API.
 *
 * Parsing and printing come from ../ptxrun.c, so the GPU and the emulator print the same
 * bytes for the same outcome. Build: gcc -std=gnu11 -O2 -Wall -Wextra
 *   -I/usr/local/cuda/include tests/gpu/ptxrun_cuda.c -o ptxrun_cuda -lcuda
 * CUresult numbers equal the cudaError_t numbers for every code the tests produce
 * (CUDA_ERROR_INVALID_PTX = 218, CUDA_ERROR_ILLEGAL_ADDRESS = 700, ...), so ptxrun.c's
 * table names them as the runtime API would.
 */
#define PTXRUN_CUDA 1
#include "../ptxrun.c"
#include <cuda.h>

static CUmodule gpu_module;
static CUfunction gpu_function;

static int be_init(void)
{
    CUdevice dev;
    CUcontext ctx;
    if (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev)) return 1;
    return cuCtxSetCurrent(ctx) ? 1 : 0;
}

static int be_load(const char *ptx, size_t len, const char *path, const char *kernel)
{
    static char log[16384];
    CUjit_option opt[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *val[] = {log, (void *)(uintptr_t)sizeof log};
    (void)len;                              /* the PTX text is NUL-terminated */
    CUresult rc = cuModuleLoadDataEx(&gpu_module, ptx, 2, opt, val);
    if (rc) {
        fprintf(stderr, "%s: JIT log:\n%s\n", path, log);
        return (int)rc;
    }
    rc = cuModuleGetFunction(&gpu_function, gpu_module, kernel);
    if (rc) fprintf(stderr, "ptxrun: no .entry %s in %s\n", kernel, path);
    return (int)rc;
}

static int be_alloc(uint64_t *dev, size_t bytes)
{
    CUdeviceptr p;
    CUresult rc = cuMemAlloc(&p, bytes);
    *dev = (uint64_t)p;
    return (int)rc;
}

static int be_upload(uint64_t dev, const void *src, size_t bytes)
{
    return (int)cuMemcpyHtoD((CUdeviceptr)dev, src, bytes);
}

static int be_download(void *dst, uint64_t dev, size_t bytes)
{
    return (int)cuMemcpyDtoH(dst, (CUdeviceptr)dev, bytes);
}

/* @arg tmap: the driver's encoder over the buffer's device address. */
static int be_encode_tiled(void *tmap, const Arg *a, uint64_t gaddr)
{
    return (int)cuTensorMapEncodeTiled((CUtensorMap *)tmap, (CUtensorMapDataType)a->dt, a->rank,
                                       (void *)(uintptr_t)gaddr, a->dims, a->strides, a->box,
                                       a->es, (CUtensorMapInterleave)a->il,
                                       (CUtensorMapSwizzle)a->sw,
                                       (CUtensorMapL2promotion)a->l2,
                                       (CUtensorMapFloatOOBfill)a->oob);
}

/* cuLaunchKernelEx with a cluster-dimension attribute (@cluster). */
static CUresult launch_cluster(const unsigned grid[3], const unsigned block[3],
                               unsigned shared, const unsigned *cluster, void **args)
{
    CUlaunchAttribute attr;
    memset(&attr, 0, sizeof attr);
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = cluster[0];
    attr.value.clusterDim.y = cluster[1];
    attr.value.clusterDim.z = cluster[2];
    CUlaunchConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDimX = grid[0]; cfg.gridDimY = grid[1]; cfg.gridDimZ = grid[2];
    cfg.blockDimX = block[0]; cfg.blockDimY = block[1]; cfg.blockDimZ = block[2];
    cfg.sharedMemBytes = shared;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    return cuLaunchKernelEx(&cfg, gpu_function, args, NULL);
}

/* A fault surfaces at the synchronize; the context is dead after it, so the caller stops. */
static int be_launch(const unsigned grid[3], const unsigned block[3], unsigned shared,
                     const unsigned *cluster, void **args)
{
    CUresult rc = cluster ? launch_cluster(grid, block, shared, cluster, args)
                          : cuLaunchKernel(gpu_function, grid[0], grid[1], grid[2], block[0],
                                           block[1], block[2], shared, NULL, args, NULL);
    if (!rc) rc = cuCtxSynchronize();
    if (rc) {
        const char *s = NULL;
        cuGetErrorString(rc, &s);
        fprintf(stderr, "ptxrun: launch: %d %s\n", (int)rc, s ? s : "");
    }
    return (int)rc;
}
