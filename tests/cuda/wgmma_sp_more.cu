// wgmma_sp_more.cu - sparse wgmma beyond .f32.f16.f16 (tests/cuda/wgmma_sp.cu) as the H100
// executes it (sm_90a): m64n16k32 .f32.bf16.bf16 and .f16.f16.f16 (f16 accumulators), and
// m64n16k64 .s32.s8.s8 and .f32.e4m3.e4m3 (8-bit elements), A and B from shared memory
// (K-major, no swizzle), every thread's metadata register random valid 2:4 nibbles. Coded
// runs first (A's compressed values are their compressed column + 1, B selects one dense
// column of A into each column of D), then random values. Prints metadata and D as bits.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__device__ uint64_t desc(const void *smem, int lbo, int sbo)
{
    uint32_t a = (uint32_t)__cvta_generic_to_shared(smem);
    return (uint64_t)((a >> 4) & 0x3fff) | (uint64_t)((lbo >> 4) & 0x3fff) << 16 | (uint64_t)((sbo >> 4) & 0x3fff) << 32;
}

#define SP8(T, N) asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 0, 0;\n" \
    "wgmma.mma_async.sp.sync.aligned.m64n16k32." T " {%0,%1,%2,%3,%4,%5,%6,%7}, %8, %9, %10, %11, p, 1, 1" N ";\n}\n" \
    : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]) : "l"(da), "l"(db), "r"(e), "n"(SEL))
#define SP8K64(T, N) asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 0, 0;\n" \
    "wgmma.mma_async.sp.sync.aligned.m64n16k64." T " {%0,%1,%2,%3,%4,%5,%6,%7}, %8, %9, %10, %11, p" N ";\n}\n" \
    : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]) : "l"(da), "l"(db), "r"(e), "n"(SEL))

// V: 0 bf16 (f32 accumulators), 1 f16 (f16 accumulators), 2 s8, 3 e4m3
template <int V, int SEL>
__global__ void k(const uint32_t *gA, const uint32_t *gB, const uint32_t *gE, uint32_t *gD)
{
    __shared__ __align__(128) uint32_t sA[512], sB[256];
    int tid = threadIdx.x;
    for (int i = tid; i < 512; i += 128) sA[i] = gA[i];
    for (int i = tid; i < 256; i += 128) sB[i] = gB[i];
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    uint64_t da = desc(sA, 128, 256), db = desc(sB, 128, 512);
    uint32_t e = gE[tid], d[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    if (V == 0) SP8("f32.bf16.bf16", ", 0, 0");
    else if (V == 1)
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 0, 0;\n"
                     "wgmma.mma_async.sp.sync.aligned.m64n16k32.f16.f16.f16 {%0,%1,%2,%3}, %4, %5, %6, %7, p, 1, 1, 0, 0;\n}\n"
                     : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]) : "l"(da), "l"(db), "r"(e), "n"(SEL));
    else if (V == 2) SP8K64("s32.s8.s8", "");
    else SP8K64("f32.e4m3.e4m3", ", 1, 1");
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    for (int i = 0; i < 8; i++) gD[tid * 8 + i] = d[i];
}

static uint64_t s = 0x510e527fade682d1ull;
static uint32_t rnd() { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return (uint32_t)(s >> 17); }
static uint16_t h16(float f, int bf)
{
    uint16_t u;
    if (bf) { __nv_bfloat16 x = __float2bfloat16(f); memcpy(&u, &x, 2); }
    else { __half x = __float2half(f); memcpy(&u, &x, 2); }
    return u;
}

template <int V, int SEL> static void run(const uint32_t *A, const uint32_t *B, const uint32_t *E, uint32_t *D) { k<V, SEL><<<1, 128>>>(A, B, E, D); }

