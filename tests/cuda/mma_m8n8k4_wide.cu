// mma_m8n8k4_wide.cu - mma.sync.aligned.m8n8k4 on f16 with wide-range values (exponents 2^-8
// to 2^7, random mantissas), for every accumulator form and layout, as the H100 executes it:
// the random values of tests/cuda/mma_m8n8k4.cu are multiples of 1/32 and never round, so
// they fix the layouts but not the arithmetic. Prints, per form and run, D's registers as bits.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cmath>
#include <cuda_fp16.h>

#define M32(L) asm volatile("mma.sync.aligned.m8n8k4." L ".f32.f16.f16.f32 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9}, {%10,%11}, {%12,%13,%14,%15,%16,%17,%18,%19};" \
    : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3]), "=r"(d[4]), "=r"(d[5]), "=r"(d[6]), "=r"(d[7]) \
    : "r"(a0), "r"(a1), "r"(b0), "r"(b1), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(c[4]), "r"(c[5]), "r"(c[6]), "r"(c[7]))
#define M16(L) asm volatile("mma.sync.aligned.m8n8k4." L ".f16.f16.f16.f16 {%0,%1,%2,%3}, {%4,%5}, {%6,%7}, {%8,%9,%10,%11};" \
    : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3]) : "r"(a0), "r"(a1), "r"(b0), "r"(b1), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]))
#define M3216(L) asm volatile("mma.sync.aligned.m8n8k4." L ".f32.f16.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9}, {%10,%11}, {%12,%13,%14,%15};" \
    : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3]), "=r"(d[4]), "=r"(d[5]), "=r"(d[6]), "=r"(d[7]) \
    : "r"(a0), "r"(a1), "r"(b0), "r"(b1), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]))

// V: 0-3 f32 row.col col.row row.row col.col; 4-7 f16 the same; 8-11 f32 from f16 the same
template <int V>
__global__ void k(const uint32_t *A, const uint32_t *B, const uint32_t *C, uint32_t *D)
{
    int l = threadIdx.x;
    uint32_t a0 = A[l * 2], a1 = A[l * 2 + 1], b0 = B[l * 2], b1 = B[l * 2 + 1], d[8] = {0, 0, 0, 0, 0, 0, 0, 0}, c[8];
    for (int i = 0; i < 8; i++) c[i] = C[l * 8 + i];
    switch (V) {
    case 0: M32("row.col"); break;
    case 1: M32("col.row"); break;
    case 2: M32("row.row"); break;
    case 3: M32("col.col"); break;
    case 4: M16("row.col"); break;
    case 5: M16("col.row"); break;
    case 6: M16("row.row"); break;
    case 7: M16("col.col"); break;
    case 8: M3216("row.col"); break;
    case 9: M3216("col.row"); break;
    case 10: M3216("row.row"); break;
    default: M3216("col.col"); break;
    }
    for (int i = 0; i < 8; i++) D[l * 8 + i] = d[i];
}

template <int V> static void run(const uint32_t *A, const uint32_t *B, const uint32_t *C, uint32_t *D) { k<V><<<1, 32>>>(A, B, C, D); }
static void (*const runs[12])(const uint32_t *, const uint32_t *, const uint32_t *, uint32_t *) = {
    run<0>, run<1>, run<2>, run<3>, run<4>, run<5>, run<6>, run<7>, run<8>, run<9>, run<10>, run<11> };

static uint64_t s = 0x3f84d5b5b5470917ull;
static uint32_t rnd() { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return (uint32_t)(s >> 17); }
static float wide() { return ldexpf((rnd() % 2 ? -1.0f : 1.0f) * (1.0f + (float)(rnd() % 1024) / 1024.0f), (int)(rnd() % 16) - 8); }
static uint16_t h16(float f) { __half x = __float2half(f); uint16_t u; memcpy(&u, &x, 2); return u; }

int main()
{
    uint32_t hA[64], hB[64], hC[256], hD[256];
    uint32_t *dA, *dB, *dC, *dD;
    cudaMalloc(&dA, sizeof hA); cudaMalloc(&dB, sizeof hB); cudaMalloc(&dC, sizeof hC); cudaMalloc(&dD, sizeof hD);
    for (int v = 0; v < 12; v++)
        for (int r = 0; r < 8; r++) {
            for (int i = 0; i < 64; i++) {
                hA[i] = h16(wide()) | (uint32_t)h16(wide()) << 16;
                hB[i] = h16(wide()) | (uint32_t)h16(wide()) << 16;
            }
            for (int i = 0; i < 256; i++) {
                float f = wide() * 8.0f;
                if (v < 4) memcpy(&hC[i], &f, 4);
                else hC[i] = h16(f) | (uint32_t)h16(wide() * 8.0f) << 16;
            }
            cudaMemcpy(dA, hA, sizeof hA, cudaMemcpyHostToDevice);
            cudaMemcpy(dB, hB, sizeof hB, cudaMemcpyHostToDevice);
            cudaMemcpy(dC, hC, sizeof hC, cudaMemcpyHostToDevice);
            cudaMemset(dD, 0, sizeof hD);
            runs[v](dA, dB, dC, dD);
            cudaError_t e = cudaMemcpy(hD, dD, sizeof hD, cudaMemcpyDeviceToHost);
            printf("form %d run %d: %s\n", v, r, cudaGetErrorString(e));
            int n = v >= 4 && v < 8 ? 4 : 8;
            for (int l = 0; l < 32; l++) {
                printf(" %2d:", l);
                for (int i = 0; i < n; i++) printf(" %08x", hD[l * 8 + i]);
                printf("\n");
            }
        }
    return 0;
}
