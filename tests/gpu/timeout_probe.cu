// timeout_probe.cu - what the GPU machine says about kernel time limits: whether a watchdog
// is enabled (cudaDevAttrKernelExecTimeout), whether a kernel that spins for about 3 s is
// stopped, and how a fatal kernel error (a trap) behaves afterwards: what later calls return
// (sticky or not) in the same process. The time limit of ptxemu (--timeout) reports
// cudaErrorLaunchTimeout, which the CUDA runtime documents as sticky like a trap's error.
#include <cstdio>
__global__ void spin(long long cycles, int *done)
{
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {}
    *done = 1;
}
__global__ void trapper() { __trap(); }
__global__ void nothing(int *p) { *p = 7; }
int main()
{
    int v = -1;
    cudaDeviceGetAttribute(&v, cudaDevAttrKernelExecTimeout, 0);
    printf("kernelExecTimeout attribute: %d\n", v);
    int *d;
    cudaMalloc(&d, 4);
    int clk = 0; cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0);
    spin<<<1, 1>>>((long long)clk * 1000 * 3, d);
    printf("3 s spin: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    trapper<<<1, 1>>>();
    printf("trap launch: %s\n", cudaGetErrorName(cudaGetLastError()));
    printf("trap sync: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    printf("after: cudaGetLastError %s\n", cudaGetErrorName(cudaGetLastError()));
    printf("after: cudaGetLastError again %s\n", cudaGetErrorName(cudaGetLastError()));
    int *e; printf("after: cudaMalloc %s\n", cudaGetErrorName(cudaMalloc(&e, 4)));
    nothing<<<1, 1>>>(d);
    printf("after: launch %s\n", cudaGetErrorName(cudaGetLastError()));
    printf("after: sync %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    printf("after: cudaMemcpy %s\n", cudaGetErrorName(cudaMemcpy(&v, d, 4, cudaMemcpyDeviceToHost)));
    printf("after: cudaDeviceReset %s\n", cudaGetErrorName(cudaDeviceReset()));
    printf("after reset: cudaMalloc %s\n", cudaGetErrorName(cudaMalloc(&e, 4)));
    return 0;
}
