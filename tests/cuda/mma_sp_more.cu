// mma_sp_more.cu - the sparse mma forms beyond f16/bf16 and 8-bit integers
// (tests/cuda/mma_sp.cu, mma_sp2.cu, mma_sp_int.cu) as the H100 executes them: m16n8k8 and
// m16n8k16 .f32 on tf32, m16n8k64 .s32 on s4 and m16n8k128 on u4, m16n8k64 .f32 on e4m3, with
// random valid metadata. Coded runs first: A's compressed values are codes of their
// compressed column c (c % M + 1, then c / M + 1, M a modulus that fits the type), B selects
// dense column n + 8h of A into column n of D; then random values. Prints metadata and D.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cmath>

#define SPR(S, NA) asm volatile(S " {%0,%1,%2,%3}, " NA ", {%0,%1,%2,%3}, %12, %13;" \
    : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), \
      "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]), "r"(e), "n"(SEL))
// V: 0 tf32 k8, 1 tf32 k16, 2 s4 k64, 3 u4 k128, 4 e4m3 k64
template <int V, int SEL>
__global__ void k(const uint32_t *A, const uint32_t *B, const uint32_t *C, const uint32_t *E, uint32_t *D)
{
    int l = threadIdx.x;
    uint32_t a[4], b[4], d[4], e = E[l];
    for (int i = 0; i < 4; i++) { a[i] = A[l * 4 + i]; b[i] = B[l * 4 + i]; d[i] = C[l * 4 + i]; }
    if (V == 0) SPR("mma.sp::ordered_metadata.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", "{%4,%5}, {%8,%9}");
    else if (V == 1) SPR("mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32", "{%4,%5,%6,%7}, {%8,%9,%10,%11}");
    else if (V == 2) SPR("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32", "{%4,%5}, {%8,%9}");
    else if (V == 3) SPR("mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.s32.u4.u4.s32", "{%4,%5,%6,%7}, {%8,%9,%10,%11}");
    else SPR("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.f32.e4m3.e4m3.f32", "{%4,%5,%6,%7}, {%8,%9,%10,%11}");
    for (int i = 0; i < 4; i++) D[l * 4 + i] = d[i];
}

static uint64_t s = 0x9b05688c2b3e6c1full;
static uint32_t rnd() { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return (uint32_t)(s >> 17); }
static uint32_t fbits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static uint32_t e4m3(int v) { for (uint32_t b = 0; b < 0x7f; b++) { int e = b >> 3, m = b & 7; float x = e ? ldexpf(1.0f + m / 8.0f, e - 7) : ldexpf(m / 8.0f, -6); if (x == (float)v) return b; } return 0; }

template <int V, int SEL> static void run(const uint32_t *A, const uint32_t *B, const uint32_t *C, const uint32_t *E, uint32_t *D) { k<V, SEL><<<1, 32>>>(A, B, C, E, D); }

