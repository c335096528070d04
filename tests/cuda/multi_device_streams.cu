// multi_device_streams.cu - streams and events across two devices (PTXEMU_DEVICES=2, see
// multi_device_streams.env), the rules of the CUDA Programming Guide's "Stream and Event
// Behavior": with device 0 current, a stream of device 1 can be synchronized, queried, made
// to wait for an event of device 0, and given memory copies; a kernel launch into it fails,
// and so does recording an event of one device in a stream of the other. Memory pools of
// both devices: access from the other device (cudaMemPoolSetAccess) lets a kernel there use
// the pool's memory without peer access.
//
// NOT RECORDED ON A GPU: no machine with two GPUs could be had (2026-11-25). The expected
// output is derived from the rules the Programming Guide states (quoted above) and the
// one-GPU recordings of the same calls; record it on two GPUs when one can be had.
#include <cstdio>

__global__ void k(int *p) { if (p) *p += 1; }
__global__ void twice(const int *src, int *dst, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = 2 * src[i];
}

#define C(x) printf("%-62s %s\n", #x, cudaGetErrorName(x))

int main()
{
    int n = 0;
    cudaGetDeviceCount(&n);
    if (n < 2) { printf("needs two devices, found %d\n", n); return 2; }
    cudaStream_t s[2];
    cudaEvent_t a[2], b[2];
    int *buf[2];
    for (int d = 0; d < 2; d++) {
        cudaSetDevice(d);
        cudaStreamCreateWithFlags(&s[d], cudaStreamNonBlocking);
        cudaEventCreate(&a[d]);
        cudaEventCreate(&b[d]);
        cudaMalloc(&buf[d], 64);
        cudaMemset(buf[d], d + 1, 64);
    }
    cudaSetDevice(0);
    C(cudaStreamSynchronize(s[1]));
    C(cudaStreamQuery(s[1]));
    C(cudaEventRecord(a[0], s[0]));
    C(cudaStreamWaitEvent(s[1], a[0], 0));
    C(cudaMemcpyPeerAsync(buf[0], 0, buf[1], 1, 32, s[1]));
    C(cudaMemcpyAsync(buf[1] + 8, buf[0] + 8, 32, cudaMemcpyDeviceToDevice, s[1]));
    C(cudaEventRecord(b[1], s[1]));
    C(cudaStreamWaitEvent(s[0], b[1], 0));
    C(cudaEventRecord(b[0], s[0]));
    C(cudaEventSynchronize(b[1]));
    C(cudaEventQuery(b[1]));
    C(cudaStreamSynchronize(s[1]));
    k<<<1, 1, 0, s[1]>>>(buf[1]);
    C(cudaGetLastError());
    C(cudaEventRecord(a[1], s[0]));
    C(cudaGetLastError());
    C(cudaEventRecord(a[0], s[1]));
    C(cudaGetLastError());
    float ms = 0;
    C(cudaEventElapsedTime(&ms, a[0], b[1]));
    C(cudaGetLastError());
    C(cudaDeviceSynchronize());
    int h[16];
    C(cudaMemcpy(h, buf[0], 64, cudaMemcpyDeviceToHost));
    printf("device 0 buffer: %08x %08x\n", h[0], h[15]);
    cudaSetDevice(1);
    C(cudaMemcpy(h, buf[1], 64, cudaMemcpyDeviceToHost));
    printf("device 1 buffer: %08x %08x %08x\n", h[0], h[8], h[15]);

    // pools: device 0's default pool, read by a kernel on device 1
    cudaMemPool_t p0, p1;
    C(cudaDeviceGetDefaultMemPool(&p0, 0));
    C(cudaDeviceGetDefaultMemPool(&p1, 1));
    printf("distinct default pools: %d\n", (int)(p0 != p1));
    cudaMemLocation loc = {};
    loc.type = cudaMemLocationTypeDevice;
    cudaMemAccessFlags fl;
    loc.id = 1;
    C(cudaMemPoolGetAccess(&fl, p0, &loc));
    printf("device 1 on pool 0: %d\n", (int)fl);
    loc.id = 0;
    C(cudaMemPoolGetAccess(&fl, p0, &loc));
    printf("device 0 on pool 0: %d\n", (int)fl);
    C(cudaDeviceSetMemPool(1, p0));
    cudaGetLastError();
    cudaSetDevice(0);
    int *src = 0, *dst = 0, hs[256];
    for (int i = 0; i < 256; i++) hs[i] = i * 3 + 1;
    C(cudaMallocAsync(&src, sizeof hs, s[0]));
    C(cudaMemcpyAsync(src, hs, sizeof hs, cudaMemcpyHostToDevice, s[0]));
    C(cudaStreamSynchronize(s[0]));
    cudaMemAccessDesc desc = {};
    desc.location.type = cudaMemLocationTypeDevice;
    desc.location.id = 1;
    desc.flags = cudaMemAccessFlagsProtReadWrite;
    C(cudaMemPoolSetAccess(p0, &desc, 1));
    loc.id = 1;
    C(cudaMemPoolGetAccess(&fl, p0, &loc));
    printf("device 1 on pool 0 after: %d\n", (int)fl);
    cudaSetDevice(1);
    C(cudaMallocAsync(&dst, sizeof hs, s[1]));
    twice<<<1, 256, 0, s[1]>>>(src, dst, 256);
    C(cudaGetLastError());
    C(cudaMemcpyAsync(hs, dst, sizeof hs, cudaMemcpyDeviceToHost, s[1]));
    C(cudaStreamSynchronize(s[1]));
    printf("doubled on device 1: %d %d %d\n", hs[0], hs[100], hs[255]);
    C(cudaFreeAsync(dst, s[1]));
    C(cudaFreeAsync(src, s[1]));
    C(cudaStreamSynchronize(s[1]));
    cudaSetDevice(0);
    C(cudaStreamDestroy(s[0]));
    C(cudaStreamDestroy(s[1]));
    return 0;
}
