// multi_device_streams.cu - streams and events across two devices (PTXEMU_DEVICES=2, see
// multi_device_streams.env), the rules of the CUDA Programming Guide's "Stream and Event
// Behavior": with device 0 current, a stream of device 1 can be synchronized, queried, made
// to wait for an event of device 0, and given memory copies; a kernel launch into it fails,
// and so does recording an event of one device in a stream of the other. Recorded on a
// machine with two GPUs (tests/expected/cuda/RECORDED_ON.txt).
#include <cstdio>

__global__ void k(int *p) { if (p) *p += 1; }

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
    C(cudaStreamDestroy(s[0]));
    C(cudaStreamDestroy(s[1]));
    return 0;
}
