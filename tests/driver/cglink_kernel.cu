// cglink_kernel.cu - device code for cglink.c, compiled with nvcc -rdc=true -c: a grid-wide
// barrier through the device runtime (cudaCGSynchronize, from libcudadevrt), as Numba's
// grid.sync() makes it. The last block sets the flag late; after the barrier every block
// must see it.
#include <cuda_runtime.h>

extern "C" __global__ void gridsync(int *flag, int *seen)
{
    unsigned long long h = cudaCGGetIntrinsicHandle(cudaCGScopeGrid);
    if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) {
        for (volatile int i = 0; i < 1000; i++) {}
        *(volatile int *)flag = 42;
    }
    cudaError_t e = cudaCGSynchronize(h, 0);
    if (threadIdx.x == 0) seen[blockIdx.x] = e == cudaSuccess ? *(volatile int *)flag : -(int)e;
}
