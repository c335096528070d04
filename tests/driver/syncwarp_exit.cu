// syncwarp_exit.cu - __syncwarp() (bar.warp.sync) with a full mask waits only for the lanes
// that have not exited: "all non-exited threads named in mask must execute" it (CUDA
// Programming Guide). Numba's reduction kernels call it from lanes 0 and 1 while the other
// lanes go on to exit (late), and the early case returns before the call (early); under
// every seed both must finish with the right sums.
#include <cstdio>

__global__ void late(int *out)
{
    __shared__ int s[32];
    s[threadIdx.x] = threadIdx.x;
    __syncwarp();
    if (threadIdx.x < 2) {
        s[threadIdx.x] += s[threadIdx.x + 2];
        __syncwarp();                  // lanes 2..31 never call it: they exit below
        if (threadIdx.x == 0) *out = s[0] + s[1];
    }
}

__global__ void early(int *out)
{
    if (threadIdx.x >= 4) return;      // lanes 4..31 have exited before the call
    int v = threadIdx.x + 1;
    __syncwarp();
    v += __shfl_down_sync(0xffffffffu, v, 2);
    v += __shfl_down_sync(0xffffffffu, v, 1);
    if (threadIdx.x == 0) *out = v;
}

int main()
{
    int *d, h[2] = { -1, -1 };
    cudaMalloc(&d, sizeof h);
    late<<<1, 32>>>(d);
    early<<<1, 32>>>(d + 1);
    cudaError_t e = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("late %d early %d (%s)\n", h[0], h[1], cudaGetErrorString(e));
    return 0;
}
