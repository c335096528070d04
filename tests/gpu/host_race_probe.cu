// host_race_probe.cu - a host that touches pinned, mapped or managed memory while asynchronous
// work on it is still in flight (the missing synchronisation of a first streams lab). On a
// GPU the result differs from run to run; tests/gpu/record_warp_edges.sh runs every mode
// three times and keeps what it printed (tests/gpu/host_races_h200.txt).
// Usage: host_race_probe MODE
//   1 kernel, then cudaMemcpyAsync device-to-host into pinned memory; the host sums it at once
//   2 a kernel writes mapped pinned memory; the host sums it before cudaDeviceSynchronize
//   3 a kernel writes managed memory; the host sums it before cudaDeviceSynchronize
//   4 cudaMemcpyAsync host-to-device from pinned memory; the host overwrites the source at once
//   5 cudaMemsetAsync on mapped pinned memory; the host sums it at once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void fill(int *p, int n, int v)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned h = (unsigned)i;
    for (int k = 0; k < 64; k++) h = h * 1664525u + 1013904223u;   // some work per element
    p[i] = v + (int)(h & 1);
}

static long long sum(const int *p, int n)
{
    long long s = 0;
    for (int i = 0; i < n; i++) s += p[i];
    return s;
}

int main(int argc, char **argv)
{
    int mode = argc > 1 ? atoi(argv[1]) : 1, n = 1 << 20;
    size_t bytes = (size_t)n * sizeof(int);
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    int *d, *h, *hd, *m;
    cudaMalloc(&d, bytes);
    cudaMemset(d, 0, bytes);
    long long early = 0, late = 0;
    switch (mode) {
    case 1:
        cudaMallocHost(&h, bytes);
        for (int i = 0; i < n; i++) h[i] = 0;
        fill<<<n / 256, 256, 0, s>>>(d, n, 2);
        cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, s);
        early = sum(h, n);
        cudaStreamSynchronize(s);
        late = sum(h, n);
        break;
    case 2:
        cudaHostAlloc(&h, bytes, cudaHostAllocMapped);
        for (int i = 0; i < n; i++) h[i] = 0;
        cudaHostGetDevicePointer(&hd, h, 0);
        fill<<<n / 256, 256, 0, s>>>(hd, n, 2);
        early = sum(h, n);
        cudaDeviceSynchronize();
        late = sum(h, n);
        break;
    case 3:
        cudaMallocManaged(&m, bytes);
        for (int i = 0; i < n; i++) m[i] = 0;
        fill<<<n / 256, 256, 0, s>>>(m, n, 2);
        early = sum(m, n);
        cudaDeviceSynchronize();
        late = sum(m, n);
        break;
    case 4:
        cudaMallocHost(&h, bytes);
        for (int i = 0; i < n; i++) h[i] = 1;
        cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, s);
        for (int i = 0; i < n; i++) h[i] = 5;
        cudaStreamSynchronize(s);
        cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost);
        early = sum(h, n);   // what the device got: n if the copy read the old values
        late = 5LL * n;
        break;
    case 5:
        cudaHostAlloc(&h, bytes, cudaHostAllocMapped);
        for (int i = 0; i < n; i++) h[i] = 0;
        cudaHostGetDevicePointer(&hd, h, 0);
        cudaMemsetAsync(hd, 1, bytes, s);
        early = sum(h, n);
        cudaStreamSynchronize(s);
        late = sum(h, n);
        break;
    }
    printf("mode %d: sum before synchronising %lld, after %lld\n", mode, early, late);
    return 0;
}
