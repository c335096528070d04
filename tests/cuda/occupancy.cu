// occupancy.cu - what the occupancy queries answer: blocks per SM, and clusters that can be
// co-resident (cudaOccupancyMaxActiveClusters) for block sizes, dynamic shared memory and
// cluster sizes, including non-portable ones, plus the errors for bad arguments.
#include <cstdio>

extern __shared__ int dyn[];
__global__ void k(int *p)
{
    if (p) { dyn[threadIdx.x] = 1; p[threadIdx.x] = dyn[threadIdx.x ^ 1]; }
}

__global__ void __cluster_dims__(2, 1, 1) fixed(int *p) { if (p) p[0] = 1; }

static void clusters(int bs, size_t smem, int c)
{
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = c; attr.val.clusterDim.y = 1; attr.val.clusterDim.z = 1;
    cfg.gridDim = dim3(c * 4, 1, 1);
    cfg.blockDim = dim3(bs, 1, 1);
    cfg.dynamicSmemBytes = smem;
    cfg.attrs = &attr; cfg.numAttrs = 1;
    int n = -1;
    cudaError_t e = cudaOccupancyMaxActiveClusters(&n, (void *)k, &cfg);
    printf("block %4d smem %6zu cluster %2d: %s %d\n", bs, smem, c, cudaGetErrorName(e), n);
    cudaGetLastError();
}

int main()
{
    cudaFuncSetAttribute((void *)k, cudaFuncAttributeMaxDynamicSharedMemorySize, 200000);
    const int bss[] = {32, 128, 288, 384, 1024};
    const size_t smems[] = {0, 30000, 50000, 100000, 200000};
    for (int bs : bss)
        for (size_t s : smems) {
            int nb = -1;
            cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, k, bs, s);
            printf("block %4d smem %6zu: %s %d blocks per SM\n", bs, s, cudaGetErrorName(e), nb);
            for (int c = 1; c <= 8; c++) clusters(bs, s, c);
        }
    clusters(128, 0, 16);   /* no opt-in yet */
    cudaFuncSetAttribute((void *)k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    for (int c = 9; c <= 17; c++) clusters(128, 0, c);
    clusters(128, 250000, 2);   /* more shared memory than a block may have */
    clusters(2048, 0, 2);       /* more threads than a block may have */
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(4, 1, 1);
    cfg.blockDim = dim3(64, 1, 1);
    int n = -1;
    cudaError_t e = cudaOccupancyMaxActiveClusters(&n, (void *)fixed, &cfg);
    printf("__cluster_dims__(2,1,1), no attribute: %s %d\n", cudaGetErrorName(e), n);
    e = cudaOccupancyMaxActiveClusters(&n, (void *)k, &cfg);
    printf("no cluster at all: %s %d\n", cudaGetErrorName(e), n);
    e = cudaOccupancyMaxActiveClusters(nullptr, (void *)k, &cfg);
    printf("null result: %s\n", cudaGetErrorName(e));
    return 0;
}
