// occupancy_probe.cu - what an H100's runtime answers for cudaOccupancyMaxActiveClusters and
// cudaOccupancyMaxActiveBlocksPerMultiprocessor over block sizes, dynamic shared memory and
// cluster sizes (ground truth for runtime/launch.c). One line per query:
//   bs=B smem=S blocks_per_sm=N cluster=C clusters=M err=NAME
// Build: nvcc -arch=sm_90 -o occupancy_probe occupancy_probe.cu ; run: ./occupancy_probe
#include <cstdio>

extern __shared__ int dyn[];
__global__ void k(int *p)
{
    if (p) { dyn[threadIdx.x] = 1; p[threadIdx.x] = dyn[threadIdx.x ^ 1]; }
}

int main()
{
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    printf("device %s sms=%d smem_per_sm=%zu smem_optin=%zu reserved=%zu max_threads_sm=%d max_blocks_sm=%d\n",
           prop.name, prop.multiProcessorCount, prop.sharedMemPerMultiprocessor,
           prop.sharedMemPerBlockOptin, prop.reservedSharedMemPerBlock,
           prop.maxThreadsPerMultiProcessor, prop.maxBlocksPerMultiProcessor);
    cudaFuncSetAttribute((void *)k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)prop.sharedMemPerBlockOptin);
    cudaFuncSetAttribute((void *)k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    int bss[] = {32, 64, 96, 128, 192, 256, 288, 384, 512, 768, 1024};
    size_t smems[] = {0, 1024, 8192, 20000, 30000, 32768, 40000, 50000, 65536, 100000, 120000, 200000, 232448};
    int css[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 24, 32, 33, 64, 1024};
    for (int b : bss)
        for (size_t s : smems) {
            int nb = -1;
            cudaError_t e0 = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, k, b, s);
            for (int c : css) {
                cudaLaunchConfig_t cfg = {};
                cudaLaunchAttribute attr;
                attr.id = cudaLaunchAttributeClusterDimension;
                attr.val.clusterDim.x = c; attr.val.clusterDim.y = 1; attr.val.clusterDim.z = 1;
                cfg.gridDim = dim3(c * 8, 1, 1);
                cfg.blockDim = dim3(b, 1, 1);
                cfg.dynamicSmemBytes = s;
                cfg.attrs = &attr; cfg.numAttrs = 1;
                int n = -1;
                cudaError_t e = cudaOccupancyMaxActiveClusters(&n, (void *)k, &cfg);
                printf("bs=%d smem=%zu blocks_per_sm=%d(%s) cluster=%d clusters=%d err=%s\n", b, s, nb,
                       cudaGetErrorName(e0), c, n, cudaGetErrorName(e));
                cudaGetLastError();
            }
        }
    return 0;
}
