// wmma_f64.cu - warp matrix functions on f64 (m8n8k4; A and B row- and column-major, C and D
// row and column): each fragment's elements as every lane holds them after load_matrix_sync
// (the fragment layout), and the products mma_sync computes, stored with store_matrix_sync.
#include <cstdio>
#include <cstring>
#include <mma.h>
using namespace nvcuda;

template <typename LA, typename LB, wmma::layout_t LC>
__global__ void run(const double *a, const double *b, const double *c, double *d, double *frag)
{
    wmma::fragment<wmma::matrix_a, 8, 8, 4, double, LA> fa;
    wmma::fragment<wmma::matrix_b, 8, 8, 4, double, LB> fb;
    wmma::fragment<wmma::accumulator, 8, 8, 4, double> fc;
    wmma::load_matrix_sync(fa, a, 12);
    wmma::load_matrix_sync(fb, b, 12);
    wmma::load_matrix_sync(fc, c, 12, LC);
    int l = threadIdx.x, at = 0;
    for (int i = 0; i < fa.num_elements; i++) frag[at++ * 32 + l] = fa.x[i];
    for (int i = 0; i < fb.num_elements; i++) frag[at++ * 32 + l] = fb.x[i];
    for (int i = 0; i < fc.num_elements; i++) frag[at++ * 32 + l] = fc.x[i];
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d, fc, 12, LC);
}

template <typename LA, typename LB, wmma::layout_t LC>
static void test(const char *what)
{
    const int SZ = 12 * 12;
    static double ha[SZ], hb[SZ], hc[SZ], hd[SZ], hf[8 * 32];
    for (int i = 0; i < SZ; i++) {
        ha[i] = i + 0.25 + (i % 7) * 1e-17;
        hb[i] = 1000 + i * 3.0 / 7;
        hc[i] = -0.5 * i * i + 1.0 / (i + 1);
    }
    double *a, *b, *c, *d, *f;
    cudaMalloc(&a, sizeof ha); cudaMalloc(&b, sizeof hb); cudaMalloc(&c, sizeof hc);
    cudaMalloc(&d, sizeof hd); cudaMalloc(&f, sizeof hf);
    cudaMemcpy(a, ha, sizeof ha, cudaMemcpyHostToDevice);
    cudaMemcpy(b, hb, sizeof hb, cudaMemcpyHostToDevice);
    cudaMemcpy(c, hc, sizeof hc, cudaMemcpyHostToDevice);
    cudaMemset(d, 0, sizeof hd);
    cudaMemset(f, 0, sizeof hf);
    run<LA, LB, LC><<<1, 32>>>(a, b, c, d, f);
    cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(hd, d, sizeof hd, cudaMemcpyDeviceToHost);
    cudaMemcpy(hf, f, sizeof hf, cudaMemcpyDeviceToHost);
    printf("== %s: %s\n", what, cudaGetErrorName(e));
    for (int l = 0; l < 32; l++) {
        printf("lane %2d:", l);
        for (int i = 0; i < 4; i++) printf(" %g", hf[i * 32 + l]);
        printf("\n");
    }
    for (int i = 0; i < SZ; i++) {
        unsigned long long u;
        memcpy(&u, &hd[i], 8);
        printf("%016llx%c", u, i % 6 == 5 ? '\n' : ' ');
    }
    cudaFree(a); cudaFree(b); cudaFree(c); cudaFree(d); cudaFree(f);
}

int main()
{
    test<wmma::row_major, wmma::col_major, wmma::mem_row_major>("f64 row col, C row");
    test<wmma::col_major, wmma::row_major, wmma::mem_col_major>("f64 col row, C col");
    return 0;
}
