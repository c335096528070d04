// saxpy.cu (bench) - y = a*x + y over 16M floats; times one launch.
#include <cmath>
#include "bench_common.h"

__global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

int main(int argc, char **argv)
{
    const int n = 16 << 20, threads = 256, blocks = (n + threads - 1) / threads;
    const size_t bytes = (size_t)n * sizeof(float);
    const float alpha = 1.5f;
    int warmups = bench_warmups(argc, argv);
    float *x = (float *)malloc(bytes), *y = (float *)malloc(bytes), *r = (float *)malloc(bytes);
    for (int i = 0; i < n; i++) {
        x[i] = (float)(i % 1000) * 0.25f;
        y[i] = (float)(i % 333);
    }
    float *dx, *dy;
    CHECK(cudaMalloc(&dx, bytes));
    CHECK(cudaMalloc(&dy, bytes));
    CHECK(cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dy, y, bytes, cudaMemcpyHostToDevice));

    // Warm-up launches update y too; reset it afterwards so the check stays simple.
    for (int w = warmups; w > 0; w--)
        saxpy<<<blocks, threads>>>(n, alpha, dx, dy);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(dy, y, bytes, cudaMemcpyHostToDevice));
    double t0 = bench_now();
    saxpy<<<blocks, threads>>>(n, alpha, dx, dy);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    double t = bench_now() - t0;

    CHECK(cudaMemcpy(r, dy, bytes, cudaMemcpyDeviceToHost));
    int ok = 1;
    for (int i = 0; i < n && ok; i++)   // the device uses fma: compare with fmaf
        ok = r[i] == fmaf(alpha, x[i], y[i]);
    bench_report("saxpy", n, 2 * bytes, 3 * bytes, t, ok);
    CHECK(cudaFree(dx));
    CHECK(cudaFree(dy));
    free(x);
    free(y);
    free(r);
    return ok ? 0 : 1;
}
