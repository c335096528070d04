// mma_sp_int.cu - sparse mma on 8-bit integers as the H100 executes it: m16n8k32 and m16n8k64,
// .s32 += s8/u8 (mixed too), selectors 0 and 1, with and without .satfinite. First coded runs
// (A's compressed values are their compressed column + 1, C the row times 1000, and B selects
// eight columns of A's dense rows into D, B[k][n] = 1 where k = n + 8h), so D shows where each
// value landed; then random values and random valid 2:4 metadata. Prints D.
#include <cstdio>
#include <cstdint>
#include <cstring>

// V: 0 k32 s8.s8 sel SEL, 1 k32 u8.u8, 2 k32 s8.u8 .satfinite, 3 k64 s8.s8 (as
// .sp::ordered_metadata), 4 k64 u8.s8 .satfinite
template <int V, int SEL>
__global__ void k(const uint32_t *A, const uint32_t *B, const uint32_t *C, const uint32_t *E, uint32_t *D)
{
    int l = threadIdx.x;
    uint32_t a[4], b[4], e = E[l], d[4];
    for (int i = 0; i < 4; i++) { a[i] = A[l * 4 + i]; b[i] = B[l * 4 + i]; d[i] = C[l * 4 + i]; }
    if (V == 0)
        asm volatile("mma.sp.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5}, {%6,%7}, {%0,%1,%2,%3}, %8, %9;"
                     : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "r"(e), "n"(SEL));
    else if (V == 1)
        asm volatile("mma.sp.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0,%1,%2,%3}, {%4,%5}, {%6,%7}, {%0,%1,%2,%3}, %8, %9;"
                     : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "r"(e), "n"(SEL));
    else if (V == 2)
        asm volatile("mma.sp.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.u8.s32 {%0,%1,%2,%3}, {%4,%5}, {%6,%7}, {%0,%1,%2,%3}, %8, %9;"
                     : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "r"(e), "n"(SEL));
    else if (V == 3)
        asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9,%10,%11}, {%0,%1,%2,%3}, %12, %13;"
                     : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]), "r"(e), "n"(SEL));
    else
        asm volatile("mma.sp.sync.aligned.m16n8k64.row.col.satfinite.s32.u8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9,%10,%11}, {%0,%1,%2,%3}, %12, %13;"
                     : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]), "r"(e), "n"(SEL));
    for (int i = 0; i < 4; i++) D[l * 4 + i] = d[i];
}

static uint64_t s = 0x452821e638d01377ull;
static uint32_t rnd() { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return (uint32_t)(s >> 17); }

static void launch(int v, int sel, const uint32_t *A, const uint32_t *B, const uint32_t *C, const uint32_t *E, uint32_t *D)
{
    if (v == 0 && sel == 0) k<0, 0><<<1, 32>>>(A, B, C, E, D);
    else if (v == 0) k<0, 1><<<1, 32>>>(A, B, C, E, D);
    else if (v == 1) k<1, 0><<<1, 32>>>(A, B, C, E, D);
    else if (v == 2) k<2, 1><<<1, 32>>>(A, B, C, E, D);
    else if (v == 3) k<3, 0><<<1, 32>>>(A, B, C, E, D);
    else k<4, 0><<<1, 32>>>(A, B, C, E, D);
}

int main()
{
    static const uint32_t nib[6] = { 0x4, 0x8, 0xc, 0x9, 0xd, 0xe };
    uint32_t hA[128], hB[128], hC[128], hE[32], hD[128];
    uint32_t *dA, *dB, *dC, *dE, *dD;
    cudaMalloc(&dA, sizeof hA); cudaMalloc(&dB, sizeof hB); cudaMalloc(&dC, sizeof hC);
    cudaMalloc(&dE, sizeof hE); cudaMalloc(&dD, sizeof hD);
    const int forms[6][2] = { {0, 0}, {0, 1}, {1, 0}, {2, 1}, {3, 0}, {4, 0} };
    for (int f = 0; f < 6; f++) {
        int v = forms[f][0], sel = forms[f][1], K = v >= 3 ? 64 : 32;
        int na = K / 16;
        for (int run = 0; run < K / 8 + 3; run++) {
            int coded = run < K / 8, h = run;
            memset(hA, 0, sizeof hA); memset(hB, 0, sizeof hB);
            for (int i = 0; i < 32; i++) {
                uint32_t m = 0;
                for (int q = 0; q < 8; q++) m |= nib[rnd() % 6] << (4 * q);
                hE[i] = m;
            }
            for (int l = 0; l < 32; l++) {
                int g = l / 4, t = l % 4;
                for (int j = 0; j < na; j++)   // mma's A layout for a 16 x KC matrix of bytes
                    for (int x = 0; x < 4; x++) {
                        int cc = 16 * (j / 2) + 4 * t + x;
                        uint32_t byte = coded ? (uint32_t)(cc + 1) : rnd() & 0xff;
                        hA[l * 4 + j] |= byte << (8 * x);
                    }
                for (int j = 0; j < na; j++)   // B: register j holds rows 16j + 4t .. +3 of column g
                    for (int x = 0; x < 4; x++) {
                        int row = 16 * j + 4 * t + x;
                        uint32_t byte = coded ? (row == g + 8 * h) : rnd() & 0xff;
                        hB[l * 4 + j] |= byte << (8 * x);
                    }
                for (int j = 0; j < 4; j++) {
                    int row = g + 8 * (j / 2);
                    int32_t c = coded ? row * 1000 : (int32_t)(rnd() % 200001) - 100000;
                    if (!coded && (v == 2 || v == 4) && run % 2) c = (int32_t)(rnd() % 2 ? 0x7ffff000 + rnd() % 4096 : 0x80000000u + rnd() % 4096);
                    hC[l * 4 + j] = (uint32_t)c;
                }
            }
            cudaMemcpy(dA, hA, sizeof hA, cudaMemcpyHostToDevice);
            cudaMemcpy(dB, hB, sizeof hB, cudaMemcpyHostToDevice);
            cudaMemcpy(dC, hC, sizeof hC, cudaMemcpyHostToDevice);
            cudaMemcpy(dE, hE, sizeof hE, cudaMemcpyHostToDevice);
            cudaMemset(dD, 0, sizeof hD);
            launch(v, sel, dA, dB, dC, dE, dD);
            cudaError_t e = cudaMemcpy(hD, dD, sizeof hD, cudaMemcpyDeviceToHost);
            printf("form %d sel %d run %d: %s\n", v, sel, run, cudaGetErrorString(e));
            for (int l = 0; l < 32; l++) {
                printf(" %2d: e %08x:", l, hE[l]);
                for (int i = 0; i < 4; i++) printf(" %d", (int)hD[l * 4 + i]);
                printf("\n");
            }
        }
    }
    return 0;
}
