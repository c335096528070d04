// first_week.cu - small programs with the bugs and questions of a class's first week
// (tests/run_teaching_tests.sh). argv[1] picks one:
//   half_return   lanes 16-31 return, lanes 0-15 reduce with a full mask (correct)
//   shfl_outside  all 32 lanes run __shfl_sync with a mask naming lanes 0-15 (undefined)
//   syncwarp_outside  all 32 lanes run __syncwarp(0x0000ffff) (undefined)
//   oob           a loop with i <= n writes one element past the end of its allocation
//   block_race    warp 1 reads what warp 0 wrote to shared memory with no __syncthreads
//   warp_race     lane 0 writes shared memory that the other lanes read with no __syncwarp
//   winner        the threads of two warps that share the best score each store their index to
//                 one shared word with no atomic (the value that stays is the hardware's choice)
//   copy          a fully converged copy kernel (every lane active on every instruction)
//   printf N      N threads print one line each
//   printf_fifo   a 64 KiB printf FIFO asked for (the driver gives 512 KiB: 2048 lines), 4096
//                 threads print a line each, then the limit is asked to change
//   hang          a kernel that spins for a long time
//   nosync        a kernel and a download into pinned memory on a stream; the host sums the
//                 download before it synchronises (the bug of a first streams lab)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

__global__ void half_return(int *out)
{
    int lane = threadIdx.x % 32, v = lane;
    if (lane >= 16) return;
    for (int o = 8; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);
    unsigned b = __ballot_sync(0xffffffff, 1);
    if (lane == 0) { out[0] = v; out[1] = (int)b; }
}

__global__ void shfl_outside(int *out)
{
    out[threadIdx.x] = __shfl_sync(0x0000ffff, (int)threadIdx.x + 100, 0);
}

__global__ void syncwarp_outside(int *out)
{
    out[threadIdx.x] = 1;
    __syncwarp(0x0000ffff);
}

__global__ void byte_hist(const unsigned char *in, int n, unsigned *hist)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i <= n; i += blockDim.x * gridDim.x)
        hist[i] = in[i % 64];   // i == n writes one element past the end
}

__global__ void block_race(int *out)
{
    __shared__ int s[64];
    s[threadIdx.x] = threadIdx.x;
    out[threadIdx.x] = s[(threadIdx.x + 32) % 64];   // the other warp's element, no barrier
}

__global__ void winner(int *out)
{
    __shared__ int who;
    if (threadIdx.x % 8 == 0) who = threadIdx.x;   // threads 0, 8, ..., 56 share the best score
    __syncthreads();
    if (threadIdx.x == 0) out[0] = who;
}

__global__ void warp_race(int *out, int *count)
{
    __shared__ int base;
    if (threadIdx.x == 0) base = atomicAdd(count, 1);
    out[threadIdx.x] = base;   // lanes 1-31 read it, no __syncwarp
}

__global__ void copy(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i];
}

__global__ void say(void)
{
    printf("line %d\n", blockIdx.x * blockDim.x + threadIdx.x);
}

__global__ void hang(int *flag)
{
    while (*(volatile int *)flag == 0) {}
}

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "half_return";
    int *d;
    cudaMalloc(&d, 4096 * sizeof(int));
    cudaMemset(d, 0, 4096 * sizeof(int));
    int h[64] = {0};
    if (!strcmp(c, "half_return")) {
        half_return<<<1, 32>>>(d);
        cudaMemcpy(h, d, 8, cudaMemcpyDeviceToHost);
        printf("sum %d ballot %x\n", h[0], h[1]);
    } else if (!strcmp(c, "shfl_outside")) {
        shfl_outside<<<1, 32>>>(d);
        cudaMemcpy(h, d, 32 * 4, cudaMemcpyDeviceToHost);
        printf("lane 0 %d lane 31 %d\n", h[0], h[31]);
    } else if (!strcmp(c, "syncwarp_outside")) {
        syncwarp_outside<<<1, 32>>>(d);
    } else if (!strcmp(c, "oob")) {
        int n = 1000;
        unsigned char *in;
        unsigned *hist;
        cudaMalloc(&in, 64);
        cudaMemset(in, 1, 64);
        cudaMalloc(&hist, n * sizeof(unsigned));
        byte_hist<<<4, 256>>>(in, n, hist);
    } else if (!strcmp(c, "block_race")) {
        block_race<<<1, 64>>>(d);
    } else if (!strcmp(c, "warp_race")) {
        warp_race<<<1, 32>>>(d, d + 64);
    } else if (!strcmp(c, "winner")) {
        winner<<<1, 64>>>(d);
    } else if (!strcmp(c, "copy")) {
        copy<<<8, 256>>>((const float *)d, (float *)d + 2048, 2048);   // every thread in range
    } else if (!strcmp(c, "printf")) {
        int n = argc > 2 ? atoi(argv[2]) : 1;
        say<<<(n + 255) / 256, n < 256 ? n : 256>>>();
    } else if (!strcmp(c, "nosync")) {
        int n = 2048, *h;
        cudaStream_t s;
        cudaStreamCreate(&s);
        cudaMallocHost(&h, n * sizeof(int));
        memset(h, 0, n * sizeof(int));
        half_return<<<1, 32, 0, s>>>(d);   /* d[0] = 120 */
        cudaMemcpyAsync(h, d, n * sizeof(int), cudaMemcpyDeviceToHost, s);
        long long early = 0;
        for (int i = 0; i < n; i++) early += h[i];
        cudaStreamSynchronize(s);
        long long late = 0;
        for (int i = 0; i < n; i++) late += h[i];
        printf("sum before synchronising %lld, after %lld\n", early, late);
    } else if (!strcmp(c, "printf_fifo")) {
        size_t v = 0;
        cudaError_t e1 = cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 65536);
        cudaDeviceGetLimit(&v, cudaLimitPrintfFifoSize);
        fprintf(stderr, "set %s, now %zu\n", cudaGetErrorName(e1), v);
        say<<<16, 256>>>();
        cudaDeviceSynchronize();
        fprintf(stderr, "set after a launch: %s\n",
                cudaGetErrorName(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 1 << 20)));
    } else if (!strcmp(c, "hang")) {
        hang<<<1, 1>>>(d);
    }
    cudaError_t e = cudaDeviceSynchronize();
    printf("%s: %s\n", c, cudaGetErrorName(e));
    return 0;
}
