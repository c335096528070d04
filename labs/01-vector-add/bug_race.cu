// Lab 01 - vector add with a grid-stride loop.
//
// bug_race: the solution with a race - the grid-stride loop steps by one block, not the whole
// grid; look for "BUG".
//
// c[i] = a[i] + b[i] for n floats. The grid is capped at a fixed number of blocks, so every
// thread handles several elements: it starts at its global index and steps by the total number
// of threads in the grid.
#include <cstdio>
#include <cstdlib>
#include <cmath>
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

const int N = 100003;           // not a multiple of the block size, on purpose
const int BLOCK = 256;
const int MAX_BLOCKS = 32;      // fewer threads than elements: each thread loops

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int stride = blockDim.x;                            // BUG: threads in one block, not the grid
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        c[i] = a[i] + b[i];
}

int main()
{
    const int n = N;
    size_t bytes = (size_t)n * sizeof(float);
    float *h_a = (float *)malloc(bytes), *h_b = (float *)malloc(bytes), *h_c = (float *)malloc(bytes);
    for (int i = 0; i < n; i++) {                      // deterministic inputs
        h_a[i] = (float)(i % 1000) * 0.5f;
        h_b[i] = (float)((i * 7) % 113) - 56.0f;
    }

    float *d_a, *d_b, *d_c;
    CUDA_CHECK(cudaMalloc(&d_a, bytes));
    CUDA_CHECK(cudaMalloc(&d_b, bytes));
    CUDA_CHECK(cudaMalloc(&d_c, bytes));
    CUDA_CHECK(cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, h_b, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_c, 0, bytes));

    int blocks = (n + BLOCK - 1) / BLOCK;
    if (blocks > MAX_BLOCKS) blocks = MAX_BLOCKS;
    vector_add<<<blocks, BLOCK>>>(d_a, d_b, d_c, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(h_c, d_c, bytes, cudaMemcpyDeviceToHost));

    // Check against the CPU. Tolerance: 1e-6 relative (the sums here are exact in float).
    int bad = 0, first = -1;
    for (int i = 0; i < n; i++) {
        float want = h_a[i] + h_b[i];
        if (fabsf(h_c[i] - want) > 1e-6f * fmaxf(1.0f, fabsf(want))) {
            if (bad++ == 0) first = i;
        }
    }
    if (bad == 0)
        printf("RESULT: PASS\n");
    else
        printf("RESULT: FAIL (%d mismatches; first at %d: got %g, expected %g)\n", bad, first,
               h_c[first], h_a[first] + h_b[first]);

    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_c));
    free(h_a); free(h_b); free(h_c);
    return 0;
}
