// printf.cu - device-side printf with the common conversions. Only one warp prints per
// launch: within a warp the lanes' lines come out in lane order, across warps or blocks the
// order is not fixed on a GPU, so this output is the same on every run.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t err_ = (call);                                                    \
        if (err_ != cudaSuccess) {                                                    \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,             \
                    cudaGetErrorString(err_));                                        \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

__device__ const char greeting[] = "hi-from-device";

__global__ void conversions(int base, double scale)
{
    int lane = threadIdx.x;
    printf("lane %2d: %d %u %x %f %e %g %s %c %5.2f|%-8d|%lld\n", lane, base + lane,
           4000000000u - (unsigned)lane, 0xdead0000u + 17u * lane, lane * 0.5f, scale * lane,
           1.0 / (lane + 1), greeting, 'A' + lane, lane * 1.25, lane * lane,
           (long long)lane << 40);
    if (lane % 8 == 3)
        printf("lane %d took the branch (%s)\n", lane, "divergent");
}

__global__ void corner_cases(float zero)
{
    if (threadIdx.x != 0)
        return;
    printf("100%% %+d %+d %o %#x %X %08.3f %.3s|%10s|%-10s|\n", 5, -5, 64, 255, 0xabcdu,
           -3.14159, "truncated", "right", "left");
    printf("%g %g %g %e %f %f\n", 1e20, 0.0001, 123456789.0, 0.0, -0.0, 1.0f / zero);
    printf("%hd %ld %llu %lx %5c|%-5c|\n", (short)-300, -1234567890123L,
           18446744073709551615ull, 0x123456789abcdefUL, 'x', 'y');
}

__global__ void grid2d(void)
{
    // A 8x4 block is still one warp: lane = threadIdx.y * 8 + threadIdx.x.
    printf("(%u,%u) lane %u\n", threadIdx.x, threadIdx.y, threadIdx.y * blockDim.x + threadIdx.x);
}

static void launch_done(const char *what)
{
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    fflush(stdout);
    printf("-- %s done\n", what);
    fflush(stdout);
}

int main(void)
{
    printf("[printf] one warp per launch\n");
    fflush(stdout);
    conversions<<<1, 32>>>(-16, 1.5e-3);
    launch_done("conversions");
    corner_cases<<<1, 32>>>(0.0f);
    launch_done("corner_cases");
    grid2d<<<1, dim3(8, 4)>>>();
    launch_done("grid2d");
    printf("PASSED\n");
    return 0;
}
