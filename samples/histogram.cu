// histogram.cu - 256-bin histogram of 4 MiB of bytes: each block counts into shared memory
// with atomicAdd, then adds its counts into the global histogram with atomicAdd.
// Integer counts are exact, so the result is the same whatever order the atomics run in.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t err_ = (call);                                                    \
        if (err_ != cudaSuccess) {                                                    \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,             \
                    cudaGetErrorString(err_));                                        \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

#define BINS 256
#define NBYTES (4u << 20)

__global__ void histogram256(const unsigned char *data, unsigned n, unsigned *hist)
{
    __shared__ unsigned local[BINS];
    for (unsigned b = threadIdx.x; b < BINS; b += blockDim.x)
        local[b] = 0;
    __syncthreads();
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (unsigned b = threadIdx.x; b < BINS; b += blockDim.x)
        if (local[b])
            atomicAdd(&hist[b], local[b]);
}

static unsigned lcg_state = 42u;
static unsigned lcg_next(void)
{
    lcg_state = lcg_state * 1664525u + 1013904223u;
    return lcg_state;
}

int main(void)
{
    unsigned char *data = (unsigned char *)malloc(NBYTES);
    unsigned ref[BINS] = {0}, hist[BINS];
    for (unsigned i = 0; i < NBYTES; i++) {
        // Square a uniform byte-sized value to skew the counts towards small bins.
        unsigned x = (lcg_next() >> 16) & 0xffff;
        data[i] = (unsigned char)((x * x) >> 24);
        ref[data[i]]++;
    }

    unsigned char *ddata;
    unsigned *dhist;
    CHECK(cudaMalloc(&ddata, NBYTES));
    CHECK(cudaMalloc(&dhist, BINS * sizeof(unsigned)));
    CHECK(cudaMemcpy(ddata, data, NBYTES, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dhist, 0, BINS * sizeof(unsigned)));

    int blocks = 120, threads = 256;
    printf("[histogram] %u bytes, %d bins, %d blocks of %d threads\n", NBYTES, BINS, blocks,
           threads);
    histogram256<<<blocks, threads>>>(ddata, NBYTES, dhist);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(hist, dhist, sizeof(hist), cudaMemcpyDeviceToHost));

    int bad = 0;
    unsigned long long total = 0;
    for (int b = 0; b < BINS; b++) {
        total += hist[b];
        if (hist[b] != ref[b]) {
            if (bad < 5)
                fprintf(stderr, "bin %d: device %u, host %u\n", b, hist[b], ref[b]);
            bad++;
        }
    }
    printf("total = %llu\n", total);
    printf("bin[0] = %u\nbin[1] = %u\nbin[64] = %u\nbin[127] = %u\nbin[255] = %u\n", hist[0],
           hist[1], hist[64], hist[127], hist[255]);

    CHECK(cudaFree(ddata));
    CHECK(cudaFree(dhist));
    free(data);
    int ok = !bad && total == NBYTES;
    printf("%s\n", ok ? "PASSED" : "FAILED");
    return ok ? 0 : 1;
}
