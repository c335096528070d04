// Lab 04 - parallel sum reduction with a warp-shuffle step (solution).
//
// Sums n ints into one 64-bit total. Each block of BLOCK threads handles 2 * BLOCK elements:
//   1. every thread adds its two elements (i and i + BLOCK) while loading them;
//   2. each warp sums its 32 values with __shfl_down_sync (registers only, no shared memory);
//   3. lane 0 of every warp writes the warp's sum to shared memory; after a __syncthreads()
//      warp 0 reads those BLOCK/32 sums and reduces them with shuffles again;
//   4. thread 0 adds the block's sum to the total with one atomicAdd.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                              \
    do {                                                                              \
        cudaError_t err_ = (call);                                                    \
        if (err_ != cudaSuccess) {                                                    \
            fprintf(stderr, "CUDA error: %s (%s) at %s:%d\n", cudaGetErrorString(err_), \
                    #call, __FILE__, __LINE__);                                       \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

const int N = 200003;                  // not a multiple of 2 * BLOCK
const int BLOCK = 256;
const int WARPS = BLOCK / 32;
const unsigned FULL_MASK = 0xffffffffu;

__device__ long long warp_sum(long long v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    return v;                          // lane 0 holds the sum of the warp
}

__global__ void reduce_sum(const int *in, unsigned long long *total, int n)
{
    __shared__ long long warp_sums[WARPS];
    int tid = threadIdx.x;
    int i = blockIdx.x * (2 * BLOCK) + tid;
    int lane = tid % 32, warp = tid / 32;

    long long v = 0;
    if (i < n)
        v += in[i];
    if (i + BLOCK < n)
        v += in[i + BLOCK];

    v = warp_sum(v);
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();                   // all warp sums are in shared memory

    if (warp == 0) {
        v = (lane < WARPS) ? warp_sums[lane] : 0;
        v = warp_sum(v);
        if (lane == 0)
            atomicAdd(total, (unsigned long long)v);   // two's complement: adds signed values too
    }
}

int main()
{
    const int n = N;
    int *h_in = (int *)malloc(n * sizeof(int));
    long long want = 0;
    for (int i = 0; i < n; i++) {
        h_in[i] = (i * 131) % 2001 - 1000;            // deterministic, positive and negative
        want += h_in[i];
    }

    int *d_in;
    unsigned long long *d_total;
    CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_total, sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemcpy(d_in, h_in, n * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_total, 0, sizeof(unsigned long long)));

    int blocks = (n + 2 * BLOCK - 1) / (2 * BLOCK);
    reduce_sum<<<blocks, BLOCK>>>(d_in, d_total, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    unsigned long long got_bits;
    CUDA_CHECK(cudaMemcpy(&got_bits, d_total, sizeof(got_bits), cudaMemcpyDeviceToHost));
    long long got = (long long)got_bits;

    // One value, compared exactly.
    if (got == want)
        printf("RESULT: PASS\n");
    else
        printf("RESULT: FAIL (1 mismatches; first at 0: got %lld, expected %lld)\n", got, want);

    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_total));
    free(h_in);
    return 0;
}
