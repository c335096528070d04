// bar_leave_loop.cu - an in-place compaction in a loop whose body begins at a load and ends at
// a barrier: each thread loads its slot, and a thread whose point is kept stores it at once at
// the block's running count, a slot that a thread of a lower warp loads in the same pass (a
// race by the letter of the memory model: ptxemu --racecheck reports it). On the GPU all warps
// leave the barrier together and load before any of them stores, so the result is the
// sequential compaction. ptxemu gives every warp released from a CTA barrier a short first turn
// up to its first access (tests/cuda/bar_leave_order.cu); the interpreter once ended that turn
// at the backward jump to the load instead, so the first warp to run again stored before the
// others had loaded (HeCBench's qtclustering trims its point list this way), while compiled
// code gave the GPU's result. The expected output was recorded on an H200.
#include <cstdio>

#define DROPPED -42

__global__ void compact(int *list, const char *drop, int n)
{
    int tid = threadIdx.x, width = blockDim.x;
    __shared__ int tmp[64];
    __shared__ int count;
    __shared__ bool any;
    if (tid == 0) { count = 0; any = false; }
    __syncthreads();
    for (int i = 0; i + tid < n; i += width) {
        tmp[tid] = list[i + tid];
        int p = tmp[tid];
        if (drop[p]) { any = true; tmp[tid] = DROPPED; }
        else list[count + tid] = p;
        __syncthreads();
        if (tid == 0) {
            if (any) {
                int c = count;
                for (int j = 0; j < width && i + j < n; j++)
                    if (tmp[j] != DROPPED) list[c++] = tmp[j];
                count = c;
            } else count += width;
            any = false;
        }
        __syncthreads();
    }
}

int main()
{
    const int n = 4096;
    static int h[n], want[n];
    static char drop[n];
    int *d;
    char *dd;
    cudaMalloc(&d, sizeof h);
    cudaMalloc(&dd, n);
    for (int removed : {1, 20, 100, 300}) {
        for (int i = 0; i < n; i++) { h[i] = i; drop[i] = 0; }
        for (int r = 0; r < removed; r++) drop[(r * 2654435761u) % n] = 1;
        int k = 0;
        for (int i = 0; i < n; i++) if (!drop[i]) want[k++] = i;
        cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
        cudaMemcpy(dd, drop, n, cudaMemcpyHostToDevice);
        compact<<<1, 64>>>(d, dd, n);
        cudaError_t e = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
        int bad = 0, first = -1;
        unsigned sum = 0;
        for (int i = 0; i < k; i++) {
            if (h[i] != want[i]) { bad++; if (first < 0) first = i; }
            sum = sum * 31 + (unsigned)h[i];
        }
        printf("%s: %d dropped, %d of %d kept slots differ from the sequential compaction (first %d), hash %08x\n",
               cudaGetErrorString(e), n - k, bad, k, first, sum);
    }
    return 0;
}
