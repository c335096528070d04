// Lab 06 - histogram with shared-memory atomics.
//
// bug_race: the solution with a race - the shared-memory count is a plain ++, not an atomicAdd;
// look for "BUG".
//
// n exam scores in 0..100 go into NBINS = 20 bins of width 5: bin b counts the scores
// 5b..5b+4, and the last bin also counts 100 (so it is 95..100). Each block keeps a private
// histogram in shared memory: its threads walk the input with a grid-stride loop and count
// with atomicAdd on shared memory (cheap: only the threads of one block contend); at the end
// the block adds its counts to the global histogram with one atomicAdd per bin.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
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

const int N = 200003;
const int NBINS = 20;
const int MAX_SCORE = 100;
const int BLOCK = 256;
const int BLOCKS = 24;

__device__ int bin_of(int score)
{
    int b = score / (MAX_SCORE / NBINS);   // 5 points per bin
    return b < NBINS ? b : NBINS - 1;      // a perfect 100 goes into the last bin
}

__global__ void histogram(const int *scores, unsigned *hist, int n)
{
    __shared__ unsigned local[NBINS];
    for (int b = threadIdx.x; b < NBINS; b += blockDim.x)
        local[b] = 0;
    __syncthreads();                        // the private histogram is cleared

    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        local[bin_of(scores[i])]++;         // BUG: not atomic - two threads counting one bin lose updates
    __syncthreads();                        // every count of this block is in

    for (int b = threadIdx.x; b < NBINS; b += blockDim.x)
        atomicAdd(&hist[b], local[b]);
}

int main()
{
    const int n = N;
    int *h_scores = (int *)malloc(n * sizeof(int));
    unsigned h_hist[NBINS];
    uint32_t seed = 7u;                     // fixed-seed LCG
    for (int i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        h_scores[i] = (int)((seed >> 8) % (MAX_SCORE + 1));   // 0..100
    }

    int *d_scores;
    unsigned *d_hist;
    CUDA_CHECK(cudaMalloc(&d_scores, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_hist, NBINS * sizeof(unsigned)));
    CUDA_CHECK(cudaMemcpy(d_scores, h_scores, n * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_hist, 0, NBINS * sizeof(unsigned)));

    histogram<<<BLOCKS, BLOCK>>>(d_scores, d_hist, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(h_hist, d_hist, sizeof(h_hist), cudaMemcpyDeviceToHost));

    // CPU reference; counts are compared exactly.
    unsigned want[NBINS] = {0};
    for (int i = 0; i < n; i++) {
        int b = h_scores[i] / (MAX_SCORE / NBINS);
        want[b < NBINS ? b : NBINS - 1]++;
    }
    int bad = 0, first = -1;
    for (int b = 0; b < NBINS; b++)
        if (h_hist[b] != want[b] && bad++ == 0)
            first = b;
    if (bad == 0)
        printf("RESULT: PASS\n");
    else
        printf("RESULT: FAIL (%d mismatches; first at %d: got %u, expected %u)\n", bad, first,
               h_hist[first], want[first]);

    CUDA_CHECK(cudaFree(d_scores));
    CUDA_CHECK(cudaFree(d_hist));
    free(h_scores);
    return 0;
}
