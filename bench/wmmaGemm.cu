// wmmaGemm.cu - benchmark: a 512x512x512 GEMM on the tensor cores (nvcuda::wmma, 16x16x16
// fragments, f16 inputs, f32 accumulators), each warp one 16x16 tile of C, 4 warps a block.
// Inputs are small integers, so the result is exact and checked against the host exactly.
// bench/run.sh reports its emulated rate in tensor-core flops (2 M N K a second).
#include <cuda_fp16.h>
#include <mma.h>
#include "bench_common.h"
using namespace nvcuda;

#define DIM 512

__global__ void gemm(const __half *A, const __half *B, float *C)
{
    int warp = threadIdx.x / 32;
    int row = blockIdx.y * 32 + (warp / 2) * 16, col = blockIdx.x * 32 + (warp % 2) * 16;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    wmma::fill_fragment(c, 0.0f);
    for (int k = 0; k < DIM; k += 16) {
        wmma::load_matrix_sync(a, A + row * DIM + k, DIM);
        wmma::load_matrix_sync(b, B + k * DIM + col, DIM);
        wmma::mma_sync(c, a, b, c);
    }
    wmma::store_matrix_sync(C + row * DIM + col, c, DIM, wmma::mem_row_major);
}

int main(int argc, char **argv)
{
    const size_t n = (size_t)DIM * DIM;
    __half *a = (__half *)malloc(n * 2), *b = (__half *)malloc(n * 2);
    float *c = (float *)malloc(n * 4), *fa = (float *)malloc(n * 4), *fb = (float *)malloc(n * 4);
    for (size_t i = 0; i < n; i++) {   // the same values as bench/ref.c's tcgemm
        fa[i] = (float)((int)((i * 7) % 9) - 4);
        fb[i] = (float)((int)((i * 5) % 7) - 3);
        a[i] = __float2half(fa[i]);
        b[i] = __float2half(fb[i]);
    }
    __half *da, *db;
    float *dc;
    CHECK(cudaMalloc(&da, n * 2));
    CHECK(cudaMalloc(&db, n * 2));
    CHECK(cudaMalloc(&dc, n * 4));
    CHECK(cudaMemcpy(da, a, n * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b, n * 2, cudaMemcpyHostToDevice));
    dim3 grid(DIM / 32, DIM / 32);
    for (int w = bench_warmups(argc, argv); w > 0; w--) gemm<<<grid, 128>>>(da, db, dc);
    CHECK(cudaDeviceSynchronize());
    double t0 = bench_now();
    gemm<<<grid, 128>>>(da, db, dc);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    double t = bench_now() - t0;
    CHECK(cudaMemcpy(c, dc, n * 4, cudaMemcpyDeviceToHost));
    int ok = 1;
    for (size_t i = 0; i < n && ok; i += 97) {
        size_t r = i / DIM, col = i % DIM;
        double ref = 0.0;
        for (int k = 0; k < DIM; k++) ref += (double)fa[r * DIM + k] * fb[k * DIM + col];
        ok = c[i] == (float)ref;
    }
    bench_report("wmmaGemm", (long long)n, n * 2 * 2 + n * 4, n * (2 * 2 + 4 * 3), t, ok);
    return ok ? 0 : 1;
}