int main()
{
    static const uint32_t nib[6] = { 0x4, 0x8, 0xc, 0x9, 0xd, 0xe };
    static uint32_t A[512], B[256], E[128], D[128 * 8];
    uint32_t *dA, *dB, *dE, *dD;
    cudaMalloc(&dA, sizeof A); cudaMalloc(&dB, sizeof B); cudaMalloc(&dE, sizeof E); cudaMalloc(&dD, sizeof D);
    struct { int v, sel; void (*f)(const uint32_t *, const uint32_t *, const uint32_t *, uint32_t *); } forms[] = {
        {0, 0, run<0, 0>}, {0, 1, run<0, 1>}, {1, 0, run<1, 0>}, {1, 1, run<1, 1>}, {2, 0, run<2, 0>}, {3, 0, run<3, 0>} };
    for (auto &fm : forms) {
        int v = fm.v, bytes = v >= 2, K = bytes ? 64 : 32, KC = K / 2, passes = K / 16;
        for (int hh = 0; hh < passes + 2; hh++) {
            int random = hh >= passes || (v == 3);   // e4m3: random only (its layout is s8's)
            if (v == 3 && hh < passes) continue;
            unsigned char *a8 = (unsigned char *)A, *b8 = (unsigned char *)B;
            uint16_t *a16 = (uint16_t *)A, *b16 = (uint16_t *)B;
            memset(A, 0, sizeof A); memset(B, 0, sizeof B);
            for (int m = 0; m < 64; m++)
                for (int c = 0; c < KC; c++) {
                    if (bytes) {
                        uint32_t x = random ? (v == 3 ? (rnd() & 0x77) | (rnd() & 0x80) : rnd() & 0xff) : (uint32_t)(c + 1);
                        a8[(m / 8) * 256 + (c / 16) * 128 + (m % 8) * 16 + c % 16] = (unsigned char)x;
                    } else {
                        float x = random ? (float)((int)(rnd() % 2001) - 1000) / 64.0f : (float)(c + 1);
                        a16[((m / 8) * 256 + (c / 8) * 128) / 2 + (m % 8) * 8 + c % 8] = h16(x, v == 0);
                    }
                }
            for (int n = 0; n < 16; n++)
                for (int kk = 0; kk < K; kk++) {
                    if (bytes) {
                        uint32_t x = random ? (v == 3 ? (rnd() & 0x77) | (rnd() & 0x80) : rnd() & 0xff) : (uint32_t)(kk == n + 16 * hh);
                        b8[(n / 8) * 512 + (kk / 16) * 128 + (n % 8) * 16 + kk % 16] = (unsigned char)x;
                    } else {
                        float x = random ? (float)((int)(rnd() % 2001) - 1000) / 64.0f : (kk == n + 16 * hh ? 1.0f : 0.0f);
                        b16[((n / 8) * 512 + (kk / 8) * 128) / 2 + (n % 8) * 8 + kk % 8] = h16(x, v == 0);
                    }
                }
            for (int t = 0; t < 128; t++) {
                uint32_t e = 0;
                for (int q = 0; q < 8; q++) e |= nib[rnd() % 6] << (4 * q);
                E[t] = e;
            }
            cudaMemcpy(dA, A, sizeof A, cudaMemcpyHostToDevice);
            cudaMemcpy(dB, B, sizeof B, cudaMemcpyHostToDevice);
            cudaMemcpy(dE, E, sizeof E, cudaMemcpyHostToDevice);
            cudaMemset(dD, 0, sizeof D);
            fm.f(dA, dB, dE, dD);
            cudaError_t err = cudaDeviceSynchronize();
            cudaMemcpy(D, dD, sizeof D, cudaMemcpyDeviceToHost);
            printf("== form %d selector %d %s%d: %s\n", v, fm.sel, random ? "random" : "h", hh, cudaGetErrorName(err));
            for (int t = 0; t < 128; t++) {
                printf("t%d: e %08x d", t, E[t]);
                for (int i = 0; i < (v == 1 ? 4 : 8); i++) printf(" %08x", D[t * 8 + i]);
                printf("\n");
            }
        }
    }
    return 0;
}
