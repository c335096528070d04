// wmma_wide.cu - every wmma form on wide-range data: f16, bf16 and tf32 (raw f32 registers
// and __float_to_tf32 values) with f32 accumulators, f16 with f16 and mixed accumulators,
// f64, 8-bit, 4-bit and 1-bit integers; each shape and several layouts; 32 products per form
// (one a block), of uniform, wide-exponent, subnormal-rich and cancelling data. Prints per
// form a hash of all of D's bits and a few elements. With a folder argument it also writes
// each form's D as FORM.bin there (for comparing element by element).
#include <cstdio>
#include <cstring>
#include <cstdint>
#include <cmath>
#include <string>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <mma.h>
using namespace nvcuda;

static const char *outdir;
static uint64_t rs;
static uint64_t rnd() { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return rs; }
static double uni() { return (double)(rnd() >> 11) / 9007199254740992.0; }

/* one value of case kind k (per block) for a float-like element type */
static double fval(int kind, int wide_exp)
{
    double s = (rnd() & 1) ? -1 : 1;
    switch (kind % 4) {
    case 0: return s * uni();                                                 /* [-1, 1] */
    case 1: return s * (1 + uni()) * ldexp(1.0, (int)(rnd() % (2 * wide_exp + 1)) - wide_exp);
    case 2: return s * (1 + uni()) * ldexp(1.0, (int)(rnd() % 12) - 6);
    default: { uint32_t u = (uint32_t)rnd(); float f; memcpy(&f, &u, 4); return std::isfinite(f) && fabsf(f) < 1e30f ? f : 1.5f; }
    }
}

template <typename X> static X cv(double f) { return (X)f; }
template <> __half cv<__half>(double f) { return __float2half((float)f); }
template <> __nv_bfloat16 cv<__nv_bfloat16>(double f) { return __float2bfloat16((float)f); }
template <typename X> static uint64_t bitsof(X x) { uint64_t u = 0; memcpy(&u, &x, sizeof x); return u; }

template <int M, int N, int K, typename S, typename T, typename TC, typename TD, typename LA, typename LB, int TF>
__global__ void kfloat(const S *a, const S *b, const TC *c, TD *d)
{
    wmma::fragment<wmma::matrix_a, M, N, K, T, LA> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, T, LB> fb;
    wmma::fragment<wmma::accumulator, M, N, K, TC> fc;
    wmma::fragment<wmma::accumulator, M, N, K, TD> fd;
    const int lda = std::is_same<LA, wmma::row_major>::value ? K : M;
    const int ldb = std::is_same<LB, wmma::row_major>::value ? N : K;
    int blk = blockIdx.x;
    wmma::load_matrix_sync(fa, a + blk * M * K, lda);
    wmma::load_matrix_sync(fb, b + blk * K * N, ldb);
    wmma::load_matrix_sync(fc, c + blk * M * N, N, wmma::mem_row_major);
    if (TF) {
        for (int i = 0; i < fa.num_elements; i++) fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
        for (int i = 0; i < fb.num_elements; i++) fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
    }
    wmma::mma_sync(fd, fa, fb, fc);
    wmma::store_matrix_sync(d + blk * M * N, fd, N, wmma::mem_row_major);
}

static void report(const char *name, const void *d, size_t esz, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    const unsigned char *p = (const unsigned char *)d;
    for (size_t i = 0; i < n * esz; i++) { h ^= p[i]; h *= 1099511628211ull; }
    printf("%-36s hash %016llx", name, (unsigned long long)h);
    for (size_t i = 0; i < 3; i++) {
        uint64_t v = 0; memcpy(&v, p + (i * 97 % n) * esz, esz);
        printf(" %0*llx", (int)(2 * esz), (unsigned long long)v);
    }
    printf("\n");
    if (outdir) {
        std::string path = std::string(outdir) + "/" + name + ".bin";
        for (auto &ch : path) if (ch == ' ') ch = '_';
        FILE *f = fopen(path.c_str(), "wb");
        if (f) { fwrite(d, esz, n, f); fclose(f); }
    }
}

