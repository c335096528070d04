// mmaLdmatrixGemm.cu - a 128x128x128 GEMM written directly with PTX: tiles of A and B staged
// in shared memory, fragments loaded with ldmatrix, products with mma.sync.m16n8k16 (f16
// inputs, f32 accumulators). Built for sm_90 (mma.m16n8k16 needs sm_80).
//
// What the hardware does: ldmatrix.x4 has every lane give the shared-memory address of one
// 16-byte row of four 8x8 matrices and hands each lane its fragment of all four (A's 16x16
// block); ldmatrix.x2.trans does the same for two matrices of B, transposed on the way, because
// mma wants B by columns. mma.sync then multiplies the 16x16 A fragment by the 16x8 B fragment
// into four f32 accumulators per lane: row lane/4 (and +8), columns 2*(lane%4) and +1.
//
// Inputs are small integers, so every result is exact and equals the host's product.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cuda_fp16.h>

#define N 128
#define BM 32               // a block computes a 32x32 tile with 8 warps: each warp 16x8
#define BK 16

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("CUDA error %s at line %d\n", cudaGetErrorString(e_), __LINE__); return 1; } } while (0)

__global__ void gemm(const __half *A, const __half *B, float *C)   // A row-major, B row-major
{
    __shared__ __align__(16) __half As[BM][BK];   // rows of A, 32 bytes each
    __shared__ __align__(16) __half Bs[BK][BM];   // rows of B (k), 64 bytes each
    int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    int wr = (warp / 4) * 16, wc = (warp % 4) * 8;          // the warp's tile in the block
    int r0 = blockIdx.y * BM, c0 = blockIdx.x * BM;
    float d[4] = {0, 0, 0, 0};
    for (int k0 = 0; k0 < N; k0 += BK) {
        for (int i = tid; i < BM * BK; i += blockDim.x) {
            As[i / BK][i % BK] = A[(r0 + i / BK) * N + k0 + i % BK];
            Bs[i / BM][i % BM] = B[(k0 + i / BM) * N + c0 + i % BM];
        }
        __syncthreads();
        uint32_t a[4], b[2];
        // A: lanes 0-15 give rows 0-15 at column 0, lanes 16-31 rows 0-15 at column 8
        uint32_t pa = (uint32_t)__cvta_generic_to_shared(&As[wr + lane % 16][(lane / 16) * 8]);
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3]) : "r"(pa));
        // B: lanes 0-15 give k rows 0-15 of the warp's 8 columns; .trans makes column fragments
        uint32_t pb = (uint32_t)__cvta_generic_to_shared(&Bs[lane % 16][wc]);
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];"
                     : "=r"(b[0]), "=r"(b[1]) : "r"(pb));
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
        __syncthreads();
    }
    int g = lane / 4, t = lane % 4;
    float *c = C + (r0 + wr) * N + c0 + wc;
    c[g * N + 2 * t] = d[0];
    c[g * N + 2 * t + 1] = d[1];
    c[(g + 8) * N + 2 * t] = d[2];
    c[(g + 8) * N + 2 * t + 1] = d[3];
}

int main()
{
    const size_t n = (size_t)N * N;
    __half *hA = (__half *)malloc(n * 2), *hB = (__half *)malloc(n * 2);
    int *iA = (int *)malloc(n * 4), *iB = (int *)malloc(n * 4);
    float *hC = (float *)malloc(n * 4);
    unsigned s = 777;
    for (size_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u; iA[i] = (int)((s >> 20) % 9) - 4;
        s = s * 1664525u + 1013904223u; iB[i] = (int)((s >> 20) % 9) - 4;
        hA[i] = __int2half_rn(iA[i]);
        hB[i] = __int2half_rn(iB[i]);
    }
    __half *dA, *dB;
    float *dC;
    CHECK(cudaMalloc(&dA, n * 2)); CHECK(cudaMalloc(&dB, n * 2)); CHECK(cudaMalloc(&dC, n * 4));
    CHECK(cudaMemcpy(dA, hA, n * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, hB, n * 2, cudaMemcpyHostToDevice));
    gemm<<<dim3(N / BM, N / BM), 256>>>(dA, dB, dC);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(hC, dC, n * 4, cudaMemcpyDeviceToHost));
    int bad = 0;
    long long sum = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            long long ref = 0;
            for (int k = 0; k < N; k++) ref += (long long)iA[i * N + k] * iB[k * N + j];
            if (hC[i * N + j] != (float)ref) bad++;
            sum += (long long)hC[i * N + j];
        }
    printf("mma.sync + ldmatrix GEMM %dx%dx%d (f16 inputs, f32 accumulators)\n", N, N, N);
    printf("C[0][0] = %g, C[5][77] = %g, C[127][127] = %g\n", hC[0], hC[5 * N + 77], hC[n - 1]);
    printf("checksum %lld, %d elements differ from the host's product\n", sum, bad);
    printf("%s\n", bad ? "FAILED" : "PASSED");
    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    free(hA); free(hB); free(iA); free(iB); free(hC);
    return bad ? 1 : 0;
}
