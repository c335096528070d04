// wgmma_fp8.cu - wgmma.mma_async m64n16k32 with f32 accumulators on fp8 (e4m3 x e4m3,
// e5m2 x e5m2, e4m3 x e5m2) as the H100 executes it (sm_90a): A from registers (and, for
// e4m3, from a shared-memory descriptor too), B from a shared-memory descriptor without
// swizzle (the 8-bit layouts of tests/cuda/wgmma_types.cu).
// Random values of four kinds - small exponents, every finite value, every finite value
// with C comparable to the products, and raw bits with NaNs and infinities - each three
// times. Prints every thread's accumulator registers as bits.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cmath>

__device__ uint64_t desc(const void *smem, int lbo, int sbo, int swz)
{
    uint32_t a = (uint32_t)__cvta_generic_to_shared(smem);
    return (uint64_t)((a >> 4) & 0x3fff) | (uint64_t)((lbo >> 4) & 0x3fff) << 16 |
           (uint64_t)((sbo >> 4) & 0x3fff) << 32 | (uint64_t)swz << 62;
}

// kind 0: e4m3 x e4m3, 1: e5m2 x e5m2, 2: e4m3 x e5m2, 3: e4m3 x e4m3 with A in shared memory
// (gAr's 512 words, no swizzle)
__global__ void k(int kind, const uint32_t *gB, const uint32_t *gC, uint32_t *gD, const uint32_t *gAr)
{
    __shared__ __align__(1024) uint32_t sB[4096];
    __shared__ __align__(1024) uint32_t sA[512];
    int tid = threadIdx.x;
    for (int i = tid; i < 4096; i += 128) sB[i] = gB[i];
    for (int i = tid; i < 512; i += 128) sA[i] = gAr[i];
    uint32_t d[8], a[4];
    for (int i = 0; i < 8; i++) d[i] = gC[tid * 8 + i];
    for (int i = 0; i < 4; i++) a[i] = gAr[tid * 4 + i];
    uint64_t db = desc(sB, 128, 256, 0), da = desc(sA, 128, 256, 0);
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#define OUTS "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7])
#define INS "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db)
    if (kind == 0)
        asm volatile("wgmma.mma_async.sync.aligned.m64n16k32.f32.e4m3.e4m3 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9,%10,%11}, %12, 1, 1, 1;\n"
                     : OUTS : INS);
    else if (kind == 1)
        asm volatile("wgmma.mma_async.sync.aligned.m64n16k32.f32.e5m2.e5m2 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9,%10,%11}, %12, 1, 1, 1;\n"
                     : OUTS : INS);
    else if (kind == 2)
        asm volatile("wgmma.mma_async.sync.aligned.m64n16k32.f32.e4m3.e5m2 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9,%10,%11}, %12, 1, 1, 1;\n"
                     : OUTS : INS);
    else
        asm volatile("wgmma.mma_async.sync.aligned.m64n16k32.f32.e4m3.e4m3 {%0,%1,%2,%3,%4,%5,%6,%7}, %8, %9, 1, 1, 1;\n"
                     : OUTS : "l"(da), "l"(db));
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    for (int i = 0; i < 8; i++) gD[tid * 8 + i] = d[i];
}

static uint64_t s = 0xbb67ae8584caa73bull;
static uint32_t rnd() { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return (uint32_t)(s >> 13); }
static uint32_t fbits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

// an fp8 value of the given kind (e5: e5m2)
static uint32_t fp8(int e5, int kind)
{
    uint32_t r = rnd() & 255;
    if (kind == 3) return r;
    if (kind == 0) r = (r & 0x87) | (e5 ? (14 + rnd() % 4) << 2 : (6 + rnd() % 3) << 3);   // near 1
    if (e5 && (r & 0x7c) == 0x7c) r &= ~0x40u;   // no Inf/NaN
    if (!e5 && (r & 0x7f) == 0x7f) r &= ~0x40u;  // no NaN
    return r;
}

int main()
{
    static uint32_t B[4096], C[128 * 8], D[128 * 8], Ar[128 * 4];
    uint32_t *dB, *dC, *dD, *dAr;
    cudaMalloc(&dB, sizeof B); cudaMalloc(&dC, sizeof C); cudaMalloc(&dD, sizeof D); cudaMalloc(&dAr, sizeof Ar);
    static const char *names[4] = { "e4m3", "e5m2", "e4m3e5m2", "e4m3_smemA" };
    for (int kind = 0; kind < 4; kind++)
        for (int vk = 0; vk < 4; vk++)
            for (int rep = 0; rep < 3; rep++) {
                int ae5 = kind == 1, be5 = kind == 1 || kind == 2;
                for (int i = 0; i < 4096; i++) {
                    uint32_t w = 0;
                    for (int e = 0; e < 4; e++) w |= fp8(be5, vk) << (8 * e);
                    B[i] = w;
                }
                for (int t = 0; t < 128; t++) {
                    for (int j = 0; j < 4; j++) {
                        uint32_t v = 0;
                        for (int e = 0; e < 4; e++) v |= fp8(ae5, vk) << (8 * e);
                        Ar[t * 4 + j] = v;
                    }
                    for (int i = 0; i < 8; i++) {
                        float x = vk == 2 ? ldexpf((float)(rnd() % 2048) / 1024.0f - 1.0f, (int)(rnd() % 20))
                                          : ldexpf((float)(rnd() % 2048) / 1024.0f - 1.0f, (int)(rnd() % 40) - 20);
                        C[t * 8 + i] = rep == 0 && vk < 3 ? 0 : fbits(x);
                    }
                }
                cudaMemcpy(dB, B, sizeof B, cudaMemcpyHostToDevice);
                cudaMemcpy(dC, C, sizeof C, cudaMemcpyHostToDevice);
                cudaMemcpy(dAr, Ar, sizeof Ar, cudaMemcpyHostToDevice);
                cudaMemset(dD, 0, sizeof D);
                k<<<1, 128>>>(kind, dB, dC, dD, dAr);
                cudaError_t e = cudaDeviceSynchronize();
                cudaMemcpy(D, dD, sizeof D, cudaMemcpyDeviceToHost);
                printf("== %s kind %d rep %d: %s\n", names[kind], vk, rep, cudaGetErrorName(e));
                for (int t = 0; t < 128; t++) {
                    printf("t%d:", t);
                    for (int i = 0; i < 8; i++) printf(" %08x", D[t * 8 + i]);
                    printf("\n");
                }
            }
    return 0;
}
