// wmma_half.cu - warp matrix functions on f16 and bf16 with f32 accumulators (m16n16k16,
// m32n8k16, m8n32k16; A and B row- and column-major; C and D row and column): each fragment's
// elements as every lane holds them after load_matrix_sync (the fragment layout, printed as
// the element's index in its matrix), and the products mma_sync computes (bits, hashed).
#include <cstdio>
#include <cstring>
#include <cstdint>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <mma.h>
using namespace nvcuda;

template <int M, int N, int K, typename T, typename LA, typename LB, wmma::layout_t LC>
__global__ void run(const T *a, const T *b, const float *c, float *d, float *frag)
{
    wmma::fragment<wmma::matrix_a, M, N, K, T, LA> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, T, LB> fb;
    wmma::fragment<wmma::accumulator, M, N, K, float> fc;
    const int lda = std::is_same<LA, wmma::row_major>::value ? K + 8 : M + 8;
    const int ldb = std::is_same<LB, wmma::row_major>::value ? N + 8 : K + 8;
    const int ldc = LC == wmma::mem_row_major ? N + 4 : M + 4;
    wmma::load_matrix_sync(fa, a, lda);
    wmma::load_matrix_sync(fb, b, ldb);
    wmma::load_matrix_sync(fc, c, ldc, LC);
    int l = threadIdx.x, at = 0;
    for (int i = 0; i < fa.num_elements; i++) frag[at++ * 32 + l] = (float)fa.x[i];
    for (int i = 0; i < fb.num_elements; i++) frag[at++ * 32 + l] = (float)fb.x[i];
    for (int i = 0; i < fc.num_elements; i++) frag[at++ * 32 + l] = fc.x[i];
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d, fc, ldc, LC);
}

template <int M, int N, int K, typename T, typename LA, typename LB, wmma::layout_t LC>
static void test(const char *what)
{
    const int SZ = 40 * 40;
    static T ha[SZ], hb[SZ];
    static float hc[SZ], hd[SZ], hf[64 * 32];
    for (int i = 0; i < SZ; i++) {   /* A and B hold their own index (exact in f16 below 2048) */
        ha[i] = (T)(float)(i % 1024);
        hb[i] = (T)(float)(i % 1024 + 0.5f * (i & 1));
        hc[i] = (float)i;
    }
    T *a, *b;
    float *c, *d, *f;
    cudaMalloc(&a, sizeof ha); cudaMalloc(&b, sizeof hb);
    cudaMalloc(&c, sizeof hc); cudaMalloc(&d, sizeof hd); cudaMalloc(&f, sizeof hf);
    cudaMemcpy(a, ha, sizeof ha, cudaMemcpyHostToDevice);
    cudaMemcpy(b, hb, sizeof hb, cudaMemcpyHostToDevice);
    cudaMemcpy(c, hc, sizeof hc, cudaMemcpyHostToDevice);
    cudaMemset(d, 0, sizeof hd);
    cudaMemset(f, 0, sizeof hf);
    run<M, N, K, T, LA, LB, LC><<<1, 32>>>(a, b, c, d, f);
    cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(hd, d, sizeof hd, cudaMemcpyDeviceToHost);
    cudaMemcpy(hf, f, sizeof hf, cudaMemcpyDeviceToHost);
    printf("== %s: %s\n", what, cudaGetErrorName(e));
    wmma::fragment<wmma::matrix_a, M, N, K, T, LA> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, T, LB> fb;
    wmma::fragment<wmma::accumulator, M, N, K, float> fc;
    int n = fa.num_elements + fb.num_elements + fc.num_elements;
    printf("elements a %d b %d c %d\n", fa.num_elements, fb.num_elements, fc.num_elements);
    for (int l = 0; l < 32; l++) {
        printf("lane %2d:", l);
        for (int i = 0; i < n; i++) printf(" %g", hf[i * 32 + l]);
        printf("\n");
    }
    unsigned long long h = 1469598103934665603ull;
    for (int i = 0; i < SZ; i++) { uint32_t u; memcpy(&u, &hd[i], 4); h ^= u; h *= 1099511628211ull; }
    uint32_t d0;
    memcpy(&d0, &hd[0], 4);
    printf("d hash %016llx, d[0] %08x\n", h, d0);
    cudaFree(a); cudaFree(b); cudaFree(c); cudaFree(d); cudaFree(f);
}

int main()
{
    test<16, 16, 16, __half, wmma::row_major, wmma::col_major, wmma::mem_row_major>("m16n16k16 f16 row col, C row");
    test<16, 16, 16, __half, wmma::col_major, wmma::row_major, wmma::mem_col_major>("m16n16k16 f16 col row, C col");
    test<32, 8, 16, __half, wmma::row_major, wmma::row_major, wmma::mem_row_major>("m32n8k16 f16 row row, C row");
    test<8, 32, 16, __half, wmma::col_major, wmma::col_major, wmma::mem_col_major>("m8n32k16 f16 col col, C col");
    test<16, 16, 16, __nv_bfloat16, wmma::row_major, wmma::col_major, wmma::mem_row_major>("m16n16k16 bf16 row col, C row");
    return 0;
}
