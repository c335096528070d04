// bar_leave_order.cu - a block reduction that hands its result out through a shared word and
// is called twice in a row with no barrier between the calls: after the second barrier of
// the first call every thread reads part[0], and warp 0 writes part[0] again in the second
// call once it has done its next loop and shuffles. The program is racy by the letter of the
// CUDA memory model (ptxemu --racecheck reports it), but on the GPU all warps leave a barrier
// together and read part[0] long before warp 0 gets to the write: every thread sees the same
// mean. The expected output was recorded on an H200 (tests/expected/cuda/bar_leave_order.0.out).
// ptxemu once let the first warp after a barrier run to its next barrier before the others
// read (HeCBench's layernorm failed its check at 64 threads a block and up).
#include <cstdio>
#include <cuda_runtime.h>

#define CHECK(x)                                                                     \
    do {                                                                             \
        cudaError_t e_ = (x);                                                        \
        if (e_ != cudaSuccess) {                                                     \
            printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));       \
            return 1;                                                                \
        }                                                                            \
    } while (0)

__device__ float block_sum(float v)
{
    __shared__ float part[32];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32, nwarps = (blockDim.x + 31) / 32;
    for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o);
    if (lane == 0) part[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < nwarps ? part[lane] : 0.0f;
        for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o);
        if (lane == 0) part[0] = v;
    }
    __syncthreads();
    return part[0];
}

// Row b of x (n values): every thread writes the mean and the variance it computed.
__global__ void mean_var(const float *x, float *seen, int n)
{
    const float *row = x + (size_t)blockIdx.x * n;
    float s = 0.0f;
    for (int i = threadIdx.x; i < n; i += blockDim.x) s += row[i];
    float mean = block_sum(s) / n;
    float q = 0.0f;
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        float d = row[i] - mean;
        q += d * d;
    }
    float var = block_sum(q) / n;
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    seen[2 * t] = mean;
    seen[2 * t + 1] = var;
}

static int run(int rows, int n, int threads)
{
    float *x, *seen;
    CHECK(cudaMallocManaged(&x, (size_t)rows * n * sizeof(float)));
    CHECK(cudaMallocManaged(&seen, (size_t)rows * threads * 2 * sizeof(float)));
    for (int i = 0; i < rows * n; i++) x[i] = (float)((i * 37 + 11) % 23) - 11.0f;
    mean_var<<<rows, threads>>>(x, seen, n);
    CHECK(cudaDeviceSynchronize());
    for (int b = 0; b < rows; b++) {
        const float *s = seen + (size_t)b * threads * 2;
        int other = 0;
        for (int t = 1; t < threads; t++) other += s[2 * t] != s[0] || s[2 * t + 1] != s[1];
        printf("n=%d threads=%d row %d: mean %a variance %a, threads that saw other values %d\n",
               n, threads, b, s[0], s[1], other);
    }
    CHECK(cudaFree(x));
    CHECK(cudaFree(seen));
    return 0;
}

int main()
{
    const int threads[] = { 32, 64, 256, 1024 };
    for (int k = 0; k < 4; k++)
        if (run(2, 768, threads[k]) || run(2, 96, threads[k])) return 1;
    return 0;
}
