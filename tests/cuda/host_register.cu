// host_register.cu - registered host memory (cudaHostRegister): kernels reading and writing it
// through the device pointer the runtime hands out, copies from and to it, flags, pointer
// attributes, and the errors of bad registrations (twice, overlapping, null, empty, unknown
// flags, I/O memory, unregistering what was never registered), and the fault of a kernel
// touching it once unregistered. Prints only deterministic lines; the expected output was
// recorded on an H100 (tests/expected/cuda/).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

static void show(const char *what, cudaError_t e)
{
    printf("%s: %s\n", what, cudaGetErrorName(e));
    fflush(stdout);
}

__global__ void k_scale(int *p, int n, int by)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = p[i] * by + i;
}

__global__ void k_sum(const int *p, int n, int *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out, p[i]);
}

__global__ void k_touch(int *p)
{
    p[threadIdx.x] += 1;
}

static long long host_sum(const int *p, int n)
{
    long long s = 0;
    for (int i = 0; i < n; i++) s += p[i];
    return s;
}

int main()
{
    const int n = 1 << 16;
    const size_t bytes = n * sizeof(int);
    int *h = NULL;
    if (posix_memalign((void **)&h, 4096, bytes)) return 1;
    for (int i = 0; i < n; i++) h[i] = i % 7;

    // registration, and what it makes visible
    show("register", cudaHostRegister(h, bytes, cudaHostRegisterMapped));
    int *d = NULL;
    show("get device pointer", cudaHostGetDevicePointer((void **)&d, h, 0));
    printf("device pointer is the host pointer: %d\n", d == h);
    int *d_mid = NULL;
    show("get device pointer inside", cudaHostGetDevicePointer((void **)&d_mid, h + 100, 0));
    printf("inside pointer offset: %ld\n", (long)(d_mid - d));
    unsigned flags = 77;
    show("get flags", cudaHostGetFlags(&flags, h));
    printf("flags: %u\n", flags);
    cudaPointerAttributes at;
    memset(&at, 0, sizeof at);
    show("pointer attributes", cudaPointerGetAttributes(&at, h + 5));
    printf("type %d device %d devicePointer-offset %ld hostPointer-offset %ld\n", (int)at.type,
           at.device, (long)((int *)at.devicePointer - h), (long)((int *)at.hostPointer - h));

    // kernels on it, through the device pointer and through the host pointer itself
    k_scale<<<n / 256, 256>>>(d, n, 3);
    show("kernel through device pointer", cudaDeviceSynchronize());
    printf("host sees: h[0]=%d h[1]=%d h[1000]=%d sum=%lld\n", h[0], h[1], h[1000], host_sum(h, n));
    k_scale<<<n / 256, 256>>>(h, n, 2);
    show("kernel through host pointer", cudaDeviceSynchronize());
    printf("host sees: h[5]=%d sum=%lld\n", h[5], host_sum(h, n));
    int *dsum = NULL;
    cudaMalloc(&dsum, sizeof(int));
    cudaMemset(dsum, 0, sizeof(int));
    k_sum<<<n / 256, 256>>>(d, n, dsum);
    int gsum = 0;
    cudaMemcpy(&gsum, dsum, sizeof(int), cudaMemcpyDeviceToHost);
    printf("device sum: %d\n", gsum);

    // copies from and to it
    int *dbuf = NULL;
    cudaMalloc(&dbuf, bytes);
    show("copy registered to device", cudaMemcpy(dbuf, h, bytes, cudaMemcpyHostToDevice));
    cudaStream_t s;
    cudaStreamCreate(&s);
    for (int i = 0; i < n; i++) h[i] = -1;
    show("async copy device to registered", cudaMemcpyAsync(h, dbuf, bytes, cudaMemcpyDeviceToHost, s));
    show("stream sync", cudaStreamSynchronize(s));
    printf("after round trip: sum=%lld\n", host_sum(h, n));
    show("copy default kind", cudaMemcpy(dbuf, h + 8, 64, cudaMemcpyDefault));

    // bad registrations
    show("register again", cudaHostRegister(h, bytes, 0));
    show("register overlapping", cudaHostRegister(h + 1024, 4096, 0));
    show("register null", cudaHostRegister(NULL, 4096, 0));
    show("register empty", cudaHostRegister(h, 0, 0));
    char *other = (char *)malloc(100000);
    show("register unknown flag", cudaHostRegister(other, 8192, 0x100));
    show("register io memory", cudaHostRegister(other, 8192, cudaHostRegisterIoMemory));
    show("register unaligned", cudaHostRegister(other + 3, 5000, cudaHostRegisterPortable));
    show("unregister unaligned", cudaHostUnregister(other + 3));
    show("register read-only", cudaHostRegister(other, 8192, cudaHostRegisterReadOnly));
    flags = 77;
    show("get flags read-only", cudaHostGetFlags(&flags, other));
    printf("flags: %u\n", flags);
    show("unregister read-only", cudaHostUnregister(other));

    // unregistering
    show("unregister inside", cudaHostUnregister(h + 100));
    show("unregister", cudaHostUnregister(h));
    show("unregister again", cudaHostUnregister(h));
    show("get device pointer after", cudaHostGetDevicePointer((void **)&d, h, 0));
    show("unregister null", cudaHostUnregister(NULL));
    show("unregister never registered", cudaHostUnregister(other + 50000));
    show("last error", cudaGetLastError());

    // a kernel on memory no longer registered faults (the error is sticky: last)
    k_touch<<<1, 32>>>(h);
    show("kernel after unregister", cudaDeviceSynchronize());

    cudaFree(dbuf);
    cudaFree(dsum);
    cudaStreamDestroy(s);
    free(other);
    free(h);
    printf("done\n");
    return 0;
}
