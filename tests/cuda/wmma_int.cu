// wmma_int.cu - warp matrix functions on 8-bit integers (m16n16k16, m32n8k16, m8n32k16;
// s8 and u8; A row- and column-major, B both, C and D row and column): each fragment's
// elements as every lane holds them after load_matrix_sync (the fragment layout), and the
// products mma_sync computes, stored with store_matrix_sync.
#include <cstdio>
#include <mma.h>
using namespace nvcuda;

template <int M, int N, int K, typename T, typename LA, typename LB, wmma::layout_t LC>
__global__ void run(const T *a, const T *b, const int *c, int *d, int *frag)
{
    wmma::fragment<wmma::matrix_a, M, N, K, T, LA> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, T, LB> fb;
    wmma::fragment<wmma::accumulator, M, N, K, int> fc;
    const int lda = std::is_same<LA, wmma::row_major>::value ? K + 4 : M + 4;
    const int ldb = std::is_same<LB, wmma::row_major>::value ? N + 4 : K + 4;
    const int ldc = LC == wmma::mem_row_major ? N + 4 : M + 4;
    wmma::load_matrix_sync(fa, a, lda);
    wmma::load_matrix_sync(fb, b, ldb);
    wmma::load_matrix_sync(fc, c, ldc, LC);
    int l = threadIdx.x, at = 0;
    for (int i = 0; i < fa.num_elements; i++) frag[at++ * 32 + l] = fa.x[i];
    for (int i = 0; i < fb.num_elements; i++) frag[at++ * 32 + l] = fb.x[i];
    for (int i = 0; i < fc.num_elements; i++) frag[at++ * 32 + l] = fc.x[i];
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d, fc, ldc, LC);
}

template <int M, int N, int K, typename T, typename LA, typename LB, wmma::layout_t LC>
static void test(const char *what)
{
    const int SZ = 48 * 48;
    static T ha[SZ], hb[SZ];
    static int hc[SZ], hd[SZ], hf[64 * 32];
    for (int i = 0; i < SZ; i++) {
        ha[i] = (T)(i * 37 + 11);
        hb[i] = (T)(i * 53 + 7);
        hc[i] = i * 1000 - 700000;
    }
    T *a, *b;
    int *c, *d, *f;
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
    wmma::fragment<wmma::accumulator, M, N, K, int> fc;
    int n = fa.num_elements + fb.num_elements + fc.num_elements;
    printf("elements a %d b %d c %d\n", fa.num_elements, fb.num_elements, fc.num_elements);
    for (int l = 0; l < 32; l++) {
        printf("lane %2d:", l);
        for (int i = 0; i < n; i++) printf(" %d", hf[i * 32 + l]);
        printf("\n");
    }
    unsigned long long h = 1469598103934665603ull;
    for (int i = 0; i < SZ; i++) { h ^= (unsigned)hd[i]; h *= 1099511628211ull; }
    printf("d hash %016llx, d[0] %d d[1] %d d[last] %d\n", h, hd[0], hd[1], hd[(M - 1) * (N + 4) + N - 1]);
    cudaFree(a); cudaFree(b); cudaFree(c); cudaFree(d); cudaFree(f);
}

int main()
{
    test<16, 16, 16, signed char, wmma::row_major, wmma::col_major, wmma::mem_row_major>("m16n16k16 s8 row col, C row");
    test<16, 16, 16, unsigned char, wmma::col_major, wmma::row_major, wmma::mem_col_major>("m16n16k16 u8 col row, C col");
    test<32, 8, 16, signed char, wmma::row_major, wmma::row_major, wmma::mem_row_major>("m32n8k16 s8 row row, C row");
    test<8, 32, 16, unsigned char, wmma::col_major, wmma::col_major, wmma::mem_col_major>("m8n32k16 u8 col col, C col");
    return 0;
}
