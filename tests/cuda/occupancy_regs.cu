// occupancy_regs.cu - occupancy counts the registers ptxas gives a kernel: a kernel that keeps
// many values live gets fewer blocks an SM than a light one, cudaFuncGetAttributes reports
// ptxas's numRegs, and a cooperative grid larger than the registers allow is refused.
// Expected output recorded on an H100 (tests/gpu/record_cuda.sh); under ptxemu it needs ptxas
// (docs/driver.md), as every CUDA test here needs nvcc.
#include <cstdio>
#include <cooperative_groups.h>

__global__ void light(float *out) { out[threadIdx.x] = threadIdx.x; }

// 64 accumulators live across the loop
__global__ void heavy(const float *in, float *out, int n)
{
    float acc[64];
#pragma unroll
    for (int j = 0; j < 64; j++) acc[j] = in[j];
    for (int i = 0; i < n; i++) {
#pragma unroll
        for (int j = 0; j < 64; j++) acc[j] = acc[j] * acc[(j + 1) & 63] + in[i];
    }
    float s = 0;
#pragma unroll
    for (int j = 0; j < 64; j++) s += acc[j];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

__global__ void heavy_coop(const float *in, float *out, int n)
{
    float acc[64];
#pragma unroll
    for (int j = 0; j < 64; j++) acc[j] = in[j];
    for (int i = 0; i < n; i++) {
#pragma unroll
        for (int j = 0; j < 64; j++) acc[j] = acc[j] * acc[(j + 1) & 63] + in[i];
    }
    cooperative_groups::this_grid().sync();
    float s = 0;
#pragma unroll
    for (int j = 0; j < 64; j++) s += acc[j];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

template <typename K> static void report(const char *name, K kernel)
{
    cudaFuncAttributes a;
    cudaFuncGetAttributes(&a, kernel);
    printf("%s: numRegs %d, maxThreadsPerBlock %d\n", name, a.numRegs, a.maxThreadsPerBlock);
    for (int bs = 64; bs <= 1024; bs *= 2) {
        int blocks = -1;
        cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, bs, 0);
        printf("  block %4d: %d blocks an SM (%s)\n", bs, blocks, cudaGetErrorName(e));
    }
    int grid = 0, block = 0;
    cudaOccupancyMaxPotentialBlockSize(&grid, &block, kernel, 0, 0);
    printf("  potential: block %d, grid %d\n", block, grid);
}

int main()
{
    report("light", light);
    report("heavy", heavy);
    report("heavy_coop", heavy_coop);
    float *in, *out;
    cudaMalloc(&in, 4096 * sizeof(float));
    cudaMemset(in, 0, 4096 * sizeof(float));
    cudaMalloc(&out, 1 << 22);
    int per_sm = 0, n = 1;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, heavy_coop, 256, 0);
    void *args[] = { &in, &out, &n };
    for (int extra = 0; extra <= 1; extra++) {
        int blocks = per_sm * 132 + extra;
        cudaError_t e = cudaLaunchCooperativeKernel((void *)heavy_coop, blocks, 256, args, 0, 0);
        cudaError_t s = cudaDeviceSynchronize();
        printf("cooperative grid of %d blocks of 256: %s, then %s\n", blocks, cudaGetErrorName(e),
               cudaGetErrorName(s));
        cudaGetLastError();
    }
    // a block whose registers do not fit an SM cannot launch
    for (int bs = 768; bs <= 1024; bs += 128) {
        heavy<<<1, bs>>>(in, out, n);
        cudaError_t e = cudaGetLastError();
        cudaError_t s = cudaDeviceSynchronize();
        printf("heavy<<<1, %d>>>: %s, then %s\n", bs, cudaGetErrorName(e), cudaGetErrorName(s));
    }
    return 0;
}
