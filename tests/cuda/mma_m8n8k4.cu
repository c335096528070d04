// mma_m8n8k4.cu - mma.sync.aligned.m8n8k4 on f16 (the shape sm_70 introduced; each quad pair
// of a warp computes its own 8x8x4 product) with f32, f16 and mixed accumulators and every
// A/B layout (row/col), as the H100 executes it. Layouts: every A element holds a code (lane * 4
// + element + 1), B is one-hot - one (lane, element) of B is 1, the rest 0 - for each of the
// 128 B elements in turn, so D shows which A element each B element multiplies and where
// the product lands. Then random values. Prints D's registers as bits.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cuda_fp16.h>

#define M884_32(L) asm volatile("mma.sync.aligned.m8n8k4." L ".f32.f16.f16.f32 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9}, {%10,%11}, {%12,%13,%14,%15,%16,%17,%18,%19};" \
    : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3]), "=r"(d[4]), "=r"(d[5]), "=r"(d[6]), "=r"(d[7]) \
    : "r"(a0), "r"(a1), "r"(b0), "r"(b1), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(c[4]), "r"(c[5]), "r"(c[6]), "r"(c[7]))
#define M884_16(L) asm volatile("mma.sync.aligned.m8n8k4." L ".f16.f16.f16.f16 {%0,%1,%2,%3}, {%4,%5}, {%6,%7}, {%8,%9,%10,%11};" \
    : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3]) : "r"(a0), "r"(a1), "r"(b0), "r"(b1), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]))
#define M884_3216(L) asm volatile("mma.sync.aligned.m8n8k4." L ".f32.f16.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9}, {%10,%11}, {%12,%13,%14,%15};" \
    : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3]), "=r"(d[4]), "=r"(d[5]), "=r"(d[6]), "=r"(d[7]) \
    : "r"(a0), "r"(a1), "r"(b0), "r"(b1), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]))

// V: 0 row.col f32, 1 col.row f32, 2 row.col f16, 3 row.row f32, 4 col.col f32, 5 col.row f16,
//    6 row.col f32 from f16 accumulators
template <int V>
__global__ void k(const uint32_t *A, const uint32_t *B, const uint32_t *C, uint32_t *D)
{
    int l = threadIdx.x;
    uint32_t a0 = A[l * 2], a1 = A[l * 2 + 1], b0 = B[l * 2], b1 = B[l * 2 + 1], d[8] = {0, 0, 0, 0, 0, 0, 0, 0}, c[8];
    for (int i = 0; i < 8; i++) c[i] = C[l * 8 + i];
    if (V == 0) M884_32("row.col");
    else if (V == 1) M884_32("col.row");
    else if (V == 2) M884_16("row.col");
    else if (V == 3) M884_32("row.row");
    else if (V == 4) M884_32("col.col");
    else if (V == 5) M884_16("col.row");
    else M884_3216("row.col");
    for (int i = 0; i < 8; i++) D[l * 8 + i] = d[i];
}

static uint64_t s = 0xc0ac29b7c97c50ddull;
static uint32_t rnd() { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return (uint32_t)(s >> 17); }
static uint16_t h(float f) { __half x = __float2half(f); uint16_t u; memcpy(&u, &x, 2); return u; }

template <int V>
static void test(const char *what)
{
    const int D16 = V == 2 || V == 5, C16 = D16 || V == 6;
    static uint32_t hA[64], hB[64], hC[256], hD[256];
    uint32_t *dA, *dB, *dC, *dD;
    cudaMalloc(&dA, sizeof hA); cudaMalloc(&dB, sizeof hB); cudaMalloc(&dC, sizeof hC); cudaMalloc(&dD, sizeof hD);
    for (int run = 0; run <= 128; run++) {   // runs 0..127: B one-hot at element `run`; 128: random
        int random = run == 128;
        for (int l = 0; l < 32; l++)
            for (int j = 0; j < 2; j++) {
                uint16_t a0 = random ? h((float)((int)(rnd() % 2001) - 1000) / 32.0f) : h((float)(l * 4 + 2 * j + 1));
                uint16_t a1 = random ? h((float)((int)(rnd() % 2001) - 1000) / 32.0f) : h((float)(l * 4 + 2 * j + 2));
                hA[l * 2 + j] = a0 | (uint32_t)a1 << 16;
                uint16_t b0 = random ? h((float)((int)(rnd() % 2001) - 1000) / 32.0f) : h(run == l * 4 + 2 * j ? 1.0f : 0.0f);
                uint16_t b1 = random ? h((float)((int)(rnd() % 2001) - 1000) / 32.0f) : h(run == l * 4 + 2 * j + 1 ? 1.0f : 0.0f);
                hB[l * 2 + j] = b0 | (uint32_t)b1 << 16;
            }
        for (int i = 0; i < 256; i++) {
            float cv = random ? (float)((int)(rnd() % 2001) - 1000) / 16.0f : 0.0f;
            uint32_t u;
            if (C16) u = (uint32_t)h(cv) | (uint32_t)h(random ? (float)((int)(rnd() % 2001) - 1000) / 16.0f : 0.0f) << 16;
            else memcpy(&u, &cv, 4);
            hC[i] = u;
        }
        cudaMemcpy(dA, hA, sizeof hA, cudaMemcpyHostToDevice);
        cudaMemcpy(dB, hB, sizeof hB, cudaMemcpyHostToDevice);
        cudaMemcpy(dC, hC, sizeof hC, cudaMemcpyHostToDevice);
        k<V><<<1, 32>>>(dA, dB, dC, dD);
        cudaError_t e = cudaDeviceSynchronize();
        cudaMemcpy(hD, dD, sizeof hD, cudaMemcpyDeviceToHost);
        printf("== %s run %d: %s\n", what, run, cudaGetErrorName(e));
        // one-hot runs: only the nonzero registers (lane.reg=bits); the random run: all
        for (int l = 0; l < 32; l++)
            for (int i = 0; i < (D16 ? 4 : 8); i++)
                if (random || hD[l * 8 + i]) printf("%d.%d=%08x%c", l, i, hD[l * 8 + i], random && (l * 8 + i) % 8 == 7 ? '\n' : ' ');
        if (!random) printf("\n");
        if (random) {
            printf("A:"); for (int i = 0; i < 64; i++) printf(" %08x", hA[i]);
            printf("\nB:"); for (int i = 0; i < 64; i++) printf(" %08x", hB[i]);
            printf("\nC:"); for (int i = 0; i < 256; i++) printf(" %08x", hC[i]);
            printf("\n");
        }
    }
    cudaFree(dA); cudaFree(dB); cudaFree(dC); cudaFree(dD);
}

int main()
{
    test<0>("row.col f32");
    test<1>("col.row f32");
    test<2>("row.col f16");
    test<3>("row.row f32");
    test<4>("col.col f32");
    test<5>("col.row f16");
    test<6>("row.col f32 from f16");
    return 0;
}
