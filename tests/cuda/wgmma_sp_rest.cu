// wgmma_sp_rest.cu - sparse wgmma forms beyond tests/cuda/wgmma_sp.cu and wgmma_sp_more.cu, as
// the H100 executes them (sm_90a): m64n16k16 .f32.tf32.tf32 (A and B from shared memory,
// K-major, no swizzle; selector 1) and m64n16k32 .f32.f16.f16 with A from registers
// (selector 0). Coded runs first (A's compressed values are their compressed column + 1, B
// selects one dense column of A into each column of D), then random values. Prints the
// metadata and D as bits.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cmath>
#include <cuda_fp16.h>

__device__ uint64_t desc(const void *smem, int lbo, int sbo)
{
    uint32_t a = (uint32_t)__cvta_generic_to_shared(smem);
    return (uint64_t)((a >> 4) & 0x3fff) | (uint64_t)((lbo >> 4) & 0x3fff) << 16 | (uint64_t)((sbo >> 4) & 0x3fff) << 32;
}

// V 0: tf32 (sA 512 words, sB 256), V 1: f16 with A from registers (gA: 4 words a thread)
template <int V>
__global__ void k(const uint32_t *gA, const uint32_t *gB, const uint32_t *gE, uint32_t *gD)
{
    __shared__ __align__(128) uint32_t sA[512], sB[256];
    int tid = threadIdx.x;
    for (int i = tid; i < 512; i += 128) sA[i] = gA[i];
    for (int i = tid; i < 256; i += 128) sB[i] = gB[i];
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    uint64_t da = desc(sA, 128, 256), db = desc(sB, 128, 512);
    uint32_t e = gE[tid], d[8] = {0, 0, 0, 0, 0, 0, 0, 0}, a[4];
    for (int i = 0; i < 4; i++) a[i] = gA[tid * 4 + i];
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    if (V == 0)
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 0, 0;\n"
                     "wgmma.mma_async.sp.sync.aligned.m64n16k16.f32.tf32.tf32 {%0,%1,%2,%3,%4,%5,%6,%7}, %8, %9, %10, 1, p, 1, 1;\n}\n"
                     : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7])
                     : "l"(da), "l"(db), "r"(e));
    else
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 0, 0;\n"
                     "wgmma.mma_async.sp.sync.aligned.m64n16k32.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9,%10,%11}, %12, %13, 0, p, 1, 1, 0;\n}\n"
                     : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(e));
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    for (int i = 0; i < 8; i++) gD[tid * 8 + i] = d[i];
}

static uint64_t s = 0x1f83d9abfb41bd6bull;
static uint32_t rnd() { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return (uint32_t)(s >> 17); }
static uint32_t fbits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static uint16_t h16(float f) { __half x = __float2half(f); uint16_t u; memcpy(&u, &x, 2); return u; }
static float rval() { return (float)((int)(rnd() % 2001) - 1000) / 64.0f; }

int main()
{
    static const uint32_t nib[6] = { 0x4, 0x8, 0xc, 0x9, 0xd, 0xe }, nib_tf32[2] = { 0x4, 0xe };
    static uint32_t A[512], B[256], E[128], D[128 * 8];
    uint32_t *dA, *dB, *dE, *dD;
    cudaMalloc(&dA, sizeof A); cudaMalloc(&dB, sizeof B); cudaMalloc(&dE, sizeof E); cudaMalloc(&dD, sizeof D);
    for (int v = 0; v < 2; v++) {
        int K = v ? 32 : 16, passes = K / 16;
        for (int hh = 0; hh < passes + 2; hh++) {
            int random = hh >= passes;
            memset(A, 0, sizeof A); memset(B, 0, sizeof B);
            unsigned char *a8 = (unsigned char *)A, *b8 = (unsigned char *)B;
            if (v == 0) {
                for (int m = 0; m < 64; m++)   // 8 compressed tf32 a row
                    for (int c = 0; c < 8; c++) {
                        uint32_t x = random ? fbits(rval()) | (rnd() & 0x1fff) : fbits((float)(c + 1));
                        memcpy(a8 + (m / 8) * 256 + (c / 4) * 128 + (m % 8) * 16 + (c % 4) * 4, &x, 4);
                    }
                for (int n = 0; n < 16; n++)
                    for (int kk = 0; kk < 16; kk++) {
                        uint32_t x = random ? fbits(rval()) | (rnd() & 0x1fff) : fbits(kk == n ? 1.0f : 0.0f);
                        memcpy(b8 + (n / 8) * 512 + (kk / 4) * 128 + (n % 8) * 16 + (kk % 4) * 4, &x, 4);
                    }
            } else {
                for (int t = 0; t < 128; t++)   // A registers: row g + 8(j%2), compressed columns 8(j/2) + 2t4 + e
                    for (int j = 0; j < 4; j++) {
                        int l = t % 32, t4 = l % 4;
                        uint32_t w = 0;
                        for (int e = 0; e < 2; e++) {
                            int c = 8 * (j / 2) + 2 * t4 + e;
                            w |= (uint32_t)h16(random ? rval() : (float)(c + 1)) << (16 * e);
                        }
                        A[t * 4 + j] = w;
                    }
                uint16_t *b16 = (uint16_t *)B;
                for (int n = 0; n < 16; n++)
                    for (int kk = 0; kk < 32; kk++)
                        b16[((n / 8) * 512 + (kk / 8) * 128) / 2 + (n % 8) * 8 + kk % 8] = h16(random ? rval() : (kk == n + 16 * hh ? 1.0f : 0.0f));
            }
            for (int t = 0; t < 128; t++) {
                uint32_t e = 0;
                for (int q = 0; q < 8; q++) e |= (v == 0 ? nib_tf32[rnd() % 2] : nib[rnd() % 6]) << (4 * q);
                E[t] = e;
            }
            cudaMemcpy(dA, A, sizeof A, cudaMemcpyHostToDevice);
            cudaMemcpy(dB, B, sizeof B, cudaMemcpyHostToDevice);
            cudaMemcpy(dE, E, sizeof E, cudaMemcpyHostToDevice);
            cudaMemset(dD, 0, sizeof D);
            if (v == 0) k<0><<<1, 128>>>(dA, dB, dE, dD); else k<1><<<1, 128>>>(dA, dB, dE, dD);
            cudaError_t err = cudaDeviceSynchronize();
            cudaMemcpy(D, dD, sizeof D, cudaMemcpyDeviceToHost);
            printf("== form %d %s%d: %s\n", v, random ? "random" : "h", hh, cudaGetErrorName(err));
            for (int t = 0; t < 128; t++) {
                printf("t%d: e %08x d", t, E[t]);
                for (int i = 0; i < 8; i++) printf(" %08x", D[t * 8 + i]);
                printf("\n");
            }
        }
    }
    return 0;
}
