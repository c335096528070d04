// wgmma_types.cu - wgmma.mma_async on tf32 (m64n16k8, f32 accumulators) and on 8-bit integers
// (m64n16k32, s32 accumulators) as the H100 executes them (sm_90a): A from registers, B from a
// shared-memory descriptor without swizzle and with the 128-byte swizzle; A one-hot (each row
// m selects column m % K) with codes in B's shared memory, so that D shows which element of
// shared memory each (k, n) read; then random values. Prints every thread's accumulator
// registers as bits.
#include <cstdio>
#include <cstdint>
#include <cstring>

__device__ uint64_t desc(const void *smem, int lbo, int sbo, int swz)
{
    uint32_t a = (uint32_t)__cvta_generic_to_shared(smem);
    return (uint64_t)((a >> 4) & 0x3fff) | (uint64_t)((lbo >> 4) & 0x3fff) << 16 |
           (uint64_t)((sbo >> 4) & 0x3fff) << 32 | (uint64_t)swz << 62;
}

// kind 0: tf32, 1: s8 x s8, 2: u8 x s8, 3: s8 x s8 .satfinite
__global__ void k(int kind, const uint32_t *gB, const uint32_t *gC, uint32_t *gD, const uint32_t *gAr,
                  int lbo, int sbo, int swz)
{
    __shared__ __align__(1024) uint32_t sB[4096];
    int tid = threadIdx.x;
    for (int i = tid; i < 4096; i += 128) sB[i] = gB[i];
    uint32_t d[8], a[4];
    for (int i = 0; i < 8; i++) d[i] = gC[tid * 8 + i];
    for (int i = 0; i < 4; i++) a[i] = gAr[tid * 4 + i];
    uint64_t db = desc(sB, lbo, sbo, swz);
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#define OUTS "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7])
#define INS "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db)
    if (kind == 0)
        asm volatile("wgmma.mma_async.sync.aligned.m64n16k8.f32.tf32.tf32 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9,%10,%11}, %12, 1, 1, 1;\n"
                     : OUTS : INS);
    else if (kind == 1)
        asm volatile("wgmma.mma_async.sync.aligned.m64n16k32.s32.s8.s8 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9,%10,%11}, %12, 1;\n"
                     : OUTS : INS);
    else if (kind == 2)
        asm volatile("wgmma.mma_async.sync.aligned.m64n16k32.s32.u8.s8 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9,%10,%11}, %12, 1;\n"
                     : OUTS : INS);
    else
        asm volatile("wgmma.mma_async.sync.aligned.m64n16k32.s32.s8.s8.satfinite {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9,%10,%11}, %12, 1;\n"
                     : OUTS : INS);
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    for (int i = 0; i < 8; i++) gD[tid * 8 + i] = d[i];
}

static uint64_t s = 0x6a09e667f3bcc908ull;
static uint32_t rnd() { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return (uint32_t)(s >> 13); }
static uint32_t fbits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

struct Cfg { const char *name; int kind, lbo, sbo, swz, fill; };   // fill 0: codes (low), 1: codes (high), 2: random
static const Cfg cfgs[] = {
    { "tf32_onehot_none", 0, 128, 256, 0, 0 },   { "tf32_onehot_sw128", 0, 16, 1024, 1, 0 },
    { "tf32_random_none", 0, 128, 256, 0, 2 },   { "s8_onehot_none_lo", 1, 128, 256, 0, 0 },
    { "s8_onehot_none_hi", 1, 128, 256, 0, 1 },  { "s8_onehot_sw128_lo", 1, 16, 1024, 1, 0 },
    { "s8_onehot_sw128_hi", 1, 16, 1024, 1, 1 }, { "s8_random_none", 1, 128, 256, 0, 2 },
    { "u8s8_random_none", 2, 128, 256, 0, 2 },   { "s8_satfinite_random", 3, 128, 256, 0, 3 },
};

int main()
{
    static uint32_t B[4096], C[128 * 8], D[128 * 8], Ar[128 * 4];
    uint32_t *dB, *dC, *dD, *dAr;
    cudaMalloc(&dB, sizeof B); cudaMalloc(&dC, sizeof C); cudaMalloc(&dD, sizeof D); cudaMalloc(&dAr, sizeof Ar);
    for (unsigned ci = 0; ci < sizeof cfgs / sizeof cfgs[0]; ci++) {
        const Cfg &c = cfgs[ci];
        int tf32 = c.kind == 0, K = tf32 ? 8 : 32;
        if (tf32) {
            for (int i = 0; i < 4096; i++)
                B[i] = c.fill == 2 ? rnd() & 0xbfffffffu : fbits((float)i);   // random: no Inf/NaN
        } else {
            for (int i = 0; i < 4096; i++) {   // byte j of the buffer holds a code of j
                uint32_t w = 0;
                for (int e = 0; e < 4; e++) {
                    int j = 4 * i + e;
                    uint32_t b = c.fill == 0 ? j % 128 : c.fill == 1 ? j / 128 : rnd() & 255;
                    w |= b << (8 * e);
                }
                B[i] = w;
            }
        }
        for (int t = 0; t < 128; t++) {
            int l = t % 32, g = l / 4, t4 = l % 4, w = t / 32;
            for (int j = 0; j < 4; j++) {
                uint32_t v = 0;
                if (tf32) {   // a_j: row g + 8(j%2), column t4 + 4(j/2)
                    int row = 16 * w + g + 8 * (j % 2), col = t4 + 4 * (j / 2);
                    v = c.fill == 2 ? rnd() & 0xbfffffffu : fbits(col == row % K ? 1.0f : 0.0f);
                } else {      // a_j: row g + 8(j%2), columns 16(j/2) + 4 t4 + e
                    for (int e = 0; e < 4; e++) {
                        int row = 16 * w + g + 8 * (j % 2), col = 16 * (j / 2) + 4 * t4 + e;
                        uint32_t b = c.fill >= 2 ? rnd() & 255 : (col == row % K ? 1 : 0);
                        v |= b << (8 * e);
                    }
                }
                Ar[t * 4 + j] = v;
            }
            for (int i = 0; i < 8; i++)
                C[t * 8 + i] = c.fill < 2 ? 0 : tf32 ? (rnd() & 0xbfffffffu) : c.fill == 3 ? 0x7ffff000u + (rnd() & 0xfff) : rnd();
        }
        cudaMemcpy(dB, B, sizeof B, cudaMemcpyHostToDevice);
        cudaMemcpy(dC, C, sizeof C, cudaMemcpyHostToDevice);
        cudaMemcpy(dAr, Ar, sizeof Ar, cudaMemcpyHostToDevice);
        cudaMemset(dD, 0, sizeof D);
        k<<<1, 128>>>(c.kind, dB, dC, dD, dAr, c.lbo, c.sbo, c.swz);
        cudaError_t e = cudaDeviceSynchronize();
        cudaMemcpy(D, dD, sizeof D, cudaMemcpyDeviceToHost);
        printf("== %s: %s\n", c.name, cudaGetErrorName(e));
        for (int t = 0; t < 128; t++) {
            printf("t%d:", t);
            for (int i = 0; i < 8; i++) printf(" %08x", D[t * 8 + i]);
            printf("\n");
        }
    }
    return 0;
}