template <int M, int N, int K, typename S, typename T, typename TC, typename TD, typename LA, typename LB, int TF>
static void tfloat(const char *name, int wide_exp)
{
    const int B = 32;
    static S ha[B * M * K], hb[B * K * N];
    static TC hc[B * M * N];
    static TD hd[B * M * N];
    for (int blk = 0; blk < B; blk++) {
        int kind = blk % 8;
        for (int i = 0; i < M * K; i++) ha[blk * M * K + i] = cv<S>(fval(kind, wide_exp));
        for (int i = 0; i < K * N; i++) hb[blk * K * N + i] = cv<S>(fval(kind, wide_exp));
        for (int i = 0; i < M * N; i++) hc[blk * M * N + i] = kind >= 4 ? cv<TC>(0.0f) : cv<TC>(fval(kind, wide_exp));
        if (kind == 6) {   /* cancelling: c = -(row i of A . column j of B), in double */
            for (int i = 0; i < M; i++) for (int j = 0; j < N; j++) {
                double s = 0;
                for (int k = 0; k < K; k++) {
                    int ia = std::is_same<LA, wmma::row_major>::value ? i * K + k : k * M + i;
                    int ib = std::is_same<LB, wmma::row_major>::value ? k * N + j : j * K + k;
                    s += (double)ha[blk * M * K + ia] * (double)hb[blk * K * N + ib];
                }
                hc[blk * M * N + i * N + j] = cv<TC>(-s);
            }
        }
    }
    S *a, *b; TC *c; TD *d;
    cudaMalloc(&a, sizeof ha); cudaMalloc(&b, sizeof hb); cudaMalloc(&c, sizeof hc); cudaMalloc(&d, sizeof hd);
    cudaMemcpy(a, ha, sizeof ha, cudaMemcpyHostToDevice);
    cudaMemcpy(b, hb, sizeof hb, cudaMemcpyHostToDevice);
    cudaMemcpy(c, hc, sizeof hc, cudaMemcpyHostToDevice);
    kfloat<M, N, K, S, T, TC, TD, LA, LB, TF><<<B, 32>>>(a, b, c, d);
    cudaMemcpy(hd, d, sizeof hd, cudaMemcpyDeviceToHost);
    report(name, hd, sizeof(TD), B * M * N);
    cudaFree(a); cudaFree(b); cudaFree(c); cudaFree(d);
}

template <int M, int N, int K, typename T, typename LA, typename LB>
__global__ void kint(const void *a, const void *b, const int *c, int *d)
{
    wmma::fragment<wmma::matrix_a, M, N, K, T, LA> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, T, LB> fb;
    wmma::fragment<wmma::accumulator, M, N, K, int> fc;
    const int bits = std::is_same<T, wmma::experimental::precision::b1>::value ? 1
                   : std::is_same<T, signed char>::value || std::is_same<T, unsigned char>::value ? 8 : 4;
    const int lda = std::is_same<LA, wmma::row_major>::value ? K : M;
    const int ldb = std::is_same<LB, wmma::row_major>::value ? N : K;
    int blk = blockIdx.x;
    typedef typename std::conditional<bits == 8, const T *, const void *>::type P;
    wmma::load_matrix_sync(fa, (P)((const char *)a + blk * M * K * bits / 8), lda);
    wmma::load_matrix_sync(fb, (P)((const char *)b + blk * K * N * bits / 8), ldb);
    wmma::load_matrix_sync(fc, c + blk * M * N, N, wmma::mem_row_major);
    if constexpr (bits == 1) wmma::bmma_sync(fc, fa, fb, fc);
    else wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d + blk * M * N, fc, N, wmma::mem_row_major);
}

