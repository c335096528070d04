// wmmaGemm.cu - a 256x256x256 GEMM on the tensor cores through the warp matrix functions
// (nvcuda::wmma): half-precision A (row-major) and B (column-major), float accumulators.
//
// What the hardware does: each warp owns one 16x16 tile of C. For every K step of 16 it loads
// a 16x16 fragment of A and of B (load_matrix_sync: the 32 lanes each hold a few elements, in
// a layout only the hardware knows) and mma_sync multiplies them into the accumulator
// fragment, which store_matrix_sync writes back. A block of 4 warps computes a 32x32 tile.
//
// Inputs are small integers (|x| <= 3), so every product and every partial sum is exact in
// the tensor core's arithmetic: the result equals the host's integer product exactly.
#include <cstdio>
#include <cstdlib>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

#define N 256

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("CUDA error %s at line %d\n", cudaGetErrorString(e_), __LINE__); return 1; } } while (0)

__global__ void gemm(const __half *A, const __half *B, float *C)
{
    int warp = threadIdx.x / 32;
    int row = blockIdx.y * 32 + (warp / 2) * 16, col = blockIdx.x * 32 + (warp % 2) * 16;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    wmma::fill_fragment(c, 0.0f);
    for (int k = 0; k < N; k += 16) {
        wmma::load_matrix_sync(a, A + row * N + k, N);   // A[row.., k..], row-major
        wmma::load_matrix_sync(b, B + col * N + k, N);   // B[k.., col..], column-major
        wmma::mma_sync(c, a, b, c);
    }
    wmma::store_matrix_sync(C + row * N + col, c, N, wmma::mem_row_major);
}

int main()
{
    const size_t n = (size_t)N * N;
    __half *hA = (__half *)malloc(n * 2), *hB = (__half *)malloc(n * 2);
    int *iA = (int *)malloc(n * 4), *iB = (int *)malloc(n * 4);
    float *hC = (float *)malloc(n * 4);
    unsigned s = 12345;
    for (size_t i = 0; i < n; i++) {
        s = s * 1103515245u + 12345u; iA[i] = (int)((s >> 16) % 7) - 3;
        s = s * 1103515245u + 12345u; iB[i] = (int)((s >> 16) % 7) - 3;
        hA[i] = __int2half_rn(iA[i]);
        hB[i] = __int2half_rn(iB[i]);   // B[k][j] is stored at j*N + k (column-major)
    }
    __half *dA, *dB;
    float *dC;
    CHECK(cudaMalloc(&dA, n * 2)); CHECK(cudaMalloc(&dB, n * 2)); CHECK(cudaMalloc(&dC, n * 4));
    CHECK(cudaMemcpy(dA, hA, n * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, hB, n * 2, cudaMemcpyHostToDevice));
    gemm<<<dim3(N / 32, N / 32), 128>>>(dA, dB, dC);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(hC, dC, n * 4, cudaMemcpyDeviceToHost));
    int bad = 0;
    long long sum = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            long long ref = 0;
            for (int k = 0; k < N; k++) ref += (long long)iA[i * N + k] * iB[j * N + k];
            if (hC[i * N + j] != (float)ref) bad++;
            sum += (long long)hC[i * N + j];
        }
    printf("wmma GEMM %dx%dx%d (f16 inputs, f32 accumulators)\n", N, N, N);
    printf("C[0][0] = %g, C[17][200] = %g, C[255][255] = %g\n", hC[0], hC[17 * N + 200], hC[n - 1]);
    printf("checksum %lld, %d elements differ from the host's product\n", sum, bad);
    printf("%s\n", bad ? "FAILED" : "PASSED");
    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    free(hA); free(hB); free(iA); free(iB); free(hC);
    return bad ? 1 : 0;
}
