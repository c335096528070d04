// wmma_more.cu - warp matrix functions on f16 with f16 accumulators (m16n16k16, m32n8k16,
// m8n32k16) and on tf32 with f32 accumulators (m16n16k8): each fragment's elements as every
// lane holds them after load_matrix_sync (the fragment layout, printed as the element's index
// in its matrix), and the products mma_sync computes (bits, hashed).
#include <cstdio>
#include <cstring>
#include <cstdint>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

// S: the storage type of A and B (float for tf32), T: the fragment's type, TC: accumulators
template <int M, int N, int K, typename S, typename T, typename TC, typename LA, typename LB, wmma::layout_t LC>
__global__ void run(const S *a, const S *b, const TC *c, TC *d, float *frag)
{
    wmma::fragment<wmma::matrix_a, M, N, K, T, LA> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, T, LB> fb;
    wmma::fragment<wmma::accumulator, M, N, K, TC> fc;
    const int lda = std::is_same<LA, wmma::row_major>::value ? K + 8 : M + 8;
    const int ldb = std::is_same<LB, wmma::row_major>::value ? N + 8 : K + 8;
    const int ldc = LC == wmma::mem_row_major ? N + 8 : M + 8;
    wmma::load_matrix_sync(fa, a, lda);
    wmma::load_matrix_sync(fb, b, ldb);
    wmma::load_matrix_sync(fc, c, ldc, LC);
    int l = threadIdx.x, at = 0;
    for (int i = 0; i < fa.num_elements; i++) frag[at++ * 32 + l] = (float)fa.x[i];
    for (int i = 0; i < fb.num_elements; i++) frag[at++ * 32 + l] = (float)fb.x[i];
    for (int i = 0; i < fc.num_elements; i++) frag[at++ * 32 + l] = (float)fc.x[i];
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d, fc, ldc, LC);
}

template <typename X> static X from(float f) { return (X)f; }
template <> __half from<__half>(float f) { return __float2half(f); }
template <typename X> static uint32_t bitsof(X x) { uint32_t u = 0; memcpy(&u, &x, sizeof x); return u; }

template <int M, int N, int K, typename S, typename T, typename TC, typename LA, typename LB, wmma::layout_t LC>
static void test(const char *what)
{
    const int SZ = 48 * 48;
    static S ha[SZ], hb[SZ];
    static TC hc[SZ], hd[SZ];
    static float hf[96 * 32];
    for (int i = 0; i < SZ; i++) {   /* A and B hold their own index (exact in f16 below 2048) */
        ha[i] = from<S>((float)(i % 1024));
        hb[i] = from<S>((float)(i % 1024) + 0.5f * (i & 1));
        hc[i] = from<TC>((float)(i % 2048));
    }
    S *a, *b;
    TC *c, *d;
    float *f;
    cudaMalloc(&a, sizeof ha); cudaMalloc(&b, sizeof hb);
    cudaMalloc(&c, sizeof hc); cudaMalloc(&d, sizeof hd); cudaMalloc(&f, sizeof hf);
    cudaMemcpy(a, ha, sizeof ha, cudaMemcpyHostToDevice);
    cudaMemcpy(b, hb, sizeof hb, cudaMemcpyHostToDevice);
    cudaMemcpy(c, hc, sizeof hc, cudaMemcpyHostToDevice);
    cudaMemset(d, 0, sizeof hd);
    cudaMemset(f, 0, sizeof hf);
    run<M, N, K, S, T, TC, LA, LB, LC><<<1, 32>>>(a, b, c, d, f);
    cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(hd, d, sizeof hd, cudaMemcpyDeviceToHost);
    cudaMemcpy(hf, f, sizeof hf, cudaMemcpyDeviceToHost);
    printf("== %s: %s\n", what, cudaGetErrorName(e));
    wmma::fragment<wmma::matrix_a, M, N, K, T, LA> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, T, LB> fb;
    wmma::fragment<wmma::accumulator, M, N, K, TC> fc;
    int n = fa.num_elements + fb.num_elements + fc.num_elements;
    printf("elements a %d b %d c %d\n", fa.num_elements, fb.num_elements, fc.num_elements);
    for (int l = 0; l < 32; l++) {
        printf("lane %2d:", l);
        for (int i = 0; i < n; i++) printf(" %g", hf[i * 32 + l]);
        printf("\n");
    }
    unsigned long long h = 1469598103934665603ull;
    for (int i = 0; i < SZ; i++) { h ^= bitsof(hd[i]); h *= 1099511628211ull; }
    printf("d hash %016llx, d[0] %08x\n", h, bitsof(hd[0]));
    cudaFree(a); cudaFree(b); cudaFree(c); cudaFree(d); cudaFree(f);
}

int main()
{
    typedef wmma::row_major R;
    typedef wmma::col_major C;
    test<16, 16, 16, __half, __half, __half, R, C, wmma::mem_row_major>("m16n16k16 f16 acc f16 row col, C row");
    test<16, 16, 16, __half, __half, __half, C, R, wmma::mem_col_major>("m16n16k16 f16 acc f16 col row, C col");
    test<32, 8, 16, __half, __half, __half, R, R, wmma::mem_row_major>("m32n8k16 f16 acc f16 row row, C row");
    test<8, 32, 16, __half, __half, __half, C, C, wmma::mem_col_major>("m8n32k16 f16 acc f16 col col, C col");
    test<16, 16, 8, float, wmma::precision::tf32, float, R, C, wmma::mem_row_major>("m16n16k8 tf32 row col, C row");
    test<16, 16, 8, float, wmma::precision::tf32, float, C, R, wmma::mem_col_major>("m16n16k8 tf32 col row, C col");
    test<16, 16, 8, float, wmma::precision::tf32, float, R, R, wmma::mem_row_major>("m16n16k8 tf32 row row, C row");
    printf("%s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
