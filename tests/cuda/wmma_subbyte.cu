// wmma_subbyte.cu - warp matrix functions on 4-bit integers (m8n8k32, s4 and u4) and single
// bits (m8n8k128, b1 with xor.popc and and.popc): A row-major, B column-major, C and D row-
// and column-major. The fragment layouts: memory holds the digits of each element's own index
// (index bits 4p.. of a 4-bit element in pass p, bit p of a 1-bit element), and every lane's
// raw fragment registers after load_matrix_sync are printed; C holds its index. Then random
// values: the products mma_sync computes, stored with store_matrix_sync.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <mma.h>
using namespace nvcuda;
namespace wx = nvcuda::wmma::experimental;

#define LDA_PAD 32   // extra elements a row (A) or column (B) in memory

template <int K, typename T, wmma::layout_t LC, int OP>
__global__ void run(const uint32_t *a, const uint32_t *b, const int *c, int *d, uint32_t *frag)
{
    wmma::fragment<wmma::matrix_a, 8, 8, K, T, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 8, 8, K, T, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 8, 8, K, int> fc;
    wmma::load_matrix_sync(fa, a, K + LDA_PAD);
    wmma::load_matrix_sync(fb, b, K + LDA_PAD);
    wmma::load_matrix_sync(fc, c, 8 + 4, LC);
    int l = threadIdx.x, at = 0;
    for (int i = 0; i < fa.num_storage_elements; i++) frag[at++ * 32 + l] = fa.x[i];
    for (int i = 0; i < fb.num_storage_elements; i++) frag[at++ * 32 + l] = fb.x[i];
    for (int i = 0; i < fc.num_elements; i++) frag[at++ * 32 + l] = (uint32_t)fc.x[i];
    if constexpr (OP == 0) wmma::mma_sync(fc, fa, fb, fc);
    else if constexpr (OP == 1) wmma::bmma_sync(fc, fa, fb, fc, wx::bmmaBitOpXOR, wx::bmmaAccumulateOpPOPC);
    else wmma::bmma_sync(fc, fa, fb, fc, wx::bmmaBitOpAND, wx::bmmaAccumulateOpPOPC);
    wmma::store_matrix_sync(d, fc, 8 + 4, LC);
}

static uint64_t s = 0xa4093822299f31d0ull;
static uint32_t rnd() { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return (uint32_t)(s >> 11); }

// element e of a packed array of `bits`-bit elements
static void put(uint32_t *m, int e, int bits, uint32_t v)
{
    int per = 32 / bits;
    m[e / per] = (m[e / per] & ~(((1u << bits) - 1) << (e % per * bits))) | (v & ((1u << bits) - 1)) << (e % per * bits);
}

template <int K, typename T, wmma::layout_t LC, int OP>
static void test(const char *what, int bits, int passes)
{
    const int ld = K + LDA_PAD, n = 8 * ld;   // elements of A (8 rows) and of B (8 columns)
    static uint32_t ha[1024], hb[1024], hf[64 * 32];
    static int hc[8 * 12], hd[8 * 12];
    uint32_t *a, *b, *f;
    int *c, *d;
    cudaMalloc(&a, sizeof ha); cudaMalloc(&b, sizeof hb); cudaMalloc(&f, sizeof hf);
    cudaMalloc(&c, sizeof hc); cudaMalloc(&d, sizeof hd);
    for (int i = 0; i < 8 * 12; i++) hc[i] = i;
    for (int p = 0; p <= passes; p++) {   // passes 0..passes-1: index digits; the last: random
        memset(ha, 0, sizeof ha); memset(hb, 0, sizeof hb);
        for (int e = 0; e < n; e++) {
            uint32_t va = p < passes ? (uint32_t)e >> (p * bits) : rnd(), vb = p < passes ? (uint32_t)e >> (p * bits) : rnd();
            put(ha, e, bits, va);
            put(hb, e, bits, vb);
        }
        if (p == passes) for (int i = 0; i < 8 * 12; i++) hc[i] = (int)(rnd() % 2001) - 1000;
        cudaMemcpy(a, ha, sizeof ha, cudaMemcpyHostToDevice);
        cudaMemcpy(b, hb, sizeof hb, cudaMemcpyHostToDevice);
        cudaMemcpy(c, hc, sizeof hc, cudaMemcpyHostToDevice);
        cudaMemset(d, 0, sizeof hd);
        run<K, T, LC, OP><<<1, 32>>>(a, b, c, d, f);
        cudaError_t err = cudaDeviceSynchronize();
        cudaMemcpy(hf, f, sizeof hf, cudaMemcpyDeviceToHost);
        cudaMemcpy(hd, d, sizeof hd, cudaMemcpyDeviceToHost);
        printf("== %s pass %d%s: %s\n", what, p, p == passes ? " (random)" : "", cudaGetErrorName(err));
        wmma::fragment<wmma::matrix_a, 8, 8, K, T, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 8, 8, K, T, wmma::col_major> fb;
        wmma::fragment<wmma::accumulator, 8, 8, K, int> fc;
        int nr = fa.num_storage_elements + fb.num_storage_elements + (p == 0 || p == passes ? fc.num_elements : 0);
        for (int l = 0; l < 32; l++) {
            printf("lane %2d:", l);
            for (int i = 0; i < nr; i++) printf(" %08x", hf[i * 32 + l]);
            printf("\n");
        }
        if (p == passes) {
            printf("d:");
            for (int i = 0; i < 8 * 12; i++) printf(" %d", hd[i]);
            printf("\n");
        }
    }
    cudaFree(a); cudaFree(b); cudaFree(c); cudaFree(d); cudaFree(f);
}

int main()
{
    test<32, wx::precision::s4, wmma::mem_row_major, 0>("m8n8k32 s4, C row", 4, 3);
    test<32, wx::precision::u4, wmma::mem_col_major, 0>("m8n8k32 u4, C col", 4, 3);
    test<128, wx::precision::b1, wmma::mem_row_major, 1>("m8n8k128 b1 xor, C row", 1, 11);
    test<128, wx::precision::b1, wmma::mem_col_major, 2>("m8n8k128 b1 and, C col", 1, 11);
    printf("%s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
