// rdc_main.cu + rdc_lib.cu - a two-file program built with -rdc=true (separate compilation):
// the kernel calls a device function and reads a __device__ variable defined in the other file.
#include <cstdio>
extern __device__ int lib_offset;
extern __device__ int lib_twice(int x);
__global__ void kern(int *out) { out[threadIdx.x] = lib_twice(threadIdx.x) + lib_offset; }
int main()
{
    int *d, h[8];
    int off = 100;
    cudaMemcpyToSymbol(lib_offset, &off, sizeof off);
    cudaMalloc(&d, sizeof h);
    kern<<<1, 8>>>(d);
    cudaError_t e = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("copy: %s\n", cudaGetErrorString(e));
    for (int i = 0; i < 8; i++) printf("%d ", h[i]);
    printf("\n");
    cudaFree(d);
    return 0;
}
