// Lab 09 - overlapping copies and kernels with streams (bug_race: the host reads the results
// before it synchronises with the streams).
//
// out[i] = mix(in[i]) for n ints, in NSTREAMS chunks. Each chunk goes through its own stream:
// an asynchronous upload from pinned host memory, the kernel, an asynchronous download back
// into pinned host memory. The streams run concurrently, so the copies of one chunk overlap
// the kernel of another. cudaMemcpyAsync returns at once: the host may read the results only
// after it has synchronised with the streams that write them.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                              \
    do {                                                                              \
        cudaError_t err_ = (call);                                                    \
        if (err_ != cudaSuccess) {                                                    \
            fprintf(stderr, "CUDA error: %s (%s) at %s:%d\n", cudaGetErrorString(err_), \
                    #call, __FILE__, __LINE__);                                       \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

const int N = 100003;                  // not a multiple of the chunk or block size
const int NSTREAMS = 4;
const int BLOCK = 256;

__host__ __device__ int mix(int x)
{
    unsigned h = (unsigned)x;
    for (int k = 0; k < 8; k++) h = h * 1664525u + 1013904223u;
    return (int)(h >> 8);
}

__global__ void transform(const int *in, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = mix(in[i]);
}

int main()
{
    const int n = N;
    size_t bytes = (size_t)n * sizeof(int);
    int *h_in, *h_out;                                  // pinned: copies from and to them are async
    CUDA_CHECK(cudaMallocHost(&h_in, bytes));
    CUDA_CHECK(cudaMallocHost(&h_out, bytes));
    for (int i = 0; i < n; i++) {
        h_in[i] = (i * 37) % 1001 - 500;
        h_out[i] = -1;
    }
    int *d_in, *d_out;
    CUDA_CHECK(cudaMalloc(&d_in, bytes));
    CUDA_CHECK(cudaMalloc(&d_out, bytes));
    cudaStream_t streams[NSTREAMS];
    for (int s = 0; s < NSTREAMS; s++)
        CUDA_CHECK(cudaStreamCreate(&streams[s]));

    int chunk = (n + NSTREAMS - 1) / NSTREAMS;
    for (int s = 0; s < NSTREAMS; s++) {
        int off = s * chunk;
        int len = n - off < chunk ? n - off : chunk;   // the last chunk is shorter
        CUDA_CHECK(cudaMemcpyAsync(d_in + off, h_in + off, len * sizeof(int), cudaMemcpyHostToDevice,
                                   streams[s]));
        transform<<<(len + BLOCK - 1) / BLOCK, BLOCK, 0, streams[s]>>>(d_in + off, d_out + off, len);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpyAsync(h_out + off, d_out + off, len * sizeof(int), cudaMemcpyDeviceToHost,
                                   streams[s]));
    }
    int bad = 0, first = -1;
    for (int i = 0; i < n; i++)
        if (h_out[i] != mix(h_in[i]) && bad++ == 0) first = i;
    if (bad == 0)
        printf("RESULT: PASS\n");
    else
        printf("RESULT: FAIL (%d mismatches; first at %d: got %d, expected %d)\n", bad, first,
               h_out[first], mix(h_in[first]));

    CUDA_CHECK(cudaDeviceSynchronize());   // BUG: too late, the check above read h_out while the
                                           // downloads were still in flight
    for (int s = 0; s < NSTREAMS; s++)
        CUDA_CHECK(cudaStreamDestroy(streams[s]));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFreeHost(h_in));
    CUDA_CHECK(cudaFreeHost(h_out));
    return 0;
}
