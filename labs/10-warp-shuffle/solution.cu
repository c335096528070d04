// Lab 10 - stream compaction with warp votes and shuffles (solution).
//
// Copies the elements of in[] that are multiples of 3 into out[], in any order, and counts
// them. Each warp works without shared memory:
//   1. threads past the end of the array return at once (the last warp is then partial);
//   2. __ballot_sync gives every lane the bit mask of the lanes that keep their element;
//      __popc of it is the warp's count, __popc of the bits below a lane its slot;
//   3. the warp's first running lane reserves the warp's slots in out[] with one atomicAdd;
//   4. __shfl_sync broadcasts the reserved base from that lane to the others.
// A full mask (0xffffffff) is right after the early return: the mask of a warp-synchronous
// intrinsic names the lanes that have not exited, and exited lanes are not waited for.
// Every lane that executes the intrinsic must be named in its mask.
#include <algorithm>
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

const int N = 100003;                  // not a multiple of 32: the last warp is partial
const int BLOCK = 256;
const unsigned FULL_MASK = 0xffffffffu;

__device__ bool keep(int x) { return x % 3 == 0; }

__global__ void compact(const int *in, int *out, int *count, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;                                        // these lanes have exited
    int lane = threadIdx.x % 32;
    int x = in[i];
    bool k = keep(x);
    unsigned kept = __ballot_sync(FULL_MASK, k);       // waits only for the lanes still running
    int slot = __popc(kept & ((1u << lane) - 1));      // kept lanes below this one
    int base = 0;
    if (lane == 0 && kept)
        base = atomicAdd(count, __popc(kept));
    base = __shfl_sync(FULL_MASK, base, 0);            // lane 0 runs in every warp that has work
    if (k)
        out[base + slot] = x;
}

int main()
{
    const int n = N;
    int *h_in = (int *)malloc(n * sizeof(int)), *h_out = (int *)malloc(n * sizeof(int));
    int *want = (int *)malloc(n * sizeof(int)), nwant = 0;
    for (int i = 0; i < n; i++) {
        h_in[i] = (int)((i * 2654435761u) % 100000u);
        if (h_in[i] % 3 == 0) want[nwant++] = h_in[i];
    }
    int *d_in, *d_out, *d_count, got_n = 0;
    CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_count, sizeof(int)));
    CUDA_CHECK(cudaMemcpy(d_in, h_in, n * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_out, 0, n * sizeof(int)));
    CUDA_CHECK(cudaMemset(d_count, 0, sizeof(int)));

    compact<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(d_in, d_out, d_count, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(&got_n, d_count, sizeof(int), cudaMemcpyDeviceToHost));
    if (got_n < 0 || got_n > n) got_n = 0;
    CUDA_CHECK(cudaMemcpy(h_out, d_out, n * sizeof(int), cudaMemcpyDeviceToHost));

    // The order of the warps' slots is not fixed: compare the sorted values.
    std::sort(h_out, h_out + got_n);
    std::sort(want, want + nwant);
    int bad = 0, first = -1;
    if (got_n != nwant) {
        printf("RESULT: FAIL (1 mismatches; first at count: got %d, expected %d)\n", got_n, nwant);
    } else {
        for (int i = 0; i < nwant; i++)
            if (h_out[i] != want[i] && bad++ == 0) first = i;
        if (bad == 0)
            printf("RESULT: PASS\n");
        else
            printf("RESULT: FAIL (%d mismatches; first at %d: got %d, expected %d)\n", bad, first,
                   h_out[first], want[first]);
    }

    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_count));
    free(h_in); free(h_out); free(want);
    return 0;
}
