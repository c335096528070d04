// mma_sp2.cu - more sparse mma forms as the H100 executes them (tests/cuda/mma_sp.cu has
// m16n8k16 f32 += f16): m16n8k16 f32 += bf16, m16n8k16 f16 += f16 (f16 accumulators), and
// m16n8k32 f32 += f16, with sparsity selectors 0 and 1. As in mma_sp.cu, A's compressed values
// are codes (row * KC + compressed column + 1, KC = K/2) in mma's A layout for a 16 x KC
// matrix, the metadata random valid 2:4 nibbles, and B selects 8 columns of A into D
// (B[k][n] = 1 where k = n + 8h), so D shows where each value landed; then random values.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

// V: 0 bf16 k16, 1 f16 k16 f16-acc, 2 f16 k32
template <int V, int SEL>
__global__ void k(const uint32_t *A, const uint32_t *B, const uint32_t *E, uint32_t *D)
{
    int l = threadIdx.x;
    uint32_t a[4], b[4], e = E[l], d[4] = {0, 0, 0, 0};
    for (int i = 0; i < 4; i++) { a[i] = A[l * 4 + i]; b[i] = B[l * 4 + i]; }
    if (V == 0)
        asm volatile("mma.sp.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6,%7}, {%0,%1,%2,%3}, %8, %9;"
                     : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "r"(e), "n"(SEL));
    else if (V == 1)
        asm volatile("mma.sp.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3}, {%4,%5}, {%0,%1}, %6, %7;"
                     : "+r"(d[0]), "+r"(d[1]) : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "r"(e), "n"(SEL));
    else
        asm volatile("mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9,%10,%11}, {%0,%1,%2,%3}, %12, %13;"
                     : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]), "r"(e), "n"(SEL));
    for (int i = 0; i < 4; i++) D[l * 4 + i] = d[i];
}

static uint64_t s = 0x13198a2e03707344ull;
static uint32_t rnd() { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return (uint32_t)(s >> 17); }
static uint16_t h16(float f, int bf)
{
    uint16_t u;
    if (bf) { __nv_bfloat16 x = __float2bfloat16(f); memcpy(&u, &x, 2); }
    else { __half x = __float2half(f); memcpy(&u, &x, 2); }
    return u;
}

int main()
{
    static const uint32_t nib[6] = { 0x4, 0x8, 0xc, 0x9, 0xd, 0xe };
    uint32_t hA[128], hB[128], hE[32], hD[128];
    uint32_t *dA, *dB, *dE, *dD;
    cudaMalloc(&dA, sizeof hA); cudaMalloc(&dB, sizeof hB); cudaMalloc(&dE, sizeof hE); cudaMalloc(&dD, sizeof hD);
    for (int v = 0; v < 3; v++) {
        int K = v == 2 ? 32 : 16, KC = K / 2, bf = v == 0, nh = K / 8;
        for (int sel = 0; sel < 2; sel++)
            for (int hh = 0; hh <= nh; hh++) {   // hh == nh: random values
                int random = hh == nh;
                for (int l = 0; l < 32; l++) {
                    uint32_t e = 0;
                    for (int q = 0; q < 8; q++) e |= nib[rnd() % 6] << (4 * q);
                    hE[l] = e;
                    int g = l / 4, t = l % 4;
                    for (int j = 0; j < 4; j++) {   // A: register j row g + 8(j%2), columns 8(j/2) + 2t, +1
                        uint32_t w = 0;
                        for (int e2 = 0; e2 < 2; e2++) {
                            int row = g + 8 * (j % 2), col = 8 * (j / 2) + 2 * t + e2;
                            float x = random ? (float)((int)(rnd() % 2001) - 1000) / 64.0f : (float)(row * KC + col + 1);
                            w |= (uint32_t)h16(x, bf) << (16 * e2);
                        }
                        hA[l * 4 + j] = w;
                    }
                    for (int j = 0; j < 4; j++) {   // B: register j rows 8j + 2t, +1 of column g
                        uint32_t w = 0;
                        for (int e2 = 0; e2 < 2; e2++) {
                            int kk = 8 * j + 2 * t + e2;
                            float x = random ? (float)((int)(rnd() % 2001) - 1000) / 64.0f : (kk == g + 8 * hh ? 1.0f : 0.0f);
                            w |= (uint32_t)h16(x, bf) << (16 * e2);
                        }
                        hB[l * 4 + j] = w;
                    }
                }
                cudaMemcpy(dA, hA, sizeof hA, cudaMemcpyHostToDevice);
                cudaMemcpy(dB, hB, sizeof hB, cudaMemcpyHostToDevice);
                cudaMemcpy(dE, hE, sizeof hE, cudaMemcpyHostToDevice);
                cudaMemset(dD, 0, sizeof hD);
                if (v == 0) { if (sel) k<0, 1><<<1, 32>>>(dA, dB, dE, dD); else k<0, 0><<<1, 32>>>(dA, dB, dE, dD); }
                else if (v == 1) { if (sel) k<1, 1><<<1, 32>>>(dA, dB, dE, dD); else k<1, 0><<<1, 32>>>(dA, dB, dE, dD); }
                else { if (sel) k<2, 1><<<1, 32>>>(dA, dB, dE, dD); else k<2, 0><<<1, 32>>>(dA, dB, dE, dD); }
                cudaError_t err = cudaDeviceSynchronize();
                cudaMemcpy(hD, dD, sizeof hD, cudaMemcpyDeviceToHost);
                printf("== variant %d selector %d %s: %s\n", v, sel, random ? "random" : hh == 0 ? "h0" : hh == 1 ? "h1" : hh == 2 ? "h2" : "h3",
                       cudaGetErrorName(err));
                for (int l = 0; l < 32; l++)
                    printf("l%d: e %08x a %08x %08x %08x %08x b %08x %08x %08x %08x d %08x %08x %08x %08x\n", l, hE[l],
                           hA[l * 4], hA[l * 4 + 1], hA[l * 4 + 2], hA[l * 4 + 3], hB[l * 4], hB[l * 4 + 1], hB[l * 4 + 2],
                           hB[l * 4 + 3], hD[l * 4], hD[l * 4 + 1], hD[l * 4 + 2], hD[l * 4 + 3]);
            }
    }
    return 0;
}
