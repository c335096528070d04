// Lab 02 - 1-D stencil with shared memory.
//
// bug_race: the solution with a race - no __syncthreads() after loading the tile; look for
// "BUG".
//
// out[i] = in[i-R] + ... + in[i] + ... + in[i+R], where elements outside 0..n-1 count as 0.
// Each block copies its BLOCK elements plus R "halo" elements on each side into shared
// memory once, then every thread reads its 2R+1 neighbours from there instead of global
// memory.
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

const int N = 100003;      // not a multiple of BLOCK
const int BLOCK = 256;     // threads per block
const int R = 3;           // stencil radius

__global__ void stencil_1d(const int *in, int *out, int n)
{
    __shared__ int tile[BLOCK + 2 * R];
    int g = blockIdx.x * blockDim.x + threadIdx.x;   // global index
    int l = threadIdx.x + R;                         // index in tile

    tile[l] = (g < n) ? in[g] : 0;
    if (threadIdx.x < R) {                           // the first R threads load the halos
        int left = g - R;
        int right = g + BLOCK;
        tile[l - R] = (left >= 0) ? in[left] : 0;
        tile[l + BLOCK] = (right < n) ? in[right] : 0;
    }
    // BUG: no __syncthreads() - neighbours' tile entries may not be loaded yet

    if (g < n) {
        int sum = 0;
        for (int j = -R; j <= R; j++)
            sum += tile[l + j];
        out[g] = sum;
    }
}

int main()
{
    const int n = N;
    size_t bytes = (size_t)n * sizeof(int);
    int *h_in = (int *)malloc(bytes), *h_out = (int *)malloc(bytes);
    uint32_t seed = 2024u;                           // fixed-seed LCG
    for (int i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        h_in[i] = (int)(seed >> 22) - 512;
    }

    int *d_in, *d_out;
    CUDA_CHECK(cudaMalloc(&d_in, bytes));
    CUDA_CHECK(cudaMalloc(&d_out, bytes));
    CUDA_CHECK(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_out, 0, bytes));

    stencil_1d<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(d_in, d_out, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));

    // CPU reference; integers, so the comparison is exact.
    int bad = 0, first = -1, first_want = 0;
    for (int i = 0; i < n; i++) {
        int want = 0;
        for (int j = -R; j <= R; j++)
            if (i + j >= 0 && i + j < n)
                want += h_in[i + j];
        if (h_out[i] != want && bad++ == 0) {
            first = i;
            first_want = want;
        }
    }
    if (bad == 0)
        printf("RESULT: PASS\n");
    else
        printf("RESULT: FAIL (%d mismatches; first at %d: got %d, expected %d)\n", bad, first,
               h_out[first], first_want);

    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    free(h_in);
    free(h_out);
    return 0;
}
