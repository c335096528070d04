// host.cu - race-detector suite: the host's own reads and writes of page-locked memory
// (pinned, mapped, managed) while asynchronous work on it is still in flight - a missing
// synchronisation (tests/run_race_suite.sh). Only a host wait (a stream, event or device
// synchronisation, a synchronous copy that waits for the work) orders the host after the
// work. argv[1] picks the case. Labels:
//@ 0 race host-device kernel, then a download into pinned memory; the host reads it at once
//@ 1 free - the same, with cudaStreamSynchronize before the read
//@ 2 race host-device a kernel writes mapped pinned memory; the host reads it before cudaDeviceSynchronize
//@ 3 free - the same, after cudaDeviceSynchronize
//@ 4 race host-device a kernel writes managed memory; the host reads it before synchronising
//@ 5 free - the same, after cudaDeviceSynchronize
//@ 6 race host-device an upload from pinned memory; the host overwrites the source at once
//@ 7 free - the host overwrites the source after cudaStreamSynchronize
//@ 8 race host-device cudaMemsetAsync on mapped memory; the host reads it at once
//@ 9 free - cudaMemsetAsync, an event recorded after it, cudaEventSynchronize, then the read
//@ 10 race host-device the download is on one stream, the host synchronises another
//@ 11 free - a kernel only reads pinned memory that the host reads meanwhile
//@ 12 race host-device a kernel reads pinned memory that the host overwrites meanwhile
//@ 13 free - a kernel on the legacy stream writes mapped memory; a synchronous cudaMemcpy waits for it
//@ 14 race host-device a kernel on a non-blocking stream writes mapped memory; a synchronous cudaMemcpy does not wait for it
//@ 15 free - pinned memory the work never touches, on the same pages as memory it does
#include <cstdio>
#include <cstdlib>

__global__ void produce(int *a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = i * 2 + 1;
}

__global__ void consume(const int *a, int *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = a[i] + 1;
}

static long long sum(const int *p, int n)
{
    long long s = 0;
    for (int i = 0; i < n; i++) s += p[i];
    return s;
}

int main(int argc, char **argv)
{
    int c = argc > 1 ? atoi(argv[1]) : 0, n = 4096;
    int *d, *h, *hm, *hmd, *m, *tmp;
    cudaMalloc(&d, n * 4);
    cudaMalloc(&tmp, n * 4);
    cudaMallocHost(&h, 2 * n * 4);
    cudaHostAlloc(&hm, n * 4, cudaHostAllocMapped);
    cudaHostGetDevicePointer(&hmd, hm, 0);
    cudaMallocManaged(&m, n * 4);
    for (int i = 0; i < n; i++) h[i] = hm[i] = m[i] = i;
    cudaStream_t s1, s2, nb;
    cudaStreamCreate(&s1);
    cudaStreamCreate(&s2);
    cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking);
    cudaEvent_t ev;
    cudaEventCreate(&ev);
    cudaMemset(d, 0, n * 4);
    cudaDeviceSynchronize();
    long long r = 0;
    switch (c) {
    case 0: case 1:
        produce<<<n / 256, 256, 0, s1>>>(d, n);
        cudaMemcpyAsync(h, d, n * 4, cudaMemcpyDeviceToHost, s1);
        if (c == 1) cudaStreamSynchronize(s1);
        r = sum(h, n);
        break;
    case 2: case 3:
        produce<<<n / 256, 256, 0, s1>>>(hmd, n);
        if (c == 3) cudaDeviceSynchronize();
        r = sum(hm, n);
        break;
    case 4: case 5:
        produce<<<n / 256, 256, 0, s1>>>(m, n);
        if (c == 5) cudaDeviceSynchronize();
        r = sum(m, n);
        break;
    case 6: case 7:
        cudaMemcpyAsync(d, h, n * 4, cudaMemcpyHostToDevice, s1);
        if (c == 7) cudaStreamSynchronize(s1);
        for (int i = 0; i < n; i++) h[i] = -1;
        break;
    case 8: case 9:
        cudaMemsetAsync(hmd, 0, n * 4, s1);
        if (c == 9) { cudaEventRecord(ev, s1); cudaEventSynchronize(ev); }
        r = sum(hm, n);
        break;
    case 10:
        produce<<<n / 256, 256, 0, s1>>>(d, n);
        cudaMemcpyAsync(h, d, n * 4, cudaMemcpyDeviceToHost, s1);
        cudaStreamSynchronize(s2);
        r = sum(h, n);
        break;
    case 11: case 12:
        consume<<<n / 256, 256, 0, s1>>>(h, d, n);
        if (c == 11) r = sum(h, n);
        else for (int i = 0; i < n; i++) h[i] = -1;
        break;
    case 13: case 14:
        produce<<<n / 256, 256, 0, c == 13 ? (cudaStream_t)0 : nb>>>(hmd, n);
        cudaMemcpy(tmp, d, n * 4, cudaMemcpyDeviceToDevice);
        r = sum(hm, n);
        break;
    case 15:   /* the last 25 ints of h's first half: not in the download, on its last page */
        cudaMemcpyAsync(h, d, n * 4 - 100, cudaMemcpyDeviceToHost, s1);
        r = sum(h + n - 25, 25);
        break;
    default: printf("case %d: no such case\n", c); return 2;
    }
    if (r == 42) printf("unlikely\n");
    printf("case %d: %s\n", c, cudaGetErrorString(cudaDeviceSynchronize()));
    return 0;
}
