// mma_sp.cu - sparse mma (mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32, 2:4 structured
// sparsity in A) as the H100 executes it, with sparsity selectors 0 to 3. A's compressed
// values are codes (row * 8 + compressed column + 1, as f16 integers) placed in registers the way
// mma.m16n8k8 holds a 16x8 A (register j: row g + 8j, columns 2t and 2t+1); every lane's metadata
// register holds random valid 2:4 nibbles (two distinct 2-bit positions per group of four,
// the lower first); B selects one column of A into each column of D (B[k][n] = 1 where
// k = n + 8h, h = 0 or 1), so D shows where each compressed value landed. Then random
// values, for the arithmetic. Prints every lane's metadata and D registers as bits.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cuda_fp16.h>

template <int SEL>
__global__ void k(const uint32_t *A, const uint32_t *B, const uint32_t *E, uint32_t *D)
{
    int l = threadIdx.x;
    uint32_t a0 = A[l * 2], a1 = A[l * 2 + 1], b0 = B[l * 2], b1 = B[l * 2 + 1], e = E[l];
    float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
    asm volatile("mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6,%7}, {%0,%1,%2,%3}, %8, %9;"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
                 : "r"(a0), "r"(a1), "r"(b0), "r"(b1), "r"(e), "n"(SEL));
    uint32_t u[4];
    memcpy(&u[0], &d0, 4); memcpy(&u[1], &d1, 4); memcpy(&u[2], &d2, 4); memcpy(&u[3], &d3, 4);
    for (int i = 0; i < 4; i++) D[l * 4 + i] = u[i];
}

static uint64_t s = 0x3243f6a8885a308dull;
static uint32_t rnd() { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return (uint32_t)(s >> 17); }
static uint16_t h(float f) { __half x = __float2half(f); uint16_t u; memcpy(&u, &x, 2); return u; }

int main()
{
    static const uint32_t nib[6] = { 0x4, 0x8, 0xc, 0x9, 0xd, 0xe };   // (0,1) (0,2) (0,3) (1,2) (1,3) (2,3)
    uint32_t hA[64], hB[64], hE[32], hD[128];
    uint32_t *dA, *dB, *dE, *dD;
    cudaMalloc(&dA, sizeof hA); cudaMalloc(&dB, sizeof hB); cudaMalloc(&dE, sizeof hE); cudaMalloc(&dD, sizeof hD);
    for (int round = 0; round < 10; round++) {   // rounds 0-3: codes (selector 0/1, h 0/1); 4-5: random;
        // 6-9: codes with selectors 2 and 3
        int sel = round < 6 ? round % 2 : 2 + round % 2, hh = round < 6 ? round / 2 % 2 : (round - 6) / 2, random = round == 4 || round == 5;
        for (int l = 0; l < 32; l++) {
            uint32_t e = 0;
            for (int q = 0; q < 8; q++) e |= nib[rnd() % 6] << (4 * q);
            hE[l] = e;
            int g = l / 4, t = l % 4;
            for (int j = 0; j < 2; j++) {
                int row = g + 8 * j;
                uint16_t lo = random ? h((float)((int)(rnd() % 2001) - 1000) / 64.0f) : h((float)(row * 8 + 2 * t + 1));
                uint16_t hi = random ? h((float)((int)(rnd() % 2001) - 1000) / 64.0f) : h((float)(row * 8 + 2 * t + 2));
                hA[l * 2 + j] = lo | (uint32_t)hi << 16;
            }
            for (int j = 0; j < 2; j++) {   // B fragment: register j rows 2t, 2t+1 (+8j), column g
                uint16_t v[2];
                for (int e2 = 0; e2 < 2; e2++) {
                    int kk = 2 * t + e2 + 8 * j;
                    v[e2] = random ? h((float)((int)(rnd() % 2001) - 1000) / 64.0f) : h(kk == g + 8 * hh ? 1.0f : 0.0f);
                }
                hB[l * 2 + j] = v[0] | (uint32_t)v[1] << 16;
            }
        }
        cudaMemcpy(dA, hA, sizeof hA, cudaMemcpyHostToDevice);
        cudaMemcpy(dB, hB, sizeof hB, cudaMemcpyHostToDevice);
        cudaMemcpy(dE, hE, sizeof hE, cudaMemcpyHostToDevice);
        if (sel == 3) k<3><<<1, 32>>>(dA, dB, dE, dD);
        else if (sel == 2) k<2><<<1, 32>>>(dA, dB, dE, dD);
        else if (sel) k<1><<<1, 32>>>(dA, dB, dE, dD); else k<0><<<1, 32>>>(dA, dB, dE, dD);
        cudaError_t err = cudaDeviceSynchronize();
        cudaMemcpy(hD, dD, sizeof hD, cudaMemcpyDeviceToHost);
        printf("== round %d (selector %d, %s): %s\n", round, sel, random ? "random" : hh ? "columns 8-15" : "columns 0-7",
               cudaGetErrorName(err));
        for (int l = 0; l < 32; l++)
            printf("l%d: e %08x a %08x %08x b %08x %08x d %08x %08x %08x %08x\n", l, hE[l], hA[l * 2], hA[l * 2 + 1],
                   hB[l * 2], hB[l * 2 + 1], hD[l * 4], hD[l * 4 + 1], hD[l * 4 + 2], hD[l * 4 + 3]);
    }
    return 0;
}
