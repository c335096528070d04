// vectorAdd.cu - element-wise C = A + B over 50000 floats in blocks of 256 threads.
// The inputs come from a fixed LCG, so the output is the same on every run and device.
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

__global__ void vectorAdd(const float *a, const float *b, float *c, int n)
{
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

static unsigned lcg_state = 12345u;
// Uniform in [0, 1) with 24 random bits, identical on every host.
static float lcg_float(void)
{
    lcg_state = lcg_state * 1664525u + 1013904223u;
    return (float)(lcg_state >> 8) / 16777216.0f;
}

int main(void)
{
    const int n = 50000;
    const size_t bytes = n * sizeof(float);
    float *a = (float *)malloc(bytes), *b = (float *)malloc(bytes), *c = (float *)malloc(bytes);
    for (int i = 0; i < n; i++) {
        a[i] = lcg_float();
        b[i] = lcg_float() * 100.0f;
    }

    float *da, *db, *dc;
    CHECK(cudaMalloc(&da, bytes));
    CHECK(cudaMalloc(&db, bytes));
    CHECK(cudaMalloc(&dc, bytes));
    CHECK(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice));

    int threads = 256, blocks = (n + threads - 1) / threads;
    printf("[vectorAdd] %d elements, %d blocks of %d threads\n", n, blocks, threads);
    vectorAdd<<<blocks, threads>>>(da, db, dc, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost));

    // A single IEEE addition is exact to compare: device and host must agree bit for bit.
    int bad = 0;
    double sum = 0.0;
    for (int i = 0; i < n; i++) {
        if (c[i] != a[i] + b[i]) {
            if (bad < 5)
                fprintf(stderr, "mismatch at %d: %.9g != %.9g\n", i, c[i], a[i] + b[i]);
            bad++;
        }
        sum += c[i];
    }
    printf("c[0] = %.6f\nc[%d] = %.6f\nc[%d] = %.6f\n", c[0], n / 2, c[n / 2], n - 1, c[n - 1]);
    printf("sum = %.6f\n", sum);

    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dc));
    free(a);
    free(b);
    free(c);
    printf("%s\n", bad ? "FAILED" : "PASSED");
    return bad ? 1 : 0;
}
