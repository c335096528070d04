// reduction.cu (bench) - sum of 16M ints: warp shuffles, shared memory across warps, one
// 64-bit atomicAdd per block; times one launch.
#include "bench_common.h"

#define THREADS 256

__global__ void reduce_sum(const int *in, int n, unsigned long long *total)
{
    __shared__ int warp_sums[THREADS / 32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int v = i < n ? in[i] : 0;
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, off);
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < THREADS / 32 ? warp_sums[lane] : 0;
        for (int off = 16; off > 0; off >>= 1)
            v += __shfl_down_sync(0xffffffffu, v, off);
        if (lane == 0)
            atomicAdd(total, (unsigned long long)(long long)v);
    }
}

int main(int argc, char **argv)
{
    const int n = 16 << 20, blocks = (n + THREADS - 1) / THREADS;
    const size_t bytes = (size_t)n * sizeof(int);
    int *h = (int *)malloc(bytes);
    long long ref = 0;
    for (int i = 0; i < n; i++) {
        h[i] = (int)((i * 2654435761u) >> 22) - 512;
        ref += h[i];
    }
    int *d;
    unsigned long long *dtotal;
    CHECK(cudaMalloc(&d, bytes));
    CHECK(cudaMalloc(&dtotal, sizeof(*dtotal)));
    CHECK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));

    for (int w = bench_warmups(argc, argv); w > 0; w--)
        reduce_sum<<<blocks, THREADS>>>(d, n, dtotal);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemset(dtotal, 0, sizeof(*dtotal)));
    double t0 = bench_now();
    reduce_sum<<<blocks, THREADS>>>(d, n, dtotal);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    double t = bench_now() - t0;

    unsigned long long got;
    CHECK(cudaMemcpy(&got, dtotal, sizeof(got), cudaMemcpyDeviceToHost));
    int ok = (long long)got == ref;
    bench_report("reduction", n, bytes + sizeof(*dtotal), bytes, t, ok);
    CHECK(cudaFree(d));
    CHECK(cudaFree(dtotal));
    free(h);
    return ok ? 0 : 1;
}
