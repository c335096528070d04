// probe_static.cu - exercises the runtime calls common programs make, so that a logging driver
// (drvlog.c) shows what NVIDIA's static runtime asks of the driver for each. "fault" as the
// first argument adds an illegal-address kernel fault.
#include <cstdio>
#include <cstring>

__constant__ float cscale;
__device__ int dcounter;
__managed__ int mval;

__global__ void scale(float *a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = a[i] * cscale + 1.0f;
    atomicAdd(&dcounter, 1);
}

__global__ void hello() { printf("hello from thread %d\n", threadIdx.x); mval += 1; }
__global__ void fault(int *p) { p[threadIdx.x] = 1; }

#define CK(x) do { cudaError_t e_ = (x); printf("%s -> %d %s\n", #x, (int)e_, cudaGetErrorName(e_)); } while (0)

int main(int argc, char **argv)
{
    int n = 0;
    CK(cudaGetDeviceCount(&n));
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    printf("device %s cc %d.%d sms %d\n", p.name, p.major, p.minor, p.multiProcessorCount);
    CK(cudaSetDevice(0));
    CK(cudaFree(0));
    const int N = 1000;
    float h[N], *d = nullptr;
    for (int i = 0; i < N; i++) h[i] = (float)i;
    CK(cudaMalloc(&d, N * sizeof(float)));
    float s = 2.0f;
    CK(cudaMemcpyToSymbol(cscale, &s, sizeof s));
    CK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
    scale<<<4, 256>>>(d, N);
    CK(cudaGetLastError());
    int cnt = 0;
    CK(cudaMemcpyFromSymbol(&cnt, dcounter, sizeof cnt));
    CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    printf("count %d h[10]=%g\n", cnt, h[10]);
    cudaStream_t st;
    cudaEvent_t e0, e1;
    CK(cudaStreamCreate(&st));
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    CK(cudaEventRecord(e0, st));
    CK(cudaMemcpyAsync(d, h, sizeof h, cudaMemcpyHostToDevice, st));
    scale<<<4, 256, 0, st>>>(d, N);
    CK(cudaEventRecord(e1, st));
    CK(cudaEventSynchronize(e1));
    float ms = -1;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    CK(cudaStreamSynchronize(st));
    CK(cudaStreamDestroy(st));
    float *ph = nullptr, *pm = nullptr, *pmd = nullptr;
    CK(cudaMallocHost(&ph, 64));
    CK(cudaHostAlloc(&pm, 64, cudaHostAllocMapped));
    CK(cudaHostGetDevicePointer(&pmd, pm, 0));
    hello<<<1, 2>>>();
    CK(cudaDeviceSynchronize());
    printf("mval %d\n", mval);
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, scale));
    int nb = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, scale, 256, 0));
    printf("blocks/sm %d\n", nb);
    CK(cudaMemset(d, 0, sizeof h));
    size_t fr, tot;
    CK(cudaMemGetInfo(&fr, &tot));
    scale<<<1, 2048>>>(d, N);
    CK(cudaGetLastError());
    CK(cudaFreeHost(ph));
    CK(cudaFreeHost(pm));
    if (argc > 1 && !strcmp(argv[1], "fault")) {
        fault<<<1, 32>>>((int *)0x10);
        CK(cudaDeviceSynchronize());
        CK(cudaGetLastError());
        CK(cudaMalloc(&d, 16));
    }
    CK(cudaFree(d));
    CK(cudaDeviceReset());
    return 0;
}