int main()
{
    static const uint32_t nib[6] = { 0x4, 0x8, 0xc, 0x9, 0xd, 0xe }, nib_tf32[2] = { 0x4, 0xe };
    uint32_t hA[128], hB[128], hC[128], hE[32], hD[128];
    uint32_t *dA, *dB, *dC, *dE, *dD;
    cudaMalloc(&dA, sizeof hA); cudaMalloc(&dB, sizeof hB); cudaMalloc(&dC, sizeof hC); cudaMalloc(&dE, sizeof hE); cudaMalloc(&dD, sizeof hD);
    struct { int v, sel, K, ebits, mod; void (*f)(const uint32_t *, const uint32_t *, const uint32_t *, const uint32_t *, uint32_t *); } forms[] = {
        {0, 0, 8, 32, 1000, run<0, 0>}, {0, 3, 8, 32, 1000, run<0, 3>}, {1, 1, 16, 32, 1000, run<1, 1>},
        {2, 1, 64, 4, 7, run<2, 1>}, {3, 0, 128, 4, 15, run<3, 0>}, {4, 0, 64, 8, 16, run<4, 0>} };
    for (auto &fm : forms) {
        int v = fm.v, K = fm.K, eb = fm.ebits, E = 32 / eb, na = 16 * K / 2 * eb / 1024, nb = 8 * K * eb / 1024;
        int passes = K / 8, codesets = fm.mod >= 1000 ? 1 : 2;
        for (int run_ = 0; run_ < passes * codesets + 3; run_++) {
            int coded = run_ < passes * codesets, h = run_ % passes, set = run_ / passes;
            memset(hA, 0, sizeof hA); memset(hB, 0, sizeof hB);
            for (int l = 0; l < 32; l++) {
                uint32_t m = 0;
                for (int q = 0; q < 8; q++) m |= (v <= 1 ? nib_tf32[rnd() % 2] : nib[rnd() % 6]) << (4 * q);
                hE[l] = m;
            }
            for (int l = 0; l < 32; l++) {
                int g = l / 4, t = l % 4;
                for (int j = 0; j < na; j++)   // A: row g + 8(j%2), compressed columns (j/2) 4E + t E + x
                    for (int x = 0; x < E; x++) {
                        int cc = (j / 2) * 4 * E + t * E + x;
                        int code = set == 0 ? cc % fm.mod + 1 : cc / fm.mod + 1;
                        uint32_t val;
                        if (v <= 1) val = coded ? fbits((float)code) : fbits(ldexpf((float)(rnd() % 2048) / 1024.0f - 1.0f, (int)(rnd() % 16) - 8)) | (rnd() & 0x1fff);
                        else if (v == 4) val = coded ? e4m3(code) : (rnd() & 0x77) | (rnd() & 0x80);
                        else val = coded ? (uint32_t)code : rnd() & 15;
                        hA[l * 4 + j] |= eb == 32 ? val : (val & ((1u << eb) - 1)) << (x * eb);
                    }
                for (int j = 0; j < nb; j++)   // B: rows j 4E + t E + x of column g
                    for (int x = 0; x < E; x++) {
                        int row = j * 4 * E + t * E + x;
                        uint32_t val;
                        if (v <= 1) val = coded ? fbits(row == g + 8 * h ? 1.0f : 0.0f) : fbits(ldexpf((float)(rnd() % 2048) / 1024.0f - 1.0f, (int)(rnd() % 16) - 8)) | (rnd() & 0x1fff);
                        else if (v == 4) val = coded ? (row == g + 8 * h ? 0x38u : 0u) : (rnd() & 0x77) | (rnd() & 0x80);
                        else val = coded ? (uint32_t)(row == g + 8 * h) : rnd() & 15;
                        hB[l * 4 + j] |= eb == 32 ? val : (val & ((1u << eb) - 1)) << (x * eb);
                    }
                for (int j = 0; j < 4; j++)
                    hC[l * 4 + j] = coded ? 0 : (v <= 1 || v == 4) ? fbits(ldexpf((float)(rnd() % 2048) / 1024.0f - 1.0f, (int)(rnd() % 20) - 10))
                                                                   : rnd() % 2001 - 1000;
            }
            cudaMemcpy(dA, hA, sizeof hA, cudaMemcpyHostToDevice);
            cudaMemcpy(dB, hB, sizeof hB, cudaMemcpyHostToDevice);
            cudaMemcpy(dC, hC, sizeof hC, cudaMemcpyHostToDevice);
            cudaMemcpy(dE, hE, sizeof hE, cudaMemcpyHostToDevice);
            cudaMemset(dD, 0, sizeof hD);
            fm.f(dA, dB, dC, dE, dD);
            cudaError_t err = cudaMemcpy(hD, dD, sizeof hD, cudaMemcpyDeviceToHost);
            printf("== form %d sel %d %s %d: %s\n", v, fm.sel, coded ? "coded" : "random", run_, cudaGetErrorName(err));
            for (int l = 0; l < 32; l++) {
                printf("l%d: e %08x:", l, hE[l]);
                for (int i = 0; i < 4; i++) {
                    if (v == 2 || v == 3) printf(" %d", (int)hD[l * 4 + i]);
                    else if (coded) { float f; memcpy(&f, &hD[l * 4 + i], 4); printf(" %g", f); }
                    else printf(" %08x", hD[l * 4 + i]);
                }
                printf("\n");
            }
        }
    }
    return 0;
}
