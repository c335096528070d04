// Lab 05 - inclusive prefix sum (scan) of n ints over several blocks.
//
// bug_fault: the solution with a fault - block 0 adds scanned_sums[blockIdx.x - 1] too; look
// for "BUG".
//
// out[i] = in[0] + in[1] + ... + in[i]. Three kernels:
//   1. scan_blocks: each block scans its BLOCK elements in shared memory (Hillis-Steele: in
//      step d every element adds the one `offset` places to its left, offset = 1, 2, 4, ...)
//      and writes the block's total to block_sums[blockIdx.x];
//   2. scan_blocks again, with one block, on block_sums (so there must be at most BLOCK
//      blocks in step 1);
//   3. add_offsets: every element of block b > 0 adds the scanned total of blocks 0..b-1,
//      block_sums[b - 1].
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

const int N = 100003;      // not a multiple of BLOCK
const int BLOCK = 512;     // so at most 512 * 512 elements

// Inclusive scan of in[0..n) in blocks of BLOCK; block b's total goes to sums[b] (if sums).
__global__ void scan_blocks(const int *in, int *out, int *sums, int n)
{
    __shared__ int s[BLOCK];
    int tid = threadIdx.x;
    int g = blockIdx.x * BLOCK + tid;
    s[tid] = (g < n) ? in[g] : 0;
    __syncthreads();

    for (int offset = 1; offset < BLOCK; offset *= 2) {
        int left = (tid >= offset) ? s[tid - offset] : 0;
        __syncthreads();               // every read of this step is done before anyone writes
        s[tid] += left;
        __syncthreads();               // every write is done before the next step reads
    }

    if (g < n)
        out[g] = s[tid];
    if (sums != nullptr && tid == BLOCK - 1)
        sums[blockIdx.x] = s[BLOCK - 1];
}

// Adds the total of all earlier blocks to every element of block b.
__global__ void add_offsets(int *out, const int *scanned_sums, int n)
{
    int g = blockIdx.x * BLOCK + threadIdx.x;
    if (g < n)
        out[g] += scanned_sums[blockIdx.x - 1];   // BUG: block 0 has no earlier blocks (index -1)
}

int main()
{
    const int n = N;
    const int blocks = (n + BLOCK - 1) / BLOCK;
    size_t bytes = (size_t)n * sizeof(int);
    int *h_in = (int *)malloc(bytes), *h_out = (int *)malloc(bytes);
    for (int i = 0; i < n; i++)
        h_in[i] = (i * 17) % 23 - 11;                   // deterministic; sums stay small

    int *d_in, *d_out, *d_sums;
    CUDA_CHECK(cudaMalloc(&d_in, bytes));
    CUDA_CHECK(cudaMalloc(&d_out, bytes));
    CUDA_CHECK(cudaMalloc(&d_sums, blocks * sizeof(int)));
    CUDA_CHECK(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));

    scan_blocks<<<blocks, BLOCK>>>(d_in, d_out, d_sums, n);
    CUDA_CHECK(cudaGetLastError());
    scan_blocks<<<1, BLOCK>>>(d_sums, d_sums, nullptr, blocks);   // in place: one block reads all first
    CUDA_CHECK(cudaGetLastError());
    add_offsets<<<blocks, BLOCK>>>(d_out, d_sums, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));

    // CPU reference; integers, so the comparison is exact.
    int bad = 0, first = -1, first_want = 0;
    int want = 0;
    for (int i = 0; i < n; i++) {
        want += h_in[i];
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
    CUDA_CHECK(cudaFree(d_sums));
    free(h_in);
    free(h_out);
    return 0;
}