template <int M, int N, int K, typename T, typename LA, typename LB>
static void tint(const char *name, int bits)
{
    const int B = 32;
    static unsigned char ha[B * M * K], hb[B * K * N];
    static int hc[B * M * N], hd[B * M * N];
    for (size_t i = 0; i < sizeof ha; i++) ha[i] = (unsigned char)rnd();
    for (size_t i = 0; i < sizeof hb; i++) hb[i] = (unsigned char)rnd();
    for (int i = 0; i < B * M * N; i++) hc[i] = (i / (M * N)) % 2 ? (int)(uint32_t)rnd() : (int)(rnd() % 2001) - 1000;
    void *a, *b; int *c, *d;
    cudaMalloc(&a, sizeof ha); cudaMalloc(&b, sizeof hb); cudaMalloc(&c, sizeof hc); cudaMalloc(&d, sizeof hd);
    cudaMemcpy(a, ha, sizeof ha, cudaMemcpyHostToDevice);
    cudaMemcpy(b, hb, sizeof hb, cudaMemcpyHostToDevice);
    cudaMemcpy(c, hc, sizeof hc, cudaMemcpyHostToDevice);
    kint<M, N, K, T, LA, LB><<<B, 32>>>(a, b, c, d);
    cudaMemcpy(hd, d, sizeof hd, cudaMemcpyDeviceToHost);
    (void)bits;
    report(name, hd, 4, B * M * N);
    cudaFree(a); cudaFree(b); cudaFree(c); cudaFree(d);
}

int main(int argc, char **argv)
{
    outdir = argc > 1 ? argv[1] : nullptr;
    rs = 0x243f6a8885a308d3ull;
    typedef wmma::row_major R;
    typedef wmma::col_major C;
    typedef wmma::precision::tf32 TF;
    tfloat<16, 16, 16, __half, __half, float, float, R, C, 0>("f16 f32 m16n16k16 row col", 14);
    tfloat<16, 16, 16, __half, __half, float, float, C, R, 0>("f16 f32 m16n16k16 col row", 14);
    tfloat<32, 8, 16, __half, __half, float, float, R, R, 0>("f16 f32 m32n8k16 row row", 14);
    tfloat<8, 32, 16, __half, __half, float, float, C, C, 0>("f16 f32 m8n32k16 col col", 14);
    tfloat<16, 16, 16, __nv_bfloat16, __nv_bfloat16, float, float, R, C, 0>("bf16 f32 m16n16k16 row col", 60);
    tfloat<32, 8, 16, __nv_bfloat16, __nv_bfloat16, float, float, C, R, 0>("bf16 f32 m32n8k16 col row", 60);
    tfloat<8, 32, 16, __nv_bfloat16, __nv_bfloat16, float, float, R, R, 0>("bf16 f32 m8n32k16 row row", 60);
    tfloat<16, 16, 16, __half, __half, __half, __half, R, C, 0>("f16 f16 m16n16k16 row col", 7);
    tfloat<32, 8, 16, __half, __half, __half, __half, C, C, 0>("f16 f16 m32n8k16 col col", 7);
    tfloat<8, 32, 16, __half, __half, __half, __half, R, R, 0>("f16 f16 m8n32k16 row row", 7);
    tfloat<16, 16, 16, __half, __half, __half, float, R, C, 0>("f16 c16 d32 m16n16k16 row col", 7);
    tfloat<16, 16, 16, __half, __half, float, __half, R, C, 0>("f16 c32 d16 m16n16k16 row col", 7);
    tfloat<16, 16, 8, float, TF, float, float, R, C, 0>("tf32 raw m16n16k8 row col", 60);
    tfloat<16, 16, 8, float, TF, float, float, C, R, 0>("tf32 raw m16n16k8 col row", 60);
    tfloat<16, 16, 8, float, TF, float, float, R, R, 1>("tf32 rounded m16n16k8 row row", 60);
    tfloat<16, 16, 8, float, TF, float, float, C, C, 1>("tf32 rounded m16n16k8 col col", 60);
    tfloat<8, 8, 4, double, double, double, double, R, C, 0>("f64 m8n8k4 row col", 300);
    tfloat<8, 8, 4, double, double, double, double, C, R, 0>("f64 m8n8k4 col row", 300);
    tint<16, 16, 16, signed char, R, C>("s8 m16n16k16 row col", 8);
    tint<32, 8, 16, unsigned char, C, R>("u8 m32n8k16 col row", 8);
    tint<8, 32, 16, signed char, R, R>("s8 m8n32k16 row row", 8);
    tint<8, 8, 32, wmma::experimental::precision::s4, R, C>("s4 m8n8k32 row col", 4);
    tint<8, 8, 32, wmma::experimental::precision::u4, R, C>("u4 m8n8k32 row col", 4);
    tint<8, 8, 128, wmma::experimental::precision::b1, R, C>("b1 m8n8k128 row col", 1);
    printf("%s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
