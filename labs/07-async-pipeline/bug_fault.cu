// Lab 07 - a double-buffered asynchronous-copy pipeline: cp.async + mbarrier.
//
// bug_fault: the solution with a fault - the partial last tile is copied as if it were full;
// look for "BUG".
//
// The input is cut into tiles of TILE floats. Each block walks over its tiles (tile b,
// b + gridDim.x, ...) and writes each tile reversed and scaled: out[base + j] =
// 2 * in[base + TILE - 1 - j] + 1. Element j of the output needs an element another thread
// copied, so the tile goes through shared memory.
//
// The copies are asynchronous: cuda::memcpy_async(dst, src, size, barrier) issues a cp.async
// (global -> shared, bypassing registers) whose completion is reported to a cuda::barrier (an
// mbarrier in shared memory). Two buffers with one barrier each let the block copy tile k+1
// while it computes tile k.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>
#include <cuda/barrier>

#pragma nv_diag_suppress static_var_with_dynamic_init   // __shared__ cuda::barrier is set up by init()

#define CUDA_CHECK(call)                                                              \
    do {                                                                              \
        cudaError_t err_ = (call);                                                    \
        if (err_ != cudaSuccess) {                                                    \
            fprintf(stderr, "CUDA error: %s (%s) at %s:%d\n", cudaGetErrorString(err_), \
                    #call, __FILE__, __LINE__);                                       \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

using block_barrier = cuda::barrier<cuda::thread_scope_block>;

const int N = 50000;        // 195 full tiles and a partial one of 80 elements
const int TILE = 256;       // = threads per block: one element per thread per tile
const int BLOCKS = 8;

// Thread j issues the asynchronous copy of element j of `tile` into buf; past the end of the
// input there is nothing to copy.
__device__ void load_tile(float *buf, const float *in, int tile, int n, block_barrier &bar)
{
    int g = tile * TILE + threadIdx.x;      // BUG: no g < n check - the last tile is partial
    cuda::memcpy_async(&buf[threadIdx.x], &in[g], cuda::aligned_size_t<4>(sizeof(float)), bar);
}

__global__ void reverse_tiles(const float *in, float *out, int n)
{
    __shared__ float buf[2][TILE];
    __shared__ block_barrier bar[2];

    if (threadIdx.x == 0) {
        init(&bar[0], blockDim.x);
        init(&bar[1], blockDim.x);
    }
    __syncthreads();

    int ntiles = (n + TILE - 1) / TILE;
    int tile = blockIdx.x;
    if (tile < ntiles)
        load_tile(buf[0], in, tile, n, bar[0]);              // prologue: first tile into buffer 0

    for (int k = 0; tile < ntiles; k++, tile += gridDim.x) {
        int cur = k & 1, nxt = cur ^ 1;
        int next_tile = tile + gridDim.x;
        if (next_tile < ntiles)
            load_tile(buf[nxt], in, next_tile, n, bar[nxt]); // start the next copy first...

        bar[cur].arrive_and_wait();                          // ...then wait for this tile's copy

        int base = tile * TILE;
        int len = min(TILE, n - base);                       // the last tile may be partial
        int j = threadIdx.x;
        if (j < len)
            out[base + j] = 2.0f * buf[cur][len - 1 - j] + 1.0f;

        __syncthreads();                                     // buf[cur] is refilled next iteration
    }
}

int main()
{
    const int n = N;
    size_t bytes = (size_t)n * sizeof(float);
    float *h_in = (float *)malloc(bytes), *h_out = (float *)malloc(bytes);
    for (int i = 0; i < n; i++)
        h_in[i] = (float)((i * 37) % 1009) * 0.25f;          // deterministic input

    float *d_in, *d_out;
    CUDA_CHECK(cudaMalloc(&d_in, bytes));
    CUDA_CHECK(cudaMalloc(&d_out, bytes));
    CUDA_CHECK(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_out, 0, bytes));

    reverse_tiles<<<BLOCKS, TILE>>>(d_in, d_out, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));

    // CPU reference. Tolerance: 1e-6 relative (2x+1 of these inputs is exact in float).
    int bad = 0, first = -1;
    float first_want = 0.0f;
    for (int i = 0; i < n; i++) {
        int base = i / TILE * TILE;
        int len = n - base < TILE ? n - base : TILE;
        float want = 2.0f * h_in[base + len - 1 - (i - base)] + 1.0f;
        if (fabsf(h_out[i] - want) > 1e-6f * fmaxf(1.0f, fabsf(want)) && bad++ == 0) {
            first = i;
            first_want = want;
        }
    }
    if (bad == 0)
        printf("RESULT: PASS\n");
    else
        printf("RESULT: FAIL (%d mismatches; first at %d: got %g, expected %g)\n", bad, first,
               h_out[first], first_want);

    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    free(h_in);
    free(h_out);
    return 0;
}
