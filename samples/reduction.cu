// reduction.cu - sums 1<<20 values with warp shuffles: an exact integer sum (butterfly with
// __shfl_xor_sync, blocks combined with atomicAdd) and a float sum whose tree order is fixed
// (__shfl_down_sync, per-block partials reduced by a second one-block kernel), so both
// results are the same on every run.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t err_ = (call);                                                    \
        if (err_ != cudaSuccess) {                                                    \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,             \
                    cudaGetErrorString(err_));                                        \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

#define N (1 << 20)
#define THREADS 256
#define BLOCKS (N / THREADS)
#define FINAL_THREADS 1024

__device__ int warp_sum_int(int v)
{
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}

__device__ float warp_sum_float(float v)
{
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, off);
    return v;   // valid in lane 0
}

__global__ void sum_int(const int *in, long long *total)
{
    __shared__ int warp_sums[THREADS / 32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int v = warp_sum_int(in[i]);
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < THREADS / 32 ? warp_sums[lane] : 0;
        v = warp_sum_int(v);
        if (lane == 0)
            atomicAdd((unsigned long long *)total, (unsigned long long)(long long)v);
    }
}

// Reduces blockDim.x values per block (each thread first adds `per_thread` strided inputs
// in order) into out[blockIdx.x]. Works for any blockDim.x that is a multiple of 32.
__global__ void sum_float(const float *in, float *out, int per_thread)
{
    __shared__ float warp_sums[32];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    const float *p = in + (size_t)blockIdx.x * blockDim.x * per_thread;
    float v = 0.0f;
    for (int k = 0; k < per_thread; k++)
        v += p[k * blockDim.x + threadIdx.x];
    v = warp_sum_float(v);
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < nwarps ? warp_sums[lane] : 0.0f;
        v = warp_sum_float(v);
        if (lane == 0)
            out[blockIdx.x] = v;
    }
}

static unsigned lcg_state = 777u;
static unsigned lcg_next(void)
{
    lcg_state = lcg_state * 1664525u + 1013904223u;
    return lcg_state >> 8;
}

int main(void)
{
    int *hi = (int *)malloc(N * sizeof(int));
    float *hf = (float *)malloc(N * sizeof(float));
    long long ref_int = 0;
    double ref_float = 0.0;
    for (int i = 0; i < N; i++) {
        hi[i] = (int)(lcg_next() % 2001u) - 1000;
        hf[i] = (float)lcg_next() / 16777216.0f - 0.25f;
        ref_int += hi[i];
        ref_float += hf[i];
    }

    int *di;
    float *df, *dpart, *dres;
    long long *dtotal;
    CHECK(cudaMalloc(&di, N * sizeof(int)));
    CHECK(cudaMalloc(&df, N * sizeof(float)));
    CHECK(cudaMalloc(&dpart, BLOCKS * sizeof(float)));
    CHECK(cudaMalloc(&dres, sizeof(float)));
    CHECK(cudaMalloc(&dtotal, sizeof(long long)));
    CHECK(cudaMemcpy(di, hi, N * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(df, hf, N * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dtotal, 0, sizeof(long long)));

    printf("[reduction] %d elements, %d blocks of %d threads\n", N, BLOCKS, THREADS);
    sum_int<<<BLOCKS, THREADS>>>(di, dtotal);
    CHECK(cudaGetLastError());
    sum_float<<<BLOCKS, THREADS>>>(df, dpart, 1);
    CHECK(cudaGetLastError());
    sum_float<<<1, FINAL_THREADS>>>(dpart, dres, BLOCKS / FINAL_THREADS);
    CHECK(cudaGetLastError());

    long long got_int;
    float got_float;
    CHECK(cudaMemcpy(&got_int, dtotal, sizeof(got_int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&got_float, dres, sizeof(got_float), cudaMemcpyDeviceToHost));

    int ok_int = got_int == ref_int;
    int ok_float = fabs(got_float - ref_float) <= 1e-5 * (1.0 + fabs(ref_float)) + 1e-2;
    printf("int sum   = %lld (host %lld) %s\n", got_int, ref_int, ok_int ? "ok" : "WRONG");
    printf("float sum = %.9g %s\n", got_float, ok_float ? "ok" : "WRONG");
    if (!ok_float)
        fprintf(stderr, "float sum: device %.9g, host %.9g\n", got_float, ref_float);

    CHECK(cudaFree(di));
    CHECK(cudaFree(df));
    CHECK(cudaFree(dpart));
    CHECK(cudaFree(dres));
    CHECK(cudaFree(dtotal));
    free(hi);
    free(hf);
    int ok = ok_int && ok_float;
    printf("%s\n", ok ? "PASSED" : "FAILED");
    return ok ? 0 : 1;
}
