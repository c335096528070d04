// rdcLink.cu + parts/rdcLinkLib.cu - a program built from two files with separate compilation
// (relocatable device code): the kernel here calls a device function, reads a __device__
// variable and a __constant__ table that the other file defines, and the host sets the
// variable through cudaMemcpyToSymbol on its extern declaration.
// Build: nvcc -rdc=true -o rdcLink rdcLink.cu parts/rdcLinkLib.cu
#include <cstdio>

extern __device__ int lib_offset;
extern __constant__ int lib_table[8];
extern __device__ int lib_mix(int x);

__global__ void combine(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = lib_mix(i) + lib_table[i % 8] + lib_offset;
}

int main()
{
    const int n = 256;
    int *d, h[n];
    int offset = 1000;
    cudaError_t e = cudaMemcpyToSymbol(lib_offset, &offset, sizeof offset);
    printf("cudaMemcpyToSymbol: %s\n", cudaGetErrorString(e));
    cudaMalloc(&d, sizeof h);
    combine<<<2, 128>>>(d, n);
    e = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("cudaMemcpy: %s\n", cudaGetErrorString(e));
    int bad = 0;
    long long sum = 0;
    for (int i = 0; i < n; i++) {
        int want = 3 * i + 1 + (1 << (i % 8)) + offset;
        bad += h[i] != want;
        sum += h[i];
    }
    printf("out[0] = %d, out[255] = %d, sum = %lld, %d wrong\n", h[0], h[n - 1], sum, bad);
    cudaFree(d);
    printf("%s\n", bad ? "FAILED" : "PASSED");
    return bad != 0;
}
