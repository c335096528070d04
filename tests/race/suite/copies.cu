// copies.cu - race-detector suite: copies and fills the host issues (cudaMemcpy*, cudaMemset*)
// against kernels in other streams (tests/run_race_suite.sh). A copy is work on its stream:
// stream order, an event wait or a host synchronisation orders it with a kernel, nothing
// else does. argv[1] picks the case. Labels:
//@ 0 race read-after-write download on one non-blocking stream of what a kernel on another writes
//@ 1 free - download on a stream that waits for an event recorded after the kernel
//@ 2 race read-after-write upload on one non-blocking stream, a kernel on another reads it
//@ 3 free - upload and the kernel that reads it on one stream
//@ 4 race write-after-read cudaMemsetAsync on one stream while a kernel on another reads the buffer
//@ 5 free - kernel on the legacy stream, then cudaMemcpy (which waits for it)
//@ 6 race read-after-write kernel on a non-blocking stream, then cudaMemcpy (the legacy stream does not wait for it)
//@ 7 free - cudaStreamSynchronize of the kernel's stream before cudaMemcpy
//@ 8 race write-after-write two uploads on two streams into one buffer
//@ 9 free - kernel and download on one stream
//@ 10 race read-after-write cudaMemcpy2DAsync upload on one stream, a kernel on another reads the rows
//@ 11 free - cudaMemsetAsync, cudaStreamSynchronize, then a kernel on another stream
//@ 12 race read-after-write device-to-device copy on one stream of what a kernel on another writes
//@ 13 free - kernel on a blocking stream, then cudaMemcpy (the legacy stream waits for blocking streams)
#include <cstdio>
#include <cstdlib>

__global__ void produce(int *a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = i * 2;
}

__global__ void consume(const int *a, int *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = a[i] + 1;
}

int main(int argc, char **argv)
{
    int c = argc > 1 ? atoi(argv[1]) : 0, n = 256;
    int *a, *b, *h;
    cudaMalloc(&a, n * 4);
    cudaMalloc(&b, n * 4);
    cudaMallocHost(&h, n * 4);
    for (int i = 0; i < n; i++) h[i] = i;
    cudaStream_t s1, s2, s3;
    cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
    cudaStreamCreate(&s3);
    cudaEvent_t ev;
    cudaEventCreate(&ev);
    cudaMemset(a, 0, n * 4);
    cudaMemset(b, 0, n * 4);
    cudaDeviceSynchronize();
    switch (c) {
    case 0: case 1: case 9:
        produce<<<1, 256, 0, s1>>>(a, n);
        if (c == 1) { cudaEventRecord(ev, s1); cudaStreamWaitEvent(s2, ev, 0); }
        cudaMemcpyAsync(h, a, n * 4, cudaMemcpyDeviceToHost, c == 9 ? s1 : s2);
        break;
    case 2: case 3:
        cudaMemcpyAsync(a, h, n * 4, cudaMemcpyHostToDevice, s1);
        consume<<<1, 256, 0, c == 3 ? s1 : s2>>>(a, b, n);
        break;
    case 4:
        consume<<<1, 256, 0, s1>>>(a, b, n);
        cudaMemsetAsync(a, 0, n * 4, s2);
        break;
    case 5:
        produce<<<1, 256>>>(a, n);
        cudaMemcpy(h, a, n * 4, cudaMemcpyDeviceToHost);
        consume<<<1, 256, 0, s1>>>(a, b, n);
        break;
    case 6: case 7: case 13:
        produce<<<1, 256, 0, c == 13 ? s3 : s1>>>(a, n);
        if (c == 7) cudaStreamSynchronize(s1);
        cudaMemcpy(h, a, n * 4, cudaMemcpyDeviceToHost);
        break;
    case 8:
        cudaMemcpyAsync(a, h, n * 4, cudaMemcpyHostToDevice, s1);
        cudaMemcpyAsync(a, h, n * 4, cudaMemcpyHostToDevice, s2);
        break;
    case 10:   /* 16 rows of 16 ints */
        cudaMemcpy2DAsync(a, 64, h, 64, 64, 16, cudaMemcpyHostToDevice, s1);
        consume<<<1, 256, 0, s2>>>(a, b, n);
        break;
    case 11:
        cudaMemsetAsync(a, 0, n * 4, s1);
        cudaStreamSynchronize(s1);
        consume<<<1, 256, 0, s2>>>(a, b, n);
        break;
    case 12:
        produce<<<1, 256, 0, s1>>>(a, n);
        cudaMemcpyAsync(b, a, n * 4, cudaMemcpyDeviceToDevice, s2);
        break;
    default: printf("case %d: no such case\n", c); return 2;
    }
    printf("case %d: %s\n", c, cudaGetErrorString(cudaDeviceSynchronize()));
    return 0;
}
