// vectorAdd.cu (bench) - c = a + b over 16M floats; times one launch.
#include "bench_common.h"

__global__ void vectorAdd(const float *a, const float *b, float *c, int n)
{
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

int main(int argc, char **argv)
{
    const int n = 16 << 20, threads = 256, blocks = (n + threads - 1) / threads;
    const size_t bytes = (size_t)n * sizeof(float);
    float *a = (float *)malloc(bytes), *b = (float *)malloc(bytes), *c = (float *)malloc(bytes);
    for (int i = 0; i < n; i++) {
        a[i] = (float)(i % 1000);
        b[i] = (float)(i % 777) * 0.5f;
    }
    float *da, *db, *dc;
    CHECK(cudaMalloc(&da, bytes));
    CHECK(cudaMalloc(&db, bytes));
    CHECK(cudaMalloc(&dc, bytes));
    CHECK(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice));

    for (int w = bench_warmups(argc, argv); w > 0; w--)
        vectorAdd<<<blocks, threads>>>(da, db, dc, n);
    CHECK(cudaDeviceSynchronize());
    double t0 = bench_now();
    vectorAdd<<<blocks, threads>>>(da, db, dc, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    double t = bench_now() - t0;

    CHECK(cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost));
    int ok = 1;
    for (int i = 0; i < n && ok; i++)
        ok = c[i] == a[i] + b[i];
    bench_report("vectorAdd", n, 3 * bytes, 3 * bytes, t, ok);
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dc));
    free(a);
    free(b);
    free(c);
    return ok ? 0 : 1;
}
