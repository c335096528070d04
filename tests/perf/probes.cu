// probes.cu - kernels whose H100 times the performance model must rank as the GPU does
// (tests/run_profile_tests.sh): three transposes (naive, tiled with bank conflicts, padded),
// row sums against column sums, three reductions (divergent interleaved, sequential
// addressing, warp shuffles). Each is launched REPS times (argv[2], default 21) and its median
// time printed as `NAME MICROSECONDS`. argv[1]: the matrix side N (multiple of 32).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#define T 32

__global__ void transpose_naive(const float *in, float *out, int n)
{
    int x = blockIdx.x * T + threadIdx.x, y = blockIdx.y * T + threadIdx.y;
    for (int j = 0; j < T; j += 8) out[x * n + y + j] = in[(y + j) * n + x];
}
__global__ void transpose_tiled(const float *in, float *out, int n)
{
    __shared__ float t[T][T];
    int x = blockIdx.x * T + threadIdx.x, y = blockIdx.y * T + threadIdx.y;
    for (int j = 0; j < T; j += 8) t[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * T + threadIdx.x; y = blockIdx.x * T + threadIdx.y;
    for (int j = 0; j < T; j += 8) out[(y + j) * n + x] = t[threadIdx.x][threadIdx.y + j];
}
__global__ void transpose_padded(const float *in, float *out, int n)
{
    __shared__ float t[T][T + 1];
    int x = blockIdx.x * T + threadIdx.x, y = blockIdx.y * T + threadIdx.y;
    for (int j = 0; j < T; j += 8) t[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * T + threadIdx.x; y = blockIdx.x * T + threadIdx.y;
    for (int j = 0; j < T; j += 8) out[(y + j) * n + x] = t[threadIdx.x][threadIdx.y + j];
}
__global__ void row_sums(const float *a, float *s, int n)   /* a thread a row: strided */
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    float v = 0;
    for (int j = 0; j < n; j++) v += a[r * n + j];
    s[r] = v;
}
__global__ void col_sums(const float *a, float *s, int n)   /* a thread a column: coalesced */
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    float v = 0;
    for (int i = 0; i < n; i++) v += a[i * n + c];
    s[c] = v;
}
__global__ void reduce_interleaved(const float *in, float *out)
{
    __shared__ float s[256];
    unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * 256 + t];
    __syncthreads();
    for (unsigned k = 1; k < 256; k *= 2) {
        if (t % (2 * k) == 0) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
__global__ void reduce_sequential(const float *in, float *out)
{
    __shared__ float s[256];
    unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * 256 + t];
    __syncthreads();
    for (unsigned k = 128; k > 0; k /= 2) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
__global__ void reduce_shuffle(const float *in, float *out)
{
    __shared__ float w[8];
    unsigned t = threadIdx.x;
    float v = in[blockIdx.x * 256 + t];
    for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
    if (t % 32 == 0) w[t / 32] = v;
    __syncthreads();
    if (t < 32) {
        v = t < 8 ? w[t] : 0;
        for (int o = 4; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
        if (t == 0) out[blockIdx.x] = v;
    }
}

template <class F> static void timed(const char *name, int reps, F launch)
{
    cudaEvent_t a, b;
    cudaEventCreate(&a); cudaEventCreate(&b);
    std::vector<float> ms;
    launch();   /* warm up */
    for (int r = 0; r < reps; r++) {
        cudaEventRecord(a);
        launch();
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float t = 0;
        cudaEventElapsedTime(&t, a, b);
        ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    printf("%s %.1f\n", name, ms[ms.size() / 2] * 1000.0);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1024, reps = argc > 2 ? atoi(argv[2]) : 21;
    float *a, *b;
    cudaMalloc(&a, (size_t)n * n * 4); cudaMalloc(&b, (size_t)n * n * 4);
    cudaMemset(a, 0, (size_t)n * n * 4);
    dim3 g(n / T, n / T), blk(T, 8);
    timed("transpose_naive", reps, [&] { transpose_naive<<<g, blk>>>(a, b, n); });
    timed("transpose_tiled", reps, [&] { transpose_tiled<<<g, blk>>>(a, b, n); });
    timed("transpose_padded", reps, [&] { transpose_padded<<<g, blk>>>(a, b, n); });
    timed("row_sums", reps, [&] { row_sums<<<n / 128, 128>>>(a, b, n); });
    timed("col_sums", reps, [&] { col_sums<<<n / 128, 128>>>(a, b, n); });
    int nb = n * n / 256;
    timed("reduce_interleaved", reps, [&] { reduce_interleaved<<<nb, 256>>>(a, b); });
    timed("reduce_sequential", reps, [&] { reduce_sequential<<<nb, 256>>>(a, b); });
    timed("reduce_shuffle", reps, [&] { reduce_shuffle<<<nb, 256>>>(a, b); });
    printf("done: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
    return 0;
}
