// wmma_mixed.cu - wmma.mma on f16 with mixed accumulators (m16n16k16: D f32 from C f16, and
// D f16 from C f32), random and wide-range values: every element of D as bits, so that the
// rounding of the mixed forms can be compared with the f32 and f16 accumulator forms.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cmath>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

template <typename TD, typename TC>
__global__ void run(const __half *a, const __half *b, const TC *c, TD *d)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, TC> fc;
    wmma::fragment<wmma::accumulator, 16, 16, 16, TD> fd;
    wmma::load_matrix_sync(fa, a + blockIdx.x * 256, 16);
    wmma::load_matrix_sync(fb, b + blockIdx.x * 256, 16);
    wmma::load_matrix_sync(fc, c + blockIdx.x * 256, 16, wmma::mem_row_major);
    wmma::mma_sync(fd, fa, fb, fc);
    wmma::store_matrix_sync(d + blockIdx.x * 256, fd, 16, wmma::mem_row_major);
}

static uint64_t s = 0xbe5466cf34e90c6cull;
static double unit() { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return (double)(s >> 11) / 9007199254740992.0 * 2 - 1; }
static uint32_t r32() { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return (uint32_t)(s >> 20); }

int main()
{
    const int NB = 16, n = NB * 256;
    static __half ha[n], hb[n], hc16[n], hd16[n];
    static float hc32[n], hd32[n];
    for (int i = 0; i < n; i++) {
        int blk = i / 256, span = blk % 4 == 0 ? 0 : blk % 4 == 1 ? 6 : 14;
        ha[i] = __float2half((float)ldexp(unit(), span ? (int)(r32() % (2 * span + 1)) - span : 0));
        hb[i] = __float2half((float)ldexp(unit(), span ? (int)(r32() % (2 * span + 1)) - span : 0));
        double cv = blk % 3 == 0 ? 0.0 : ldexp(unit(), (int)(r32() % 20) - 10);
        hc16[i] = __float2half((float)cv);
        hc32[i] = (float)cv;
    }
    __half *a, *b, *c16, *d16;
    float *c32, *d32;
    cudaMalloc(&a, sizeof ha); cudaMalloc(&b, sizeof hb); cudaMalloc(&c16, sizeof hc16); cudaMalloc(&d16, sizeof hd16);
    cudaMalloc(&c32, sizeof hc32); cudaMalloc(&d32, sizeof hd32);
    cudaMemcpy(a, ha, sizeof ha, cudaMemcpyHostToDevice);
    cudaMemcpy(b, hb, sizeof hb, cudaMemcpyHostToDevice);
    cudaMemcpy(c16, hc16, sizeof hc16, cudaMemcpyHostToDevice);
    cudaMemcpy(c32, hc32, sizeof hc32, cudaMemcpyHostToDevice);
    run<float, __half><<<NB, 32>>>(a, b, c16, d32);
    cudaError_t e1 = cudaDeviceSynchronize();
    run<__half, float><<<NB, 32>>>(a, b, c32, d16);
    cudaError_t e2 = cudaDeviceSynchronize();
    cudaMemcpy(hd32, d32, sizeof hd32, cudaMemcpyDeviceToHost);
    cudaMemcpy(hd16, d16, sizeof hd16, cudaMemcpyDeviceToHost);
    printf("== f32 from f16 accumulators: %s\n", cudaGetErrorName(e1));
    for (int i = 0; i < n; i++) { uint32_t u; memcpy(&u, &hd32[i], 4); printf("%08x%c", u, i % 8 == 7 ? '\n' : ' '); }
    printf("== f16 from f32 accumulators: %s\n", cudaGetErrorName(e2));
    for (int i = 0; i < n; i++) { uint16_t u; memcpy(&u, &hd16[i], 2); printf("%04x%c", u, i % 16 == 15 ? '\n' : ' '); }
    return 0;
}
