// mma_m8n8k4_more.cu - m8n8k4 f16 forms tests/cuda/mma_m8n8k4.cu leaves out, as the H100
// executes them: f16 accumulators with .row.row and .col.col. (.f16.f16.f16.f32 does not exist:
// ptxas wants f32 results from f32 accumulators.) Random values in three ranges (uniform,
// wide, and sums that round in f16); prints D's registers as bits. tests/gpu/m8n8k4_probe.cu
// has the forms whose wide-range rounding is not modelled yet.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cmath>
#include <cuda_fp16.h>

#define M884_3216(L) asm volatile("mma.sync.aligned.m8n8k4." L ".f32.f16.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9}, {%10,%11}, {%12,%13,%14,%15};" \
    : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3]), "=r"(d[4]), "=r"(d[5]), "=r"(d[6]), "=r"(d[7]) \
    : "r"(a0), "r"(a1), "r"(b0), "r"(b1), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]))
#define M884_16(L) asm volatile("mma.sync.aligned.m8n8k4." L ".f16.f16.f16.f16 {%0,%1,%2,%3}, {%4,%5}, {%6,%7}, {%8,%9,%10,%11};" \
    : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3]) : "r"(a0), "r"(a1), "r"(b0), "r"(b1), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]))

// V: 0 row.row, 1 col.col (f16 accumulators); 2 col.row, 3 row.row, 4 col.col (f32 from f16)
template <int V>
__global__ void k(const uint32_t *A, const uint32_t *B, const uint32_t *C, uint32_t *D)
{
    int l = threadIdx.x;
    uint32_t a0 = A[l * 2], a1 = A[l * 2 + 1], b0 = B[l * 2], b1 = B[l * 2 + 1], d[8] = {0, 0, 0, 0, 0, 0, 0, 0}, c[4];
    for (int i = 0; i < 4; i++) c[i] = C[l * 4 + i];
    if (V == 0) M884_16("row.row");
    else if (V == 1) M884_16("col.col");
    else if (V == 2) M884_3216("col.row");
    else if (V == 3) M884_3216("row.row");
    else M884_3216("col.col");
    for (int i = 0; i < 8; i++) D[l * 8 + i] = d[i];
}

static uint64_t s = 0x9216d5d98979fb1bull;
static uint32_t rnd() { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return (uint32_t)(s >> 17); }
static float val(int range)
{
    float m = (float)(rnd() % 2048) / 1024.0f - 1.0f;
    if (range == 0) return m;
    if (range == 1) return ldexpf(m, (int)(rnd() % 16) - 8);
    return (float)((int)(rnd() % 64) - 32) + (float)(rnd() % 8) / 8.0f;   /* sums that round in f16 */
}
static uint16_t h16(float f) { __half x = __float2half(f); uint16_t u; memcpy(&u, &x, 2); return u; }

int main()
{
    uint32_t hA[64], hB[64], hC[128], hD[256];
    uint32_t *dA, *dB, *dC, *dD;
    cudaMalloc(&dA, sizeof hA); cudaMalloc(&dB, sizeof hB); cudaMalloc(&dC, sizeof hC); cudaMalloc(&dD, sizeof hD);
    for (int v = 0; v < 2; v++)
        for (int range = 0; range < 3; range++) {
            for (int i = 0; i < 64; i++) {
                hA[i] = h16(val(range)) | (uint32_t)h16(val(range)) << 16;
                hB[i] = h16(val(range)) | (uint32_t)h16(val(range)) << 16;
            }
            for (int i = 0; i < 128; i++) hC[i] = h16(val(range) * 4.0f) | (uint32_t)h16(val(range) * 4.0f) << 16;
            cudaMemcpy(dA, hA, sizeof hA, cudaMemcpyHostToDevice);
            cudaMemcpy(dB, hB, sizeof hB, cudaMemcpyHostToDevice);
            cudaMemcpy(dC, hC, sizeof hC, cudaMemcpyHostToDevice);
            cudaMemset(dD, 0, sizeof hD);
            switch (v) {
            case 0: k<0><<<1, 32>>>(dA, dB, dC, dD); break;
            case 1: k<1><<<1, 32>>>(dA, dB, dC, dD); break;
            case 2: k<2><<<1, 32>>>(dA, dB, dC, dD); break;
            case 3: k<3><<<1, 32>>>(dA, dB, dC, dD); break;
            default: k<4><<<1, 32>>>(dA, dB, dC, dD); break;
            }
            cudaError_t e = cudaMemcpy(hD, dD, sizeof hD, cudaMemcpyDeviceToHost);
            printf("form %d range %d: %s\n", v, range, cudaGetErrorString(e));
            for (int l = 0; l < 32; l++) {
                printf(" %2d:", l);
                for (int i = 0; i < (v < 2 ? 4 : 8); i++) printf(" %08x", hD[l * 8 + i]);
                printf("\n");
            }
        }
    return 0;
}
